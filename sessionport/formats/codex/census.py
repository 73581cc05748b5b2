"""What ``inspect`` needs of a Codex rollout, without building its messages.

The census runs the reader's own loop (:class:`RolloutReader`: the same
line reading, byte-level skips, token totals, session start, user-prompt
pairing, inherited history and end event), with one change: a
``response_item`` line of a common kind (assistant and developer messages,
reasoning, calls and their outputs: most of a rollout's bytes) is decoded
by msgspec into a typed envelope that declares only what a summary uses,
the rest of its payload skipped unparsed, and counted where the reader
would have yielded its message.  No event is built for it, no call
arguments or shell outputs (JSON inside strings) are parsed.

Any line the typed decode does not take exactly (another kind, a user
message, which waits for its prompt event, a line msgspec rejects, a line
that is not valid UTF-8) goes through the reader's own code, and its events
are summarized as ``inspect`` does.  ``tests/formats/test_census.py``
checks that both paths give the same ``inspect --json`` on every corpus
file, fixture and generated rollout.

Fields read from a common ``response_item`` line: ``timestamp``, ``type``,
``payload.type``; ``payload.name`` (function and custom tool calls);
``payload.role`` (messages); ``payload.summary`` and ``payload.content``
(reasoning: only whether they hold text).
"""

from __future__ import annotations

from typing import Any, BinaryIO, Generic, TypeVar

import msgspec
import orjson

from sessionport.context import ReadContext
from sessionport.jsondoc import first_significant_byte
from sessionport import jsonl
from sessionport.jsonl import _NUL_WHITESPACE, _WHITESPACE, BOM, _drop_nul, parse_line
from sessionport.summary import SessionSummary, Summarizer, summarize
from sessionport.formats.codex.items import content_text
from sessionport.formats.codex.reader import _is_document, read_document
from sessionport.formats.codex.rollout import _HEAD, PARSED_TYPES, USED_EVENTS, RolloutReader

T = TypeVar("T")


class Envelope(msgspec.Struct, Generic[T]):
    payload: T
    timestamp: Any = None
    type: Any = None


class Call(msgspec.Struct):
    type: Any = None
    name: Any = None


class Kind(msgspec.Struct):
    type: Any = None


class Message(msgspec.Struct):
    type: Any = None
    role: Any = None


class Reasoning(msgspec.Struct):
    type: Any = None
    summary: Any = None
    content: Any = None


# payload.type -> (decode, what the message is, payload.type as text).
# What: the fixed (role, kind, tool, model) of a call or an output (a
# call's model is the turn's), or "call",
# "message", "reasoning" when the payload decides.
_OUTPUT = ("tool", "tool_result", None, None)
_KINDS: dict[str, tuple[type, Any]] = {
    "function_call": (Call, "call"),
    "custom_tool_call": (Call, "call"),
    "local_shell_call": (Kind, ("tool", "tool_use", "local_shell", None)),
    "web_search_call": (Kind, ("tool", "tool_use", "web_search", None)),
    "function_call_output": (Kind, _OUTPUT),
    "custom_tool_call_output": (Kind, _OUTPUT),
    "local_shell_call_output": (Kind, _OUTPUT),
    "tool_search_output": (Kind, _OUTPUT),
    "message": (Message, "message"),
    "reasoning": (Reasoning, "reasoning"),
}
HOT: dict[bytes, tuple[Any, Any, str]] = {
    name.encode(): (msgspec.json.Decoder(Envelope[payload]).decode, what, name) for name, (payload, what) in _KINDS.items()
}


# The common envelope line, by position: ``{"timestamp":"`` and a timestamp
# of Codex's usual 24 characters, then the record type.  Lines of any other
# layout go through the reader's head pattern.
_STAMP_END = 14 + 24
_ITEM_AT = b'","type":"response_item","payload":{"type":"'
_ITEM_INNER = _STAMP_END + len(_ITEM_AT)
_EVENT_AT = b'","type":"event_msg","payload":{"type":"'
_EVENT_INNER = _STAMP_END + len(_EVENT_AT)
_LINE_START = b'{"timestamp":"'
_NAME_BYTES = b"abcdefghijklmnopqrstuvwxyz_"
_SYSTEM = ("system", "text", None, None)
# msgspec stops at a nesting depth below orjson's limit with RecursionError.
_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def _common(raw: bytes) -> bool:
    """A complete line of the usual layout (see _STAMP_END)."""
    return raw.startswith(_LINE_START) and raw.endswith(b"}\n") and raw.find(b'"', 14, _STAMP_END + 1) == _STAMP_END


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode()
    except UnicodeDecodeError:
        return False
    return True


class RolloutCensus(RolloutReader):
    """:class:`RolloutReader`'s loop, summarizing instead of yielding."""

    def __init__(self, ctx: ReadContext, out: Summarizer) -> None:
        super().__init__(ctx)
        self.out = out
        # Messages counted on the direct path: (role, kind, tool, model) ->
        # how many beyond the first, which went through SessionSummary.count
        # when it was seen (so counters keep their first-seen order); and
        # the earliest and latest of their timestamps.
        self.tally: dict[tuple, int] = {}
        self.tally_session: SessionSummary | None = None
        self.low: str | None = None
        self.high: str | None = None
        self.decoded = 0  # lines counted from their typed decode (tests read it)

    def summarize(self, stream: BinaryIO) -> None:
        if not jsonl._allocator_tuned:
            jsonl._keep_big_lines_off_the_heap()
        ctx = self.ctx
        take = self.out.take
        head_match = _HEAD.match
        skipped_fast = self.skipped_fast
        queue = self.queue
        recent = self.recent_prompts
        loads = orjson.loads
        hot = HOT.get
        token_count_bytes = self._token_count_bytes
        used_events = USED_EVENTS
        items = self.items
        tally = self.tally
        tally_get = tally.get
        introduce = self._introduce
        decode_errors = _DECODE_ERRORS
        low = high = None
        decoded = 0
        line_no = 0
        nul_warned = False
        stale, idle = True, False
        for raw in stream:
            line_no += 1
            # The direct path: a common line while nothing waits (no user
            # prompt looking for its pair, no copied history), read at
            # fixed offsets.  Everything else below is the reader's loop.
            # Only that part changes what "nothing waits" depends on.
            if stale:
                idle = not queue and not recent and self.inherit_from is None and self.session_sent
                stale = False
            if idle:
                if raw.startswith(_ITEM_AT, _STAMP_END) and _common(raw):
                    close = raw.find(b'"', _ITEM_INNER, _ITEM_INNER + 40)
                    entry = hot(raw[_ITEM_INNER:close]) if close > 0 else None
                    # msgspec does not check the UTF-8 of the strings it
                    # skips; orjson rejects it, and the reader then replaces
                    # bad bytes with a warning: such lines take its path.
                    if entry is not None and (raw.isascii() or _is_utf8(raw)):
                        decode, what, inner = entry
                        try:
                            record = decode(raw)
                        except decode_errors:
                            record = None
                        # A repeated key: what orjson keeps is what counts.
                        if record is not None and record.type == "response_item" and record.payload.type == inner:
                            if what.__class__ is tuple:
                                key = what if what[1] != "tool_use" else (*what[:3], items.model or None)
                            elif what == "call":
                                key = ("tool", "tool_use", str(record.payload.name or "unknown"), items.model or None)
                            elif what == "message":
                                role = record.payload.role
                                if role == "assistant":
                                    key = ("assistant", "text", None, items.model or None)
                                elif role in ("developer", "system"):
                                    key = _SYSTEM
                                else:
                                    key = None  # a user message waits for its prompt event
                            elif content_text(record.payload.summary) or content_text(record.payload.content):
                                key = ("assistant", "thinking", None, items.model or None)
                            else:
                                key = ()  # reasoning without text: no message
                            if key is not None:
                                decoded += 1
                                if key:
                                    self.last_compaction = False
                                    stamp = record.timestamp
                                    if stamp.__class__ is str:
                                        if high is None:
                                            low = high = stamp
                                        elif stamp > high:
                                            high = stamp
                                        elif stamp < low:
                                            low = stamp
                                    seen = tally_get(key)
                                    if seen is None:
                                        introduce(key, stamp)
                                    else:
                                        tally[key] = seen + 1
                                continue
                elif raw.startswith(_EVENT_AT, _STAMP_END) and _common(raw):
                    close = raw.find(b'"', _EVENT_INNER, _EVENT_INNER + 40)
                    inner = raw[_EVENT_INNER:close] if close > _EVENT_INNER else b""
                    # The head pattern names only a type of [a-z_]+.
                    if inner and not inner.translate(None, _NAME_BYTES):
                        if inner == b"token_count":
                            if token_count_bytes(raw):
                                continue
                        elif inner not in used_events:
                            skipped_fast[(b"event_msg", inner)] += 1
                            continue
            stale = True
            # What iter_lines does with a line.
            if line_no == 1 and raw.startswith(BOM):
                raw = raw[3:]
            line = raw.strip(_WHITESPACE)
            if line[:1] == b"\x00" or line[-1:] == b"\x00":
                if not nul_warned:
                    nul_warned = True
                    line = _drop_nul(line, line_no, ctx)
                else:
                    line = line.strip(_NUL_WHITESPACE)
            complete = raw[-1:] == b"\n"
            if not line:
                if complete:
                    continue
                break
            self.line_no = line_no
            match = head_match(line) if complete else None
            if match is not None:
                if self.inherit_from is not None:
                    self._copy_clock(match.group(1))
                key = match.group(2, 3)
                outer = key[0]
                if outer != b"response_item":
                    if outer == b"event_msg":
                        inner = key[1]
                        used = inner == b"token_count" and token_count_bytes(line)
                        fast = used or inner not in used_events
                    elif outer == b"turn_context":
                        fast = used = self._turn_context_bytes(line)
                    else:
                        used = False
                        fast = outer not in PARSED_TYPES
                    if fast:
                        if not used:
                            skipped_fast[key if outer == b"event_msg" else (outer, None)] += 1
                        if queue or recent:
                            for event in self._drain():
                                take(event)
                        continue
                elif self.session_sent:
                    entry = hot(key[1])
                    if entry is not None:
                        counted = self._counted(line, entry)
                        if counted is not None:
                            if queue or recent:
                                for event in self._drain():
                                    take(event)
                            continue
            try:
                record = loads(line)
            except orjson.JSONDecodeError:
                record = parse_line(line, line_no, complete, ctx)
            if record is None:
                if complete:
                    continue
                break
            if record.__class__ is not dict:
                ctx.bad_record(f"expected a JSON object, found a JSON {type(record).__name__}", line=line_no)
            elif not self.session_sent:
                if not self._hold_for_prelude(line_no, record):
                    for event in self._start():
                        take(event)
            else:
                payload = record.get("payload")
                if record.get("type") == "response_item" and payload.__class__ is dict:
                    events = self._response_item(line_no, payload, record.get("timestamp"), match is not None)
                    if events and not queue and not recent and self.inherit_from is None:
                        for event in events:
                            take(event)
                    else:
                        if events:
                            if self.inherit_from is not None:
                                for event in events:
                                    event.setdefault("meta", {})["inherited"] = True
                            queue.extend(events)
                        for event in self._drain():
                            take(event)
                else:
                    self._record(line_no, record, match is not None)
                    for event in self._drain():
                        take(event)
            if not complete:
                break
        self.line_no = line_no
        self.decoded += decoded
        self._stamps(low, high)
        if not self.session_sent:
            for event in self._start():
                take(event)
        self._close_tally()
        for event in self._finish():
            take(event)

    def _typed(self, line: bytes, entry: tuple) -> tuple | None:
        """``(role, kind, tool, model, timestamp)`` of a common response item
        from its typed decode; None when the line must take the reader's
        path; ``()`` when the item makes no message (a reasoning item
        without text)."""
        if not (line.isascii() or _is_utf8(line)):
            return None  # see the direct path in summarize
        decode, what, inner = entry
        try:
            record = decode(line)
        except _DECODE_ERRORS:
            return None
        item = record.payload
        if record.type != "response_item" or item.type != inner:
            return None  # a repeated key: what orjson keeps is what counts
        model = None
        if what.__class__ is tuple:
            role, kind, tool = what[:3]
            if kind == "tool_use":
                model = self.items.model
        elif what == "call":
            role, kind, tool = "tool", "tool_use", str(item.name or "unknown")
            model = self.items.model
        elif what == "message":
            if item.role == "assistant":
                role, kind, tool, model = "assistant", "text", None, self.items.model
            elif item.role in ("developer", "system"):
                role, kind, tool = "system", "text", None
            else:
                return None  # a user message waits for its prompt event
        else:  # reasoning: a message only when it holds text
            if not content_text(item.summary) and not content_text(item.content):
                return ()
            role, kind, tool, model = "assistant", "thinking", None, self.items.model
        stamp = record.timestamp
        return role, kind, tool, model or None, stamp if stamp.__class__ is str else None

    def _introduce(self, key: tuple, stamp: Any) -> None:
        """The first message of its (role, kind, tool, model) on the direct
        path: counted into the session at once, so that its role, kind, tool
        and model take their first-seen place in the counters; the next ones
        are only tallied, and added when the input ends."""
        session = self.out.session()
        if self.tally_session is not session:
            self._close_tally()
            self.tally_session = session
        session.count(*key, stamp if stamp.__class__ is str else None)
        self.tally[key] = 0

    def _stamps(self, low: str | None, high: str | None) -> None:
        for stamp in (low, high):
            if stamp is not None:
                if self.low is None or stamp < self.low:
                    self.low = stamp
                if self.high is None or stamp > self.high:
                    self.high = stamp

    def _close_tally(self) -> None:
        """Add what the direct path tallied to the session it counted into."""
        session, tally = self.tally_session, self.tally
        if session is not None:
            for (role, kind, tool, model), extra in tally.items():
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
        tally.clear()
        self.tally_session, self.low, self.high = None, None, None

    def _counted(self, line: bytes, entry: tuple) -> bool | None:
        """A common response item read while something waits: its stand-in
        message goes to the queue, in the order the reader keeps.  None when
        the line must take the reader's path."""
        found = self._typed(line, entry)
        if found is None:
            return None
        self.decoded += 1
        if not found:
            return False
        self.last_compaction = False
        role, kind, tool, model, stamp = found
        meta: dict[str, Any] = {"kind": kind}
        if model:
            meta["model"] = model
        if self.inherit_from is not None:
            meta["inherited"] = True
        event: dict[str, Any] = {"type": "message", "role": role, "meta": meta}
        if stamp is not None:
            event["timestamp"] = stamp
        if tool:
            event["toolName"] = tool
        if not self.queue and not self.recent_prompts and self.inherit_from is None:
            self.out.take(event)
        else:
            self.queue.append(event)
        return True


def census(stream: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    """The ``inspect`` summaries of a Codex input (see the module's doc)."""
    if first_significant_byte(stream) == b"{" and _is_document(stream):
        # The early single-document era is small and rare: its full read.
        return summarize(read_document(stream, ctx))
    out = Summarizer()
    RolloutCensus(ctx, out).summarize(stream)
    return out.sessions
