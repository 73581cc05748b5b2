"""Reading JSON Lines robustly and fast.

Real transcripts arrive with a UTF-8 BOM, CRLF line ends, blank lines,
invalid UTF-8 inside strings, a torn last line or a tail of NUL bytes left by
a crash.  This module turns all of that into parsed records plus warnings, so
that importers only deal with records.

Three line sources give the same lines, line numbers, warnings and bad
records; they differ in what they cost a line:

- :func:`iter_lines`, a bounded ``readline`` per line: what most readers use;
- :func:`iter_block_lines`, lines cut with ``find`` out of one buffer read a
  block at a time: the Codex reader's (one copy of a line's bytes instead
  of three);
- :func:`iter_line_blocks`, whole blocks handed over for a reader that looks
  at many lines without making a bytes object of each (``inspect``'s Codex
  census), with :class:`LineCleaner` for the lines it does hand on.

The depth bound (:data:`MAX_DEPTH`) is checked by ``iter_lines`` unless its
consumer checks it itself (``check_depth=False``): on the bytes
(:func:`line_too_deep`) or, cheaper for a long line, on what orjson made of
it (:func:`value_too_deep`).
"""

from __future__ import annotations

import io
import os
import re
import sys
from itertools import islice
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.lazy import lazy
from sessionport.context import ReadContext

# The deepest nesting read anywhere (JSONL lines here, documents in
# sessionport.jsondoc, where pieces may pass it by SLICE_OPENERS before the
# check sees it).  Real transcripts nest a few tens of levels; the writers'
# orjson stops at 255 and the stages walk values recursively, so the bound
# is what every step after reading can take.
MAX_DEPTH = 128

BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"

# The longest line a JSONL reader holds: far above any real record (the
# largest seen in real transcripts is about 1 MB, an inline image), low
# enough that a line without end (a compression bomb, /dev/zero) is
# refused before it can exhaust memory.
DEFAULT_MAX_LINE = 64 << 20
MAX_LINE_ENV = "SESSIONPORT_MAX_LINE_SIZE"
# Lines are read in pieces of at most this size; only a longer line is
# assembled from pieces.
_PIECE = 1 << 20


_MMAP_THRESHOLD = 1 << 20
_allocator_tuned = False
# An input that ends within this many bytes, or has no line this long, makes
# no allocation of its own that glibc's mmap threshold governs (128 KiB until
# a bigger block is freed): the readers tune the allocator only once they
# have read more than this, or a line this long, before such a block is
# made, so that a small conversion does not load ctypes for it.
_SMALL_INPUT = 1 << 16


def _keep_big_lines_off_the_heap() -> None:
    """Fix glibc's mmap threshold at 1 MiB, once per process, before the
    first block of an input larger than ``_SMALL_INPUT`` or the first line
    that long.

    glibc raises the threshold each time a large block is freed, so after the
    first lines of a few hundred KB, such lines are allocated on the heap,
    which fragments: peak memory then creeps up with the number of big lines,
    about 6 MiB more for a 1 GiB Claude Code log than for a 200 MB one.  A
    fixed threshold sends every block of 1 MiB or more to mmap, returned to
    the system when freed, and memory stays flat.  Left alone when the user
    set ``MALLOC_MMAP_THRESHOLD_`` or on other C libraries.
    """
    global _allocator_tuned
    _allocator_tuned = True
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = getattr(libc, "mallopt", None)
        if mallopt is not None:
            mallopt(-3, _MMAP_THRESHOLD)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError, TypeError, ValueError):
        pass  # musl or an unusual build: memory is still bounded, only less tightly


def parse_size(text: str | int) -> int:
    """A size in bytes from ``67108864``, ``64M``, ``64MiB``, ``1G`` or ``512k``
    (binary units: ``M`` is 2**20).  Raises ValueError on anything else."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        match = _SIZE.fullmatch(str(text).strip())
        if match is None:
            raise ValueError(f"{text!r} is not a size; write it as 64M, 1G, 512k or a number of bytes")
        try:
            value = int(float(match.group(1)) * _UNITS[match.group(2).lower()[:1]])
        except OverflowError:  # digits beyond a float (1e308): no size
            raise ValueError(f"{text!r} is too large to be a size; write it as 64M, 1G, 512k or a number of bytes") from None
    if value < 1:
        raise ValueError(f"{text!r}: the size must be at least one byte")
    return value


_SIZE = lazy(r"([0-9]+(?:\.[0-9]+)?)\s*((?:[kKmMgGtT](?:i?[bB])?)|[bB]?)")
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def human_bytes(n: int) -> str:
    """``67108864`` as ``64 MiB``: how limits are named in messages."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def max_line_size(ctx: ReadContext) -> int:
    """The longest line a JSONL reader accepts for this read: the
    ``max_line_size`` option (``--max-line-size``), else the environment
    variable ``SESSIONPORT_MAX_LINE_SIZE``, else :data:`DEFAULT_MAX_LINE`."""
    value = ctx.options.get("max_line_size")
    if value is None:
        value = os.environ.get(MAX_LINE_ENV) or None
    if value is None:
        return DEFAULT_MAX_LINE
    try:
        return parse_size(value)
    except ValueError as exc:
        from sessionport.errors import UsageError

        raise UsageError(f"--max-line-size / {MAX_LINE_ENV}: {exc}") from None


# Keys and values one line may hold.  Parsed, each costs a Python object
# (about 55 bytes for a small key or number, against its 3-5 bytes of
# text), so a 64 MiB line of small keys took 750 MB; this bound keeps a
# line's objects near 220 MB, below what a 64 MiB line of text costs.  A
# line shorter than the bound cannot exceed it: only long lines are counted.
DEFAULT_MAX_LINE_VALUES = 4_000_000
MAX_LINE_VALUES_ENV = "SESSIONPORT_MAX_LINE_VALUES"


def max_line_values(ctx: ReadContext | None = None) -> int:
    """The most keys and values a line may hold (:data:`DEFAULT_MAX_LINE_VALUES`,
    or ``SESSIONPORT_MAX_LINE_VALUES``)."""
    value = os.environ.get(MAX_LINE_VALUES_ENV)
    if not value:
        return DEFAULT_MAX_LINE_VALUES
    try:
        number = int(value.replace("_", "").replace(",", ""))
        if number < 1:
            raise ValueError
    except ValueError:
        from sessionport.errors import UsageError

        raise UsageError(f"{MAX_LINE_VALUES_ENV}: {value!r} is not a positive whole number (keys and values per line)") from None
    return number


def line_values(line: bytes, limit: int) -> int:
    """About how many keys and values ``line`` holds: its commas and colons
    outside strings, counted only as far as needed to compare with
    ``limit`` (the quick count of all of them first)."""
    quick = line.count(b",") + line.count(b":")
    if quick <= limit:
        return quick
    # Commas and colons inside strings (a tool's output) are no values:
    # count yajl's events, one at a time (nothing built, nothing held),
    # and only up to the limit.  The line goes to yajl in 1 MiB pieces:
    # ijson's default 64 KiB ones gather a long string again at every
    # piece (an 18 MB string: 4 s instead of 0.4 s), and ijson keeps all
    # the events of one piece at once (the whole line in one: 600 MB).  An unreadable line gives what was
    # counted; orjson then names its error.
    import ijson

    counted = 0
    try:
        for counted, _ in enumerate(islice(ijson.basic_parse(io.BytesIO(line), buf_size=1 << 20, use_float=True), limit + 1), 1):
            pass
    except Exception:
        pass
    return counted


def refuse_many_values(line: bytes, line_no: int, ctx: ReadContext, limit: int) -> bool:
    """Whether ``line`` holds more keys and values than ``limit``: then a
    bad record (raises unless --skip-bad), never parsed."""
    found = line_values(line, limit)
    if found <= limit:
        return False
    ctx.bad_record(
        f"this line ({human_bytes(len(line))}) holds more than {limit:,} keys and values, the limit per line: "
        f"parsed, each would be a Python object (more than {limit * 55 >> 20:,} MB for them)",
        line=line_no,
        hint=f"no real transcript line holds this many; raise the limit with {MAX_LINE_VALUES_ENV}=N if the file is genuine, "
        "or skip the line with --skip-bad",
    )
    return True


def refuse_long_line(first: bytes, limit: int, line_no: int, ctx: ReadContext) -> None:
    """Report a line longer than ``limit`` as a bad record (raises unless
    --skip-bad); ``first`` is its first piece, at most ``_PIECE`` bytes."""
    all_nul = not first.strip(_NUL_WHITESPACE)
    cause = "; it starts with NUL bytes only, as a compression bomb or a device like /dev/zero gives" if all_nul else ""
    ctx.bad_record(
        f"this line is longer than the limit of {human_bytes(limit)}{cause}",
        line=line_no,
        hint=f"no real transcript line is this long; raise the limit with --max-line-size (or {MAX_LINE_ENV}) "
        "if the file is genuine, or skip the line with --skip-bad",
    )


def _long_line(first: bytes, readline, limit: int, line_no: int, ctx: ReadContext) -> bytes | None:
    """The rest of a line longer than one read piece, joined, or None when
    it is longer than ``limit`` (then consumed piece by piece, never held,
    and reported as a bad record)."""
    parts = [first]
    size = len(first)
    piece = first
    while True:
        if size - (piece[-1:] == b"\n") > limit:  # the line end does not count
            del parts
            # Raises unless --skip-bad: then the rest of the line is read
            # through, piece by piece, to the next record.
            refuse_long_line(first, limit, line_no, ctx)
            while piece[-1:] != b"\n":
                piece = readline(_PIECE)
                if not piece:
                    break
            return None
        if piece[-1:] == b"\n":
            break
        piece = readline(_PIECE)
        if not piece:
            break
        size += len(piece)
        parts.append(piece)
    return b"".join(parts)


def iter_lines(stream: BinaryIO, ctx: ReadContext, *, check_depth: bool = True) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line_number, stripped_bytes, complete)`` for each non-blank line.

    ``complete`` is False for a last line without a newline (possibly torn).
    NUL bytes at the end of the input (pre-allocated space never written) are
    dropped with one warning.  A line longer than :func:`max_line_size` is a
    bad record (an error, or skipped and counted with ``--skip-bad``); it is
    read in pieces and never held whole, so memory stays bounded whatever
    the input.  A big line is handed over without a second reference kept
    here, so a consumer that drops it frees it.

    A line nested deeper than :data:`MAX_DEPTH` is a bad record.  With
    ``check_depth=False`` the consumer checks that itself, before it acts on
    the line: on its bytes (:func:`too_deep_record`, :func:`line_too_deep`)
    or, once parsed with orjson, on its values (:func:`value_too_deep`,
    cheaper than a pass over the bytes of a long line); it may skip the
    check for a line it read in a shape that cannot nest that deep.
    """
    limit = max_line_size(ctx)
    values = max_line_values(ctx)
    readline = stream.readline
    piece = min(_PIECE, limit + 1)  # a line longer than the limit never fits one piece
    small = min(piece, _SMALL_INPUT)
    nul_warned = False
    line_no = 0
    first = True
    while True:
        raw = readline(piece)
        if not raw:
            return
        line_no += 1
        if len(raw) >= small:
            if not _allocator_tuned:
                _keep_big_lines_off_the_heap()
            if len(raw) == piece and raw[-1:] != b"\n":
                raw = _long_line(raw, readline, limit, line_no, ctx)
                if raw is None:
                    continue
            if len(raw) > values and refuse_many_values(raw, line_no, ctx, values):
                continue
        if first:
            first = False
            if raw.startswith(BOM):
                raw = raw[3:]
        complete = raw[-1:] == b"\n"
        line = raw.strip(_WHITESPACE)
        del raw
        # Padding sits at a line's ends (before the next record, or as the
        # last line), and only the ends are stripped; testing them is cheaper
        # than scanning every byte.  A NUL inside a record makes it unreadable
        # JSON, reported as a bad record.
        if line[:1] == b"\x00" or line[-1:] == b"\x00":
            if not nul_warned:
                nul_warned = True
                line = _drop_nul(line, line_no, ctx)
            else:
                line = line.strip(_NUL_WHITESPACE)
        if line:
            if check_depth and too_deep_record(line, line_no, ctx):
                continue
            if len(line) < piece:
                yield line_no, line, complete
            else:
                held = [line]
                del line
                yield line_no, held.pop(), complete
        if not complete:
            # A line without its newline is where the input ends now.  Reading
            # on could return the rest of that same line if the file is still
            # being written, which would look like a new, broken record.
            return


_NUL_WHITESPACE = b"\x00" + _WHITESPACE
_NOT_OPENERS = bytes(b for b in range(256) if b not in b"[{")
# ``len(line.translate(None, NOT_OPENERS))``: how many brackets open on a
# line, strings included (more than MAX_DEPTH, and only then, is the line
# walked by too_deep).
NOT_OPENERS = _NOT_OPENERS

# What :func:`iter_line_blocks` reads at a time: below the allocator's mmap
# threshold (see _keep_big_lines_off_the_heap), so blocks reuse heap memory
# instead of faulting in fresh pages each time.
BLOCK = 1 << 19


def iter_line_blocks(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[bytes, int, int]]:
    """The input as ``(block, start, end)``: ``block[start:end]`` holds
    whole lines, each ending in a newline; the input's last line, when it
    has no newline, comes last (``end`` the length of its block).  A line
    still without its end when more than the limit of it is held comes as
    ``(its first piece, 0, -1)``: the reader refuses it with
    :func:`refuse_long_line` (as :func:`iter_lines` would), and the rest of
    it is read through, never held, when the reader goes on.

    For a reader that splits lines itself with ``bytes.find``, a block at a
    time, instead of a ``readline`` per line; the reader counts the lines,
    refuses those of a block longer than the limit, and cleans the others
    with a :class:`LineCleaner` (or reads their bytes as they are).
    """
    limit = max_line_size(ctx)
    first_piece = min(_PIECE, limit + 1)
    read = stream.read
    carry: list[bytes] = []  # the start of a line without its end yet
    carried = 0
    taken = 0  # bytes read, until the allocator is tuned
    while True:
        data = read(BLOCK)
        if not data:
            if carried:
                yield b"".join(carry), 0, carried
            return
        if not _allocator_tuned:
            taken += len(data)
            if taken > _SMALL_INPUT:
                _keep_big_lines_off_the_heap()
        start = 0
        if carry:
            cut = data.find(b"\n") + 1
            if cut:
                # The carried line, joined with its end alone.
                carry.append(data[:cut])
                line = b"".join(carry)
                carry, carried = [], 0
                yield line, 0, len(line)
                del line
                start = cut
            else:
                carry.append(data)
                carried += len(data)
                if carried > limit:
                    head = bytearray()
                    for piece in carry:  # the line's first piece, as iter_lines reads it
                        head += piece[: first_piece - len(head)]
                        if len(head) >= first_piece:
                            break
                    carry, carried = [], 0
                    yield bytes(head), 0, -1
                    del head
                    while not cut:  # --skip-bad: read through to the next line
                        data = read(BLOCK)
                        if not data:
                            return
                        cut = data.find(b"\n") + 1
                    start = cut
                else:
                    continue
        end = data.rfind(b"\n", start) + 1
        if end:
            yield data, start, end
        else:
            end = start
        if end < len(data):
            carry, carried = [data[end:]], len(data) - end
        del data


class LineCleaner:
    """What :func:`iter_lines` does to each line it reads, for a reader of
    :func:`iter_line_blocks`: the BOM of the first line, whitespace, NUL
    padding (one warning), the length and depth bounds.  The same warnings
    and bad records, at the same lines."""

    __slots__ = ("ctx", "limit", "values", "first", "nul_warned")

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.limit = max_line_size(ctx)
        self.values = max_line_values(ctx)
        self.first = True
        self.nul_warned = False

    def too_long(self, raw: bytes, line_no: int) -> None:
        """Refuse a line of a block longer than the limit (raises unless
        --skip-bad); ``raw`` the line, without its newline."""
        refuse_long_line(raw[: min(_PIECE, self.limit + 1)], self.limit, line_no, self.ctx)

    def clean(self, raw: bytes, line_no: int) -> bytes | None:
        """The line to parse, or None for a blank or refused one; ``raw``
        the line without its newline, no longer than the limit."""
        line = self.strip(raw, line_no)
        if line is not None and line_too_deep(line):
            refuse_deep_line(line_no, self.ctx)
            return None
        return line

    def strip(self, raw: bytes, line_no: int) -> bytes | None:
        """:meth:`clean` without the depth bound (the reader checks it,
        as a reader of ``iter_lines(check_depth=False)`` does)."""
        if self.first:
            self.first = False
            if raw.startswith(BOM):
                raw = raw[3:]
        if len(raw) > self.values and refuse_many_values(raw, line_no, self.ctx, self.values):
            return None
        line = raw.strip(_WHITESPACE)
        if line[:1] == b"\x00" or line[-1:] == b"\x00":
            if not self.nul_warned:
                self.nul_warned = True
                line = _drop_nul(line, line_no, self.ctx)
            else:
                line = line.strip(_NUL_WHITESPACE)
        return line or None


# What :func:`iter_block_lines` reads at a time, into one buffer kept for
# the whole input: more than the input layer's buffer (1 MiB, see
# sessionport.io.READ_BUFFER), so that ``readinto`` fills it straight from
# the file or the decompressor instead of through that buffer.
INTO_BLOCK = 2 << 20
_FIRST_READ = 1 << 16


def iter_block_lines(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[int, bytes, bool]]:
    """What ``iter_lines(stream, ctx, check_depth=False)`` yields, the same
    lines, numbers, warnings and bad records, read a block at a time into
    one buffer and split with ``bytes.find`` instead of a ``readline`` per
    line: each line's bytes are copied once, from the buffer.

    A line that starts with ``{`` and ends with ``}`` (most lines of a
    transcript) is taken as it is: nothing to strip.  A line longer than
    the buffer is gathered from pieces, and refused (never held whole) once
    more than the limit of it is read; one that ends within the limit is
    handed over without a reference kept here.  As with ``iter_lines``, a
    last line without its newline is where reading stops.
    """
    cleaner = LineCleaner(ctx)
    limit = cleaner.limit
    values = cleaner.values
    strip = cleaner.strip
    first_piece = min(_PIECE, limit + 1)
    buffer = bytearray(INTO_BLOCK)
    view = memoryview(buffer)
    readinto = stream.readinto
    find = buffer.find
    line_no = 0
    fresh = True  # the first line (its BOM) not seen yet
    carry: list[bytes] = []  # the start of a line without its end yet
    carried = 0
    # The first read is small: the reader's first events come out before
    # much of a large input is read.
    into = view[:_FIRST_READ]
    while True:
        size = readinto(into) or 0
        if into is not buffer:
            into = buffer
        elif size and not _allocator_tuned:
            # More than the first read's _SMALL_INPUT bytes: the buffer
            # holds no line yet copied out of it.
            _keep_big_lines_off_the_heap()
        pos = 0
        if carry:
            cut = find(b"\n", 0, size) + 1 if size else 0
            if cut or not size:
                # The carried line ends here (or the input does: torn).
                if size:
                    carry.append(bytes(view[: cut - 1]))
                    carried += cut - 1
                line_no += 1
                complete = size > 0
                if carried > limit:
                    head = _first_piece(carry, first_piece)
                    carry, carried = [], 0
                    refuse_long_line(head, limit, line_no, ctx)
                    del head
                else:
                    joined = b"".join(carry)
                    carry, carried = [], 0
                    line = strip(joined, line_no)
                    del joined
                    fresh = cleaner.first
                    if line is not None:
                        held = [line]
                        del line
                        yield line_no, held.pop(), complete
                if not complete:
                    return
                pos = cut
            else:
                carry.append(bytes(view[:size]))
                carried += size
                if carried > limit:
                    line_no += 1
                    head = _first_piece(carry, first_piece)
                    carry, carried = [], 0
                    refuse_long_line(head, limit, line_no, ctx)
                    del head
                    while not cut:  # --skip-bad: read through to the next line
                        size = readinto(buffer) or 0
                        if not size:
                            return
                        cut = find(b"\n", 0, size) + 1
                    pos = cut
                else:
                    continue
        elif not size:
            return
        end = buffer.rfind(b"\n", pos, size) + 1 or pos
        # No line of this stretch is over the limits when the stretch is not.
        checked = end - pos > limit or end - pos > values
        while pos < end:
            stop = find(b"\n", pos, end)
            line_no += 1
            # tobytes: the same bytes as bytes(view[...]), with less work a call
            if checked and stop - pos > limit:
                refuse_long_line(bytes(view[pos : min(stop, pos + first_piece)]), limit, line_no, ctx)
            elif checked and stop - pos > values and refuse_many_values(view[pos:stop].tobytes(), line_no, ctx, values):
                pass
            elif buffer[pos] == 123 and not fresh and buffer[stop - 1] == 125:
                yield line_no, view[pos:stop].tobytes(), True
            elif buffer[pos] == 123 and not fresh and buffer[stop - 1] == 13 and buffer[stop - 2] == 125 and stop - pos > 1:
                yield line_no, view[pos : stop - 1].tobytes(), True
            else:
                line = strip(view[pos:stop].tobytes(), line_no)
                fresh = cleaner.first
                if line is not None:
                    yield line_no, line, True
                    del line
            pos = stop + 1
        if end < size:
            carry, carried = [bytes(view[end:size])], size - end


def _first_piece(parts: list[bytes], size: int) -> bytes:
    """The first ``size`` bytes of ``parts`` joined: the first piece
    ``iter_lines`` reads of a line."""
    head = bytearray()
    for piece in parts:
        head += piece[: size - len(head)]
        if len(head) >= size:
            break
    return bytes(head)


def refuse_deep_line(line_no: int, ctx: ReadContext) -> None:
    ctx.bad_record(
        f"JSON nested deeper than {MAX_DEPTH} levels on this line",
        line=line_no,
        hint="no transcript nests this deep; the file is damaged or not a transcript (--skip-bad skips the line)",
    )


def too_deep_record(line: bytes, line_no: int, ctx: ReadContext) -> bool:
    """Whether ``line`` nests deeper than :data:`MAX_DEPTH`, reported as a
    bad record (raises unless ``--skip-bad``: then True, skip the line)."""
    if line_too_deep(line):
        refuse_deep_line(line_no, ctx)
        return True
    return False


def too_deep(line: bytes, limit: int | None = None) -> bool:
    """Whether the JSON on ``line`` nests deeper than ``limit`` (default
    MAX_DEPTH).  Only called for lines with more brackets than the limit,
    which are rare: the value is parsed and walked without recursion."""
    limit = MAX_DEPTH if limit is None else limit
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return "recursion" in str(exc).lower() or "depth" in str(exc).lower()
    if type(value) is not dict and type(value) is not list:
        return False
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if type(node) is dict else node:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return False


def line_too_deep(line: bytes) -> bool:
    """The test :func:`iter_lines` makes of each line: whether it nests
    deeper than MAX_DEPTH (or so deep that orjson refuses it)."""
    return len(line.translate(None, _NOT_OPENERS)) > MAX_DEPTH and too_deep(line)


def opening_brackets(line: bytes) -> int:
    """How many ``[`` and ``{`` bytes ``line`` holds: a line with no more
    than MAX_DEPTH cannot nest deeper."""
    return len(line.translate(None, _NOT_OPENERS))


def value_too_deep(value: Any) -> bool:
    """Whether ``value``, what orjson made of a line, nests deeper than
    MAX_DEPTH: the same answer as :func:`line_too_deep` on that line, at
    the cost of a look at each value instead of each byte."""
    kind = type(value)
    return (kind is dict or kind is list) and _below_too_deep(value, MAX_DEPTH)


def _below_too_deep(node: Any, left: int) -> bool:
    """Whether a container below ``node`` passes the bound, ``left`` being
    how many more levels ``node`` and those below it may take.  Recursive:
    a call per container, not a list per level, and no deeper than the
    bound (far below the interpreter's limit)."""
    for child in node.values() if type(node) is dict else node:
        if type(child) is dict or type(child) is list:
            if left == 1 or _below_too_deep(child, left - 1):
                return True
    return False


def _drop_nul(line: bytes, line_no: int, ctx: ReadContext) -> bytes:
    ctx.damaged_tail("NUL bytes found (a crash while writing?); they were dropped", line=line_no)
    return line.strip(_NUL_WHITESPACE)


# A UTF-16 surrogate escape without its partner (what JavaScript writes for
# a string cut inside an emoji) is valid JSON grammar that orjson refuses.
# Escapes are matched left to right so that an escaped backslash is never
# taken for the start of an escape; a proper pair is kept.
_ESCAPE = lazy(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|(\\u[dD][89a-fA-F][0-9a-fA-F]{2})|\\.",
    re.S,
)


def replace_lone_surrogates(data: bytes) -> tuple[bytes, int]:
    """``data`` with each lone surrogate escape replaced by ``\\ufffd``, and
    how many were replaced."""
    count = 0

    def fix(match: re.Match) -> bytes:
        nonlocal count
        if match.group(1) is None:
            return match.group(0)
        count += 1
        return b"\\ufffd"

    fixed = _ESCAPE.sub(fix, data)
    return fixed, count


def loads_lenient(data: bytes) -> tuple[Any, int]:
    """Parse JSON that orjson refused only for lone surrogate escapes:
    ``(value, replaced)``.  Raises orjson's error when that was not the cause."""
    fixed, count = replace_lone_surrogates(data) if b"\\u" in data else (data, 0)
    if not count:
        raise orjson.JSONDecodeError("no lone surrogate to replace", "", 0)
    return orjson.loads(fixed), count


def parse_line(line: bytes, line_no: int, complete: bool, ctx: ReadContext) -> Any:
    """Parse one line.  Returns the value, or ``None`` when the line was
    skipped (reported to ``ctx``)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        error = exc
    if b"\\u" in line:
        try:
            value, replaced = loads_lenient(line)
        except orjson.JSONDecodeError:
            pass
        else:
            ctx.warn(f"line {line_no}: {replaced} lone UTF-16 surrogate escape(s) (a string cut inside an emoji?) replaced with U+FFFD")
            return value
    # orjson rejects invalid UTF-8 outright; decode with replacement and retry
    # so one bad byte costs one character, not the record.
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", "replace")
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            error = exc
            # both at once (a bad byte and a cut emoji in one line): each
            # costs its characters, not the record
            replaced = 0
            if "\\u" in text:
                try:
                    value, replaced = loads_lenient(text.encode("utf-8"))
                except orjson.JSONDecodeError:
                    pass
            if replaced:
                ctx.warn(f"line {line_no}: invalid UTF-8 replaced with U+FFFD")
                ctx.warn(f"line {line_no}: {replaced} lone UTF-16 surrogate escape(s) (a string cut inside an emoji?) replaced with U+FFFD")
                return value
        else:
            ctx.warn(f"line {line_no}: invalid UTF-8 replaced with U+FFFD")
            return value
    place = describe_refused_value(error) if complete or not _ends_early(error) else None
    if not complete and place is None:
        ctx.damaged_tail(f"the last line is incomplete ({len(line)} bytes, {error.msg})", line=line_no)
        return None
    if place is not None:
        # a line complete in itself (a one-line JSON document without a
        # newline at the end too) with a value JSON readers refuse: not a
        # torn tail, and the error names the value and where it is
        ctx.bad_record(place[0], line=line_no, path=place[1], hint=place[2] + ", or skip the record with --skip-bad")
        return None
    snippet = _excerpt(text)
    cause = "; it holds NUL bytes, as a crash while writing leaves" if b"\x00" in line else ""
    ctx.bad_record(f"expected a JSON object on this line, found {snippet!r} ({error.msg}{cause})", line=line_no, **_shape_hint(text, line_no))


def _ends_early(error: orjson.JSONDecodeError) -> bool:
    """Whether orjson stopped at the end of the text (a line cut while being
    written), not at something wrong inside it."""
    doc = getattr(error, "doc", None)
    if not isinstance(doc, str) or not isinstance(error.pos, int):
        return True
    return error.pos >= len(doc.rstrip(" \t\r\n\x00"))


_NUMBER_START = frozenset("-0123456789")
_TOKEN_END = lazy(r"[\s,\]}]")


def describe_refused_value(error: orjson.JSONDecodeError) -> tuple[str, str, str] | None:
    """For a number JSON readers refuse (beyond a 64-bit float: ``1e999``)
    or a non-JSON constant (``NaN``, ``Infinity``): what the error says, the
    JSON path of the value and what to try; None for other errors."""
    doc = getattr(error, "doc", None)
    pos = error.pos
    if not isinstance(doc, str) or not isinstance(pos, int) or pos >= len(doc):
        return None
    end = _TOKEN_END.search(doc, pos, pos + 80)
    token = doc[pos : end.start() if end else min(len(doc), pos + 40)]
    if "infinity" in error.msg and token[:1] in _NUMBER_START:
        found = f"the number {token} is out of range (beyond a 64-bit float, about 1.8e308)"
    elif token.lstrip("-+") in ("NaN", "Infinity", "inf", "nan"):
        found = f"{token} is not a JSON value (JavaScript writes it; JSON has no NaN or Infinity)"
    else:
        return None
    from sessionport.jsondoc import path_at

    path = path_at(doc[:pos].encode("utf-8", "replace"))
    return found, path, "replace the value (null, or a number in range)"


# What an error quotes of an unreadable line, and the stretch redacted
# before it is cut (a token crossing the cut is still whole when judged).
EXCERPT_CHARS = 60
EXCERPT_JUDGED = 400


def _excerpt(text: str) -> str:
    """The start of an unreadable line as its error quotes it, with the
    secrets in it shown as their tags: the error goes to the terminal, CI
    logs and the --json-report, also of a run that redacts."""
    from sessionport.redaction import Redactor  # only an unreadable line gets here

    head = text[:EXCERPT_JUDGED]
    shown = Redactor(pii=False).redact_text(head) if len(head) >= 8 else head
    return shown[:EXCERPT_CHARS] + ("..." if len(shown) > EXCERPT_CHARS or len(text) > len(head) else "")


def _shape_hint(text: str, line_no: int) -> dict:
    """What to try when a JSON Lines input is JSON of another shape: one
    array, or records pretty-printed over several lines."""
    start = text.lstrip("\ufeff \t\r")
    if line_no == 1 and start.startswith("["):
        return {"hint": "the file is one JSON array, and this format is JSON Lines (one record per line): "
                        "write the records one per line (jq -c '.[]' FILE > FILE.jsonl)"}
    if start.rstrip() in ("{", "[") or start.startswith(('"', "}")):
        return {"hint": "the records are spread over several lines (pretty-printed JSON), and this format is "
                        "JSON Lines (one record per line): write one per line (jq -c . FILE > FILE.jsonl)"}
    return {}
    return None


def iter_records(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for every parseable line."""
    for line_no, line, complete in iter_lines(stream, ctx):
        value = parse_line(line, line_no, complete, ctx)
        if value is not None:
            yield line_no, value


def first_json_line(head: bytes) -> Any:
    """The first complete line of ``head`` parsed as JSON, or None.  For sniffing."""
    if head.startswith(BOM):
        head = head[3:]
    for line in head.split(b"\n")[:-1] if b"\n" in head else [head]:
        line = line.strip(_WHITESPACE + b"\x00")
        if not line:
            continue
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
    return None
