"""``openai-chat``: OpenAI Chat Completions message lists.

``{"messages": [...]}`` (a request body, or a stored transcript), a bare list
of messages, a ``chat.completion`` response, or recorded API traffic.  Each
text part, tool call and tool message becomes one event; ``arguments`` are
parsed (also when JSON-encoded twice).  Legacy ``function_call`` /
``role: function`` pairs have no ids: they are left without ``toolCallId``
and pair by order and name.  See docs/formats/openai-chat.md.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Iterator

from sessionport import media
from sessionport.context import ReadContext
from sessionport.model import message_event
from sessionport.registry import Importer
from sessionport.formats.providers.cassette import RecordedTraffic
from sessionport.formats.providers.content import (
    base64_size,
    compact_extras,
    nonempty_str,
    openai_call_event,
    openai_part,
    placeholder,
    text_of,
    url_placeholder,
)
from sessionport.formats.providers.reader import ProviderReader
from sessionport.formats.providers.sniff import CHAT
from sessionport.formats.providers.sniff import openai_chat as sniff

_KNOWN = ("role", "content", "tool_calls", "tool_call_id", "function_call", "refusal", "reasoning_content", "audio", "name")


def _choice_messages(body: Any) -> list:
    """The assistant message of a ``chat.completion`` response."""
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list):
        return []
    for choice in body["choices"]:
        if isinstance(choice, dict) and isinstance(choice.get("message"), dict):
            message = dict(choice["message"])
            if isinstance(body.get("model"), str):
                message.setdefault("_model", body["model"])
            return [message]
    return []


def _is_reference(part: dict) -> bool:
    """Whether an ``image_url`` / ``file`` part names its bytes (a URL that is
    not a data URL, a file id) rather than holding them."""
    if part.get("type") == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        return isinstance(url, str) and bool(url) and not url.startswith("data:")
    file = part.get("file") if isinstance(part.get("file"), dict) else {}
    return part.get("type") == "file" and not file.get("file_data") and isinstance(file.get("file_id"), str) and bool(file["file_id"])


def _media(ptype: Any, part: dict) -> tuple[str, str] | None:
    """(placeholder, attachment kind) of a media part; never the payload."""
    if ptype == "image_url":
        image = part.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        return url_placeholder("image", url), "image"
    if ptype == "input_audio":
        audio = part.get("input_audio") if isinstance(part.get("input_audio"), dict) else {}
        fmt = audio.get("format")
        return placeholder("audio", f"audio/{fmt}" if isinstance(fmt, str) else None, base64_size(audio.get("data"))), "audio"
    if ptype == "file":
        file = part.get("file") if isinstance(part.get("file"), dict) else {}
        label = file.get("filename") or file.get("file_id")
        data = file.get("file_data")
        if isinstance(data, str) and data.startswith("data:"):
            return url_placeholder("file", data), "file"
        return placeholder("file", size=base64_size(data), label=label), "file"
    return None


def _reasoning(item: dict) -> tuple[str | None, list | None, tuple[str, ...]]:
    """The thinking of an assistant message: its text, the
    ``reasoning_details`` list that OpenRouter-style APIs return (and want
    sent back verbatim: ``reasoning.text``, ``reasoning.summary``,
    ``reasoning.encrypted`` entries) and the message keys they were read from.
    ``reasoning_content`` (DeepSeek, vLLM) wins, then OpenRouter's
    ``reasoning`` string, then the texts and summaries of the details."""
    used: tuple[str, ...] = ()
    text = item.get("reasoning_content")
    if not (isinstance(text, str) and text):
        text = None
        if isinstance(item.get("reasoning"), str) and item["reasoning"]:
            text, used = item["reasoning"], ("reasoning",)
    details = item.get("reasoning_details")
    if isinstance(details, list) and details:
        used += ("reasoning_details",)
        if text is None:
            pieces = [d.get("text") if d.get("type") == "reasoning.text" else d.get("summary") for d in details if isinstance(d, dict)]
            text = "\n\n".join(p for p in pieces if isinstance(p, str) and p) or ""
    else:
        details = None
    return text, details, used


def _part_text(part: Any) -> tuple[str, dict]:
    """(text, meta) of one content part; media parts become placeholders."""
    return openai_part(part, ("text",), _media)


class ChatReader(ProviderReader):
    source = CHAT
    keys = ("messages",)

    def traffic(self) -> RecordedTraffic:
        return RecordedTraffic(
            matches_uri=lambda uri: "/chat/completions" in uri,
            history_key="messages",
            reply_items=_choice_messages,
        )

    def tail_events(self, document: dict, items_seen: int) -> Iterator[dict]:
        if items_seen == 0:
            for index, message in enumerate(_choice_messages(document)):
                yield from self.item_events(message, index)

    def item_events(self, item: Any, index: int) -> Iterator[dict]:
        if not isinstance(item, dict):
            self.ctx.bad_record(f"expected a message object, found {type(item).__name__}", path=f"messages[{index}]")
            return
        role = item.get("role")
        known = _KNOWN + ("_model",)
        if role == "assistant":
            known += _reasoning(item)[2]
        extra = compact_extras(item, known)
        first = True
        for event in self._events(role, item, index):
            meta = event.setdefault("meta", {})
            if isinstance(item.get("name"), str):
                meta["name"] = item["name"]
            if event["role"] in ("assistant", "tool") and meta.get("kind") != "tool_result":
                model = item.get("_model") if isinstance(item.get("_model"), str) else self.model
                if model:
                    meta["model"] = model
            if first and extra:
                meta["extra"] = extra
            first = False
            yield event

    def _events(self, role: Any, item: dict, index: int) -> Iterator[dict]:
        content = item.get("content")
        if role in ("system", "developer"):
            meta = {"kind": "text"} if role == "system" else {"kind": "text", "sourceRole": "developer"}
            for text, _, found in self._parts(content):
                yield media.attach(message_event("system", text, meta=dict(meta)), found)
        elif role == "user":
            for text, meta, found in self._parts(content):
                yield media.attach(message_event("user", text, meta=meta), found)
        elif role == "assistant":
            yield from self._assistant(item)
        elif role == "tool":
            text = text_of(content)
            if self.placeholder_result(text, "placeholder tool result"):
                return
            yield message_event("tool", text, toolCallId=nonempty_str(item.get("tool_call_id")), meta={"kind": "tool_result"})
        elif role == "function":
            yield message_event("tool", text_of(content), toolName=item.get("name") if isinstance(item.get("name"), str) else None, meta={"kind": "tool_result", "legacyFunction": True})
        else:
            self.ctx.bad_record(
                f"expected role system, developer, user, assistant, tool or function, found {role!r}",
                path=f"messages[{index}].role",
                hint="use --skip-bad to skip such messages, or --from to read another format",
            )

    def _parts(self, content: Any) -> Iterator[tuple[str, dict, list]]:
        """(text, meta, media) of each part; media only with --keep-images."""
        if content is None:
            return
        if isinstance(content, list):
            keep = self.ctx.options.get("keep_images")
            for part in content:
                text, meta = _part_text(part)
                if meta.get("attachment") in ("image", "file") and _is_reference(part):
                    meta["mediaRef"] = part  # a URL or a file id, no bytes: written back as it is
                found = []
                if keep and meta.get("attachment") == "image":
                    image = part.get("image_url")
                    entry = media.from_data_url(image.get("url") if isinstance(image, dict) else image)
                    found = [entry] if entry is not None else []
                yield text, meta, found
        else:
            yield text_of(content), {"kind": "text"}, []

    def _assistant(self, item: dict) -> Iterator[dict]:
        reasoning, details, used = _reasoning(item)
        if reasoning is not None:
            meta: dict = {"kind": "thinking"}
            if "reasoning" in used:
                meta["sourceField"] = "reasoning"
            if details is not None:
                meta["reasoningDetails"] = details
            yield message_event("assistant", reasoning, meta=meta)
        for text, meta, found in self._parts(item.get("content")):
            if text or meta.get("attachment"):
                yield media.attach(message_event("assistant", text, meta=meta), found)
        if isinstance(item.get("refusal"), str) and item["refusal"]:
            yield message_event("assistant", item["refusal"], meta={"kind": "text", "refusal": True})
        if isinstance(item.get("audio"), dict):
            yield message_event("assistant", placeholder("audio", label=item["audio"].get("id")), meta={"kind": "text", "attachment": "audio"})
        calls = item.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            if isinstance(call, dict):
                yield self._tool_call(call)
        if isinstance(item.get("function_call"), dict):
            yield self._tool_call({"type": "function", "function": item["function_call"]}, legacy=True)

    def _tool_call(self, call: dict, legacy: bool = False) -> dict:
        custom = call.get("type") == "custom" and isinstance(call.get("custom"), dict)
        if custom:
            body = call["custom"]
        else:
            body = call.get("function") if isinstance(call.get("function"), dict) else {}
        return openai_call_event(body, call.get("id"), custom, {"legacyFunction": True} if legacy else None)


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    return ChatReader(ctx).read(stream)


IMPORTER = Importer(
    name=CHAT,
    description="OpenAI Chat Completions messages: {messages: [...]}, a bare list, or recorded API traffic",
    read=read,
    sniff=sniff,
    patterns=("*.json",),
)
