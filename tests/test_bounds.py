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


def test_lone_surrogates_in_documents_are_replaced_even_across_chunk_boundaries():
    from sessionport.jsondoc import _LoneSurrogates

    data = rb'"a\ud83d b\ud83d\ude00 c\\ud83d d\udc00 e\\\ud800 f\udc00\udc01 g\ud800\ud800\udc00 h\\\\\\ud83d\ude01 \n\t\"x"'
    expected = "a\ufffd b\U0001f600 c\\ud83d d\ufffd e\\\ufffd f\ufffd\ufffd g\ufffd\U00010000 h\\\\\\ud83d\ufffd \n\t\"x"
    for first in range(len(data) + 1):
        for second in range(first, len(data) + 1, 3):
            fixer = _LoneSurrogates()
            out = fixer.feed(data[:first]) + fixer.feed(data[first:second]) + fixer.feed(data[second:]) + fixer.finish()
            assert orjson.loads(out) == expected, (first, second)
            assert fixer.replaced == 7


def test_a_document_with_a_lone_surrogate_keeps_the_message_and_reports_it(tmp_path):
    path = tmp_path / "doc.json"
    path.write_bytes(rb'{"schema":"sessionport/v1","source":"x","messages":[{"role":"user","text":"cut \ud83d here"},{"role":"user","text":"pair \ud83d\ude00"}]}')
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0
    texts = [orjson.loads(line).get("text") for line in result.stdout.splitlines()]
    assert "cut \ufffd here" in texts and "pair \U0001f600" in texts
    assert b"1 lone UTF-16 surrogate escape(s)" in result.stderr


# -- nesting depth ---------------------------------------------------------

def _peak(args: list[str]) -> tuple[int, int, bytes]:
    code = (
        "import resource, subprocess, sys\n"
        f"r = subprocess.run([sys.executable, '-m', 'sessionport', *{args!r}], capture_output=True)\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
        "sys.stderr.buffer.write(r.stderr)\n"
    )
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=120)
    rc, peak = map(int, probe.stdout.split())
    return rc, peak, probe.stderr


@pytest.mark.parametrize("body", [
    '{"x":' + "[" * 70_000,
    '{"messages":[{"role":"user","content":' + "[" * 65_000 + "]" * 65_000 + "}]}",
    "[" + '{"a":[' * 50_000,
])
def test_deep_nesting_is_refused_in_sniffing_and_reading_with_little_memory(tmp_path, body):
    path = tmp_path / "deep.json"
    path.write_text(body)
    rc, peak, stderr = _peak(["convert", str(path), "--to", "markdown", "-o", "/dev/null"])
    assert rc == 1 and b"internal error" not in stderr
    assert peak < 150, f"{peak} MiB for a {len(body) // 1000} KB file"


def test_validate_refuses_deep_nesting_as_a_problem(tmp_path):
    for levels in (120, 20_000):
        path = tmp_path / f"deep{levels}.trace.json"
        path.write_text('{"runs":' + "[" * levels + "]" * levels + "}")
        result = run_cli("validate", path)
        assert result.returncode == 1 and b"internal error" not in result.stderr, result.stderr
    assert b"nested deeper than 128 levels" in result.stdout


def test_a_jsonl_line_nested_deeper_than_the_bound_is_a_bad_record():
    deep = b'{"type":"message","role":"user","text":"x","toolInput":' + b'{"a":' * 140 + b"1" + b"}" * 140 + b"}\n"
    data = b'{"type":"session","schema":"sessionport/v1","source":"x"}\n' + deep + b'{"type":"end"}\n'
    ctx = ReadContext(name="deep.jsonl")
    with pytest.raises(DataError) as caught:
        list(iter_lines(io.BufferedReader(io.BytesIO(data)), ctx))
    assert caught.value.line == 2 and "nested deeper than 128 levels" in str(caught.value)
    shallow = b'{"a":' * 100 + b"1" + b"}" * 100 + b"\n"
    assert len(list(iter_records(io.BufferedReader(io.BytesIO(shallow)), ReadContext()))) == 1
    # brackets inside strings do not count
    texty = b'{"text":"' + b"{[" * 5000 + b'"}\n'
    assert len(list(iter_records(io.BufferedReader(io.BytesIO(texty)), ReadContext()))) == 1


def test_head_tokens_stop_at_the_bound_and_at_a_cut():
    from sessionport.jsondoc import head_tokens

    assert sum(1 for _ in head_tokens(b"[" * 100_000)) == 128  # the tokens within the bound
    tokens = list(head_tokens(b'{"messages":[{"role":"user","content":"cut here'))
    assert ("messages", "start_array", None) in tokens


# -- huge strings ----------------------------------------------------------

def test_one_huge_string_in_a_document_takes_linear_time():
    import time

    from sessionport.jsondoc import walk_document

    def seconds(megabytes: int) -> float:
        data = b'{"messages":[{"role":"user","content":"' + b"A" * (megabytes << 20) + b'"}]}'
        start = time.perf_counter()
        items = [v for k, v in walk_document(io.BufferedReader(io.BytesIO(data)), ReadContext(), ("messages",)) if k == "item"]
        assert len(items[0]["content"]) == megabytes << 20
        return time.perf_counter() - start

    small, big = min(seconds(4) for _ in range(2)), seconds(32)
    assert big < 8 * small * 2.5, f"4 MiB: {small:.2f} s, 32 MiB: {big:.2f} s (quadratic would be 64x)"


def test_a_long_string_of_brackets_is_not_cut_into_tiny_pieces():
    from sessionport.jsondoc import Slicer

    data = b'{"messages":[{"role":"user","content":"' + b"[" * (4 << 20) + b'"}]}'
    chunks = [data[i : i + (1 << 20)] for i in range(0, len(data), 1 << 20)]
    import ijson

    tokens = ijson.sendable_list()
    parser = ijson.parse_coro(tokens)
    slicer = Slicer(chunks)
    pieces = 0
    for piece in slicer:
        pieces += 1
        parser.send(piece)
        slicer.produced(bool(tokens))
        del tokens[:]
    assert pieces < 20, f"{pieces} pieces for 4 MiB inside one string"


# -- truncated and damaged compressed input -------------------------------

def _many(n: int = 6000) -> bytes:
    lines = []
    previous = None
    for i in range(n):
        lines.append(_user(f"u{i}", previous, f"message {i} " + "lorem ipsum " * 8))
        previous = f"u{i}"
    return b"".join(lines)


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


COMPRESSORS = {
    "gz": lambda data: gzip.compress(data, compresslevel=1),
    "bz2": lambda data: bz2.compress(data, compresslevel=1),  # blocks of 100 kB
    "xz": lambda data: lzma.compress(data, preset=0),
    "zst": _zstd,
}


@pytest.fixture(scope="module")
def many() -> bytes:
    return _many()


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_a_cut_compressed_file_is_read_up_to_the_cut_then_warned_about(tmp_path, suffix, many):
    packed = COMPRESSORS[suffix](many)
    path = tmp_path / f"cut.jsonl.{suffix}"
    path.write_bytes(packed[: len(packed) // 2])
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert b"the compressed data ends early (the file is truncated); everything before it was read" in result.stderr
    assert b"internal error" not in result.stderr
    messages = sum(1 for line in result.stdout.splitlines() if b'"type":"message"' in line)
    assert 1000 < messages < 6000
    strict = run_cli("convert", path, "--to", "portable-jsonl", "--strict")
    assert strict.returncode == 1 and b"internal error" not in strict.stderr


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_a_small_file_cut_before_any_data_is_an_error_not_an_empty_input(tmp_path, suffix):
    packed = COMPRESSORS[suffix](_many(20))
    path = tmp_path / f"small.jsonl.{suffix}"
    path.write_bytes(packed[: len(packed) * 2 // 3])
    result = run_cli("convert", path, "--to", "portable-jsonl")
    if result.returncode == 0:  # some data came out before the cut: a torn tail
        assert b"ends early" in result.stderr and b'"type":"message"' in result.stdout
    else:
        assert result.returncode == 1 and b"cannot be decompressed" in result.stderr
    assert b"input is empty" not in result.stderr and b"internal error" not in result.stderr


def test_a_complete_multi_frame_zstd_file_reads_whole_and_quietly(tmp_path):
    data = _many(500)
    path = tmp_path / "frames.jsonl.zst"
    path.write_bytes(_zstd(data[: len(data) // 2]) + _zstd(data[len(data) // 2 :]))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0 and result.stderr == b""
    assert sum(1 for line in result.stdout.splitlines() if b'"type":"message"' in line) == 500


def test_a_zstd_bomb_decompresses_with_bounded_memory(tmp_path):
    import zstandard

    path = tmp_path / "bomb.jsonl.zst"
    with open(path, "wb") as raw, zstandard.ZstdCompressor(level=3).stream_writer(raw) as out:
        out.write(FIRST)
        zeros = bytes(1 << 20)
        for _ in range(300):
            out.write(zeros)
    assert path.stat().st_size < 1 << 20
    rc, peak, stderr = _peak(["convert", str(path), "--to", "markdown", "-o", "/dev/null"])
    assert rc == 1 and b"longer than the limit" in stderr
    assert peak < 350, f"{peak} MiB"


def test_validate_reports_a_cut_compressed_file(tmp_path):
    events = b'{"type":"session","schema":"sessionport/v1","source":"x"}\n' + b"".join(
        orjson.dumps({"type": "message", "role": "user", "text": f"m{i} " + "x" * 50}) + b"\n" for i in range(5000)
    )
    packed = gzip.compress(events)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(packed[: len(packed) // 2])
    result = run_cli("validate", path)
    assert result.returncode == 1 and b"the compressed data ends early" in result.stdout


# -- spool files -----------------------------------------------------------

def test_a_spooled_late_header_document_keeps_memory_flat_and_leaves_no_file(tmp_path):
    import json

    messages = [{"role": "user", "text": f"message {i} " + "x" * 1000, "id": f"m{i}"} for i in range(10_000)]
    path = tmp_path / "late.json"
    path.write_text(json.dumps({"messages": messages, "schema": "sessionport/v1", "source": "x", "sessionId": "late"}))
    assert path.stat().st_size > 10_000_000
    spool_dir = tmp_path / "tmp"
    spool_dir.mkdir()
    code = (
        "import os, resource, subprocess, sys\n"
        f"env = dict(os.environ, TMPDIR={str(spool_dir)!r})\n"
        f"r = subprocess.run([sys.executable, '-m', 'sessionport', 'convert', {str(path)!r}, '--to', 'portable-jsonl', '-o', '/dev/null'], env=env)\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
    )
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=120)
    rc, peak = map(int, probe.stdout.split())
    assert rc == 0
    assert peak < 100, f"{peak} MiB to spool a 10 MB document"
    assert list(spool_dir.iterdir()) == []  # anonymous spool files: nothing to clean up


def test_a_compressed_file_damaged_inside_is_read_up_to_the_damage_then_an_error(tmp_path, many):
    packed = bytearray(gzip.compress(many, compresslevel=1))
    middle = len(packed) // 2
    packed[middle : middle + 64] = bytes(64)
    path = tmp_path / "damaged.jsonl.gz"
    path.write_bytes(bytes(packed))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    # what deflate decodes from the damage is a bad line, or the decoder
    # stops there; either way an error after the records before it
    assert result.returncode == 1 and b"internal error" not in result.stderr
    assert any(b'"type":"message"' in line for line in result.stdout.splitlines())
    skipping = run_cli("convert", path, "--to", "portable-jsonl", "--skip-bad")
    assert skipping.returncode == 0 and b"internal error" not in skipping.stderr
    assert b"the compressed data is damaged after" in skipping.stderr or b"CRC" in skipping.stderr


@pytest.mark.parametrize("limit", [10, 1 << 20, 3 << 20])
def test_the_limit_is_exact_whatever_its_size_against_the_read_pieces(limit):
    for length in (limit - 1, limit, limit + 1, limit + 2):
        for end in (b"\n", b""):
            data = b"x" * length + end + (b"y\n" if end else b"")
            ctx = ReadContext(options={"max_line_size": limit})
            reader = io.BufferedReader(io.BytesIO(data))
            if length <= limit:
                assert next(iter_lines(reader, ctx))[1] == b"x" * length
            else:
                with pytest.raises(DataError):
                    list(iter_lines(reader, ctx))


def test_closing_brackets_in_a_string_do_not_hide_nesting_from_the_chatgpt_reader(tmp_path):
    """The ChatGPT reader's fast path counts brackets; a string of closing
    brackets followed by as many real opening ones balances that count, so
    the true depth is counted as well."""
    levels = 20_000
    path = tmp_path / "conversations.json"
    path.write_text('[{"title":"t","mapping":{},"a":"' + "]" * levels + '","b":' + "[" * levels + "]" * levels + "}]")
    rc, peak, stderr = _peak(["convert", str(path), "--from", "chatgpt-export", "--to", "portable-jsonl", "-o", "/dev/null"])
    assert rc == 1 and b"nested deeper than 128 levels" in stderr
    assert peak < 150, f"{peak} MiB for a {path.stat().st_size // 1000} KB file"
