"""``anthropic-messages``: Anthropic Messages API message lists, and Cline/Roo histories.

A JSON array of ``{role, content}`` messages (Cline's and Roo Code's
``api_conversation_history.json``), an object holding ``messages`` with an
optional ``system`` (a request body), or recorded API traffic.  Each content
block becomes one event; extra fields that clients add (Cline's ``ts``,
``modelInfo``, ``metrics``, per-block ``call_id``/``reasoning_details``)
go into ``meta`` and never stop the import.  See docs/formats/anthropic-messages.md.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import os
import re
from typing import Any, BinaryIO, Iterator

from sessionport import media
from sessionport.context import ReadContext
from sessionport.model import message_event
from sessionport.registry import Importer
from sessionport.formats.providers.cassette import RecordedTraffic
from sessionport.formats.providers.cline import (
    MANIFEST_FIELDS, HISTORY_FILES, UI_MESSAGES, UI_REASONING, client_by_folder, roo_task_metadata, session_manifest, session_messages_id, task_metadata, ui_messages,
)
from sessionport.formats.providers.content import (
    base64_size,
    compact_extras,
    dumps_text,
    iso_from_epoch,
    nonempty_str,
    placeholder,
    render_tool_input,
    text_of,
    url_placeholder,
    web_url,
)
from sessionport.formats.providers.reader import ProviderReader
from sessionport.formats.providers.sniff import ANTHROPIC
from sessionport.formats.providers.sniff import anthropic_messages as sniff

_CLINE_FILES = HISTORY_FILES
# Cline (and its forks) answer a native tool call with a text block that
# names the tool: ``[read_file for 'a.cs'] Result:`` then the output, or
# ``[attempt_completion] Result:`` (its ``toolDescription()``).  What follows
# ``for`` is the call's own argument and may run over several lines (an
# ``ask_followup_question``'s question in Markdown), so the label ends at the
# first ``] Result:``.
_CLINE_RESULT = re.compile(r"\[([A-Za-z0-9_.:-]+)(?: for .*?)?\] Result:", re.DOTALL)
# Labels that are not the tool's name: ``use_subagents`` is answered by
# ``[subagents] Result:`` (real tasks of 2026-04/05).
_CLINE_LABELS = {"subagents": "use_subagents"}
# Text blocks a classic Cline task puts in the user's turn itself, never typed
# by the user (real tasks of 2026-01 and 2026-04/05): the editor state after
# every turn, the todo-list reminders, the note that opens a resumed task and
# the reply to an answer that used no tool.  They are read as injected.
_CLINE_INJECTED = (
    ("<environment_details>", "environment_details"),
    ("# task_progress ", "task_progress"),
    ("# TODO LIST UPDATE REQUIRED", "task_progress"),
    ("[TASK RESUMPTION]", "task_resumption"),
    ("[ERROR] You did not use a tool in your previous response", "no_tool_used"),
    # what a hook (TaskStart, UserPromptSubmit, TaskResume, PreToolUse,
    # PostToolUse...) adds to the turn, ``<hook_context source="…">``, a
    # block of its own; Cline's SYSTEM_CONTENT_MARKERS name it system content
    ("<hook_context", "hook_context"),
)
_MESSAGE_KEYS = ("role", "content")
_SERVER_RESULTS = re.compile(r"^[a-z_]+_tool_result$")


def _source_placeholder(kind: str, source: Any, label: str | None = None) -> str:
    if not isinstance(source, dict):
        return placeholder(kind, label=label)
    stype = source.get("type")
    media = source.get("media_type") if isinstance(source.get("media_type"), str) else None
    if stype == "base64":
        return placeholder(kind, media, base64_size(source.get("data")), label)
    if stype == "url":
        return url_placeholder(kind, source.get("url"), media)
    if stype == "file":
        names = [n for n in (label, source.get("file_id")) if isinstance(n, str) and n]
        return placeholder(kind, media, label=", ".join(dict.fromkeys(names)) or None)
    if stype == "text":
        head = placeholder(kind, media or "text/plain", label=label)
        return f"{head}\n{text_of(source.get('data'))}"
    if stype == "content":
        return f"{placeholder(kind, label=label)}\n{_blocks_text(source.get('content'))}"
    return placeholder(kind, media, label=label)


def _is_reference(source: Any) -> bool:
    """Whether an image's or document's source names its bytes (a URL, a
    Files API id) rather than holding them."""
    if not isinstance(source, dict):
        return False
    if source.get("type") == "url":
        return isinstance(source.get("url"), str) and bool(source["url"]) and not source["url"].startswith("data:")
    return source.get("type") == "file" and isinstance(source.get("file_id"), str) and bool(source["file_id"])


def _search_result_text(block: dict) -> str:
    return f"[search_result: {block.get('title', '')} {block.get('source', '')}]\n{_blocks_text(block.get('content'))}"


def search_result_kept(block: dict) -> dict:
    """A ``search_result`` block for ``meta``: its ``source`` (a URL or a
    name) under ``reference``, a key redaction reads (``source`` it passes by
    as a format's name), the other keys as they are."""
    return {"type": "search_result", "reference": block.get("source"), **{k: v for k, v in block.items() if k not in ("type", "source")}}


def _has_search_result(content: Any) -> bool:
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "search_result" for b in content)


def _blocks_text(content: Any) -> str:
    """Readable text of a tool_result's or document's content blocks."""
    if not isinstance(content, list):
        return text_of(content)
    pieces = []
    for block in content:
        if not isinstance(block, dict):
            pieces.append(text_of(block))
            continue
        btype = block.get("type")
        if btype == "text":
            pieces.append(text_of(block.get("text")))
        elif btype == "image" and "source" not in block and "data" in block:
            pieces.append(placeholder("image", block.get("mediaType"), base64_size(block.get("data"))))  # Cline 3
        elif btype == "file" and "path" in block:
            pieces.append(_cline_file_text(block))  # Cline 3
        elif btype in ("image", "document"):
            pieces.append(_source_placeholder(btype, block.get("source"), block.get("title")))
        elif btype == "tool_reference":
            pieces.append(f"[tool_reference: {block.get('tool_name', '')}]")
        elif btype == "search_result":
            pieces.append(_search_result_text(block))
        else:
            pieces.append(text_of(block))
    return "\n".join(pieces)


def _images(blocks: list) -> list:
    """The base64 images among content blocks (``--keep-images``)."""
    found = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "image" and isinstance(block.get("source"), dict):
            source = block["source"]
            entry = media.from_base64(source.get("media_type"), source.get("data")) if source.get("type") == "base64" else None
            if entry is not None:
                found.append(entry)
        elif isinstance(block, dict) and block.get("type") == "image" and "source" not in block:
            entry = media.from_base64(block.get("mediaType"), block.get("data"))  # Cline 3's own image block
            if entry is not None:
                found.append(entry)
    return found


def _cline_file_text(block: dict) -> str:
    """Cline 3's ``file`` block (a file the user attached, read into the
    prompt): ``[file: path]`` then its content."""
    path = block.get("path")
    head = placeholder("file", label=path if isinstance(path, str) else None)
    content = block.get("content")
    return f"{head}\n{content}" if isinstance(content, str) and content else head


def _cline_media_text(block: dict) -> str:
    """Cline 3's ``media`` block (media a model generated): its modality,
    type and size or URL, never the payload."""
    item = block.get("media") if isinstance(block.get("media"), dict) else {}
    kind = item.get("modality") if isinstance(item.get("modality"), str) else "media"
    source = item.get("source") if isinstance(item.get("source"), dict) else {}
    if source.get("type") == "base64":
        return placeholder(kind, item.get("mediaType"), base64_size(source.get("data")), "generated")
    if source.get("type") == "url":
        return url_placeholder(kind, source.get("url"), item.get("mediaType") if isinstance(item.get("mediaType"), str) else None)
    return placeholder(kind, item.get("mediaType"), label=source.get("artifactId"))


# Roo Code (3.4x, 2026) keeps its history as AI SDK messages in a versioned
# envelope, ``{"version": 2, "messages": [...]}``: assistant ``tool-call``
# parts, ``role: "tool"`` messages of ``tool-result`` parts whose ``output``
# is ``{type: "text" | "json" | "error-text" | "error-json", value}`` or
# ``{type: "content", value: [{type: "text", text} | {type: "media", data,
# mediaType}]}``, ``reasoning`` parts with the signature in
# ``providerOptions``, ``image`` parts ``{image, mediaType}`` and ``file``
# parts ``{data, mediaType, filename}``.
ROO_HISTORY_VERSION = 2


def _sdk_payload_text(kind: str, payload: Any, media_type: Any, label: Any = None) -> str:
    """The placeholder of an AI SDK image or file payload: a data or web URL,
    or bare base64 (never copied)."""
    mime = media_type if isinstance(media_type, str) and media_type else None
    label = label if isinstance(label, str) and label else None
    if isinstance(payload, str) and (payload.startswith("data:") or "://" in payload[:16]):
        return url_placeholder(kind, payload, mime)
    if isinstance(payload, str):
        head = placeholder(kind, mime, base64_size(payload), label)
        text = _text_file(payload, mime) if kind == "file" else None
        return f"{head}\n{text}" if text else head
    return placeholder(kind, mime, label=label)


_TEXT_FILE_LIMIT = 1 << 20


def _text_file(data: str, mime: str | None) -> str | None:
    """The content of a base64 ``text/*`` file part (at most 1 MB), read as
    a text document's is; None for other types or undecodable data."""
    if not mime or not mime.startswith("text/") or len(data) > _TEXT_FILE_LIMIT * 4 // 3 + 4:
        return None
    try:
        return base64.b64decode(data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _sdk_payload_media(payload: Any, media_type: Any) -> dict | None:
    """The media entry of an AI SDK image payload (``--keep-images``)."""
    if isinstance(payload, str) and payload.startswith("data:"):
        return media.from_data_url(payload)
    if isinstance(payload, str) and "://" not in payload[:16]:
        return media.from_base64(media_type, payload)
    return None


def _sdk_output_kept(output: Any) -> dict | None:
    """An AI SDK tool output whose shape its text does not say (``json``,
    ``error-json``, ``execution-denied``, ``content`` without inline bytes),
    kept whole; None for text outputs and for content that holds media data
    (readers keep no media bytes)."""
    if not isinstance(output, dict):
        return None
    kind = output.get("type")
    if kind in ("json", "error-json", "execution-denied"):
        return output
    if kind == "content" and isinstance(output.get("value"), list):
        inline = any(isinstance(i, dict) and i.get("type") in ("media", "image-data", "file-data") for i in output["value"])
        return None if inline else output
    return None


def _sdk_output(output: Any) -> tuple[str, bool | None, list]:
    """Text, error flag and base64 images of an AI SDK ``tool-result`` output.
    Roo marks a failed tool by starting its text with ``[ERROR]``."""
    if isinstance(output, str):
        return output, output.lstrip().startswith("[ERROR]") or None, []
    if not isinstance(output, dict):
        return dumps_text(output) if output is not None else "", None, []
    kind, value = output.get("type"), output.get("value")
    if kind in ("text", "error-text"):
        text = text_of(value)
    elif kind in ("json", "error-json"):
        text = value if isinstance(value, str) else dumps_text(value)
    elif kind == "content" and isinstance(value, list):
        pieces, images = [], []
        for item in value:
            if not isinstance(item, dict):
                pieces.append(text_of(item))
            elif item.get("type") == "text":
                pieces.append(text_of(item.get("text")))
            elif item.get("type") in ("media", "image-data", "file-data"):
                mime = item.get("mediaType")
                kind_name = "image" if isinstance(mime, str) and mime.startswith("image/") else "file"
                pieces.append(_sdk_payload_text(kind_name, item.get("data"), mime, item.get("filename")))
                entry = media.from_base64(mime, item.get("data"))
                if entry is not None:
                    images.append(entry)
            elif item.get("type") in ("image-url", "file-url"):
                pieces.append(url_placeholder("image" if item["type"] == "image-url" else "file", item.get("url")))
            else:
                pieces.append(dumps_text(item))
        text = "\n".join(pieces)
        error = bool(pieces) and pieces[0].lstrip().startswith("[ERROR]") or None
        return text, error, images
    elif kind == "execution-denied":
        reason = output.get("reason")
        return "[execution denied]" + (f" {reason}" if isinstance(reason, str) and reason else ""), True, []
    else:
        text = dumps_text(output)
    if kind in ("error-text", "error-json"):
        return text, True, []
    return text, text.lstrip().startswith("[ERROR]") or None, []


class AnthropicReader(ProviderReader):
    source = ANTHROPIC
    keys = ("messages",)

    def __init__(self, ctx: ReadContext) -> None:
        super().__init__(ctx)
        self.cline3 = False  # a Cline 3 session file: its messages' metadata marks notices
        self.cline_history = False  # a classic Cline task's history: its harness texts are marked
        # The tool calls of the last assistant message not answered yet: a
        # Cline result text answers the oldest open call of its tool.
        self.open_calls: list[tuple[str, str | None]] = []
        self.text_results = 0
        self.usage: dict[str, int] | None = None
        self.requests: list | None = None  # of ui_messages.json, read at the first message
        self.ui_notices: list = []  # its errors not given yet, in file order
        self.ui_timed: list = []  # those placed by their time (Roo Code writes no history index)
        self.ui_reasoning_known = 0  # its reasoning texts left out: the history holds the message's reasoning
        self.ui_reasoning_unplaced = 0  # and those left out as the history's messages give no time
        self.timed_history = False
        self.next_request = 0
        self.unsplit = 0  # requests whose cache reads and writes are not known

    def end(self) -> dict:
        if self.text_results:
            self.notes.append(
                f"{self.text_results} tool result(s) read from Cline's `[tool] Result:` texts "
                "(each answers the open call of that tool in the assistant message before it)"
            )
        usage, self.usage = self.usage, None
        if usage is not None and self.unsplit:
            # A total of the cache reads of some requests only would read as all of them.
            usage.pop("cached_input_tokens", None)
            usage.pop("cache_creation_input_tokens", None)
            if self.requests:
                self.notes.append(f"the cache reads and writes of {self.unsplit} request(s) are not in {UI_MESSAGES}: the totals give none")
        self.unsplit = 0
        self.open_calls, self.text_results = [], 0
        self.requests, self.next_request = None, 0
        self.ui_notices = []
        self.ui_timed = []
        if self.ui_reasoning_known:
            self.notes.append(
                f"{self.ui_reasoning_known} reasoning text(s) of {UI_MESSAGES} left out: the assistant message after each holds its own reasoning"
            )
        if self.ui_reasoning_unplaced:
            self.notes.append(f"{self.ui_reasoning_unplaced} reasoning text(s) of {UI_MESSAGES} left out: the history's messages have no time to place them by")
        self.ui_reasoning_known = self.ui_reasoning_unplaced = 0
        self.timed_history = False
        event = super().end()
        if usage is not None:
            event = {"type": "end", "usage": usage, **{k: v for k, v in event.items() if k != "type"}}
        return event

    def traffic(self) -> RecordedTraffic:
        return RecordedTraffic(
            matches_uri=lambda uri: "anthropic" in uri or uri.rstrip("/").endswith("/v1/messages"),
            history_key="messages",
            reply_items=lambda body: [body] if isinstance(body, dict) and isinstance(body.get("content"), list) else [],
        )

    def default_session_id(self) -> str | None:
        path = self.ctx.path
        if path and os.path.basename(path) in _CLINE_FILES:
            return os.path.basename(os.path.dirname(os.path.abspath(path))) or None
        if path and session_messages_id(path):
            return session_messages_id(path)
        return super().default_session_id()

    def session(self, header: dict, session_id: str | None = None, created: str | None = None) -> dict:
        cline3 = _is_cline_session(header)
        self.cline3 = cline3
        self.cline_history = bool(self.ctx.path) and os.path.basename(self.ctx.path) in _CLINE_FILES
        if cline3 and session_id is None and isinstance(header.get("sessionId"), str) and header["sessionId"]:
            session_id = header["sessionId"]
        sid = session_id or self.default_session_id()
        if created is None and sid and sid.isdigit():
            created = iso_from_epoch(int(sid))  # Cline task ids are epoch milliseconds
        elif created is None and cline3:
            manifest = session_manifest(self.ctx.path) if self.ctx.path else {}
            if isinstance(manifest.get("started_at"), str) and manifest["started_at"]:
                created = manifest["started_at"]
            elif sid and sid.partition("_")[0].isdigit():
                created = iso_from_epoch(int(sid.partition("_")[0]))  # Cline 3 ids: ``<epoch ms>_<random>``
        return super().session(header, sid, created)

    def session_metadata(self, header: dict) -> dict:
        metadata: dict = {}
        if _is_roo_history(header):
            metadata["client"] = "roo-code"  # only Roo Code writes the versioned envelope
            metadata["historyVersion"] = header["version"]
        elif self.ctx.path and os.path.basename(self.ctx.path) in _CLINE_FILES or _is_cline_session(header):
            metadata["client"] = "cline"
        if self.ctx.path and os.path.basename(self.ctx.path) in _CLINE_FILES:
            found = task_metadata(self.ctx.path, self.ctx)
            if roo_task_metadata(found):
                metadata["client"] = "roo-code"  # a plain-array history of Roo Code's, told by its file records
            metadata.update(found)
            by_folder = client_by_folder(self.ctx.path)
            if by_folder is not None:
                metadata["client"] = by_folder  # Kilo Code, a fork of Roo Code, writes the same files
        if _is_cline_session(header):
            for key, name in (("agent", "agent"), ("taskType", "taskType"), ("origin", "origin"), ("updated_at", "updatedAt")):
                if header.get(key) is not None:
                    metadata[name] = header[key]
            manifest = session_manifest(self.ctx.path) if self.ctx.path else {}
            for key, name in MANIFEST_FIELDS:
                if isinstance(manifest.get(key), str) and manifest[key]:
                    metadata[name] = manifest[key]
        metadata.update(super().session_metadata(header))
        return metadata

    def header_events(self, header: dict) -> Iterator[dict]:
        prompt = header.get("system_prompt")
        if isinstance(prompt, str) and prompt:
            # Cline 3 writes its system prompt after the messages.
            yield message_event("system", prompt, meta={"kind": "text", "sourceField": "system_prompt"})
        system = header.get("system")
        if isinstance(system, str) and system:
            yield message_event("system", system, meta={"kind": "text"})
        elif isinstance(system, list):
            for block in system:
                if isinstance(block, dict) and block.get("type", "text") == "text":
                    extra = compact_extras(block, ("type", "text"))
                    yield message_event("system", text_of(block.get("text")), meta=_meta("text", extra=extra))
                elif isinstance(block, str):
                    yield message_event("system", block, meta={"kind": "text"})

    def _read_ui_messages(self) -> None:
        if self.requests is None:
            path = self.ctx.path
            found = ui_messages(path, self.ctx) if path and os.path.basename(path) in _CLINE_FILES else None
            self.requests = found.requests if found else []
            notices = found.notices if found else []
            self.ui_notices = sorted((n for n in notices if n.after is not None), key=lambda n: n.after, reverse=True)
            self.ui_timed = sorted((n for n in notices if n.after is None), key=lambda n: n.ts, reverse=True)

    def _notices_until(self, index: int | None) -> Iterator[dict]:
        """The errors of ``ui_messages.json`` shown after the history's
        message ``index - 1`` (all that are left when ``index`` is None)."""
        notices = self.ui_notices
        while notices and (index is None or notices[-1].after < index):
            yield self._notice_event(notices.pop())
        if index is None:
            while self.ui_timed:
                notice = self.ui_timed.pop()
                if notice.ask == UI_REASONING and not self.timed_history:
                    self.ui_reasoning_unplaced += 1  # no message time to place it by, nor to tell it is not a copy
                    continue
                yield self._notice_event(notice)

    def _notices_before(self, item: dict) -> Iterator[dict]:
        """What ``ui_messages.json`` shows, placed by time (Roo Code's
        errors, the reasoning the history lacks), before the history message
        ``item`` written at its ``ts`` (epoch ms)."""
        timed, ts = self.ui_timed, item.get("ts")
        if type(ts) is int:
            self.timed_history = True
        thought = None
        while timed and type(ts) is int and timed[-1].ts < ts:
            notice = timed.pop()
            if notice.ask == UI_REASONING:
                if thought is None:
                    thought = _holds_reasoning(item)
                if thought:
                    self.ui_reasoning_known += 1
                    continue
            yield self._notice_event(notice)

    @staticmethod
    def _notice_event(notice) -> dict:
        if notice.ask == UI_REASONING:
            return message_event(
                "assistant",
                notice.text,
                timestamp=iso_from_epoch(notice.ts),
                meta={"kind": "thinking", "sourceFile": UI_MESSAGES, "uiMessage": {"type": "say", "say": UI_REASONING}},
            )
        return message_event(
            "system",
            notice.text,
            timestamp=iso_from_epoch(notice.ts),
            isError=True,
            meta={"kind": "text", "notice": "error", "sourceFile": UI_MESSAGES, "uiMessage": {"type": notice.type, notice.type: notice.ask, **notice.detail}},
        )

    def tail_events(self, document: dict, items_seen: int) -> Iterator[dict]:
        return self._notices_until(None)

    def item_events(self, item: Any, index: int) -> Iterator[dict]:
        if self.requests is None:
            self._read_ui_messages()
        if self.ui_notices:
            yield from self._notices_until(index)
        if self.ui_timed and isinstance(item, dict):
            yield from self._notices_before(item)
        if not isinstance(item, dict):
            self.ctx.bad_record(f"expected a message object, found {type(item).__name__}", path=f"messages[{index}]")
            return
        role = item.get("role")
        if role is None and item.get("type") == "reasoning":
            # Roo Code stores encrypted reasoning as a role-less list item.
            stamp = iso_from_epoch(item.get("ts"))
            for event in self._reasoning(item):
                if stamp:
                    event["timestamp"] = stamp
                    event = _reorder(event)
                yield event
            return
        if role == "tool" and _tool_results_only(item.get("content")):
            pass  # an AI SDK tool message (Roo Code's v2 history): its tool-result parts
        elif role not in ("user", "assistant", "system"):
            self.ctx.bad_record(
                f"expected role user, assistant or system (or a tool message of tool-result parts), found {role!r}",
                path=f"messages[{index}].role",
                hint="use --skip-bad to skip such messages, or --from to read another format",
            )
            return
        common = self._message_fields(item)
        content = item.get("content")
        first = True
        if isinstance(content, str):
            events: Iterator[dict] = iter([message_event(role, content, meta={"kind": "text"})] if content or role != "assistant" else [])
        elif isinstance(content, list):
            events = self._blocks(role, content, index)
        else:
            events = iter(())
            if content is not None:
                self.ctx.bad_record(f"expected content as a string or a list, found {type(content).__name__}", path=f"messages[{index}].content")
        reasoning = item.get("reasoning_content")
        if role == "assistant" and isinstance(reasoning, str) and reasoning and not _has_reasoning(content):
            # Roo Code keeps DeepSeek's / Z.ai's interleaved thinking on the
            # message (``reasoning_content``), not as a block.
            thought = message_event("assistant", reasoning, meta={"kind": "thinking", "sourceField": "reasoning_content"})
            events = itertools.chain([thought], events)
            common.get("extra", {}).pop("reasoning_content", None)
            if "extra" in common and not common["extra"]:
                del common["extra"]
        shown = _cline3_marking(item.get("metadata"), item.get("compactionSummary") is True) if self.cline3 else None
        if shown is None and self.cline_history:
            shown = _roo_marking(item)
        if shown is not None and shown.get("boundary") is not None:
            boundary = shown["boundary"]
            if common.get("timestamp"):
                boundary["timestamp"] = common["timestamp"]
                boundary = _reorder(boundary)
            yield boundary
        for event in events:
            if shown is not None:
                event = _cline3_marked(event, shown)
            if common.get("timestamp"):
                event.setdefault("timestamp", common["timestamp"])
                event = _reorder(event)
            meta = event.setdefault("meta", {})
            if self.model and (event["role"] == "assistant" or meta.get("kind") == "tool_use"):
                meta.setdefault("model", self.model)
            if common.get("model"):
                meta["model"] = common["model"]
            if first and common.get("extra"):
                meta["message"] = common["extra"]
            if first and common.get("usage"):
                meta["usage"] = common["usage"]
                self._add_usage(common["usage"])
            first = False
            yield event

    def _message_fields(self, item: dict) -> dict:
        fields: dict = {}
        stamp = iso_from_epoch(item.get("ts"))
        if stamp:
            fields["timestamp"] = stamp
        info = item.get("modelInfo")
        if isinstance(info, dict) and isinstance(info.get("modelId"), str):
            fields["model"] = info["modelId"]
        elif isinstance(info, dict) and isinstance(info.get("id"), str) and info["id"]:
            fields["model"] = info["id"]  # Cline 3: {id, provider, family}
        extra = compact_extras(item, _MESSAGE_KEYS)
        if extra:
            fields["extra"] = extra
        usage = _cline_usage(item.get("metrics"))
        if usage is not None:
            fields["usage"] = self._split_cache(usage, item["metrics"]["tokens"])
        else:
            usage = _cline3_usage(item.get("metrics"))
            if usage is not None:
                fields["usage"] = usage
        return fields

    def _split_cache(self, usage: dict[str, int], tokens: dict) -> dict[str, int]:
        """``usage`` with the cache reads and writes of its request, when
        the next requests of ``ui_messages.json`` hold one with the same
        counts (a request that failed or was cancelled has none)."""
        self._read_ui_messages()
        prompt, cached, completion = (tokens.get(k, 0) for k in ("prompt", "cached", "completion"))
        for number in range(self.next_request, len(self.requests)):
            request = self.requests[number]
            if (request.tokens_in, request.tokens_out, request.cache_writes + request.cache_reads) == (prompt, completion, cached):
                self.next_request = number + 1
                return {
                    "input_tokens": usage["input_tokens"],
                    "cached_input_tokens": request.cache_reads,
                    "output_tokens": usage["output_tokens"],
                    "total_tokens": usage["total_tokens"],
                    "cache_creation_input_tokens": request.cache_writes,
                }
        self.unsplit += 1
        return usage

    def _add_usage(self, usage: dict[str, int]) -> None:
        if self.usage is None:
            self.usage = dict.fromkeys(usage, 0)
        for key, value in usage.items():
            self.usage[key] = self.usage.get(key, 0) + value

    def _blocks(self, role: str, content: list, index: int) -> Iterator[dict]:
        if role == "assistant":
            self.open_calls = []  # calls left open by an earlier message are never answered
        for number, block in enumerate(content):
            if isinstance(block, str):
                yield message_event(role, block, meta={"kind": "text"})
                continue
            if not isinstance(block, dict):
                self.ctx.bad_record(f"expected a content block object, found {type(block).__name__}", path=f"messages[{index}].content[{number}]")
                continue
            yield from self._block(role, block)

    def _block(self, role: str, block: dict) -> Iterator[dict]:
        btype = block.get("type")
        if btype == "text":
            text = text_of(block.get("text"))
            extra = compact_extras(block, ("type", "text"))
            call = self._answered_call(text) if role == "user" and self.open_calls and text[:1] == "[" else None
            if call is not None:
                self.text_results += 1
                # a call without an id is answered by its tool's name
                yield message_event(
                    "tool", text, toolName=call[0] if call[1] is None else None, toolCallId=call[1], meta=_meta("tool_result", extra=extra)
                )
                return
            citations = extra.pop("citations", None) if extra else None
            meta = _meta("text", extra=extra or None)
            if isinstance(citations, list) and citations:
                # what the text cites (a search result, a document, a web page): written back on it;
                # a location's source under "reference", a key redaction reads
                meta["citations"] = [{"reference" if k == "source" else k: v for k, v in c.items()} if isinstance(c, dict) else c
                                     for c in citations]
            elif citations is not None:
                meta.setdefault("extra", {})["citations"] = citations
            if role == "user" and (self.cline_history or self.cline3):
                injected = _cline_injected(text)
                if injected is not None:
                    meta["injected"] = True
                    meta["injectedKind"] = injected
            yield message_event(role, text, meta=meta)
        elif btype == "image" and "source" not in block and "data" in block:
            # Cline 3: {type, data, mediaType}
            text = placeholder("image", block.get("mediaType"), base64_size(block.get("data")))
            extra = compact_extras(block, ("type", "data", "mediaType"))
            event = message_event(role, text, meta=_meta("text", extra=extra, attachment="image"))
            if self.ctx.options.get("keep_images"):
                media.attach(event, _images([block]))
            yield event
        elif btype == "file" and "path" in block:
            extra = compact_extras(block, ("type", "path", "content"))
            meta = _meta("text", extra=extra, attachment="file")
            if isinstance(block.get("path"), str):
                meta["path"] = block["path"]
            yield message_event(role, _cline_file_text(block), meta=meta)
        elif btype == "media" and isinstance(block.get("media"), dict):
            item = block["media"]
            extra = {k: v for k, v in item.items() if k in ("id", "modality", "mediaType")}
            yield message_event(role, _cline_media_text(block), meta=_meta("text", extra=extra or None, attachment="media"))
        elif btype == "image" and "source" not in block and "image" in block:
            # AI SDK (Roo Code's v2 history): {type, image, mediaType}
            text = _sdk_payload_text("image", block.get("image"), block.get("mediaType"))
            extra = compact_extras(block, ("type", "image", "mediaType"))
            meta = _meta("text", extra=extra, attachment="image")
            if web_url(block.get("image")) is not None:
                meta["mediaRef"] = block  # an AI SDK image part named by its URL: written back as it is
            event = message_event(role, text, meta=meta)
            if self.ctx.options.get("keep_images"):
                entry = _sdk_payload_media(block.get("image"), block.get("mediaType"))
                media.attach(event, [entry] if entry is not None else [])
            yield event
        elif btype == "file" and "data" in block and "path" not in block:
            # AI SDK: {type, data, mediaType, filename}
            mime = block.get("mediaType")
            kind = "image" if isinstance(mime, str) and mime.startswith("image/") else "file"
            text = _sdk_payload_text(kind, block.get("data"), mime, block.get("filename"))
            extra = compact_extras(block, ("type", "data", "mediaType", "filename"))
            meta = _meta("text", extra=extra, attachment="file")
            if web_url(block.get("data")) is not None:
                meta["mediaRef"] = block  # an AI SDK file part named by its URL
            if isinstance(block.get("filename"), str) and block["filename"]:
                meta["fileName"] = block["filename"]
            event = message_event(role, text, meta=meta)
            if kind == "image" and self.ctx.options.get("keep_images"):
                entry = _sdk_payload_media(block.get("data"), mime)
                media.attach(event, [entry] if entry is not None else [])
            yield event
        elif btype == "tool-call":
            # AI SDK: {type, toolCallId, toolName, input, providerOptions}
            block = {"type": "tool_use", "id": block.get("toolCallId"), "name": block.get("toolName"), "input": block.get("input"),
                     **{k: v for k, v in block.items() if k not in ("type", "toolCallId", "toolName", "input")}}
            yield self._tool_use(block, server=block.get("providerExecuted") is True)
        elif btype == "tool-result":
            text, is_error, images = _sdk_output(block.get("output", block.get("result")))
            if self.placeholder_result(text, "placeholder tool_result"):
                return
            call_id = nonempty_str(block.get("toolCallId"))
            self._close_call(call_id)
            extra = compact_extras(block, ("type", "toolCallId", "toolName", "output", "result"))
            meta = _meta("tool_result", extra=extra)
            kept = _sdk_output_kept(block.get("output"))
            if kept is not None:
                meta["sdkOutput"] = kept  # its shape, for Roo Code's history written back
            event = message_event(
                "tool", text, toolName=nonempty_str(block.get("toolName")), toolCallId=call_id, isError=is_error, meta=meta
            )
            if self.ctx.options.get("keep_images"):
                media.attach(event, images)
            yield event
        elif btype == "search_result":
            # a search result given to the model to cite (search_result_location citations)
            meta = _meta("text")
            meta["searchResult"] = search_result_kept(block)
            yield message_event(role, _search_result_text(block), meta=meta)
        elif btype in ("image", "document"):
            text = _source_placeholder(btype, block.get("source"), block.get("title") if isinstance(block.get("title"), str) else None)
            extra = compact_extras(block, ("type", "source", "title"))
            meta = _meta("text", extra=extra, attachment=btype)
            if _is_reference(block.get("source")):
                # a URL or a Files API id, no bytes: written back as it was; the
                # source under "reference" (a key redaction reads, unlike "source")
                meta["mediaRef"] = {"type": btype, "reference": block["source"],
                                    **{k: v for k, v in block.items() if k not in ("type", "source")}}
            event = message_event(role, text, meta=meta)
            if btype == "image" and self.ctx.options.get("keep_images"):
                media.attach(event, _images([block]))
            yield event
        elif btype == "thinking":
            meta = _meta("thinking", extra=compact_extras(block, ("type", "thinking", "signature")))
            if isinstance(block.get("signature"), str):
                meta["signature"] = block["signature"]
            yield message_event("assistant", text_of(block.get("thinking")), meta=meta)
        elif btype == "redacted_thinking":
            yield message_event("assistant", "", meta={"kind": "thinking", "redactedThinking": block.get("data")})
        elif btype in ("tool_use", "server_tool_use", "mcp_tool_use"):
            # mcp_tool_use: a call the API's MCP connector made to a remote
            # server (``server_name``), answered by an ``mcp_tool_result``.
            yield self._tool_use(block, server=btype != "tool_use")
        elif btype == "tool_result":
            text = _blocks_text(block.get("content"))
            if self.placeholder_result(text, "placeholder tool_result"):
                return
            extra = compact_extras(block, ("type", "tool_use_id", "content", "is_error"))
            is_error = block.get("is_error") if isinstance(block.get("is_error"), bool) else None
            self._close_call(block.get("tool_use_id"))
            meta = _meta("tool_result", extra=extra)
            if _has_search_result(block.get("content")):
                # a RAG tool's results, which the model cites: the blocks are kept to be written back
                meta["resultContent"] = [search_result_kept(b) if isinstance(b, dict) and b.get("type") == "search_result" else b
                                         for b in block["content"]]
            event = message_event("tool", text, toolCallId=nonempty_str(block.get("tool_use_id")), isError=is_error, meta=meta)
            if self.ctx.options.get("keep_images") and isinstance(block.get("content"), list):
                media.attach(event, _images(block["content"]))
            yield event
        elif isinstance(btype, str) and _SERVER_RESULTS.match(btype):
            content = block.get("content")
            readable = isinstance(content, list) and all(isinstance(b, dict) and b.get("type") in ("text", "image", "document") for b in content)
            if isinstance(content, str) and btype == "mcp_tool_result":
                text = content  # its content is a string or text blocks
            else:
                text = _blocks_text(content) if readable else dumps_text(content)
            # mcp_tool_result says whether the call failed, as a tool_result does.
            is_error = block.get("is_error") if isinstance(block.get("is_error"), bool) else None
            yield message_event(
                "tool", text, toolCallId=nonempty_str(block.get("tool_use_id")), isError=is_error, meta=_meta("tool_result", extra={"blockType": btype})
            )
        elif btype == "container_upload":
            # A file (by its Files API id) put in the code-execution container.
            file_id = nonempty_str(block.get("file_id"))
            extra = compact_extras(block, ("type", "file_id"))
            meta = _meta("text", extra=extra, attachment=btype)
            if file_id:
                meta["fileId"] = file_id
            yield message_event(role, placeholder("file", label=file_id), meta=meta)
        elif btype == "mid_conv_system":
            # system instructions given mid-conversation (a beta block, the trailing block of a
            # user turn: Claude Code sends its agent and skill lists so to the Claude 5 models)
            content = block.get("content")
            items = content if isinstance(content, list) else [content]
            texts = [text_of(b.get("text")) if isinstance(b, dict) else text_of(b) for b in items
                     if isinstance(b, str) or (isinstance(b, dict) and b.get("type", "text") == "text")]
            meta = _meta("text", extra=compact_extras(block, ("type", "content")))
            meta["midConvSystem"] = True
            others = [b for b in items if isinstance(b, dict) and b.get("type", "text") != "text"]
            if others:
                meta["midConvContent"] = content  # tool additions or removals beside the text: kept whole
            label = ", ".join(sorted({str(b.get("type")) for b in others}))
            text = "\n\n".join(t for t in texts if t) or f"[mid_conv_system: {label or 'empty'}]"
            yield message_event("system", text, meta=meta)
        elif btype == "compaction":
            # The server's summary of the turns before it (null when the
            # summary failed); the signature and encrypted part are kept.
            content = block.get("content")
            text = content if isinstance(content, str) and content else "[compaction: no summary]"
            extra = compact_extras(block, ("type", "content"))
            yield message_event("system", text, meta=_meta("compaction", extra=extra))
        elif btype == "reasoning":
            yield from self._reasoning(block)
        elif btype == "thoughtSignature":
            yield message_event("assistant", "", meta={"kind": "thinking", "thoughtSignature": block.get("thoughtSignature")})
        else:
            yield message_event(role, placeholder(str(btype)), meta={"kind": "text", "block": block})

    def _answered_call(self, text: str) -> tuple[str, str | None] | None:
        """The open call a Cline result text answers, taken off the open
        list; None when the text names no open call's tool."""
        found = _CLINE_RESULT.match(text)
        if found is None:
            return None
        name = found.group(1)
        names = (name, _CLINE_LABELS[name]) if name in _CLINE_LABELS else (name,)
        for number, call in enumerate(self.open_calls):
            if call[0] in names:
                return self.open_calls.pop(number)
        return None

    def _close_call(self, call_id: Any) -> None:
        for number, call in enumerate(self.open_calls):
            if call[1] is not None and call[1] == call_id:
                del self.open_calls[number]
                return

    def _tool_use(self, block: dict, server: bool) -> dict:
        if not server and isinstance(block.get("name"), str) and block["name"]:
            self.open_calls.append((block["name"], nonempty_str(block.get("id"))))
        tool_input = block.get("input")
        if tool_input is not None and not isinstance(tool_input, dict):
            tool_input = {"value": tool_input}
        extra = compact_extras(block, ("type", "id", "name", "input"))
        meta = _meta("tool_use", extra=extra)
        if server:
            meta["serverTool"] = True
        return message_event(
            "tool",
            render_tool_input(tool_input or {}),
            toolName=nonempty_str(block.get("name")) or "",
            toolCallId=nonempty_str(block.get("id")),
            toolInput=tool_input if tool_input is not None else {},
            meta=meta,
        )

    def _reasoning(self, item: dict) -> Iterator[dict]:
        text = item.get("text") if isinstance(item.get("text"), str) else text_of(item.get("summary"))
        meta = {"kind": "thinking"}
        options = item.get("providerOptions") if isinstance(item.get("providerOptions"), dict) else {}
        signed = options.get("anthropic") if isinstance(options.get("anthropic"), dict) else {}
        if isinstance(signed.get("signature"), str):
            meta["signature"] = signed["signature"]  # AI SDK reasoning part of Claude thinking
        elif isinstance(signed.get("redactedData"), str):
            meta["redactedThinking"] = signed["redactedData"]
        if item.get("encrypted_content") is not None:
            meta["encryptedContent"] = item["encrypted_content"]
        extra = compact_extras(item, ("type", "text", "summary", "encrypted_content", "ts"))
        if extra:
            meta["extra"] = extra
        yield message_event("assistant", text or "", meta=meta)


def _cline_usage(metrics: Any) -> dict[str, int] | None:
    """The usage of one API request from Cline's ``metrics.tokens``
    (``prompt``: input not read from or written to the cache, ``cached``:
    cache reads and writes together, ``completion``: output).  Cline does not
    split the cached part, so ``cached_input_tokens`` is not given."""
    tokens = metrics.get("tokens") if isinstance(metrics, dict) else None
    if not isinstance(tokens, dict):
        return None
    counts = [tokens.get(k, 0) for k in ("prompt", "cached", "completion")]
    if not all(type(n) is int and n >= 0 for n in counts) or not any(k in tokens for k in ("prompt", "completion")):
        return None
    prompt, cached, completion = counts
    return {"input_tokens": prompt + cached, "output_tokens": completion, "total_tokens": prompt + cached + completion}


def _cline3_usage(metrics: Any) -> dict[str, int] | None:
    """The usage of one request from Cline 3's ``metrics`` (``inputTokens``
    without the cache, ``cacheReadTokens``, ``cacheWriteTokens``,
    ``outputTokens``, as Anthropic counts them; ``cost`` stays in the
    message's ``meta.message``)."""
    if not isinstance(metrics, dict) or "inputTokens" not in metrics or "outputTokens" not in metrics:
        return None
    counts = [metrics.get(k, 0) for k in ("inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens")]
    if not all(type(n) is int and n >= 0 for n in counts):
        return None
    fresh, read, written, output = counts
    total_input = fresh + read + written
    return {
        "input_tokens": total_input,
        "cached_input_tokens": read,
        "output_tokens": output,
        "total_tokens": total_input + output,
        "cache_creation_input_tokens": written,
    }


# Cline 3 (``@cline/core``) marks a message's ``metadata``: ``displayOnly``
# with ``displayRole`` ``error`` or ``status`` (a run's terminal error or a
# status line shown to the user and never sent to the model), and ``kind``
# ``recovery_notice`` / ``stop_notice`` (the harness's note to the model
# after an API error, an invalid tool call, the mistake limit),
# ``compaction_summary`` (the summary that replaces compacted history) or
# ``compaction`` (the first message after history was pruned).
_CLINE_NOTICE_KINDS = ("recovery_notice", "stop_notice")


def _cline3_marking(metadata: Any, summary_flag: bool) -> dict | None:
    """What a Cline 3 message's ``metadata`` makes of its events, or None."""
    if not isinstance(metadata, dict):
        return {"summary": True} if summary_flag else None
    display_role = metadata.get("displayRole") if isinstance(metadata.get("displayRole"), str) else None
    kind = metadata.get("kind") if isinstance(metadata.get("kind"), str) else None
    if metadata.get("displayOnly") is True:
        return {"notice": display_role or "notice"}
    if kind == "compaction_summary" or summary_flag:
        return {"summary": True}
    if kind in _CLINE_NOTICE_KINDS:
        return {"injected": kind, "reason": metadata.get("reason")}
    if kind == "compaction":
        removed = metadata.get("messagesRemoved")
        reason = metadata.get("reason")
        text = f"[compaction: {removed} earlier message(s) removed" if type(removed) is int else "[compaction"
        text += f" ({reason})]" if isinstance(reason, str) and reason else "]"
        meta: dict = {"kind": "compaction", "clineKind": "compaction"}
        for key in ("messagesRemoved", "reason", "userRunSpan"):
            if metadata.get(key) is not None:
                meta[key] = metadata[key]
        return {"boundary": message_event("system", text, meta=meta), "injected": "compaction" if display_role == "system" else None}
    return None


def _cline3_marked(event: dict, shown: dict) -> dict:
    meta = event.setdefault("meta", {})
    if "notice" in shown:
        # shown to the user only: a notice, not the assistant's words
        event = {**event, "role": "system"}
        meta["notice"] = shown["notice"]
        if shown["notice"] == "error":
            event["isError"] = True
        return _reorder(event)
    if shown.get("summary"):
        meta["kind"] = "summary"
        meta["injected"] = True
    elif shown.get("injected"):
        meta["injected"] = True
        meta["injectedKind"] = shown["injected"]
        if isinstance(shown.get("reason"), str):
            meta["reason"] = shown["reason"]
    return event


def _tool_results_only(content: Any) -> bool:
    return isinstance(content, list) and bool(content) and all(isinstance(b, dict) and b.get("type") in ("tool-result", "tool_result") for b in content)


def _holds_reasoning(item: dict) -> bool:
    """Whether a history message is the assistant's with reasoning of its own."""
    if item.get("role") != "assistant" and item.get("type") != "reasoning":
        return False
    return item.get("type") == "reasoning" or _has_reasoning(item.get("content")) or bool(item.get("reasoning_content"))


def _has_reasoning(content: Any) -> bool:
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in ("thinking", "reasoning", "redacted_thinking") for b in content)


def _roo_marking(item: dict) -> dict | None:
    """What Roo Code's message flags make of its events: ``isSummary`` (the
    summary a condense put in place of the messages before it, which the
    model reads from then on) and ``isTruncationMarker`` (the note the
    sliding window leaves where it hid messages)."""
    if item.get("isSummary") is True:
        return {"summary": True}
    if item.get("isTruncationMarker") is True:
        return {"injected": "truncation_marker"}
    return None


def _cline_injected(text: str) -> str | None:
    """The kind of harness text a classic Cline user block is, or None."""
    head = text[:64].lstrip()
    for prefix, kind in _CLINE_INJECTED:
        if head.startswith(prefix):
            return kind
    return None


def _is_roo_history(header: dict) -> bool:
    return set(header) == {"version"} and header["version"] == ROO_HISTORY_VERSION


def _is_cline_session(header: dict) -> bool:
    return isinstance(header.get("agent"), str) and "sessionId" in header and "version" in header and "updated_at" in header


def _meta(kind: str, extra: dict | None = None, attachment: str | None = None) -> dict:
    meta: dict = {"kind": kind}
    if attachment:
        meta["attachment"] = attachment
    if extra:
        meta["extra"] = extra
    return meta


_ORDER = ("type", "role", "text", "timestamp")


def _reorder(event: dict) -> dict:
    """Keep the canonical key order after adding a timestamp."""
    ordered = {k: event[k] for k in _ORDER if k in event}
    ordered.update((k, v) for k, v in event.items() if k not in ordered)
    return ordered


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    return AnthropicReader(ctx).read(stream)


IMPORTER = Importer(
    name=ANTHROPIC,
    description="Anthropic Messages API message list or request body; Cline/Roo api_conversation_history.json",
    read=read,
    sniff=sniff,
    patterns=("api_conversation_history.json", "claude_messages.json", "*.json"),
)
