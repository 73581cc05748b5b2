"""One Codex rollout read in pieces by several processes, with the output of
one reader.

The reader carries state from record to record (the calls waiting for their
output and their tool names, the current model, user prompts waiting for
their mirror, held shell results, the copy clock of a resumed rollout, ...).
A piece is read by the real :class:`RolloutReader` from the state the
reader would be in at the piece's first line, and that state is not guessed
blindly: it is checked.

- **Count** (:func:`count`, in parallel): the lines of every stretch of the
  file, for the line numbers where pieces start, and whether it holds NUL
  bytes.
- **Read** (:func:`read_piece`, in parallel): the worker of piece *k*
  replays, with byte patterns, the calls and outputs of the stretch before
  the cut that holds the last outputs the reader remembers, and finds the
  model of the last ``turn_context`` (:func:`guess_before`).  It starts the
  real reader from the state after the session event plus those, a stretch
  before the piece (the *warm-up*), reads the warm-up and throws its events
  away: what lasts only a few lines (prompts waiting for their mirror, held
  shell results, the copy clock) is then what it would be.  At the piece's
  first line it records its full state, then reads the piece, writes its
  events with the writer, and records its state at the end.
- **Check** (:func:`follows`, in the parent, in order): a piece is used only
  when the state it started from is byte for byte (pickled) the state the
  piece before it ended in; otherwise it is read again from that state
  (:func:`read_piece` with ``resume``).  Counters, token totals, warnings
  and unknown types are summed or concatenated in order, and the end event
  is made by the reader's own ``_finish`` from those sums
  (:func:`end_events`).

So a wrong guess costs time, never output: the output is the bytes one
reader writes.
"""

from __future__ import annotations

import io
import os
import pickle
import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any, Iterator

import orjson

from sessionport.errors import DataError
from sessionport.context import MAX_REPORTED_PLACES, ReadContext, WriteContext
from sessionport.jsonl import iter_block_lines
from sessionport.formats.codex.items import ANSWERED_LIMIT, ItemConverter
from sessionport.jsondoc import first_significant_byte
from sessionport.formats.codex.exec_json import starts_exec_stream
from sessionport.formats.codex.reader import _is_document
from sessionport.formats.codex.rollout import RolloutReader
from sessionport.formats.codex.usage import TokenTotals

READ_PIECE = 4 << 20
# How far back from a cut the calls and outputs are replayed.
LOOKBACK = 64 << 20
LOOKBACK_CLOSES = ANSWERED_LIMIT + 64
WINDOW_BUFFER = 1 << 20

# What a reader sums up as it goes (merged across pieces), and what is no
# state at all; everything else on the reader and its ItemConverter is
# state, checked at every cut.  A new attribute is state unless listed here:
# a piece then costs a second read, never wrong output.
_SUMS = frozenset(("ctx", "items", "usage", "inherited_usage", "skipped", "skipped_fast", "notes", "title", "late_metadata"))
_ITEM_SUMS = frozenset(("counts", "skipped", "forgotten", "on_unknown", "on_unknown_part"))
# Set by the read's options, the same in every piece, and tested by identity
# (the reader takes the typed decode only with the module's own table): not
# state, never replaced by an unpickled copy.
_ITEM_SETTINGS = frozenset(("handlers",))


def refusal(stream) -> str | None:
    """Why the input on ``stream`` (peekable, at its start) is not read in
    pieces, or None."""
    if first_significant_byte(stream) == b"{" and _is_document(stream):
        return "a TypeScript-era rollout is one JSON document"
    if starts_exec_stream(stream):
        return "the events codex exec --json printed are read by their own reader"
    return None


# -- the scan ---------------------------------------------------------------
_CALLS = re.compile(
    rb'"payload":\{"type":"(function_call|custom_tool_call|local_shell_call|tool_search_call|'
    rb'function_call_output|custom_tool_call_output|local_shell_call_output|tool_search_output)"'
)
_NAME = re.compile(rb',"name":"([^"\\]{1,200})"')
_CALL_ID = re.compile(rb'"call_id":"([^"\\]{1,200})"')
_MODEL = re.compile(rb'"model":"([^"\\]*)"')
_TURN = b'"type":"turn_context","payload":{'
_USER = b'"payload":{"type":"user_message"'
_FIXED_NAMES = {b"local_shell_call": "local_shell", b"tool_search_call": "tool_search"}


@dataclass
class Scan:
    """What a stretch of the file leaves behind, read from its bytes."""

    # (call id, tool name) for a call, (call id, None) for an output
    ops: list = field(default_factory=list)
    model: str | None = None
    user: bool = False


def count(path: str, start: int, end: int) -> tuple[int, bool]:
    """The newlines in bytes ``[start, end)`` of the file, and whether they
    hold a NUL byte."""
    lines = 0
    nul = False
    with open(path, "rb", buffering=0) as f:
        f.seek(start)
        remaining = end - start
        while remaining > 0:
            data = f.read(min(READ_PIECE, remaining))
            if not data:
                break
            remaining -= len(data)
            lines += data.count(b"\n")
            nul = nul or b"\x00" in data
    return lines, nul


def guess_before(path: str, offset: int) -> dict:
    """The likely state of the long-lived parts of the reader at ``offset``
    (a line start): the calls still waiting and the answered ones (replayed
    from the calls and outputs of the stretch before it that holds the last
    ``LOOKBACK_CLOSES`` outputs, at most ``LOOKBACK`` bytes), the model of
    the last ``turn_context`` and whether a prompt event came before."""
    found: list[Scan] = []
    closes = 0
    model = None
    user = False
    with open(path, "rb") as f:
        pos, tail = offset, b""
        while pos > 0 and offset - pos < LOOKBACK and (closes < LOOKBACK_CLOSES or model is None):
            low = max(0, pos - READ_PIECE)
            f.seek(low)
            block = f.read(pos - low) + tail
            pos = low
            if low > 0:
                cut = block.find(b"\n") + 1
                if cut == 0:  # inside a line longer than a read
                    tail = block
                    continue
                block, tail = block[cut:], block[:cut]
            else:
                tail = b""
            piece = Scan()
            _scan_piece(block, piece)
            found.append(piece)
            closes += sum(1 for _, name in piece.ops if name is None)
            if model is None:
                model = piece.model
            user = user or piece.user
        if not user:
            f.seek(0)
            user = _USER in f.read(min(offset, READ_PIECE))
    fold = Fold()
    for piece in reversed(found):
        piece.model = None
        fold.add(piece)
    fold.model = model
    fold.user = user
    return fold.guess()


def _line(piece: bytes, pos: int) -> bytes:
    start = piece.rfind(b"\n", 0, pos) + 1
    end = piece.find(b"\n", pos)
    return piece[start : end if end != -1 else len(piece)]


def _payload(piece: bytes, pos: int) -> dict:
    try:
        record = orjson.loads(_line(piece, pos))
    except orjson.JSONDecodeError:
        return {}
    payload = record.get("payload") if isinstance(record, dict) else None
    return payload if isinstance(payload, dict) else {}


def _scan_piece(piece: bytes, result: Scan) -> None:
    if not result.user and _USER in piece:
        result.user = True
    pos = piece.rfind(_TURN)
    while pos != -1 and result.model is None:
        result.model = _turn_model(piece, pos)
        pos = piece.rfind(_TURN, 0, pos)
    ops = result.ops
    for match in _CALLS.finditer(piece):
        kind = match.group(1)
        at = match.end()
        end = piece.find(b"\n", at)
        if end == -1:
            end = len(piece)
        found = _CALL_ID.search(piece, at, end)
        if kind.endswith(b"_output"):
            if found is not None:
                ops.append((found.group(1).decode("utf-8", "replace"), None))
            else:
                call_id = _payload(piece, at).get("call_id")
                ops.append((call_id, None))
            continue
        name = _FIXED_NAMES.get(kind)
        named = _NAME.match(piece, at) if name is None else None
        if found is None or (name is None and named is None) or kind == b"local_shell_call":
            payload = _payload(piece, at)
            call_id = payload.get("call_id")
            if kind == b"local_shell_call":
                call_id = call_id or payload.get("id")
            if name is None:
                name = str(payload.get("name") or "unknown")
        else:
            call_id = found.group(1).decode("utf-8", "replace")
            if name is None:
                name = named.group(1).decode("utf-8", "replace")
        ops.append((call_id, name))


def _turn_model(piece: bytes, pos: int) -> str | None:
    """The model a ``turn_context`` line sets, as the reader takes it."""
    line = _line(piece, pos)
    if line.count(b'"model":"') == 1:
        found = _MODEL.search(line)
        if found is not None:
            return found.group(1).decode("utf-8", "replace")
    try:
        payload = orjson.loads(line).get("payload")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    model = payload.get("model") if isinstance(payload, dict) else None
    return model if isinstance(model, str) else None


class Fold:
    """Scans of consecutive stretches, replayed in order."""

    def __init__(self) -> None:
        self.items = ItemConverter()
        self.model: str | None = None
        self.user = False

    def add(self, found: Scan) -> None:
        items = self.items
        for call_id, name in found.ops:
            if name is None:
                items.close_call(call_id)
            else:
                items.open_call(call_id, name)
        if found.model is not None:
            self.model = found.model
        self.user = self.user or found.user

    def guess(self) -> dict:
        return {
            "pending": dict(self.items.pending),
            "answered": OrderedDict(self.items.answered),
            "model": self.model,
            "seen_user_event": self.user,
        }


# -- the state --------------------------------------------------------------
def state_of(reader: RolloutReader) -> bytes:
    """The reader's state as bytes: equal bytes, equal state.  Pickled
    without the memo, so that two equal values that are one object in one
    state and two in the other still compare equal."""
    top = {k: v for k, v in vars(reader).items() if k not in _SUMS and not k.startswith("_sp_")}
    items = {k: v for k, v in vars(reader.items).items() if k not in _ITEM_SUMS and k not in _ITEM_SETTINGS}
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump((top, items))
    return buffer.getvalue()


def _restore(reader: RolloutReader, state: bytes) -> None:
    top, items = pickle.loads(state)
    vars(reader).update(top)
    vars(reader.items).update(items)


class PieceTotals(TokenTotals):
    """Token totals of one piece, with the first total it saw: whether the
    totals reset where the piece begins is known only when pieces are joined."""

    __slots__ = ("first",)

    def __init__(self) -> None:
        super().__init__()
        self.first: int | None = None

    def add_line(self, total_tokens: int, line: bytes) -> None:
        if self.first is None:
            self.first = total_tokens
        TokenTotals.add_line(self, total_tokens, line)

    def _segment(self, total_tokens: int) -> None:
        if self.first is None:
            self.first = total_tokens
        TokenTotals._segment(self, total_tokens)


def join_totals(before: TokenTotals, piece: PieceTotals) -> TokenTotals:
    """The totals of ``before`` then ``piece``, as one reader would have them."""
    if piece.last is None:
        return before
    if before.last is None:
        return piece
    reset = piece.first is not None and piece.first < before.last_total
    joined = TokenTotals()
    base = dict(before.base)
    if reset:
        for key, value in before._last_usage().items():
            base[key] = base.get(key, 0) + value
    for key, value in piece.base.items():
        base[key] = base.get(key, 0) + value
    joined.base = base
    joined.resets = before.resets + piece.resets + reset
    joined.last, joined.last_total, joined.request = piece.last, piece.last_total, piece.request
    return joined


class PieceReader(RolloutReader):
    """The reader of one piece: numbers lines from ``first_line``, reads the
    warm-up before line ``live_from`` without counting it, and stops at the
    end of its piece without writing the end."""

    def __init__(self, ctx: ReadContext, first_line: int, live_from: int) -> None:
        super().__init__(ctx)
        self.usage = PieceTotals()
        self.inherited_usage = PieceTotals()
        self._sp_offset = first_line - 1
        self._sp_live_from = live_from
        self._sp_live = False
        self._sp_start: bytes | None = None
        self._sp_end: bytes | None = None

    def lines(self, stream, ctx):
        offset, live_from = self._sp_offset, self._sp_live_from
        numbered = iter_block_lines(stream, ctx)
        for line_no, line, complete in numbered:
            line_no += offset
            if line_no >= live_from:
                self._go_live()
                yield line_no, line, complete
                break
            yield line_no, line, complete
        for line_no, line, complete in numbered:
            yield line_no + offset, line, complete

    def _go_live(self) -> None:
        """The piece proper begins: its start state, and sums from zero."""
        if self._sp_live:
            return
        self._sp_start = state_of(self)
        self._sp_live = True
        self.usage, self.inherited_usage = PieceTotals(), PieceTotals()
        # Cleared in place: the main loop holds some of them in locals.
        for counter in (self.skipped, self.skipped_fast, self.items.counts, self.items.skipped):
            counter.clear()
        self.notes.clear()
        self.late_metadata.clear()
        self.title = None
        self.items.forgotten = 0
        ctx = self.ctx
        ctx.unknown_counts, ctx.unknown_seen, ctx.warnings = {}, {}, []
        ctx.bad_count, ctx.bad_places = 0, []

    def _end_of_input(self) -> Iterator[dict]:
        self._go_live()
        self._sp_end = state_of(self)
        return iter(())

    def sums(self) -> dict:
        ctx = self.ctx
        return {
            "skipped": self.skipped,
            "skipped_fast": self.skipped_fast,
            "counts": self.items.counts,
            "item_skipped": self.items.skipped,
            "forgotten": self.items.forgotten,
            "notes": self.notes,
            "title": self.title,
            "late_metadata": self.late_metadata,
            "usage": self.usage,
            "inherited_usage": self.inherited_usage,
            "unknown_counts": ctx.unknown_counts,
            "unknown_seen": ctx.unknown_seen,
            "bad_count": ctx.bad_count,
            "bad_places": ctx.bad_places,
        }


# -- reading a piece --------------------------------------------------------
@dataclass(frozen=True)
class Piece:
    """One piece of the file to read; picklable."""

    index: int
    path: str
    name: str
    start: int  # the piece's first byte (a line start)
    end: int
    window: int  # where reading starts (the warm-up before ``start``)
    window_line: int  # the line number at ``window``
    start_line: int  # the line number at ``start``
    out: str  # where its output goes
    to: str
    strict: bool = False
    skip_bad: bool = False
    options: dict = field(default_factory=dict)
    resume: bytes | None = None  # the state to start from, known exactly


@dataclass
class PieceResult:
    index: int
    start_state: bytes | None
    end_state: bytes | None
    sums: dict
    warnings: list
    messages: int
    out: str
    error: Any = None  # (class, attributes, args) of an error raised in the piece
    warm_up_failed: bool = False


class _Window(io.RawIOBase):
    """Bytes ``[start, end)`` of a file."""

    def __init__(self, path: str, start: int, end: int) -> None:
        self.fd = os.open(path, os.O_RDONLY)
        self.path = path
        self.pos, self.end = start, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        size = min(len(buffer), self.end - self.pos)
        if size <= 0:
            return 0
        if hasattr(os, "preadv"):
            read = os.preadv(self.fd, [memoryview(buffer)[:size]], self.pos)
        else:
            data = os.pread(self.fd, size, self.pos)
            read = len(data)
            buffer[:read] = data
        if read == 0:
            # the file ends before the piece does: it was truncated after
            # the pieces were planned (the parent names the change)
            raise DataError(
                self.path, f"the file ends at byte {self.pos:,}, before the end of the piece read in parallel (byte {self.end:,}): it was truncated while being read",
                hint="convert it again once it is complete, or with --jobs 1",
            )
        self.pos += read
        return read

    def close(self) -> None:
        if not self.closed:
            os.close(self.fd)
        super().close()


def _quiet(message: str) -> None:
    pass


class _HeadReader(RolloutReader):
    """Reads up to the first line after the session has started."""

    def lines(self, stream, ctx):
        for numbered in iter_block_lines(stream, ctx):
            if self.session_sent:
                return
            yield numbered

    def _end_of_input(self) -> Iterator[dict]:
        return iter(())


def _after_session(piece: Piece) -> bytes | None:
    """The state of a reader of this file once its session has started: a
    start for the warm-up (the session's id, era, what it inherits)."""
    ctx = ReadContext(name=piece.name, skip_bad=True, options=dict(piece.options), on_warning=_quiet)
    reader = _HeadReader(ctx)
    try:
        with open(piece.path, "rb") as f:
            for _ in reader.run(f):
                pass
    except Exception:
        return None
    return state_of(reader) if reader.session_sent else None


def read_piece(piece: Piece) -> PieceResult:
    from sessionport.registry import get_registry

    ctx = ReadContext(name=piece.name, strict=piece.strict, skip_bad=piece.skip_bad, options=dict(piece.options), on_warning=_quiet)
    if piece.resume is not None:
        reader = PieceReader(ctx, piece.start_line, piece.start_line)
        _restore(reader, piece.resume)
        begin = piece.start
    else:
        begin = piece.window
        reader = PieceReader(ctx, piece.window_line, piece.start_line)
        if begin > 0:
            base = _after_session(piece)
            if base is not None:
                _restore(reader, base)
            try:
                guess = guess_before(piece.path, begin)
            except Exception:  # only a guess: the state is checked anyway
                guess = {}
            vars(reader.items).update({k: v for k, v in guess.items() if k != "seen_user_event"})
            reader.seen_user_event = bool(guess.get("seen_user_event"))
            reader.line_no = piece.window_line - 1
    messages = 0

    def live(events: Iterator[dict]) -> Iterator[dict]:
        nonlocal messages
        for event in events:
            if reader._sp_live:
                if event.get("type") == "message":
                    messages += 1
                yield event

    error = None
    warm_up_failed = False
    exporter = get_registry().exporter(piece.to)
    stream = io.BufferedReader(_Window(piece.path, begin, piece.end), buffer_size=WINDOW_BUFFER)
    try:
        with open(piece.out, "wb", buffering=WINDOW_BUFFER) as out:
            try:
                exporter.write(live(reader.run(stream)), out, WriteContext(name=piece.out, on_warning=_quiet))
            except Exception as exc:
                if not reader._sp_live:
                    warm_up_failed = True
                else:
                    error = _portable(exc)
    finally:
        stream.close()
    return PieceResult(
        piece.index,
        piece.resume if piece.resume is not None else reader._sp_start,
        reader._sp_end,
        reader.sums(),
        list(ctx.warnings),
        messages,
        piece.out,
        error,
        warm_up_failed,
    )


def _portable(exc: Exception) -> tuple:
    """An exception as something that survives pickling (``DataError``'s
    constructor does not take its own ``args``)."""
    return (type(exc), dict(vars(exc)), exc.args)


def raise_error(error: tuple) -> None:
    cls, attributes, args = error
    exc = cls.__new__(cls)
    Exception.__init__(exc, *args)
    vars(exc).update(attributes)
    raise exc


def follows(before: PieceResult, after: PieceResult) -> bool:
    """Whether ``after`` started from the state ``before`` ended in."""
    return (
        not after.warm_up_failed
        and before.error is None
        and before.end_state is not None
        and after.start_state == before.end_state
    )


def resumed(piece: Piece, before: PieceResult) -> Piece:
    """``piece`` to be read again, from the state the piece before ended in."""
    assert before.end_state is not None
    return replace(piece, resume=before.end_state)


# -- the end ----------------------------------------------------------------
class Sums:
    """The sums of the pieces read so far, in order."""

    def __init__(self) -> None:
        self.skipped: Counter = Counter()
        self.skipped_fast: Counter = Counter()
        self.counts: Counter = Counter()
        self.item_skipped: Counter = Counter()
        self.forgotten = 0
        self.notes: list = []
        self.title: str | None = None
        self.late_metadata: dict = {}
        self.usage: TokenTotals = TokenTotals()
        self.inherited_usage: TokenTotals = TokenTotals()
        self.unknown_counts: dict = {}
        self.unknown_seen: dict = {}
        self.bad_count = 0
        self.bad_places: list = []

    def add(self, sums: dict) -> None:
        self.skipped.update(sums["skipped"])
        self.skipped_fast.update(sums["skipped_fast"])
        self.counts.update(sums["counts"])
        self.item_skipped.update(sums["item_skipped"])
        self.forgotten += sums["forgotten"]
        self.notes.extend(sums["notes"])
        if sums["title"] is not None:
            self.title = sums["title"]
        self.late_metadata.update(sums["late_metadata"])
        self.usage = join_totals(self.usage, sums["usage"])
        self.inherited_usage = join_totals(self.inherited_usage, sums["inherited_usage"])
        for key, count in sums["unknown_counts"].items():
            self.unknown_counts[key] = self.unknown_counts.get(key, 0) + count
        for what, names in sums["unknown_seen"].items():
            seen = self.unknown_seen.setdefault(what, {})
            for name, count in names.items():
                seen[name] = seen.get(name, 0) + count
        self.bad_count += sums["bad_count"]
        self.bad_places.extend(sums["bad_places"])
        del self.bad_places[MAX_REPORTED_PLACES:]


def end_events(last_state: bytes, sums: Sums, ctx: ReadContext) -> Iterator[dict]:
    """What one reader writes after the last line: held results, prompts
    still waiting, and the end event, from the state the last piece ended
    in and the sums of every piece."""
    reader = RolloutReader(ctx)
    _restore(reader, last_state)
    reader.skipped, reader.skipped_fast = sums.skipped, sums.skipped_fast
    reader.items.counts, reader.items.skipped, reader.items.forgotten = sums.counts, sums.item_skipped, sums.forgotten
    reader.notes, reader.title, reader.late_metadata = sums.notes, sums.title, sums.late_metadata
    reader.usage, reader.inherited_usage = sums.usage, sums.inherited_usage
    ctx.unknown_counts = sums.unknown_counts
    for what, names in sums.unknown_seen.items():
        seen = ctx.unknown_seen.setdefault(what, {})
        for name, count in names.items():
            seen[name] = seen.get(name, 0) + count
    ctx.bad_count += sums.bad_count
    ctx.bad_places.extend(sums.bad_places)
    del ctx.bad_places[MAX_REPORTED_PLACES:]
    return reader._end_of_input()
