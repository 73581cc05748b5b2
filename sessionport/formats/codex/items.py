"""Codex ``ResponseItem`` payloads as ``sessionport/v1`` messages.

Every era of Codex rollouts stores the model-visible history as Responses-API
items (``message``, ``reasoning``, ``function_call`` ...): bare in the early
JSON document and in pre-envelope JSONL, inside ``response_item`` envelopes
later.  :class:`ItemConverter` turns one item into zero or more messages and
remembers only the call ids still waiting for their output, so memory stays
flat however long the rollout is.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any, Callable

import orjson

from sessionport import media

from sessionport.model import message_event
from sessionport.model import human_size
from sessionport.lazy import lazy

# Harness-injected context that Codex writes as user (or developer) messages.
INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<skills_instructions>",
    "<turn_aborted>",
    "<apps_instructions>",
    "<plugins_instructions>",
    "<model_switch>",
    "<app-context>",
    "<skill>",
    "<user_action>",
    "<user_shell_command>",
    "<developer_instructions>",
    # 0.15x: a Stop hook's reason sent back to the model, the daemon's own
    # notes after a restart, the plugin list offered to the model
    "<hook_prompt",
    "<codex_internal_context",
    "<recommended_plugins>",
)

_EXIT_CODE = lazy(r"(?:^Exit code: |\nProcess exited with code )(-?\d+)")
TOOL_TEXT_LIMIT = 300
# A tuple, not a set: a malformed part's type may be unhashable.
_TEXT_PARTS = ("input_text", "output_text", "text", "summary_text", "reasoning_text")


def looks_injected(text: str) -> bool:
    return text.lstrip().startswith(INJECTED_PREFIXES)


def image_placeholder(url: Any, kind: str = "image") -> str:
    """``[image: image/png, 88.4 KB]`` for a data URL, ``[image: URL]`` otherwise."""
    if not isinstance(url, str):
        return f"[{kind}]"
    if url.startswith("data:"):
        head, _, data = url.partition(",")
        mime = head[5:].split(";", 1)[0] or "application/octet-stream"
        size = len(data) * 3 // 4 if ";base64" in head else len(data)
        return f"[{kind}: {mime}, {human_size(size)}]"
    return f"[{kind}: {url[:200]}]"


_KNOWN_PARTS = _TEXT_PARTS + ("input_image", "input_file", "refusal", "input_audio", "output_audio", "encrypted_content")


def content_text(content: Any, on_unknown: Any = None) -> str:
    """The text of a message's ``content`` list; images become placeholders,
    a part of a type not known here ``[its type]`` (reported to
    ``on_unknown``)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    if len(content) == 1:  # the usual shape: one text part
        part = content[0]
        if part.__class__ is dict and part.get("type") in _TEXT_PARTS:
            text = part.get("text")
            return text if isinstance(text, str) else ""
    parts = []
    for part in content:
        if not isinstance(part, dict):
            if isinstance(part, str):
                parts.append(part)
            continue
        kind = part.get("type")
        if kind in _TEXT_PARTS:
            text = part.get("text")
            if isinstance(text, str):
                parts.append(text)
        elif kind == "input_image":
            parts.append(image_placeholder(part.get("image_url")))
        elif kind == "input_file":
            name = part.get("filename") or part.get("file_id") or "file"
            parts.append(f"[file: {name}]")
        elif kind == "refusal":
            parts.append(str(part.get("refusal", "")))
        elif kind in ("input_audio", "output_audio"):
            parts.append("[audio]")
        elif kind == "encrypted_content":
            # 0.14x agent_message items: a part only the model can read.
            size = part.get("encrypted_content")
            parts.append(f"[encrypted content, {human_size(len(size))}]" if isinstance(size, str) else "[encrypted content]")
        else:
            name = kind if isinstance(kind, str) else "unknown"
            parts.append(f"[{name}]")
            if on_unknown is not None:
                on_unknown(name)
    return "\n".join(parts)


def summary_parts(parts: Any) -> list[str] | None:
    """The texts of a reasoning summary or a message of several text parts
    (the event's text joins them with newlines; the writer writes them apart
    again), or None for one part or another shape."""
    if not isinstance(parts, list) or len(parts) < 2:
        return None
    texts = []
    for part in parts:
        if not (isinstance(part, dict) and part.get("type") in _TEXT_PARTS and isinstance(part.get("text"), str)):
            return None
        texts.append(part["text"])
    return texts


def _mixed_parts(content: list, special: Callable[[int, dict], tuple[str, dict] | None]) -> tuple[list[str], list[dict]] | None:
    """The texts of a message's parts, a part ``special`` takes (its
    placeholder text, what to record of it) among text parts, and those
    records; None when a part is neither."""
    texts: list[str] = []
    records: list[dict] = []
    for n, part in enumerate(content):
        if not isinstance(part, dict):
            return None
        if part.get("type") in _TEXT_PARTS and isinstance(part.get("text"), str):
            texts.append(part["text"])
            continue
        taken = special(n, part)
        if taken is None:
            return None
        texts.append(taken[0])
        records.append(taken[1])
    return texts, records


def _image_part(n: int, part: dict) -> tuple[str, dict] | None:
    if part.get("type") != "input_image":
        return None
    image: dict[str, Any] = {"part": n}
    if isinstance(part.get("detail"), str):
        image["detail"] = part["detail"]
    return image_placeholder(part.get("image_url")), image


def _sealed_part(n: int, part: dict) -> tuple[str, dict] | None:
    sealed = part.get("encrypted_content")
    if part.get("type") != "encrypted_content" or not isinstance(sealed, str):
        return None
    return f"[encrypted content, {human_size(len(sealed))}]", {"part": n, "encryptedContent": sealed}


def image_parts(content: list, meta: dict) -> None:
    """A message of text and image parts: the texts of its parts (an image
    as its placeholder) in ``meta.contentParts`` and which parts are images
    (with their ``detail``) in ``meta.contentImages``, so that the writer
    puts each image back where it was (from ``media``, with --keep-images)."""
    mixed = _mixed_parts(content, _image_part)
    if mixed is not None and mixed[1]:
        meta["contentParts"], meta["contentImages"] = mixed


def agent_parts(content: Any, meta: dict) -> None:
    """An agent message of text and encrypted parts: the texts of its parts
    (an encrypted one as its placeholder) in ``meta.contentParts`` and the
    encrypted ones in ``meta.encryptedParts``, for a Codex export to write
    the item back as it was (only the model reads the encrypted part)."""
    mixed = _mixed_parts(content, _sealed_part) if isinstance(content, list) else None
    if mixed is None:
        return
    texts, sealed = mixed
    if len(texts) > 1 or sealed:
        meta["contentParts"] = texts
    if sealed:
        meta["encryptedParts"] = sealed


def command_text(args: dict) -> str | None:
    """A shell command as a person would type it, when the arguments hold one."""
    command = args.get("command", args.get("cmd"))
    if isinstance(command, str):
        return command
    if isinstance(command, list):
        if len(command) == 3 and command[1] in ("-lc", "-c") and isinstance(command[2], str) and isinstance(command[0], str) and command[0].endswith("sh"):
            return command[2]
        try:
            return " ".join(command)
        except TypeError:
            return None
    return None


def tool_text(name: str, tool_input: dict) -> str:
    """A short readable rendering of a call, derived only from its input (so a
    round trip through the exporter reproduces it)."""
    command = command_text(tool_input)
    if command is None:
        raw = tool_input.get("input")
        if isinstance(raw, str) and len(tool_input) == 1:
            command = raw
        else:
            command = orjson.dumps(tool_input).decode()
    if len(command) > TOOL_TEXT_LIMIT:
        command = command[:TOOL_TEXT_LIMIT] + "..."
    return command


def parse_arguments(arguments: Any) -> tuple[dict, str | None]:
    """``function_call.arguments`` (a JSON string) as an object.  The second
    value says how the exporter must write it back: None (JSON of the object),
    ``"raw"`` (not valid JSON: kept as ``{"raw": string}``) or ``"value"`` (JSON
    that is not an object: kept as ``{"value": v}``)."""
    if isinstance(arguments, dict):
        return arguments, None
    if not isinstance(arguments, str):
        return {"value": arguments}, "value"
    try:
        value = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return {"raw": arguments}, "raw"
    if isinstance(value, dict):
        return value, None
    return {"value": value}, "value"


def same_json_text(value: Any, text: str) -> bool:
    """Whether ``text`` is exactly the compact JSON the writer makes of
    ``value``.  When not (spaces after the separators, escaped non-ASCII),
    the call keeps its arguments as written in ``meta.codexArgumentsText``:
    Codex sends them to the model verbatim when it resumes the rollout."""
    try:
        return orjson.dumps(value) == text.encode()
    except (TypeError, orjson.JSONEncodeError, UnicodeEncodeError):
        return False


# The status line Codex's code mode (the ``exec`` tool, 0.160) puts first
# in the output of a script that threw.
_SCRIPT_FAILED = "Script failed\nWall time "


def output_result(output: Any, meta: dict | None = None) -> tuple[str, bool | None, dict]:
    """Text, error flag and extra meta of a call's ``output``; the extra meta
    is added to ``meta`` when given (the caller's dict, not a copy).

    Shapes seen: a plain string; a string holding JSON ``{"output",
    "metadata":{"exit_code","duration_seconds"}}``; a string holding an MCP
    content list; a list of ``input_text``/``input_image`` items; an object
    ``{content, success}``; an MCP ``{"Ok": result}`` / ``{"Err": str}``.
    """
    if meta is None:
        meta = {}
    if isinstance(output, str):
        if output.startswith(("{", "[")):
            try:
                value = orjson.loads(output)
            except orjson.JSONDecodeError:
                value = None
            if isinstance(value, dict) and isinstance(value.get("output"), str) and len(value) == 1 + ("metadata" in value):
                metadata = value.get("metadata")
                is_error = None
                if isinstance(metadata, dict):
                    code = metadata.get("exit_code")
                    if isinstance(code, int):
                        meta["exitCode"] = code
                        is_error = code != 0
                    duration = metadata.get("duration_seconds")
                    if isinstance(duration, (int, float)):
                        meta["durationSeconds"] = duration
                meta["outputShape"] = "json"
                return value["output"], is_error, meta
            if isinstance(value, list) and value and all(isinstance(v, dict) and "type" in v for v in value):
                meta["outputShape"] = "content-json"
                return _content_items_text(value), None, meta
        is_error = None
        if output.startswith(("Exit code: ", "Chunk ID: ")):
            match = _EXIT_CODE.search(output, 0, 1024)
            is_error = int(match.group(1)) != 0 if match else None
        return output, is_error, meta
    if isinstance(output, list):
        meta["outputShape"] = "list"
        # 0.160 code mode: a script's output opens with its status line
        first = output[0] if output and isinstance(output[0], dict) else {}
        failed = first.get("type") == "input_text" and isinstance(first.get("text"), str) and first["text"].startswith(_SCRIPT_FAILED)
        return _content_items_text(output), True if failed else None, meta
    if isinstance(output, dict):
        if "Ok" in output or "Err" in output:
            ok = "Ok" in output
            inner = output.get("Ok") if ok else output.get("Err")
            if isinstance(inner, dict) and isinstance(inner.get("content"), list):
                return _content_items_text(inner["content"]), not ok or bool(inner.get("isError")) or None, meta
            return inner if isinstance(inner, str) else orjson.dumps(inner).decode(), (not ok) or None, meta
        content = output.get("content")
        success = output.get("success")
        text = content if isinstance(content, str) else _content_items_text(content) if isinstance(content, list) else orjson.dumps(output).decode()
        return text, (success is False) or None, meta
    if output is None:
        return "", None, meta
    return str(output), None, meta


def content_media(content: Any) -> list:
    """The data-URL images of a message's content parts (``input_image``)."""
    if not isinstance(content, list):
        return []
    found = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "input_image":
            entry = media.from_data_url(part.get("image_url"))
            if entry is not None:
                found.append(entry)
    return found


def output_media(output: Any) -> list:
    """The images of a call's output: items ``input_image`` (a data URL) or
    ``image`` (base64 ``data`` and ``mimeType``), as a list or inside an MCP
    result, or such a list written as a JSON string."""
    if isinstance(output, str) and output.startswith("[") and "image" in output:
        try:
            output = orjson.loads(output)
        except orjson.JSONDecodeError:
            return []
    if isinstance(output, dict):
        inner = output.get("Ok", output.get("Err", output))
        output = inner.get("content") if isinstance(inner, dict) else None
    if not isinstance(output, list):
        return []
    found = []
    for item in output:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        entry = None
        if kind in ("input_image", "image"):
            entry = media.from_data_url(item.get("image_url")) if item.get("image_url") is not None else media.from_base64(item.get("mimeType", "image/png"), item.get("data"))
        if entry is not None:
            found.append(entry)
    return found


def _content_items_text(items: list) -> str:
    parts = []
    for item in items:
        if not isinstance(item, dict):
            parts.append(str(item))
            continue
        kind = item.get("type")
        if kind in ("input_text", "output_text", "text"):
            parts.append(str(item.get("text", "")))
        elif kind in ("input_image", "image"):
            url = item.get("image_url")
            if url is None and isinstance(item.get("data"), str):
                url = f"data:{item.get('mimeType', 'image/png')};base64,{item['data']}"
            parts.append(image_placeholder(url))
        else:
            parts.append(f"[{kind}]")
    return "\n".join(parts)


# How many calls may wait for their output at once.  A rollout of a million
# calls that never got one would otherwise keep every id; past this the
# oldest is forgotten (counted; its late output is marked unpaired).
PENDING_LIMIT = 16384
# How many answered call ids are remembered, to tell an event that mirrors
# a call (mcp_tool_call_end) from one that is the only trace of it.
ANSWERED_LIMIT = 1024


def _agent_meta(record: dict, meta: dict[str, Any]) -> dict[str, Any]:
    """``meta`` with the author and recipient an agent-to-agent message names."""
    for key in ("author", "recipient"):
        value = record.get(key)
        if isinstance(value, str) and value:
            meta[key] = value
    return meta


def _message_extras(item: dict, meta: dict[str, Any]) -> None:
    """What a 0.17x message holds beyond its text, for a Codex export to
    write back: an ``encrypted_content`` of the message (codex-rs
    ``ResponseItem::Message``, readable by the API alone), and the other
    keys of its text parts (``annotations``, ``logprobs`` of an
    ``output_text``), one object a part in ``meta.codexPartExtras``."""
    sealed = item.get("encrypted_content")
    if isinstance(sealed, str) and sealed:
        meta["encryptedContent"] = sealed
    content = item.get("content")
    if not isinstance(content, list):
        return
    extras = [
        {k: v for k, v in part.items() if k not in ("type", "text")} if isinstance(part, dict) and part.get("type") in _TEXT_PARTS else {}
        for part in content
    ]
    if any(extras):
        meta["codexPartExtras"] = extras


def _keep_passthrough(record: dict, meta: dict[str, Any]) -> None:
    """What Codex 0.15x+ records of an item (the turn, the kinds of a
    message's parts), which it sends back with the item: every item type
    carries it but a compaction trigger and a tool list (codex-rs
    ``protocol/src/models.rs``); 0.171 writes it on reasoning, calls,
    outputs and searches too."""
    passthrough = record.get("internal_chat_message_metadata_passthrough")
    if isinstance(passthrough, dict) and passthrough:
        meta["codexPassthrough"] = passthrough


class ItemConverter:
    """Turns ResponseItems into messages; pairs outputs with calls by call id."""

    def __init__(self) -> None:
        self.pending: dict[str, str] = {}  # call id -> tool name, until its output
        self.answered: OrderedDict[str, None] = OrderedDict()
        self.forgotten = 0  # calls dropped from ``pending`` at PENDING_LIMIT
        self.model: str | None = None
        self.counts: Counter = Counter()
        self.skipped: Counter = Counter()
        # Told of record and content-part types not known here.
        self.on_unknown: Any = None
        self.on_unknown_part: Any = None
        self.handlers = _HANDLERS

    def keep_images(self) -> None:
        """--keep-images: the images of messages and outputs carried as
        ``media`` (other handlers, so a read without it pays nothing)."""
        self.handlers = _IMAGE_HANDLERS

    def knows_call(self, call_id: Any) -> bool:
        """Whether a call with this id was read (waiting or answered)."""
        return isinstance(call_id, str) and (call_id in self.pending or call_id in self.answered)

    def _answered(self, call_id: str) -> None:
        answered = self.answered
        answered[call_id] = None
        if len(answered) > ANSWERED_LIMIT:
            answered.popitem(last=False)

    def open_call(self, call_id: Any, name: str) -> str | None:
        """A call now waits for its output: its id (None when it has none)."""
        call_id = call_id if isinstance(call_id, str) and call_id else None
        if call_id is not None:
            pending = self.pending
            pending[call_id] = name
            if len(pending) > PENDING_LIMIT:
                del pending[next(iter(pending))]
                self.forgotten += 1
        return call_id

    def close_call(self, call_id: Any) -> tuple[str | None, str | None]:
        """An output arrived: its call id and the name of the call it answers
        (None for each when it has none or answers no call read)."""
        if not (isinstance(call_id, str) and call_id):
            return None, None
        name = self.pending.pop(call_id, None)
        # _answered, written out: one of these runs for every output.
        answered = self.answered
        answered[call_id] = None
        if len(answered) > ANSWERED_LIMIT:
            answered.popitem(last=False)
        return call_id, name

    def convert(self, item: dict, timestamp: str | None = None) -> list[dict]:
        kind = item.get("type")
        handler = self.handlers.get(kind) if kind.__class__ is str else None
        if handler is None:
            self.skipped[f"response_item/{kind}"] += 1
            if self.on_unknown is not None:
                self.on_unknown(f"response_item/{kind}")
            return []
        return handler(self, item, timestamp)

    # -- messages -------------------------------------------------------
    def _message_with_images(self, item: dict, timestamp: str | None) -> list[dict]:
        events = self._message(item, timestamp)
        if events:
            media.attach(events[0], content_media(item.get("content")))
        return events

    def _message(self, item: dict, timestamp: str | None) -> list[dict]:
        role = item.get("role")
        text = content_text(item.get("content"), self.on_unknown_part)
        meta: dict[str, Any] = {}
        if role == "assistant":
            out_role = "assistant"
            if self.model:
                meta["model"] = self.model
            phase = item.get("phase")
            if isinstance(phase, str):
                meta["phase"] = phase
        elif role in ("developer", "system"):
            out_role = "system"
            meta["injected"] = True
            meta["codexRole"] = role
        else:
            out_role = "user"
        content = item.get("content")
        parts = summary_parts(content)
        if parts is not None:
            meta["contentParts"] = parts
        elif isinstance(content, list) and len(content) > 1:
            image_parts(content, meta)
        passthrough = item.get("internal_chat_message_metadata_passthrough")
        if isinstance(passthrough, dict) and passthrough:
            # what Codex 0.15x+ records of the message's parts; it sends it
            # back with the message (inlined: most items of a rollout)
            meta["codexPassthrough"] = passthrough
        status = item.get("status")
        if status.__class__ is str:
            meta["codexStatus"] = status  # 0.171: "completed" on an answer
        if len(item) > 4:  # more than type, role, content and one other
            _message_extras(item, meta)
        self.counts["messages"] += 1
        event = _base(out_role, text, timestamp, item)
        if meta:
            event["meta"] = meta
        return [event]

    def _reasoning(self, item: dict, timestamp: str | None) -> list[dict]:
        encrypted = item.get("encrypted_content")
        if not (isinstance(encrypted, str) and encrypted):
            encrypted = None
        parts = item.get("summary")
        summary = content_text(parts)
        meta: dict[str, Any] = {"kind": "thinking"}
        if summary:
            texts = summary_parts(parts)
            if texts is not None:
                meta["summaryParts"] = texts
        else:
            summary = content_text(item.get("content"))
            if summary:
                meta["reasoningContent"] = True
        if not summary and encrypted is None:
            return []
        if encrypted is not None:
            # the model's own reasoning, readable by the API only: Codex
            # sends it back on every request, so an export to Codex (or to
            # the Responses API) keeps it
            self.counts["encryptedReasoning"] += 1
            meta["encryptedContent"] = encrypted
        if self.model:
            meta["model"] = self.model
        if "internal_chat_message_metadata_passthrough" in item:
            _keep_passthrough(item, meta)
        self.counts["thinking"] += 1
        event = _base("assistant", summary, timestamp, item)
        event["meta"] = meta
        return [event]

    # -- calls ------------------------------------------------------------
    def _call(self, name: str, call_id: Any, tool_input: dict, timestamp: str | None, item: dict, extra: dict | None = None) -> list[dict]:
        meta: dict[str, Any] = {"kind": "tool_use", "codexType": item.get("type")}
        if extra:
            meta.update(extra)
        if self.model:
            meta["model"] = self.model
        status = item.get("status")
        if isinstance(status, str):
            if status != "completed":
                meta["status"] = status
            elif item.get("type") == "function_call":
                meta["codexStatus"] = status  # 0.171 writes it; written back
        if "internal_chat_message_metadata_passthrough" in item:
            _keep_passthrough(item, meta)
        call_id = self.open_call(call_id, name)
        self.counts["toolCalls"] += 1
        event = _base("tool", tool_text(name, tool_input), timestamp, item)
        event["toolName"] = name
        if call_id is not None:
            event["toolCallId"] = call_id
        event["toolInput"] = tool_input
        event["meta"] = meta
        return [event]

    def _function_call(self, item: dict, timestamp: str | None) -> list[dict]:
        arguments = item.get("arguments")
        tool_input, shape = parse_arguments(arguments)
        extra = {"codexArguments": shape} if shape else None
        if shape is None and isinstance(arguments, str) and not same_json_text(tool_input, arguments):
            extra = {"codexArgumentsText": arguments}
        if isinstance(item.get("namespace"), str):
            extra = {**(extra or {}), "namespace": item["namespace"]}
        sealed = item.get("encrypted_function_args")
        if sealed.__class__ is list:
            # 0.17x: arguments only the API can read (codex-rs
            # ResponseItem::FunctionCall.encrypted_function_args), which
            # Codex sends back with the call; an empty list is a mark of
            # its own (a call in plain text: collaboration's spawn_agent)
            extra = {**(extra or {}), "encryptedFunctionArgs": sealed}
        return self._call(str(item.get("name") or "unknown"), item.get("call_id"), tool_input, timestamp, item, extra)

    def _custom_tool_call(self, item: dict, timestamp: str | None) -> list[dict]:
        raw = item.get("input")
        tool_input = {"input": raw if isinstance(raw, str) else orjson.dumps(raw).decode()}
        extra = {"namespace": item["namespace"]} if isinstance(item.get("namespace"), str) else None
        return self._call(str(item.get("name") or "unknown"), item.get("call_id"), tool_input, timestamp, item, extra)

    def _local_shell_call(self, item: dict, timestamp: str | None) -> list[dict]:
        action = item.get("action")
        tool_input = action if isinstance(action, dict) else {"value": action}
        return self._call("local_shell", item.get("call_id") or item.get("id"), tool_input, timestamp, item)

    def _web_search_call(self, item: dict, timestamp: str | None) -> list[dict]:
        action = item.get("action")
        tool_input = action if isinstance(action, dict) else {}
        events = self._call("web_search", None, tool_input, timestamp, item)
        return events

    def _tool_search_call(self, item: dict, timestamp: str | None) -> list[dict]:
        # Its arguments are an object (a function_call's are a JSON string).
        arguments = item.get("arguments")
        if isinstance(arguments, dict):
            tool_input, shape = arguments, None
        else:
            tool_input, shape = parse_arguments(arguments)
        extra = {"codexArguments": shape} if shape else {}
        if isinstance(item.get("execution"), str):
            extra["execution"] = item["execution"]
        return self._call("tool_search", item.get("call_id"), tool_input, timestamp, item, extra or None)

    def _tool_search_output(self, item: dict, timestamp: str | None) -> list[dict]:
        """The tools a search loaded (``tools``, the protocol's field: their
        names a line each, the definitions kept in ``meta.tools``), or the
        ``output`` text earlier rollouts hold."""
        tools = item.get("tools")
        if not isinstance(tools, list) or (not tools and item.get("output") is not None):
            return self._output(item, timestamp)
        names = [t.get("name") or t.get("type") for t in tools if isinstance(t, dict)]
        events = self._output({**item, "output": "\n".join(n for n in names if isinstance(n, str))}, timestamp)
        meta = events[0]["meta"]
        meta["tools"] = tools
        if isinstance(item.get("execution"), str):
            meta["execution"] = item["execution"]
        return events

    def _agent_message(self, item: dict, timestamp: str | None) -> list[dict]:
        """A message another agent of the same run (a sub-agent or the
        parent) sent into this thread: input to this model, so an injected
        user message naming its author."""
        meta = _agent_meta(item, {"injected": True, "injectedKind": "agent_message"})
        agent_parts(item.get("content"), meta)
        _keep_passthrough(item, meta)
        self.counts["agentMessages"] += 1
        event = _base("user", content_text(item.get("content"), self.on_unknown_part), timestamp, item)
        event["meta"] = meta
        return [event]

    def inter_agent_communication(self, payload: dict, timestamp: str | None) -> list[dict]:
        """A top-level ``inter_agent_communication`` record (0.15x-0.16x, a
        thread in the legacy history mode): a message another agent of the
        run delivered into this thread (``content`` a string).  Codex writes
        no response item for it and rebuilds the model's input from this
        record on resume, so it is the message itself: an injected user
        message naming its author, like an ``agent_message`` item."""
        meta = _agent_meta(payload, {"injected": True, "injectedKind": "agent_message", "codexType": "inter_agent_communication"})
        others = payload.get("other_recipients")
        if isinstance(others, list) and others:
            meta["otherRecipients"] = others
        trigger = payload.get("trigger_turn")
        if isinstance(trigger, bool):
            meta["triggerTurn"] = trigger
        content = payload.get("content")
        text = content if isinstance(content, str) else content_text(content, self.on_unknown_part) if isinstance(content, list) else ""
        sealed = payload.get("encrypted_content")
        if isinstance(sealed, str) and sealed:
            # readable by the model alone
            meta["encryptedContent"] = sealed
            if not text:
                text = f"[encrypted content, {human_size(len(sealed))}]"
        _keep_passthrough(payload, meta)
        self.counts["agentMessages"] += 1
        event = _base("user", text, timestamp, payload)
        event["meta"] = meta
        return [event]

    def realtime_item(self, payload: dict, timestamp: str | None) -> list[dict] | None:
        """A ``realtime_item`` record (0.15x+ voice sessions).  A
        ``transcript_segment`` is what the person said or the voice model
        answered (``role``, ``text``; flat or, as codex-rs serializes the
        item, under ``data``): a user or assistant message, ``meta.voice``.
        The model never sees these records; the rest (session start and
        close, ``bem_item_promoted``) is presentation: None (counted by the
        caller)."""
        if payload.get("type") != "transcript_segment":
            return None
        data = payload.get("data") if isinstance(payload.get("data"), dict) else payload
        role, text = data.get("role"), data.get("text")
        if role not in ("user", "assistant") or not isinstance(text, str):
            raise ValueError("a transcript_segment without a user or assistant role and a text")
        meta: dict[str, Any] = {"kind": "text", "codexType": "realtime_item", "voice": True}
        session = payload.get("realtime_session_id")
        if isinstance(session, str):
            meta["realtimeSessionId"] = session
        if data is not payload:
            meta["codexRealtimeData"] = True  # the shape to write back
        # (no meta.model: the voice model answers, not the thread's model)
        self.counts["messages"] += 1
        event = _base(role, text, timestamp, payload)
        event["meta"] = meta
        return [event]

    def _image_generation_call(self, item: dict, timestamp: str | None) -> list[dict]:
        tool_input = {k: item[k] for k in ("revised_prompt",) if isinstance(item.get(k), str)}
        events = self._call("image_generation", None, tool_input, timestamp, item)
        result = item.get("result")
        if isinstance(result, str) and result:
            placeholder = f"[image: generated, {human_size(len(result) * 3 // 4)}]"
            events.append(message_event("tool", placeholder, timestamp=timestamp, toolName="image_generation", meta={"kind": "tool_result", "codexType": "image_generation_call"}))
        return events

    def _output_with_images(self, item: dict, timestamp: str | None) -> list[dict]:
        events = self._output(item, timestamp)
        found = output_media(item.get("output"))
        for event in events if found else ():
            if event.get("meta", {}).get("kind") == "tool_result":
                media.attach(event, found)
                output = item.get("output")
                details = [part.get("detail") for part in output if isinstance(part, dict) and part.get("type") == "input_image"] if isinstance(output, list) else []
                if any(isinstance(d, str) for d in details):
                    # the detail each image was sent with: the export writes it back
                    event["meta"]["imageDetails"] = details
        return events

    def _output(self, item: dict, timestamp: str | None) -> list[dict]:
        call_id, name = self.close_call(item.get("call_id"))
        text, is_error, meta = output_result(item.get("output"), {"kind": "tool_result", "codexType": item.get("type")})
        if name is None and call_id is not None:
            meta["unpaired"] = True
        self.counts["toolResults"] += 1
        event = _base("tool", text, timestamp, item)
        if name is None and isinstance(item.get("name"), str):
            name = item["name"]
        if name is not None:
            event["toolName"] = name
        if call_id is not None:
            event["toolCallId"] = call_id
        if is_error is not None:
            event["isError"] = is_error
        if isinstance(item.get("name"), str):
            meta["codexName"] = item["name"]  # the output's own, written back
        if isinstance(item.get("namespace"), str):
            meta["namespace"] = item["namespace"]  # 0.17x: the tool's, as on its call
        if "internal_chat_message_metadata_passthrough" in item:
            _keep_passthrough(item, meta)
        event["meta"] = meta
        return [event]

    def _compaction(self, item: dict, timestamp: str | None) -> list[dict]:
        encrypted = item.get("encrypted_content")
        size = len(encrypted or "")
        if encrypted is None and item.get("type") == "context_compaction":
            text = "[compaction]"  # 0.15x: the summary is optional
        else:
            text = f"[compaction: encrypted summary, {human_size(size)}]"
        self.counts["compactions"] += 1
        meta = {"kind": "compaction", "codexType": item.get("type")}
        if isinstance(encrypted, str) and encrypted:
            # the summary itself (only the API reads it): Codex replays the
            # item in place, so an export to Codex writes it back
            meta["encryptedContent"] = encrypted
        if "internal_chat_message_metadata_passthrough" in item:
            _keep_passthrough(item, meta)
        return [message_event("system", text, timestamp=timestamp, meta=meta)]

    def _ghost_snapshot(self, item: dict, timestamp: str | None) -> list[dict]:
        self.skipped["response_item/ghost_snapshot"] += 1
        return []

    def _compaction_trigger(self, item: dict, timestamp: str | None) -> list[dict]:
        # A request control asking the API to compact (the protocol: "not
        # durable"): nothing of the conversation in it; counted.
        self.skipped["response_item/compaction_trigger"] += 1
        return []

    def _additional_tools(self, item: dict, timestamp: str | None) -> list[dict]:
        # 0.15x: the tool definitions offered to the model (a developer
        # item), not conversation: counted.
        self.skipped["response_item/additional_tools"] += 1
        return []

    def _configuration_update(self, item: dict, timestamp: str | None) -> list[dict]:
        # 0.17x: a setting for the responses after it (``{reasoning:
        # {effort}}``, "a durable input control interpreted by the backend
        # at its position in history"), not conversation: counted.
        self.skipped["response_item/configuration_update"] += 1
        return []


def _base(role: str, text: str, timestamp: str | None, item: dict) -> dict:
    """The start of a message event, keys in ``model.MESSAGE_FIELDS`` order
    (built inline: this runs for most lines of a rollout)."""
    event = {"type": "message", "role": role, "text": text}
    if timestamp is not None:
        event["timestamp"] = timestamp
    item_id = item.get("id")
    if item_id and isinstance(item_id, str):
        event["id"] = item_id
    return event


_HANDLERS = {
    "message": ItemConverter._message,
    "reasoning": ItemConverter._reasoning,
    "function_call": ItemConverter._function_call,
    "custom_tool_call": ItemConverter._custom_tool_call,
    "local_shell_call": ItemConverter._local_shell_call,
    "web_search_call": ItemConverter._web_search_call,
    "tool_search_call": ItemConverter._tool_search_call,
    "agent_message": ItemConverter._agent_message,
    "image_generation_call": ItemConverter._image_generation_call,
    "function_call_output": ItemConverter._output,
    "custom_tool_call_output": ItemConverter._output,
    "local_shell_call_output": ItemConverter._output,
    "tool_search_output": ItemConverter._tool_search_output,
    "compaction": ItemConverter._compaction,
    "compaction_summary": ItemConverter._compaction,
    "context_compaction": ItemConverter._compaction,
    "compaction_trigger": ItemConverter._compaction_trigger,
    "ghost_snapshot": ItemConverter._ghost_snapshot,
    "additional_tools": ItemConverter._additional_tools,
    "configuration_update": ItemConverter._configuration_update,
}
_IMAGE_HANDLERS = {
    **_HANDLERS,
    "message": ItemConverter._message_with_images,
    **{kind: ItemConverter._output_with_images for kind, handler in _HANDLERS.items() if handler is ItemConverter._output},
}
