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

Once the grouper holds nothing back (from the session's start on, the
census's grouper releases every message at once: it still counts usage
per API message, with the same totals), the commonest lines are not even
handed back: an assistant line whose blocks are text, thinking or tool
calls, and a user line holding one tool result, are counted here, each
block as the message the reader's own ``assistant_block`` makes of such a
block (asked once per block type and tool name), with the line's usage
given to the grouper.

Every other line (prompts and other user lines, attachments, queue
operations, system and new record types, a line msgspec rejects or that is
not valid UTF-8) is parsed by the reader in full, so a change to the
reader's handling reaches the census with no change here.
``tests/formats/test_census.py`` checks that both give the same
``inspect --json`` on every corpus file, fixture, generated and
adversarial log.

Fields kept: the line's ``type``, ``timestamp``, ``uuid``, ``sessionId``, ``parentUuid``,
``isSidechain``, ``agentId``, ``isMeta``, ``isCompactSummary``,
``requestId``, ``isApiErrorMessage``; ``message.id``, ``model``, ``usage``;
of each block ``type``, ``name``, ``id``, ``tool_use_id``, ``is_error`` and,
of a tool result's content list, the type of each part.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Union

import msgspec

from sessionport.context import ReadContext
from sessionport.summary import SessionSummary, Summarizer
from sessionport.typed_decode import DECODE_ERRORS, decodable
from sessionport.formats.claude_code.messages import USER_BLOCK_TYPES
from sessionport.formats.claude_code.reader import read
from sessionport.formats.claude_code.records import _Transcript
from sessionport.formats.claude_code.usage import UsageGrouper

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
    sessionId: Any = None
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


def _tool_result(block: Block) -> dict:
    raw = bytes(block.content)
    # Only a content list's part types are read (unknown ones are
    # reported); its text and any other content are never counted.
    first = raw[:1]
    if first == b"[":
        content: Any = [{"type": part.type} for part in _decode_parts(raw)]
    elif first == b"{":
        content = msgspec.json.decode(raw)  # rare: read as the reader reads it (its warnings, its error flag)
    else:
        content = ""
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


# Block types an assistant line may hold to be counted here.
_COUNTED_BLOCKS = frozenset(("text", "thinking", "tool_use"))
_CLASSES_KEPT = 4096


class ReleasingGrouper(UsageGrouper):
    """The reader's grouper, counting usage the same way, but (once
    ``releasing``) holding no message back: the summary's counts do not
    depend on when a message is released, only on their order, and what is
    released at once keeps the file's order."""

    releasing = False

    def assistant(self, message_id: Any, raw_usage: Any, events: list[dict]) -> list[dict] | tuple:
        if self.releasing and not self.held:
            out = UsageGrouper.assistant(self, message_id, raw_usage, ())
            return [*out, *events] if out else events
        return UsageGrouper.assistant(self, message_id, raw_usage, events)

    def other(self, events: list[dict], ends_turn: bool = False) -> list[dict] | tuple:
        if self.releasing and not self.held:
            out = UsageGrouper.other(self, (), ends_turn)
            return [*out, *events] if out else events
        return UsageGrouper.other(self, events, ends_turn)

    def assistant_event(self, message_id: Any, raw_usage: Any, event: dict) -> list[dict] | tuple:
        return self.assistant(message_id, raw_usage, [event])

    def other_event(self, event: dict) -> list[dict] | tuple:
        return self.other([event])


class TranscriptCensus(_Transcript):
    """``_Transcript`` with the partial parse of the common lines."""

    def __init__(self, ctx: ReadContext, link: Any, result: Any, out: Summarizer | None = None) -> None:
        super().__init__(ctx, link, result)
        self.grouper = ReleasingGrouper()
        self.out = out
        self.decoded = 0  # lines taken by the typed decode (tests read it)
        self.counted = 0  # of these, the ones counted here, never handed back
        self.classes: dict[tuple, tuple] = {}

    def session(self) -> dict:
        event = super().session()
        self.grouper.releasing = True
        return event

    def _class(self, btype: str, name: Any) -> tuple:
        """(role, kind, tool) of the message the reader makes of a block."""
        key = (btype, name)
        found = self.classes.get(key)
        if found is None:
            block = {"type": btype} if name is None else {"type": btype, "name": name}
            event = self.assistant_block(block, {}, None, None, None)
            meta = event.get("meta") or {}
            kind = meta.get("kind", "text")
            found = (event["role"], kind, event.get("toolName") if kind == "tool_use" else None)
            if len(self.classes) < _CLASSES_KEPT:
                self.classes[key] = found
        return found

    def _count(self, record: Line) -> bool:
        """Count the messages of a common line as the reader would make
        them, when the grouper holds nothing back; False to hand the line
        to the reader."""
        out = self.out
        grouper = self.grouper
        if out is None or not grouper.releasing or grouper.held:
            return False
        if record.isSidechain is True and not self.result.is_agent_file:
            return False  # an inline sidechain line: the reader's meta and counts
        message = record.message
        content = message.content
        stamp = record.timestamp
        stamp = stamp if stamp.__class__ is str and stamp else None
        if record.type == "assistant":
            if content.__class__ is list:
                for block in content:
                    if block.type not in _COUNTED_BLOCKS:
                        return False
            elif content.__class__ is not str:
                return False
            msg_id = message.id
            UsageGrouper.assistant(grouper, msg_id if msg_id.__class__ is str else None, message.usage, ())
            model = message.model
            model = model if model.__class__ is str and model else None
            count = out.current.count
            if content.__class__ is str:
                count("assistant", "text", None, model, stamp)
            else:
                for block in content:
                    name = block.name
                    role, kind, tool = self._class(block.type, name if name.__class__ is str else None)
                    count(role, kind, tool, model, stamp)
            return True
        # A user line of one tool result whose content parts the reader
        # takes without a report.
        if len(content) != 1:
            return False
        raw = bytes(content[0].content)
        if raw[:1] == b"[" and any(part.type not in USER_BLOCK_TYPES for part in _decode_parts(raw)):
            return False
        UsageGrouper.other(grouper, (), False)
        out.current.count("tool", "tool_result", None, None, stamp)
        return True

    def partial_record(self, line: bytes) -> dict | None:
        if not decodable(line):
            return None
        try:
            record = _decode(line)
            rtype = record.type
            content = record.message.content
            if rtype == "assistant":
                if content.__class__ is list and not content:
                    return None  # maybe an answer saved as its spread stream: the reader rebuilds it
            elif not (rtype == "user" and content.__class__ is list and content and all(b.type == "tool_result" for b in content)):
                return None  # prompts and every other record: the reader's full parse
            if record.uuid is not None and record.uuid == self.last_uuid:
                return None  # maybe a line repeated on resume: the reader judges it
            if self._count(record):
                self.last_uuid = record.uuid
                self.last_session = record.sessionId
                self.decoded += 1
                self.counted += 1
                return False
            if rtype == "user":
                content = [_tool_result(block) for block in content]
            elif content.__class__ is list:
                content = [_assistant_block(block) for block in content]
            self.decoded += 1
        except DECODE_ERRORS:
            return None  # the reader's parse reports it, or reads what msgspec would not
        out = {key: value for key in _LINE_FIELDS if (value := getattr(record, key)) is not None}
        message = record.message
        out["message"] = {key: value for key, value in (("content", content), ("id", message.id), ("model", message.model), ("usage", message.usage)) if value is not None}
        return out


def census(stream: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    """The ``inspect`` summaries of a Claude Code log and its subagent
    transcripts, as ``reader.read`` gives them (see the module's doc)."""
    out = Summarizer()

    def transcript(ctx: ReadContext, link: Any, result: Any) -> TranscriptCensus:
        return TranscriptCensus(ctx, link, result, out)

    take = out.take
    for event in read(stream, ctx, transcript_type=transcript):
        take(event)
    return out.sessions
