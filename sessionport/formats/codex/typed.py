"""The commonest ``response_item`` lines, decoded once into typed records.

Most of a rollout's bytes are the payloads of six item types (reasoning with
its ``encrypted_content``, function calls and their outputs, custom tool
calls and their outputs, messages).  :func:`decode_item` reads such a line
with msgspec into a record that declares every field those items carry,
each with the only types the reader takes without a second look (strings,
``null``, lists of text parts), and :func:`item_events` turns it into the
same events :class:`~sessionport.formats.codex.items.ItemConverter` makes
of the parsed dict.

A line is taken here only when reading it this way cannot differ from
orjson's parse: unknown fields are refused (so nothing is skipped unread,
not even a number orjson would refuse), and so is a field of another type,
a content part that is not text, a repeated item type that disagrees, an
envelope ``type`` other than ``response_item``, and anything msgspec
rejects (invalid UTF-8, lone surrogate escapes, bad JSON).  Any such line
returns None and takes the reader's full parse, which reports it as it
always has.
"""

# No ``from __future__ import annotations``: msgspec would evaluate every
# field's annotation from its text when the decoder is built, at each start.
from typing import Any, ClassVar, Literal, Union

import msgspec
import orjson

from sessionport.formats.codex.items import output_result, same_json_text, tool_text
from sessionport.typed_decode import DECODE_ERRORS

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


class _Part(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, gc=False):
    text: Union[str, None] = None


# The text parts (items._TEXT_PARTS); a part of any other type, or a part
# that is not an object, makes the line take the full parse.
class InputText(_Part, tag="input_text"):
    pass


class OutputText(_Part, tag="output_text"):
    pass


class Text(_Part, tag="text"):
    pass


class SummaryText(_Part, tag="summary_text"):
    pass


class ReasoningText(_Part, tag="reasoning_text"):
    pass


Content = Union[list[Union[InputText, OutputText, Text, SummaryText, ReasoningText]], str, None]


class Message(msgspec.Struct, tag="message", tag_field="type", forbid_unknown_fields=True, gc=False):
    role: Union[str, None] = None
    content: Content = None
    phase: Union[str, None] = None
    id: Union[str, None] = None
    end_turn: Union[bool, None] = None
    status: Union[str, None] = None


class Reasoning(msgspec.Struct, tag="reasoning", tag_field="type", forbid_unknown_fields=True, gc=False):
    summary: Content = None
    content: Content = None
    # Kept in the event's meta (an export to Codex writes it back).
    encrypted_content: Union[str, None] = None
    id: Union[str, None] = None


class FunctionCall(msgspec.Struct, tag="function_call", tag_field="type", forbid_unknown_fields=True, gc=False):
    name: Union[str, None] = None
    arguments: Union[str, None] = None
    call_id: Union[str, None] = None
    namespace: Union[str, None] = None
    status: Union[str, None] = None
    id: Union[str, None] = None


class CustomToolCall(msgspec.Struct, tag="custom_tool_call", tag_field="type", forbid_unknown_fields=True, gc=False):
    name: Union[str, None] = None
    input: Union[str, None] = None
    call_id: Union[str, None] = None
    status: Union[str, None] = None
    id: Union[str, None] = None


class FunctionCallOutput(msgspec.Struct, tag="function_call_output", tag_field="type", forbid_unknown_fields=True, gc=False):
    codex_type: ClassVar[str] = "function_call_output"
    call_id: Union[str, None] = None
    output: Union[str, None] = None
    name: Union[str, None] = None
    status: Union[str, None] = None
    id: Union[str, None] = None


class CustomToolCallOutput(FunctionCallOutput, tag="custom_tool_call_output"):
    codex_type: ClassVar[str] = "custom_tool_call_output"


Item = Union[Message, Reasoning, FunctionCall, CustomToolCall, FunctionCallOutput, CustomToolCallOutput]


class Envelope(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    timestamp: str
    # A repeated key: the last is what orjson keeps, and what counts here.
    type: Literal["response_item"]
    payload: Item
    ordinal: Union[int, None] = None


# The payload types (as the line's head names them) read here.
TYPED_KINDS = frozenset((b"message", b"reasoning", b"function_call", b"custom_tool_call", b"function_call_output", b"custom_tool_call_output"))
_decode = msgspec.json.Decoder(Envelope).decode


def decode_item(line: bytes) -> Envelope | None:
    """The typed envelope of a ``response_item`` line, or None when the
    line must take the full parse (see the module's doc)."""
    try:
        return _decode(line)
    except DECODE_ERRORS:
        return None


def _content_text(content: Content) -> str:
    """``items.content_text`` of a content of text parts only."""
    if content.__class__ is str:
        return content
    if not content:
        return ""
    if len(content) == 1:
        text = content[0].text
        return text if text is not None else ""
    return "\n".join([part.text for part in content if part.text is not None])


# -- the events, as ItemConverter makes them of the dict ----------------------
# Written out rather than shared through helpers: one of these runs for
# most lines of a rollout.  ``tests/formats/test_codex_typed.py`` checks
# that each gives what the dict handlers give.
def message(conv, item: Message, timestamp: str) -> list[dict]:
    role = item.role
    content = item.content
    if content.__class__ is list and len(content) == 1:
        text = content[0].text
        if text is None:
            text = ""
    else:
        text = _content_text(content)
    event = {"type": "message", "role": "user", "text": text, "timestamp": timestamp}
    if item.id:
        event["id"] = item.id
    meta: dict[str, Any] = {}
    if role == "assistant":
        event["role"] = "assistant"
        if conv.model:
            meta["model"] = conv.model
        if item.phase is not None:
            meta["phase"] = item.phase
    elif role == "developer" or role == "system":
        event["role"] = "system"
        meta = {"injected": True, "codexRole": role}
    if content.__class__ is list and len(content) > 1 and all(part.text is not None for part in content):
        meta["contentParts"] = [part.text for part in content]
    if item.status is not None:
        meta["codexStatus"] = item.status
    if meta:
        event["meta"] = meta
    conv.counts["messages"] += 1
    return [event]


def reasoning(conv, item: Reasoning, timestamp: str) -> list[dict]:
    counts = conv.counts
    encrypted = item.encrypted_content or None  # a string, not empty
    parts = item.summary
    if parts.__class__ is list and len(parts) == 1:
        summary = parts[0].text
    else:
        summary = _content_text(parts)
    if summary:
        meta: dict[str, Any] = {"kind": "thinking"}
        if parts.__class__ is list and len(parts) > 1 and all(part.text is not None for part in parts):
            meta["summaryParts"] = [part.text for part in parts]
    else:
        summary = _content_text(item.content)
        if summary:
            meta = {"kind": "thinking", "reasoningContent": True}
        elif encrypted is None:
            return []
        else:
            meta = {"kind": "thinking"}
    if encrypted is not None:
        counts["encryptedReasoning"] += 1
        meta["encryptedContent"] = encrypted
    if conv.model:
        meta["model"] = conv.model
    counts["thinking"] += 1
    event = {"type": "message", "role": "assistant", "text": summary, "timestamp": timestamp}
    if item.id:
        event["id"] = item.id
    event["meta"] = meta
    return [event]


def function_call(conv, item: FunctionCall, timestamp: str) -> list[dict]:
    arguments = item.arguments
    meta: dict[str, Any] = {"kind": "tool_use", "codexType": "function_call"}
    tool_input = None
    if arguments is not None:
        try:
            tool_input = _loads(arguments)
        except _JSONDecodeError:
            tool_input = {"raw": arguments}
            meta["codexArguments"] = "raw"
    if tool_input.__class__ is not dict:
        tool_input = {"value": tool_input}
        meta["codexArguments"] = "value"
    elif "codexArguments" not in meta and not same_json_text(tool_input, arguments):
        meta["codexArgumentsText"] = arguments
    if item.namespace is not None:
        meta["namespace"] = item.namespace
    if item.status == "completed":
        meta["codexStatus"] = "completed"  # written back (0.171 writes it)
    return _call(conv, item.name or "unknown", tool_input, timestamp, item, meta)


def custom_tool_call(conv, item: CustomToolCall, timestamp: str) -> list[dict]:
    raw = item.input
    tool_input = {"input": raw if raw is not None else "null"}
    return _call(conv, item.name or "unknown", tool_input, timestamp, item, {"kind": "tool_use", "codexType": "custom_tool_call"})


def _call(conv, name: str, tool_input: dict, timestamp: str, item: Any, meta: dict) -> list[dict]:
    """ItemConverter._call, from its ``meta`` (kind, codexType and extras) on."""
    if conv.model:
        meta["model"] = conv.model
    status = item.status
    if status is not None and status != "completed":
        meta["status"] = status
    call_id = conv.open_call(item.call_id, name)
    conv.counts["toolCalls"] += 1
    # After the call is open and counted: tool_text may raise (an input
    # nested too deep to write), and the reader counts the item malformed.
    event = {"type": "message", "role": "tool", "text": tool_text(name, tool_input), "timestamp": timestamp}
    if item.id:
        event["id"] = item.id
    event["toolName"] = name
    if call_id is not None:
        event["toolCallId"] = call_id
    event["toolInput"] = tool_input
    event["meta"] = meta
    return [event]


def call_output(conv, item: FunctionCallOutput, timestamp: str) -> list[dict]:
    """ItemConverter._output of either output type (its ``codex_type``)."""
    call_id, name = conv.close_call(item.call_id)
    output = item.output
    meta = {"kind": "tool_result", "codexType": item.codex_type}
    if output is None:
        text, is_error = "", None
    else:
        text, is_error, meta = output_result(output, meta)
    if name is None and call_id is not None:
        meta["unpaired"] = True
    conv.counts["toolResults"] += 1
    event = {"type": "message", "role": "tool", "text": text, "timestamp": timestamp}
    if item.id:
        event["id"] = item.id
    if name is None:
        name = item.name
    if name is not None:
        event["toolName"] = name
    if call_id is not None:
        event["toolCallId"] = call_id
    if is_error is not None:
        event["isError"] = is_error
    if item.name is not None:
        meta["codexName"] = item.name
    event["meta"] = meta
    return [event]


CONVERTERS = {
    Message: message,
    Reasoning: reasoning,
    FunctionCall: function_call,
    CustomToolCall: custom_tool_call,
    FunctionCallOutput: call_output,
    CustomToolCallOutput: call_output,
}
