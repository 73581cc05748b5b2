"""What ``inspect`` needs of a Claude Code log, without parsing what it never counts.

The census is the reader itself (``reader.read``: web sessions, subagent
files and their notes; ``records._Transcript``: its loop, byte-level skips,
every record handler, queued prompts, the usage grouper and the end
event), summarized as ``inspect`` summarizes any read.  One step differs:
once the session has started, an ``assistant`` line, or a ``user`` line
holding only ``tool_result`` blocks (most of a log's lines and bytes), is
decoded by msgspec into a typed record that declares only the fields the
reader's state and a summary use; texts, thinking, tool inputs, tool
outputs and ``toolUseResult`` are skipped unparsed.  The reader then
handles that partial record as any other, so roles, kinds, tools, models,
timestamps, usage and every unknown-type report are the reader's; only
texts and metadata no summary reads come out empty.

Every other line (prompts and other user lines, attachments, queue
operations, system and new record types, a line msgspec rejects or that is
not valid UTF-8) is parsed by the reader in full, so a change to the
reader's handling reaches the census with no change here.
``tests/formats/test_census.py`` checks that both give the same
``inspect --json`` on every corpus file, fixture, generated and
adversarial log.

Fields kept: the line's ``type``, ``timestamp``, ``uuid``, ``parentUuid``,
``isSidechain``, ``agentId``, ``isMeta``, ``isCompactSummary``,
``requestId``, ``isApiErrorMessage``; ``message.id``, ``model``, ``usage``;
of each block ``type``, ``name``, ``id``, ``tool_use_id``, ``is_error`` and,
of a tool result's content list, the type of each part.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Union

import msgspec

from sessionport.context import ReadContext
from sessionport.summary import SessionSummary, summarize
from sessionport.formats.claude_code.reader import read
from sessionport.formats.claude_code.records import _Transcript

_NULL = msgspec.Raw(b"null")


class Part(msgspec.Struct):
    type: Any = None


class Block(msgspec.Struct):
    type: Any = None
    name: Any = None
    id: Any = None
    tool_use_id: Any = None
    is_error: Any = None
    content: msgspec.Raw = _NULL


class Message(msgspec.Struct):
    content: Union[list[Block], str, None] = None
    id: Any = None
    model: Any = None
    usage: Any = None


class Line(msgspec.Struct):
    message: Message
    type: Any = None
    timestamp: Any = None
    uuid: Any = None
    parentUuid: Any = None
    isSidechain: Any = None
    agentId: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    requestId: Any = None
    isApiErrorMessage: Any = None


_decode = msgspec.json.Decoder(Line).decode
_decode_parts = msgspec.json.Decoder(list[Part]).decode
_LINE_FIELDS = tuple(f for f in Line.__struct_fields__ if f != "message")
# msgspec stops at a nesting depth below orjson's limit with RecursionError.
_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode()
    except UnicodeDecodeError:
        return False
    return True


def _tool_result(block: Block) -> dict:
    raw = bytes(block.content)
    # Only a content list's part types are read (unknown ones are
    # reported); its text and any other content are never counted.
    content = [{"type": part.type} for part in _decode_parts(raw)] if raw[:1] == b"[" else ""
    out: dict[str, Any] = {"type": "tool_result", "content": content}
    if block.tool_use_id is not None:
        out["tool_use_id"] = block.tool_use_id
    if block.is_error is not None:
        out["is_error"] = block.is_error
    return out


def _assistant_block(block: Block) -> dict:
    out: dict[str, Any] = {}
    for key in ("type", "name", "id", "tool_use_id"):
        value = getattr(block, key)
        if value is not None:
            out[key] = value
    return out


class TranscriptCensus(_Transcript):
    """``_Transcript`` with the partial parse of the common lines."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.decoded = 0  # lines taken by the typed decode (tests read it)

    def partial_record(self, line: bytes) -> dict | None:
        # msgspec does not check the UTF-8 of the strings it skips; orjson
        # rejects it, and the reader then replaces bad bytes with a warning.
        if not (line.isascii() or _is_utf8(line)):
            return None
        try:
            record = _decode(line)
            rtype = record.type
            content = record.message.content
            if rtype == "assistant":
                if content.__class__ is list:
                    content = [_assistant_block(block) for block in content]
            elif rtype == "user" and content.__class__ is list and content and all(b.type == "tool_result" for b in content):
                content = [_tool_result(block) for block in content]
            else:
                return None  # prompts and every other record: the reader's full parse
        except _DECODE_ERRORS:
            return None  # the reader's parse reports it, or reads what msgspec would not
        out = {key: value for key in _LINE_FIELDS if (value := getattr(record, key)) is not None}
        message = record.message
        out["message"] = {key: value for key, value in (("content", content), ("id", message.id), ("model", message.model), ("usage", message.usage)) if value is not None}
        self.decoded += 1
        return out


def census(stream: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    """The ``inspect`` summaries of a Claude Code log and its subagent
    transcripts, as ``reader.read`` gives them (see the module's doc)."""
    return summarize(read(stream, ctx, transcript_type=TranscriptCensus))
