"""``jsonl.iter_block_lines`` yields what ``iter_lines(check_depth=False)``
yields, with the same warnings and bad records, whatever the input."""

from __future__ import annotations

import io
import random
import sys

import pytest

from sessionport import jsonl
from sessionport.context import ReadContext
from sessionport.errors import DataError

# Pieces of lines as damaged transcripts hold them: CRLF, blanks, padding,
# a BOM, NUL runs, lines that are not JSON, lines of any length.
PIECES = [
    b'{"a":1}', b'{"b":[1,2]}', b"", b"  ", b"\r", b'{"c":"x"}\r', b' {"d":2} ', b"\x00\x00",
    b'{"e":3}\x00\x00', b'\x00{"f":1}', b'\xef\xbb\xbf{"g":1}', b"{", b"}", b"{}", b"{}\r", b"not json",
    b'{"h":"' + b"x" * 50 + b'"}', b"\x00" * 70, b'{"i":"' + b"y" * 200 + b'"}', b'\t{"j":1}\t',
    b'{"k":1} \r', b"[1]", b"\xef\xbb\xbf", b'{"l":"\xff"}',
]


def _read(source, data: bytes, skip_bad: bool, limit: int, buffer: int) -> list:
    seen: list = []
    ctx = ReadContext(name="x", skip_bad=skip_bad, options={"max_line_size": limit}, on_warning=lambda m: seen.append(("warning", m)))
    try:
        for item in source(io.BufferedReader(io.BytesIO(data), buffer_size=buffer), ctx):
            seen.append(item)
    except DataError as exc:
        seen.append(("error", str(exc)))
    seen.append(("bad", ctx.bad_count, list(ctx.bad_places)))
    return seen


def _iter_lines(stream, ctx):
    return jsonl.iter_lines(stream, ctx, check_depth=False)


@pytest.mark.parametrize("seed", range(4))
def test_the_same_lines_warnings_and_bad_records_as_iter_lines(monkeypatch, seed):
    rng = random.Random(seed)
    if seed % 2:
        monkeypatch.setattr(jsonl, "_PIECE", 16)  # iter_lines joins long lines from pieces
    for _ in range(1500):
        sep = rng.choice([b"\n", b"\r\n"])
        data = sep.join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))
        if rng.random() < 0.5:
            data += sep  # else the last line is torn
        if rng.random() < 0.2:
            data += b"\x00" * rng.randint(1, 100)
        if rng.random() < 0.2:
            data = jsonl.BOM + data
        limit = rng.choice([8, 20, 60, 100, 1000, jsonl.DEFAULT_MAX_LINE])
        buffer = rng.choice([1, 3, 7, 16, 64, 1 << 19])
        # A small buffer: lines cross reads, and longer ones are gathered.
        monkeypatch.setattr(jsonl, "INTO_BLOCK", buffer)
        for skip_bad in (True, False):
            expected = _read(_iter_lines, data, skip_bad, limit, buffer)
            assert _read(jsonl.iter_block_lines, data, skip_bad, limit, buffer) == expected, (data, limit, buffer, skip_bad)


def test_a_line_longer_than_the_buffer_is_handed_over_without_a_reference_kept():
    big = b'{"x":"' + b"a" * (3 * jsonl.INTO_BLOCK) + b'"}'
    lines = jsonl.iter_block_lines(io.BytesIO(b'{"a":1}\n' + big + b'\n{"b":2}\n'), ReadContext(name="x"))
    assert next(lines)[1] == b'{"a":1}'
    line_no, line, complete = next(lines)
    assert (line_no, complete, line == big) == (2, True, True)
    assert sys.getrefcount(line) == 2  # this name and getrefcount's argument only
    del line
    assert next(lines)[:2] == (3, b'{"b":2}')


def test_a_line_over_the_limit_is_refused_before_it_is_held(monkeypatch):
    reads: list[int] = []

    class Endless(io.RawIOBase):
        def readable(self):
            return True

        def readinto(self, buffer):
            reads.append(len(buffer))
            if len(reads) > 64:
                return 0
            buffer[:] = b"\x00" * len(buffer)
            return len(buffer)

    ctx = ReadContext(name="x", options={"max_line_size": 4 * jsonl.INTO_BLOCK})
    with pytest.raises(DataError, match="longer than the limit of 8 MiB; it starts with NUL bytes only"):
        list(jsonl.iter_block_lines(io.BufferedReader(Endless()), ctx))
    assert len(reads) <= 7  # the limit and a buffer more, not the whole input
