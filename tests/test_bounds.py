"""Memory and time bounds against hostile input: the longest line, the
deepest nesting, compression bombs, truncated compressed files, huge strings
and lone surrogate escapes.  Each limit is listed in docs/reliability.md."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import subprocess
import sys

import orjson
import pytest

from conftest import ROOT, run_cli
from sessionport.context import ReadContext
from sessionport.errors import DataError, UsageError
from sessionport.jsonl import DEFAULT_MAX_LINE, iter_lines, iter_records, max_line_size, parse_size, replace_lone_surrogates

FIRST = (
    b'{"parentUuid":null,"type":"user","sessionId":"s","uuid":"u1",'
    b'"timestamp":"2026-04-01T10:00:00Z","message":{"role":"user","content":"hi"}}\n'
)


class Endless(io.RawIOBase):
    """NUL bytes for ever, like /dev/zero."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        buffer[:] = bytes(len(buffer))
        return len(buffer)


def _user(uuid: str, parent: str | None, text: str) -> bytes:
    record = {
        "parentUuid": parent, "type": "user", "sessionId": "s", "uuid": uuid,
        "timestamp": "2026-04-01T10:00:00Z", "message": {"role": "user", "content": text},
    }
    return orjson.dumps(record) + b"\n"


# -- the longest line ----------------------------------------------------

def test_sizes_parse_in_binary_units():
    assert parse_size("64M") == 64 << 20
    assert parse_size("64MiB") == parse_size("64 MB") == 64 << 20
    assert parse_size("1G") == 1 << 30
    assert parse_size("512k") == 512 << 10
    assert parse_size("1000") == 1000
    for bad in ("", "lots", "-1", "0", "12X"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_the_limit_comes_from_the_option_then_the_environment(monkeypatch):
    monkeypatch.delenv("SESSIONPORT_MAX_LINE_SIZE", raising=False)
    assert max_line_size(ReadContext()) == DEFAULT_MAX_LINE == 64 << 20
    monkeypatch.setenv("SESSIONPORT_MAX_LINE_SIZE", "2M")
    assert max_line_size(ReadContext()) == 2 << 20
    assert max_line_size(ReadContext(options={"max_line_size": 3 << 20})) == 3 << 20
    monkeypatch.setenv("SESSIONPORT_MAX_LINE_SIZE", "huge")
    with pytest.raises(UsageError):
        max_line_size(ReadContext())


def test_a_line_longer_than_the_limit_is_a_bad_record_naming_the_line():
    data = FIRST + b'{"x":"' + b"a" * (3 << 20) + b'"}\n' + _user("u2", "u1", "after")
    ctx = ReadContext(name="long.jsonl", options={"max_line_size": 2 << 20})
    with pytest.raises(DataError) as caught:
        list(iter_lines(io.BufferedReader(io.BytesIO(data)), ctx))
    assert caught.value.line == 2 and "longer than the limit of 2 MiB" in str(caught.value)
    assert "--max-line-size" in str(caught.value)


def test_with_skip_bad_the_long_line_is_skipped_and_counted_and_reading_goes_on():
    data = FIRST + b'{"x":"' + b"a" * (3 << 20) + b'"}\n' + _user("u2", "u1", "after")
    ctx = ReadContext(name="long.jsonl", skip_bad=True, options={"max_line_size": 2 << 20})
    records = list(iter_records(io.BufferedReader(io.BytesIO(data)), ctx))
    assert [n for n, _ in records] == [1, 3]
    assert ctx.bad_count == 1 and ctx.bad_places == ["long.jsonl, line 2"]


def test_a_line_just_under_the_limit_is_read_whole():
    text = "b" * ((2 << 20) - 1000)
    data = FIRST + _user("u2", "u1", text)
    ctx = ReadContext(options={"max_line_size": 2 << 20})
    records = list(iter_records(io.BufferedReader(io.BytesIO(data)), ctx))
    assert records[1][1]["message"]["content"] == text


def test_an_endless_line_of_nul_bytes_ends_in_an_error_not_memory_exhaustion():
    ctx = ReadContext(name="/dev/zero", options={"max_line_size": 4 << 20})
    with pytest.raises(DataError) as caught:
        list(iter_lines(io.BufferedReader(Endless(), buffer_size=1 << 20), ctx))
    assert "NUL bytes only" in str(caught.value) and caught.value.line == 1


def test_dev_zero_through_the_program_is_a_clean_error():
    result = run_cli("convert", "/dev/zero", "--from", "claude-code", "--to", "markdown", "-o", "/dev/null", timeout=60)
    assert result.returncode == 1
    assert b"longer than the limit of 64 MiB" in result.stderr and b"internal error" not in result.stderr


def test_a_gzip_bomb_line_is_refused_with_bounded_memory(tmp_path):
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as out:
        out.write(FIRST)
        zeros = bytes(1 << 20)
        for _ in range(200):
            out.write(zeros)
    code = (
        "import resource, subprocess, sys\n"
        f"r = subprocess.run([sys.executable, '-m', 'sessionport', 'convert', {str(bomb)!r}, '--to', 'markdown', '-o', '/dev/null'], capture_output=True)\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
        "sys.stderr.buffer.write(r.stderr)\n"
    )
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=120)
    rc, peak = map(int, probe.stdout.split())
    assert rc == 1 and b"line 2: this line is longer than the limit" in probe.stderr
    assert peak < 250, f"{peak} MiB to refuse a line at 64 MiB"


def test_a_big_line_costs_about_three_times_its_size_at_most(tmp_path):
    """orjson parses from a copy of the line, so a line is held three times
    while it is parsed (bytes, orjson's copy, the strings built); nothing
    else holds it: reading frees the bytes before the events are written."""
    path = tmp_path / "big.jsonl"
    size = 48 << 20
    with open(path, "wb") as out:
        out.write(FIRST)
        out.write(b'{"type":"assistant","sessionId":"s","uuid":"u2","parentUuid":"u1","timestamp":"2026-04-01T10:00:01Z",'
                  b'"message":{"id":"m1","role":"assistant","model":"x","content":[{"type":"text","text":"')
        out.write(b"abcdefghij" * (size // 10))
        out.write(b'"}]}}\n')
    code = (
        "import resource, subprocess, sys\n"
        f"r = subprocess.run([sys.executable, '-m', 'sessionport', 'convert', {str(path)!r}, '--to', 'portable-jsonl', '-o', '/dev/null'])\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=120)
    rc, peak = map(int, probe.stdout.split())
    assert rc == 0
    assert peak < 3.4 * (size >> 20) + 40, f"{peak} MiB for a {size >> 20} MiB line"


# -- lone surrogate escapes ----------------------------------------------

def test_lone_surrogates_are_replaced_and_pairs_and_escaped_backslashes_kept():
    fixed, count = replace_lone_surrogates(rb'"a\ud83d b\ud83d\ude00 c\\ud83d d\udc00 e\\\ud800"')
    assert count == 3
    assert orjson.loads(fixed) == "a\ufffd b\U0001f600 c\\ud83d d\ufffd e\\\ufffd"


def test_a_record_with_a_lone_surrogate_is_kept_and_the_replacement_reported(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(FIRST + _user("u2", "u1", "PLACEHOLDER").replace(b"PLACEHOLDER", rb"cut inside an emoji: \ud83d"))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    texts = [e.get("text") for e in map(orjson.loads, result.stdout.splitlines())]
    assert "cut inside an emoji: \ufffd" in texts
    assert b"line 2: 1 lone UTF-16 surrogate escape(s)" in result.stderr
