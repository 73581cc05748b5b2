"""The commonest Claude Code lines, decoded once into typed records.

Most of a log's lines and bytes are ``user`` and ``assistant`` lines: an
assistant line of one text, thinking or tool_use block, a user line of one
tool result (beside its ``toolUseResult``, which repeats the output), a
typed prompt.  :func:`decode_line` reads such a line with msgspec into
records that declare every field Claude Code writes on them, with the only
types the reader takes without a second look; :func:`assistant_event` and
:func:`tool_result_event` make of the commonest shapes the event the
reader's ``common_assistant`` and ``common_tool_result`` make of the parsed
dict, and :func:`as_record` gives any other shape to the reader's handlers
as a dict of the fields they read (docs/formats/claude-code.md, "Fields
read").  Fields no event uses once the session has started (``cwd``,
``version``, ``gitBranch``, ``userType``, ``slug``, the message's ``role``
and ``stop_reason``, the usage's ``service_tier``...) are checked and
dropped; the first lines, which the session event takes its envelope from,
are always parsed in full.

A line is taken here only when this reading cannot differ from orjson's:

- every field must be one of those declared, with its declared type (a
  field of another type, a content block or tool-result part of another
  type, an unknown field: the full parse); nothing is skipped unread, so
  msgspec checks every string's UTF-8, escapes and surrogates and every
  float, as orjson does;
- repeated keys: the last counts, for msgspec as for orjson (a repeated
  block ``type`` that disagrees is refused);
- the free-form values (a tool call's ``input``, ``toolUseResult``,
  ``todos``...) are walked: one holding an int outside the 64 bits orjson
  reads as an int (orjson makes a float of it, or refuses it) takes the
  full parse, and so does one nesting past the depth bound
  (:data:`~sessionport.jsonl.MAX_DEPTH`), which the full parse refuses;
  the declared records nest a few levels only.  Usage counts are ints of
  64 bits, or the line takes the full parse.

Any other line (other record types, other shapes, bad JSON, invalid UTF-8,
lone surrogate escapes) returns None and takes the reader's full parse,
which reports it as it always has.  ``tests/formats/test_claude_code_typed.py``
checks that both give the same output on every corpus file, fixture and
adversarial line.
"""

# No ``from __future__ import annotations``: msgspec would evaluate every
# field's annotation from its text when the decoder is built, at each start.
from typing import Annotated, Any, Literal, Union

import msgspec

from sessionport.jsonl import MAX_DEPTH
from sessionport.formats.claude_code.content import tool_label
from sessionport.typed_decode import DECODE_ERRORS

Str = Union[str, None]
Bool = Union[bool, None]
# What orjson reads as an int (a longer one it makes a float of).
INT_MIN = -(1 << 63)
INT_MAX = (1 << 64) - 1
# A count msgspec reads as orjson does (it bounds ints to 64 signed bits).
Count = Union[Annotated[int, msgspec.Meta(ge=INT_MIN, le=(1 << 63) - 1)], None]


# -- content blocks (as Claude Code writes them; others take the full parse)
class Text(msgspec.Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False):
    text: str


class Thinking(msgspec.Struct, tag_field="type", tag="thinking", forbid_unknown_fields=True, gc=False):
    thinking: str
    signature: Str = None


class ToolUse(msgspec.Struct, tag_field="type", tag="tool_use", forbid_unknown_fields=True, gc=False):
    id: Str = None
    name: Str = None
    input: Any = None
    # 2.1.x: who made the call (``{"type": "direct"}``); no event reads it.
    caller: Any = None


class ToolReference(msgspec.Struct, tag_field="type", tag="tool_reference", forbid_unknown_fields=True, gc=False):
    tool_name: Str = None


class ToolResult(msgspec.Struct, tag_field="type", tag="tool_result", forbid_unknown_fields=True, gc=False):
    tool_use_id: Str = None
    content: Union[str, list[Union[Text, ToolReference]], None] = None
    is_error: Bool = None


Block = Union[Text, Thinking, ToolUse, ToolResult]


class CacheCreation(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    ephemeral_5m_input_tokens: Count = None
    ephemeral_1h_input_tokens: Count = None


class ServerToolUse(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    web_search_requests: Count = None
    web_fetch_requests: Count = None


class Usage(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    input_tokens: Count = None
    cache_creation_input_tokens: Count = None
    cache_read_input_tokens: Count = None
    output_tokens: Count = None
    output_tokens_details: Any = None
    # What no count reads.
    service_tier: Str = None
    inference_geo: Str = None
    speed: Str = None
    cache_creation: Union[CacheCreation, None] = None
    server_tool_use: Union[ServerToolUse, None] = None
    iterations: Any = None


class Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: Union[str, list[Block], None] = None
    id: Str = None
    model: Str = None
    usage: Union[Usage, None] = None
    # What no event reads.
    role: Str = None
    type: Str = None
    stop_reason: Str = None
    stop_sequence: Str = None
    stop_details: Any = None
    context_management: Any = None


class Line(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: Literal["user", "assistant"]
    message: Message
    uuid: Str = None
    sessionId: Str = None
    timestamp: Str = None
    parentUuid: Str = None
    isSidechain: Bool = None
    agentId: Str = None
    requestId: Str = None
    isApiErrorMessage: Bool = None
    isMeta: Bool = None
    isCompactSummary: Bool = None
    toolUseResult: Any = None
    # What no event reads once the session has started (the session event
    # takes the envelope from the first lines, which the full parse reads).
    cwd: Str = None
    version: Str = None
    gitBranch: Str = None
    userType: Str = None
    slug: Str = None
    entrypoint: Str = None
    promptId: Str = None
    sourceToolAssistantUUID: Str = None
    permissionMode: Str = None
    isVisibleInTranscriptOnly: Bool = None
    thinkingMetadata: Any = None
    todos: Any = None


_decode = msgspec.json.Decoder(Line).decode


def _unlike_orjson(value: Any, left: int) -> bool:
    """Whether a free-form value decoded by msgspec may differ from what
    orjson makes of it, or nest past the bound: it holds an int orjson
    reads as a float (or refuses), or a container deeper than ``left``
    levels below ``value`` (jsonl._below_too_deep's count)."""
    kind = type(value)
    if kind is dict:
        children = value.values()
    elif kind is list:
        children = value
    elif kind is int:
        return not INT_MIN <= value <= INT_MAX
    else:
        return False
    for child in children:
        kind = type(child)
        if kind is dict or kind is list:
            if left == 1 or _unlike_orjson(child, left - 1):
                return True
        elif kind is int and not INT_MIN <= child <= INT_MAX:
            return True
    return False


# How many levels a free-form value may take below it, by where it sits
# (the line's object is level 1: a value at level L may take MAX_DEPTH + 1 - L).
_AT_2 = MAX_DEPTH - 1
_AT_3 = MAX_DEPTH - 2
_AT_4 = MAX_DEPTH - 3
_AT_5 = MAX_DEPTH - 4


def _usage(usage: Usage | None) -> dict | None:
    """The usage object as the grouper reads it: its counts and details."""
    if usage is None:
        return None
    return {
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_creation_input_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "output_tokens": usage.output_tokens,
        "output_tokens_details": usage.output_tokens_details,
    }


def decode_line(line: bytes) -> Line | None:
    """The typed record of a common ``user`` or ``assistant`` line, or None
    when the line takes the full parse (see the module's doc)."""
    try:
        record = _decode(line)
    except DECODE_ERRORS:
        return None
    message = record.message
    content = message.content
    if content.__class__ is list:
        for block in content:
            if block.__class__ is ToolUse and (_unlike_orjson(block.input, _AT_5) or (block.caller is not None and _unlike_orjson(block.caller, _AT_5))):
                return None
    usage = message.usage
    if usage is not None:
        value = usage.output_tokens_details
        if value is not None and _unlike_orjson(value, _AT_4):
            return None
        value = usage.iterations
        if value is not None and _unlike_orjson(value, _AT_4):
            return None
    value = record.toolUseResult
    if value is not None and _unlike_orjson(value, _AT_2):
        return None
    value = message.context_management
    if value is not None and _unlike_orjson(value, _AT_3):
        return None
    if record.todos is not None or record.thinkingMetadata is not None or message.stop_details is not None:
        if _unlike_orjson(record.todos, _AT_2) or _unlike_orjson(record.thinkingMetadata, _AT_2) or _unlike_orjson(message.stop_details, _AT_3):
            return None
    return record


def as_record(record: Line) -> dict:
    """The dict the reader's handlers read of a typed line: every field
    they read, as orjson would have made it (None for a missing one, which
    they read as missing)."""
    message = record.message
    content = message.content
    if content.__class__ is list:
        blocks = []
        for block in content:
            cls = block.__class__
            if cls is ToolResult:
                parts = block.content
                if parts.__class__ is list:
                    parts = [
                        {"type": "text", "text": part.text} if part.__class__ is Text else {"type": "tool_reference", "tool_name": part.tool_name}
                        for part in parts
                    ]
                blocks.append({"type": "tool_result", "tool_use_id": block.tool_use_id, "content": parts, "is_error": block.is_error})
            elif cls is ToolUse:
                blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
            elif cls is Text:
                blocks.append({"type": "text", "text": block.text})
            else:
                blocks.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
        content = blocks
    return {
        "type": record.type,
        "uuid": record.uuid,
        "sessionId": record.sessionId,
        "timestamp": record.timestamp,
        "parentUuid": record.parentUuid,
        "isSidechain": record.isSidechain,
        "agentId": record.agentId,
        "requestId": record.requestId,
        "isApiErrorMessage": record.isApiErrorMessage,
        "isMeta": record.isMeta,
        "isCompactSummary": record.isCompactSummary,
        "toolUseResult": record.toolUseResult,
        "message": {"content": content, "id": message.id, "model": message.model, "usage": _usage(message.usage)},
    }


# -- the events of the commonest lines, as the reader's handlers make them --
# Written out (MessageBuilder.common_assistant and common_tool_result, for
# the typed fields): one of these runs for most lines of a log.  Each
# returns None, before touching any state, for a line of another shape,
# which then goes to the handlers as :func:`as_record`.
_KIND = {Text: "text", Thinking: "thinking", ToolUse: "tool_use"}


def assistant_event(reader: Any, record: Line) -> tuple | None:
    """``(message id, usage, event)`` of an assistant line of one text,
    thinking or tool_use block, but in an inline sidechain (whose meta
    and counts the reader's ``base_meta`` gives)."""
    message = record.message
    content = message.content
    if content.__class__ is not list or len(content) != 1 or (record.isSidechain is True and not reader.result.is_agent_file):
        return None
    block = content[0]
    kind = _KIND.get(block.__class__)
    if kind is None:
        return None
    stamp = record.timestamp or None
    uid = record.uuid or None
    parent = record.parentUuid
    if parent is not None:
        parent = reader.alias.get(parent, parent)
    meta = {"kind": kind}
    # api_message_meta
    model = message.model
    if model:
        meta["model"] = model
    msg_id = message.id
    if msg_id:
        meta["messageId"] = msg_id
    request = record.requestId
    if request:
        meta["requestId"] = request
    if record.isApiErrorMessage is True:
        meta["apiError"] = True
    if kind == "tool_use":
        name = block.name or "tool"
        tool_input = block.input
        if tool_input.__class__ is not dict:
            tool_input = {} if tool_input is None else {"input": tool_input}
        event = {"type": "message", "role": "tool", "text": tool_label(name, tool_input)}
        if stamp is not None:
            event["timestamp"] = stamp
        if uid is not None:
            event["id"] = uid
        if parent is not None:
            event["parentId"] = parent
        event["toolName"] = name
        call_id = block.id
        if call_id:
            event["toolCallId"] = call_id
        event["toolInput"] = tool_input
        event["meta"] = meta
        return msg_id, _usage(message.usage), event
    if kind == "text":
        text = block.text
    else:
        signature = block.signature
        if signature:
            meta["signature"] = signature
        text = block.thinking
    event = {"type": "message", "role": "assistant", "text": text}
    if stamp is not None:
        event["timestamp"] = stamp
    if uid is not None:
        event["id"] = uid
    if parent is not None:
        event["parentId"] = parent
    event["meta"] = meta
    return msg_id, _usage(message.usage), event


def tool_result_event(reader: Any, record: Line) -> dict | None:
    """The event of a user line of one tool result whose content is a
    string, but in an inline sidechain."""
    content = record.message.content
    if content.__class__ is not list or len(content) != 1 or (record.isSidechain is True and not reader.result.is_agent_file):
        return None
    block = content[0]
    if block.__class__ is not ToolResult:
        return None
    text = block.content
    if text.__class__ is not str:
        return None
    stamp = record.timestamp or None
    uid = record.uuid or None
    parent = record.parentUuid
    if parent is not None:
        parent = reader.alias.get(parent, parent)
    meta = {"kind": "tool_result"}
    call_id = block.tool_use_id or None
    reader.link_agent(record.toolUseResult, text, call_id, meta)
    event = {"type": "message", "role": "tool", "text": text}
    if stamp is not None:
        event["timestamp"] = stamp
    if uid is not None:
        event["id"] = uid
    if parent is not None:
        event["parentId"] = parent
    if call_id is not None:
        event["toolCallId"] = call_id
    is_error = block.is_error
    if is_error is not None:
        event["isError"] = is_error
    event["meta"] = meta
    return event
