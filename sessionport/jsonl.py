"""Reading JSON Lines robustly and fast.

Real transcripts arrive with a UTF-8 BOM, CRLF line ends, blank lines,
invalid UTF-8 inside strings, a torn last line or a tail of NUL bytes left by
a crash.  This module turns all of that into parsed records plus warnings, so
that importers only deal with records.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Iterator

import orjson

from .context import ReadContext

BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"


def iter_lines(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line_number, stripped_bytes, complete)`` for each non-blank line.

    ``complete`` is False for a last line without a newline (possibly torn).
    NUL bytes at the end of the input (pre-allocated space never written) are
    dropped with one warning.
    """
    lines = iter(stream)
    nul_warned = False
    # The first line apart, so the loop over the others has no BOM test.
    for raw in lines:
        if raw.startswith(BOM):
            raw = raw[3:]
        line = raw.strip(_WHITESPACE)
        if b"\x00" in line:
            nul_warned = True
            line = _drop_nul(line, 1, ctx)
        if line:
            yield 1, line, raw[-1:] == b"\n"
        break
    line_no = 1
    for raw in lines:
        line_no += 1
        line = raw.strip(_WHITESPACE)
        if b"\x00" in line:
            if not nul_warned:
                nul_warned = True
                line = _drop_nul(line, line_no, ctx)
            else:
                line = line.strip(_NUL_WHITESPACE)
        if line:
            yield line_no, line, raw[-1:] == b"\n"


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
    ctx.bad_record(f"expected a JSON object on this line, found {snippet!r} ({error.msg})", line=line_no)
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
