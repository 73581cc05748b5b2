"""Reading JSON Lines robustly and fast.

Real transcripts arrive with a UTF-8 BOM, CRLF line ends, blank lines,
invalid UTF-8 inside strings, a torn last line or a tail of NUL bytes left by
a crash.  This module turns all of that into parsed records plus warnings, so
that importers only deal with records.
"""

from __future__ import annotations

import os
import sys
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext

BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"


_MMAP_THRESHOLD = 1 << 20
_allocator_tuned = False


def _keep_big_lines_off_the_heap() -> None:
    """Fix glibc's mmap threshold at 1 MiB, once per process.

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


def iter_lines(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line_number, stripped_bytes, complete)`` for each non-blank line.

    ``complete`` is False for a last line without a newline (possibly torn).
    NUL bytes at the end of the input (pre-allocated space never written) are
    dropped with one warning.
    """
    if not _allocator_tuned:
        _keep_big_lines_off_the_heap()
    lines = iter(stream)
    nul_warned = False
    # The first line apart, so the loop over the others has no BOM test.
    for raw in lines:
        if raw.startswith(BOM):
            raw = raw[3:]
        line = raw.strip(_WHITESPACE)
        if line[:1] == b"\x00" or line[-1:] == b"\x00":
            nul_warned = True
            line = _drop_nul(line, 1, ctx)
        complete = raw[-1:] == b"\n"
        if line:
            yield 1, line, complete
        if not complete:
            return  # the end, for now: see below
        break
    line_no = 1
    for raw in lines:
        line_no += 1
        line = raw.strip(_WHITESPACE)
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
        complete = raw[-1:] == b"\n"
        if line:
            yield line_no, line, complete
        if not complete:
            # A line without its newline is where the input ends now.  Reading
            # on could return the rest of that same line if the file is still
            # being written, which would look like a new, broken record.
            return


_NUL_WHITESPACE = b"\x00" + _WHITESPACE


def _drop_nul(line: bytes, line_no: int, ctx: ReadContext) -> bytes:
    ctx.damaged_tail("NUL bytes found (a crash while writing?); they were dropped", line=line_no)
    return line.strip(_NUL_WHITESPACE)


def parse_line(line: bytes, line_no: int, complete: bool, ctx: ReadContext) -> Any:
    """Parse one line.  Returns the value, or ``None`` when the line was
    skipped (reported to ``ctx``)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        error = exc
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
        else:
            ctx.warn(f"line {line_no}: invalid UTF-8 replaced with U+FFFD")
            return value
    if not complete:
        ctx.damaged_tail(f"the last line is incomplete ({len(line)} bytes, {error.msg})", line=line_no)
        return None
    snippet = text[:60] + ("..." if len(text) > 60 else "")
    cause = "; it holds NUL bytes, as a crash while writing leaves" if b"\x00" in line else ""
    ctx.bad_record(f"expected a JSON object on this line, found {snippet!r} ({error.msg}{cause})", line=line_no)
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
