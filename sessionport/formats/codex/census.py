"""What ``inspect`` needs of a Codex rollout, without parsing what it never counts.

The census is the reader itself (:class:`RolloutReader`, its loop, every
record handler, the pairing of prompts, calls and results, the inherited
history and the end event), summarized as ``inspect`` summarizes any
read.  One step differs: a ``response_item`` line of a type the item
converter knows is decoded by msgspec into a typed envelope that declares
only the payload fields the reader's state and a summary use; the rest of
the payload (call arguments, patch inputs, shell outputs, encrypted
reasoning: most of a rollout's bytes) is skipped unparsed.  The reader
then handles that partial item as it handles any other, so a message's
role, kind, tool, model and timestamp, and every pairing rule, are the
reader's; only texts and metadata no summary reads come out empty.

While nothing waits in the reader (no user prompt looking for its pair,
no shell result held, no copied history), the commonest items (assistant
and developer messages, reasoning, function and custom tool calls and
their outputs) are not even handed back: the census counts their message
itself and keeps the converter's state as the reader does (the model, the
calls waiting for an output through ``ItemConverter.open_call`` and
``close_call``, unknown content parts through ``content_text``).  Any other
item type, or a common one while something waits, takes the reader's
handling.

Most lines never reach the reader at all: the census reads the file in
blocks (``jsonl.iter_line_blocks``, lines split with ``bytes.find``, the
line-length bound and line numbers kept) and, while nothing waits, takes
these from their bytes, the envelope and payload types matched at the
line's start as the reader matches them (``_HEAD``):

- mirror events: counted as skipped, unparsed, as the reader skips them;
- token counts: their totals read from the bytes by the reader's own
  ``_token_count_bytes``;
- calls, outputs and reasoning items: decoded whole into typed records
  that declare every key Codex writes (``forbid_unknown_fields``), so a
  value of another type or another key sends the line to the reader, and
  the decode checks the JSON as the reader's parse would (what msgspec
  does not check, UTF-8 of a block that is not ASCII, is tested apart).

Each such line is held to the depth bound as ``iter_lines`` holds the
reader's lines: an unparsed line is counted for its brackets; a call's or
an output's keys hold only strings (an output's raw value must be the
string that runs to the line's end, so no earlier value of the key hides
a nesting), and the nesting of a reasoning item's summary and content is
measured.  So ``inspect`` refuses exactly the lines ``convert`` refuses.
A line in any other shape (another key order, spaces, CRLF aside, a line
torn or cut) goes to the cleaner and the reader, as ``iter_lines`` would
hand it over.

Every other line (another record type, a new item type, a line msgspec
rejects or that is not valid UTF-8, anything before the session starts)
is parsed by the reader in full, so a change to the reader's handling
reaches the census with no change here.  ``tests/formats/test_census.py``
checks that both give the same ``inspect --json`` on every corpus file,
fixture, generated and adversarial rollout.

Payload fields kept: ``type``, ``role``, ``phase``, ``content`` (message
texts decide prompts and injected context; their part types are reported
when unknown), ``summary`` (reasoning: whether it holds text), ``name``,
``call_id``, ``id`` (call pairing, mirrored searches and images),
``result`` (an image generation's result makes a message).
"""

from __future__ import annotations

import re
from typing import Any, BinaryIO, Iterator, Union

import msgspec

from sessionport.context import ReadContext
from sessionport.jsondoc import first_significant_byte
from sessionport.jsonl import MAX_DEPTH, NOT_OPENERS, LineCleaner, iter_line_blocks, refuse_long_line
from sessionport.summary import SessionSummary, Summarizer, summarize
from sessionport.typed_decode import DECODE_ERRORS, decodable
from sessionport.formats.codex.exec_json import read_exec_stream, starts_exec_stream
from sessionport.formats.codex.items import _HANDLERS, content_text
from sessionport.formats.codex.reader import _is_document, read_document
from sessionport.formats.codex.rollout import MIRROR_EVENTS, RolloutReader


class Item(msgspec.Struct):
    type: Any = None
    role: Any = None
    phase: Any = None
    content: Any = None
    summary: Any = None
    name: Any = None
    call_id: Any = None
    id: Any = None
    result: Any = None
    encrypted_content: Any = None  # a reasoning item of no text is a message when it holds one


class Envelope(msgspec.Struct):
    payload: Item
    timestamp: Any = None
    type: Any = None


_decode = msgspec.json.Decoder(Envelope).decode

_Str = Union[str, None]


# The records the byte path decodes whole: every key Codex writes, typed,
# and no other (a value of another type or another key: the line goes to
# the reader).  Only strings below the envelope: such a line nests two
# levels, whatever repeats a key.
class CallItem(msgspec.Struct, forbid_unknown_fields=True):
    type: str
    name: _Str = None
    arguments: _Str = None
    call_id: _Str = None
    id: _Str = None
    status: _Str = None
    input: _Str = None


class CallRecord(msgspec.Struct, forbid_unknown_fields=True):
    payload: CallItem
    timestamp: _Str = None
    type: _Str = None
    ordinal: Union[int, None] = None


class OutputItem(msgspec.Struct, forbid_unknown_fields=True):
    type: str
    call_id: _Str = None
    # Not decoded: the raw value, which must be the string that runs from
    # where the layout puts it to the line's end (so no other value of the
    # key came before it).
    output: msgspec.Raw = msgspec.Raw()


class OutputRecord(msgspec.Struct, forbid_unknown_fields=True):
    payload: OutputItem
    timestamp: _Str = None
    type: _Str = None
    ordinal: Union[int, None] = None


class ReasoningItem(msgspec.Struct, forbid_unknown_fields=True):
    type: str
    summary: Any = None
    content: Any = None
    id: _Str = None
    encrypted_content: _Str = None


class ReasoningRecord(msgspec.Struct, forbid_unknown_fields=True):
    payload: ReasoningItem
    timestamp: _Str = None
    type: _Str = None
    ordinal: Union[int, None] = None


_decode_call = msgspec.json.Decoder(CallRecord).decode
_decode_output = msgspec.json.Decoder(OutputRecord).decode
_decode_reasoning = msgspec.json.Decoder(ReasoningRecord).decode
# What an output's payload holds before its output, in Codex's layout.
_OUTPUT_HEAD = re.compile(rb',"call_id":"[^"\\]*","output":(?=")')
_MIRROR, _TOKENS, _CALL, _OUTPUT, _REASONING = range(5)
# Lines the byte path takes, by their (envelope type, payload type); an
# exec_command_end may be the only trace of a call: the reader decides it.
_PATHS = {
    # (a task_complete may hold its turn's error: the reader decides it)
    **{(b"event_msg", name): _MIRROR for name in MIRROR_EVENTS if name not in (b"exec_command_end", b"task_complete")},
    (b"event_msg", b"token_count"): _TOKENS,
    (b"response_item", b"function_call"): _CALL,
    (b"response_item", b"custom_tool_call"): _CALL,
    (b"response_item", b"function_call_output"): _OUTPUT,
    (b"response_item", b"custom_tool_call_output"): _OUTPUT,
    (b"response_item", b"reasoning"): _REASONING,
}
# The reader's _HEAD with both types in one group: the bytes between the
# envelope type's opening quote and the payload type's closing one, looked
# up as they are.  A line it matches, _HEAD matches with the same types.
_TYPES = re.compile(rb'\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"([a-z_]+","payload":\{"type":"[a-z_]+)"')
_BY_TYPES = {outer + b'","payload":{"type":"' + inner: (path, (outer, inner)) for (outer, inner), path in _PATHS.items()}
# A line nested deeper than the bound has more brackets than that open and
# as many closing: a shorter line is never refused for its depth.
_SHALLOW = 2 * MAX_DEPTH + 2
_asdict = msgspec.structs.asdict
# The item types the converter has a handler for; any other goes to the
# reader's full parse (and its unknown-type policy).
PARTIAL_TYPES = {name.encode(): name for name in _HANDLERS}
_FIELDS = Item.__struct_fields__


_OUTPUTS = frozenset(("function_call_output", "custom_tool_call_output"))
_CALLS = frozenset(("function_call", "custom_tool_call"))
_RESULT = ("tool", "tool_result", None, None)
_SYSTEM = ("system", "text", None, None)


class RolloutCensus(RolloutReader):
    """:class:`RolloutReader` with the partial parse of known items."""

    def __init__(self, ctx: ReadContext) -> None:
        super().__init__(ctx)
        self.decoded = 0  # lines taken by the typed decode (tests read it)
        self.counted = 0  # of these, the ones counted here, never handed back
        self.from_bytes = 0  # of these, the ones the byte path took (see lines())
        self.out = Summarizer()
        # Messages counted here: (role, kind, tool, model) -> how many beyond
        # the first, which went through SessionSummary.count when it was
        # seen (so counters keep their first-seen order); added, with the
        # earliest and latest timestamps, when the input ends.
        self.tally: dict[tuple, int] = {}
        self.tally_session: SessionSummary | None = None
        self.low: str | None = None
        self.high: str | None = None

    def partial_item(self, line: bytes, payload_type: bytes | None) -> dict | None:
        name = PARTIAL_TYPES.get(payload_type)
        if name is None:
            return None
        if not decodable(line):
            return None
        try:
            record = _decode(line)
        except DECODE_ERRORS:
            return None  # the reader's parse reports it, or reads what msgspec would not
        item = record.payload
        # A repeated key: what orjson keeps is what counts.
        if record.type != "response_item" or item.type != name:
            return None
        self.decoded += 1
        # While nothing waits in the reader, the common items are counted
        # here (see the module's doc); else the reader handles the item.
        if not (self.queue or self.recent_prompts or self.inherit_from is not None or self.exec_held or self.exec_written):
            items = self.items
            if name in _CALLS:
                tool = str(item.name or "unknown")
                items.open_call(item.call_id, tool)
                items.counts["toolCalls"] += 1
                message = ("tool", "tool_use", tool, items.model or None)
            elif name in _OUTPUTS:
                items.close_call(item.call_id)
                items.counts["toolResults"] += 1
                message = _RESULT
            elif name == "reasoning":
                if not content_text(item.summary) and not content_text(item.content) and not (isinstance(item.encrypted_content, str) and item.encrypted_content):
                    self.counted += 1
                    return False  # no text, no encrypted reasoning: no message
                items.counts["thinking"] += 1
                message = ("assistant", "thinking", None, items.model or None)
            elif name == "message" and (item.role == "assistant" or item.role == "developer" or item.role == "system"):
                content_text(item.content, items.on_unknown_part)
                items.counts["messages"] += 1
                message = ("assistant", "text", None, items.model or None) if item.role == "assistant" else _SYSTEM
            else:
                message = None
            if message is not None:
                self._tally(message, record.timestamp)
                return False
        payload = {field: value for field in _FIELDS if (value := getattr(item, field)) is not None}
        return {"timestamp": record.timestamp, "type": "response_item", "payload": payload}

    def _tally(self, message: tuple, stamp: Any) -> None:
        """Count one message the reader would have written here."""
        self.last_compaction = False
        self.counted += 1
        if stamp.__class__ is str:
            if self.high is None:
                self.low = self.high = stamp
            elif stamp > self.high:
                self.high = stamp
            elif stamp < self.low:
                self.low = stamp
        seen = self.tally.get(message)
        if seen is None:
            self._introduce(message, stamp)
        else:
            self.tally[message] = seen + 1

    # -- the byte path ----------------------------------------------------
    def _idle(self) -> bool:
        """Nothing waits in the reader: a line taken here is one the reader
        would have handled on its own, with nothing to release around it."""
        return self.session_sent and not (
            self.queue or self.recent_prompts or self.inherit_from is not None or self.exec_held or self.exec_written
        )

    def lines(self, stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[int, bytes, bool]]:
        """The lines for the reader, as :func:`sessionport.jsonl.iter_lines`
        numbers, cleans and bounds them, read a block at a time; while the
        reader is idle, the lines the byte path can decide are counted here
        and never handed over (see the module's doc)."""
        cleaner = LineCleaner(ctx)
        limit = cleaner.limit
        clean = cleaner.clean
        head = _TYPES.match
        by_types = _BY_TYPES.get
        skipped_fast = self.skipped_fast
        line_no = 0
        idle = False
        for block, pos, end in iter_line_blocks(stream, ctx):
            if end < 0:  # a line longer than the limit, still without its end
                line_no += 1
                refuse_long_line(block, limit, line_no, ctx)
                continue
            find = block.find
            ascii = block.isascii()
            while pos < end:
                stop = find(b"\n", pos, end)
                line_no += 1
                complete = stop != -1
                if not complete:
                    stop = end
                after = stop + 1
                if idle and complete and stop - pos <= limit:
                    match = head(block, pos, stop)
                    if match is not None:
                        if block[stop - 1] == 13:  # CRLF
                            stop -= 1
                        taken = by_types(match.group(1)) if block[stop - 1] == 125 else None  # ends with its "}": nothing to strip
                        if taken is not None:
                            path = taken[0]
                            if path is _MIRROR:
                                # Skipped unparsed, as the reader skips it
                                # (which also holds it to the depth bound).
                                if stop - pos < _SHALLOW or len(block[pos:stop].translate(None, NOT_OPENERS)) <= MAX_DEPTH:
                                    skipped_fast[taken[1]] += 1
                                    pos = after
                                    continue
                            elif path is _TOKENS:
                                line = block[pos:stop]
                                if len(line.translate(None, NOT_OPENERS)) <= MAX_DEPTH and self._token_count_bytes(line):
                                    pos = after
                                    continue
                            elif path is _OUTPUT:
                                if self._output_bytes(taken[1][1], block, pos, stop, match.end(), ascii):
                                    pos = after
                                    continue
                            elif path is _REASONING:
                                if self._reasoning_bytes(block, pos, stop, ascii):
                                    pos = after
                                    continue
                            elif self._call_bytes(taken[1][1], block, pos, stop, ascii):
                                pos = after
                                continue
                        stop = after - 1
                if stop - pos > limit:
                    cleaner.too_long(block[pos:stop], line_no)
                    pos = after
                    continue
                line = clean(block[pos:stop], line_no)
                pos = after
                if line is not None:
                    yield line_no, line, complete
                    del line
                    idle = self._idle()
                if not complete:
                    return

    def _call_bytes(self, kind: bytes, block: bytes, pos: int, stop: int, ascii: bool) -> bool:
        """Count the call of ``block[pos:stop]``; False when the line is not
        in the layout decided here, for the reader."""
        line = block[pos:stop]
        if not ascii and not decodable(line):
            return False
        try:
            record = _decode_call(line)
        except DECODE_ERRORS:
            return False
        item = record.payload
        # A repeated key: what orjson keeps is what counts.
        if record.type != "response_item" or item.type != PARTIAL_TYPES[kind]:
            return False
        self.decoded += 1
        self.from_bytes += 1
        items = self.items
        tool = item.name or "unknown"
        items.open_call(item.call_id, tool)
        items.counts["toolCalls"] += 1
        self._tally(("tool", "tool_use", tool, items.model or None), record.timestamp)
        return True

    def _output_bytes(self, kind: bytes, block: bytes, pos: int, stop: int, body: int, ascii: bool) -> bool:
        """Count the output of ``block[pos:stop]`` (``body`` where its
        payload's type ends), as :meth:`_call_bytes` a call."""
        found = _OUTPUT_HEAD.match(block, body, stop)
        if found is None:
            return False
        line = block[pos:stop]
        if not ascii and not decodable(line):
            return False
        try:
            record = _decode_output(line)
        except DECODE_ERRORS:
            return False
        item = record.payload
        if record.type != "response_item" or item.type != PARTIAL_TYPES[kind] or len(item.output) != stop - 2 - found.end():
            return False
        self.decoded += 1
        self.from_bytes += 1
        items = self.items
        items.close_call(item.call_id)
        items.counts["toolResults"] += 1
        self._tally(_RESULT, record.timestamp)
        return True

    def _reasoning_bytes(self, block: bytes, pos: int, stop: int, ascii: bool) -> bool:
        """Count the reasoning item of ``block[pos:stop]``, as
        :meth:`_call_bytes` a call."""
        line = block[pos:stop]
        if not ascii and not decodable(line):
            return False
        try:
            record = _decode_reasoning(line)
        except DECODE_ERRORS:
            return False
        item = record.payload
        if record.type != "response_item" or item.type != "reasoning":
            return False
        summary, content = item.summary, item.content
        # Summary and content are the only values that may nest: held to
        # the depth bound as the reader's line is.
        if _nests_deeper(summary) or _nests_deeper(content):
            return False
        self.decoded += 1
        self.from_bytes += 1
        if not content_text(summary) and not content_text(content) and not item.encrypted_content:
            self.counted += 1
            return True  # no text, no encrypted reasoning: no message
        items = self.items
        items.counts["thinking"] += 1
        self._tally(("assistant", "thinking", None, items.model or None), record.timestamp)
        return True

    def _introduce(self, message: tuple, stamp: Any) -> None:
        session = self.out.current
        if self.tally_session is not session:
            self._close_tally()
            self.tally_session = session
        session.count(*message, stamp if stamp.__class__ is str else None)
        self.tally[message] = 0

    def _close_tally(self) -> None:
        """Add what was tallied to the session it was counted into."""
        session = self.tally_session
        if session is not None:
            for (role, kind, tool, model), extra in self.tally.items():
                if extra:
                    session.messages += extra
                    session.roles[role] += extra
                    session.kinds[kind] += extra
                    if tool:
                        session.tools[tool] += extra
                    if model:
                        session.models[model] += extra
            for stamp in (self.low, self.high):
                if stamp is not None:
                    if session.first is None or stamp < session.first:
                        session.first = stamp
                    if session.last is None or stamp > session.last:
                        session.last = stamp
        self.tally.clear()
        self.tally_session, self.low, self.high = None, None, None

    def summarize(self, stream: BinaryIO) -> list[SessionSummary]:
        take = self.out.take
        for event in self.run(stream):
            take(event)
        self._close_tally()
        return self.out.sessions


def _nests_deeper(value: Any) -> bool:
    """Whether a payload's value takes its line deeper than MAX_DEPTH (the
    envelope and the payload are two levels).  The usual shapes, a list of
    flat parts or no value, are told at once."""
    if value.__class__ is list:
        for part in value:
            if part.__class__ is dict:
                for inner in part.values():
                    if inner.__class__ is list or inner.__class__ is dict:
                        return _deeper_than(value, MAX_DEPTH - 2)
            elif part.__class__ is list:
                return _deeper_than(value, MAX_DEPTH - 2)
        return False
    return value.__class__ is dict and _deeper_than(value, MAX_DEPTH - 2)


def _deeper_than(value: Any, levels: int) -> bool:
    """Whether lists and objects nest more than ``levels`` deep in
    ``value`` (itself one level), walked without recursion."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > levels:
            return True
        for child in node.values() if node.__class__ is dict else node:
            if child.__class__ is dict or child.__class__ is list:
                stack.append((child, depth + 1))
    return False


def census(stream: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    """The ``inspect`` summaries of a Codex input (see the module's doc)."""
    if first_significant_byte(stream) == b"{" and _is_document(stream):
        # The early single-document era is small and rare: its full read.
        return summarize(read_document(stream, ctx))
    if starts_exec_stream(stream):
        return summarize(read_exec_stream(stream, ctx))  # a run's printed events: small, read in full
    return RolloutCensus(ctx).summarize(stream)
