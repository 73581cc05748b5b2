"""What ``inspect`` needs of a Claude Code log, without building its messages.

The census runs the reader's own loop (``records._Transcript``: the same
line reading, byte-level skips of snapshots and progress lines, envelope,
titles, chain records, session start, subagent files and end event), with
two changes once the session has started:

- an ``assistant`` line, or a ``user`` line holding one ``tool_result``
  block (most of a log's lines and bytes), is decoded by msgspec into a
  typed record that declares only what a summary uses; text, thinking,
  tool inputs and tool outputs are skipped unparsed, and each content block
  is counted as the message the reader would have made of it;
- messages are counted as their line is read.  The reader holds the
  messages of an API response back until the response is over, to put its
  final usage on them, and releases them in file order: counting at once
  gives the same counts in the same order.  Usage is still counted by the
  reader's own :class:`UsageGrouper`, given each line's message id and
  usage but no events.

Any other line, or one the typed decode does not take exactly (another
shape, a line msgspec rejects, a line that is not valid UTF-8), goes
through the reader's own code.  ``tests/formats/test_census.py`` checks
that both paths give the same ``inspect --json`` on every corpus file,
fixture and generated log.

Fields read from a common line: ``type``, ``timestamp``, ``message.id``,
``message.model``, ``message.usage``, ``message.content`` (a string, or the
``type`` and ``name`` of each block).
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO, Union

import msgspec
import orjson

from sessionport.context import ReadContext
from sessionport.jsonl import iter_lines, parse_line
from sessionport.summary import SessionSummary, Summarizer
from sessionport.formats.claude_code.reader import READ_BUFFER, _subagent_notes
from sessionport.formats.claude_code.records import (
    _NAME_END,
    _PREFIX_HEAD,
    _PROGRESS_HEAD,
    _PROGRESS_SCAN,
    _PROGRESS_TYPE,
    _PROGRESS_TYPE_LEN,
    _UNPARSED_BY_NAME,
    TITLE_TYPES,
    AgentLink,
    FileResult,
    _progress_link,
    _skip_key,
    _Transcript,
)
from sessionport.formats.claude_code.subagents import Subagents, agent_id_of, find_subagents, is_warmup, read_sidecar_tool_call


class Block(msgspec.Struct):
    type: Any = None
    name: Any = None


class Message(msgspec.Struct):
    content: Union[list[Block], str, None] = None
    id: Any = None
    model: Any = None
    usage: Any = None


class Line(msgspec.Struct):
    message: Message
    type: Any = None
    timestamp: Any = None


_decode = msgspec.json.Decoder(Line).decode
# msgspec stops at a nesting depth below orjson's limit with RecursionError.
_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode()
    except UnicodeDecodeError:
        return False
    return True


def _block_message(block: Block, model: Any) -> tuple:
    """(role, kind, tool, model) of the message ``assistant_block`` makes."""
    btype = block.type
    if btype == "text":
        return "assistant", "text", None, model
    if btype == "tool_use" or btype == "server_tool_use":
        name = block.name
        return "tool", "tool_use", name if type(name) is str and name else "tool", model
    if btype == "thinking" or btype == "redacted_thinking":
        return "assistant", "thinking", None, model
    if isinstance(btype, str) and btype.endswith("_tool_result"):
        return "tool", "tool_result", None, model
    return "assistant", "text", None, model


class TranscriptCensus(_Transcript):
    """``_Transcript``'s loop, summarizing instead of yielding."""

    def __init__(self, ctx: ReadContext, link: AgentLink | None, result: FileResult, out: Summarizer) -> None:
        super().__init__(ctx, link, result)
        self.out = out
        self.decoded = 0  # lines counted from their typed decode (tests read it)

    def _start_session(self, out: list[dict]) -> SessionSummary:
        """The session event and the messages released with it, then what
        the grouper still holds: from here on messages are counted as read,
        so nothing may stay held behind."""
        self.out.take(self.session())
        self.count_events(out)
        grouper = self.grouper
        held, grouper.held, grouper.held_chars = grouper.held, [], 0
        for event in held:
            self.out.take(event)
        return self.out.session()

    def count_events(self, events: list[dict]) -> None:
        take = self.out.take
        for event in events:
            take(event)

    def census(self, stream: BinaryIO) -> None:
        ctx = self.ctx
        grouper = self.grouper
        skipped = self.skipped
        take = self.out.take
        loads = orjson.loads
        session: SessionSummary | None = None
        lines = messages = 0
        for line_no, line, complete in iter_lines(stream, ctx):
            lines += 1
            if line.startswith(_PREFIX_HEAD):
                close = line.find(b'"', 9, _NAME_END)
                kind = _UNPARSED_BY_NAME.get(line[9:close]) if close > 0 else None
                if kind is not None:
                    skipped[kind] += 1
                    continue
            elif self.session_sent and line.startswith(_PROGRESS_HEAD):
                at = line.find(b"{", 1, _PROGRESS_SCAN) + 1 - _PROGRESS_TYPE_LEN
                link = _progress_link(line, at) if at > 0 and line.startswith(_PROGRESS_TYPE, at) else None
                if link is not None:
                    parent = link[1]
                    self.remember_alias(link[0], self.alias.get(parent, parent) if parent else None)
                    skipped["progress"] += 1
                    continue
            if session is not None and (line.isascii() or _is_utf8(line)):
                # The common lines, typed (msgspec does not check the UTF-8
                # of the strings it skips: such lines take the reader's path).
                try:
                    record = _decode(line)
                except _DECODE_ERRORS:
                    record = None
                if record is not None:
                    rtype = record.type
                    message = record.message
                    content = message.content
                    stamp = record.timestamp
                    if type(stamp) is not str or not stamp:
                        stamp = None
                    if rtype == "assistant":
                        msg_id = message.id
                        if type(msg_id) is not str:
                            msg_id = None
                        model = message.model
                        model = model if type(model) is str and model else None
                        grouper.assistant(msg_id, message.usage, ())
                        count = session.count
                        if content.__class__ is list:
                            for block in content:
                                count(*_block_message(block, model), stamp)
                            messages += len(content)
                        elif content.__class__ is str:
                            count("assistant", "text", None, model, stamp)
                            messages += 1
                        self.decoded += 1
                        continue
                    if rtype == "user" and content.__class__ is list and len(content) == 1 and content[0].type == "tool_result":
                        grouper.other(())
                        session.count("tool", "tool_result", None, None, stamp)
                        messages += 1
                        self.decoded += 1
                        continue
            try:
                record = loads(line)
            except orjson.JSONDecodeError:
                record = parse_line(line, line_no, complete, ctx)
            if type(record) is not dict:
                if record is not None:
                    ctx.bad_record(
                        f"expected a Claude Code record (a JSON object), found a JSON {type(record).__name__}",
                        line=line_no,
                    )
                continue
            rtype = record.get("type")
            if type(rtype) is not str:
                rtype = None
            if rtype == "assistant":
                if not self.session_sent:
                    self.note_envelope(record)
                msg_id, usage, events = self.assistant_events(record)
                messages += len(events)
                if session is not None:
                    grouper.assistant(msg_id, usage, ())
                    self.count_events(events)
                    continue
                out = grouper.assistant(msg_id, usage, events)
            elif rtype == "user":
                if not self.session_sent:
                    self.note_envelope(record)
                events, prompt = self.user_events(record)
                if not events:
                    self.count_skip("user (empty)")
                    self.remember_skipped(record)
                    continue
                messages += len(events)
                if session is not None:
                    grouper.other((), ends_turn=prompt)
                    self.count_events(events)
                    continue
                out = grouper.other(events, ends_turn=prompt)
            elif rtype in TITLE_TYPES:
                self.take_title(record, rtype)
                continue
            elif rtype == "system" and (events := self.system_events(record)) is not None:
                if not self.session_sent:
                    self.note_envelope(record)
                messages += len(events)
                if session is not None:
                    grouper.other(())
                    self.count_events(events)
                    continue
                out = grouper.other(events)
            else:
                if not self.session_sent and isinstance(record.get("sessionId"), str) and "uuid" in record:
                    self.note_envelope(record)
                self.remember_skipped(record)
                self.count_skip(_skip_key(record))
                continue
            if out:
                # Still the reader's way: the session starts with the first
                # messages it releases; from here on, messages are counted.
                session = self._start_session(out)
        self.lines = lines
        self.messages = messages
        rest = grouper.close()
        if rest:
            if not self.session_sent:
                take(self.session())
            self.count_events(rest)


def census_transcript(stream: BinaryIO, ctx: ReadContext, out: Summarizer, *, link: AgentLink | None = None, result: FileResult | None = None, extra_notes: Any = None) -> None:
    """``records.read_transcript``, summarized."""
    result = result if result is not None else FileResult()
    transcript = TranscriptCensus(ctx, link, result, out)
    transcript.census(stream)
    if not transcript.session_sent:
        ctx.warn(transcript.why_empty())
        return
    notes = list(link.notes) if link else []
    if extra_notes is not None:
        notes.extend(extra_notes(result))
    out.take(transcript.end(notes))


def census(stream: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    """The ``inspect`` summaries of a Claude Code log and its subagent
    transcripts, as ``reader.read`` gives them."""
    out = Summarizer()
    leave_out = bool(ctx.options.get("no_subagents"))
    result = FileResult()
    found = Subagents()

    def notes_after_reading(res: FileResult) -> list[str]:
        nonlocal found
        if ctx.path is None:
            return []
        if res.is_agent_file:
            if is_warmup(ctx.path):
                return ["this is a 'Warmup' agent file (noise Claude Code writes at start-up)"]
            return []
        found = find_subagents(ctx.path, res.session_id)
        return _subagent_notes(found, leave_out)

    census_transcript(stream, ctx, out, result=result, extra_notes=notes_after_reading)
    if not leave_out:
        for path in found.files:
            _census_subagent(path, ctx, result, out)
    return out.sessions


def _census_subagent(path: str, ctx: ReadContext, parent: FileResult, out: Summarizer) -> None:
    """``reader._read_subagent``, summarized."""
    agent = agent_id_of(path)
    link = AgentLink(
        agent_id=agent,
        parent_session_id=parent.session_id,
        tool_call_id=parent.agent_calls.get(agent) or read_sidecar_tool_call(path),
    )
    child = ReadContext(
        name=path,
        path=path,
        strict=ctx.strict,
        skip_bad=ctx.skip_bad,
        options=ctx.options,
        on_warning=ctx.on_warning,
    )
    try:
        handle = open(path, "rb", buffering=READ_BUFFER)
    except OSError as exc:
        ctx.warn(f"subagent transcript {os.fspath(path)} cannot be opened ({exc.strerror or exc}); left out")
        return
    try:
        census_transcript(handle, child, out, link=link)
    finally:
        handle.close()
        ctx.warnings.extend(child.warnings)
        ctx.bad_count += child.bad_count
        ctx.bad_places.extend(child.bad_places[: max(0, 10 - len(ctx.bad_places))])
