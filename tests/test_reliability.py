"""Interrupted runs, live and damaged files, odd encodings, and the last-resort
error handler."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import orjson
import pytest
from click.testing import CliRunner

from conftest import FIXTURES, ROOT, run_cli
from sessionport.cli import cli

SAMPLE = FIXTURES / "portable-jsonl" / "session.jsonl"


def big_stream(path, megabytes: int) -> None:
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    body = b"".join(lines[1:-1])
    with open(path, "wb") as out:
        out.write(lines[0])
        for _ in range(megabytes * 1_000_000 // len(body) + 1):
            out.write(body)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    big_stream(path, 300)
    return path


def _kill_after(args, seconds: float) -> None:
    process = subprocess.Popen([sys.executable, "-m", "sessionport", *map(str, args)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    time.sleep(seconds)
    assert process.poll() is None, "the conversion finished before it could be interrupted"
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def test_sigkill_leaves_no_output_file(big, tmp_path):
    target = tmp_path / "out.json"
    _kill_after(["convert", big, "--to", "portable", "-o", target], 1.0)
    assert not target.exists()


def test_sigkill_leaves_the_previous_output_intact(big, tmp_path):
    target = tmp_path / "out.json"
    target.write_bytes(b"previous result\n")
    _kill_after(["convert", big, "--to", "portable", "-o", target], 1.0)
    assert target.read_bytes() == b"previous result\n"


def test_a_growing_file_is_read_up_to_where_it_is(tmp_path):
    path = tmp_path / "live.jsonl"
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]))
    stop = threading.Event()

    def keep_writing() -> None:
        # A bounded amount, so reading can catch up with the end of the file.
        with open(path, "ab") as handle:
            for _ in range(3000):
                if stop.is_set():
                    break
                time.sleep(0.0005)
                handle.write(lines[1])
                handle.write(lines[2][: len(lines[2]) // 2])  # a torn line for a moment
                handle.flush()
                handle.write(lines[2][len(lines[2]) // 2 :])
                handle.flush()

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        result = run_cli("convert", path, "--to", "portable-jsonl")
    finally:
        stop.set()
        writer.join()
    assert result.returncode == 0, result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert events[: len(lines) - 1] == [orjson.loads(line) for line in lines[:-1]]
    assert b"Traceback" not in result.stderr


def test_bom_and_crlf_are_accepted(tmp_path):
    path = tmp_path / "windows.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + SAMPLE.read_bytes().replace(b"\n", b"\r\n"))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0 and result.stderr == b""
    assert result.stdout == SAMPLE.read_bytes()


def test_invalid_utf8_is_replaced_and_reported(tmp_path):
    path = tmp_path / "latin1.jsonl"
    data = SAMPLE.read_bytes().replace(b"discount change", b"discount \xe9change")
    path.write_bytes(data)
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0
    assert "discount \ufffdchange" in result.stdout.decode()
    assert b"line 2: invalid UTF-8 replaced" in result.stderr


def test_nul_padding_between_records_is_dropped_but_a_nul_inside_one_is_a_bad_record(tmp_path):
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    padded = tmp_path / "padded.jsonl"
    padded.write_bytes(lines[0] + b"\x00" * 4096 + b"".join(lines[1:]))
    result = run_cli("convert", padded, "--to", "portable-jsonl")
    assert result.returncode == 0 and result.stdout == SAMPLE.read_bytes()
    assert b"line 2: NUL bytes found" in result.stderr
    inside = tmp_path / "inside.jsonl"
    inside.write_bytes(lines[0] + lines[1].replace(b'"text":"', b'"text":"\x00', 1) + b"".join(lines[2:]))
    result = run_cli("convert", inside, "--to", "portable-jsonl")
    assert result.returncode == 1 and b"line 2" in result.stderr and b"Traceback" not in result.stderr
    assert b"NUL bytes, as a crash while writing leaves" in result.stderr
    skipped = run_cli("convert", inside, "--to", "portable-jsonl", "--skip-bad")
    assert skipped.returncode == 0 and len(skipped.stdout.splitlines()) == len(lines) - 1


def test_a_huge_single_line(tmp_path):
    path = tmp_path / "huge.jsonl"
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    huge = {"type": "message", "role": "tool", "text": "z" * 60_000_000, "meta": {"kind": "tool_result"}}
    path.write_bytes(lines[0] + orjson.dumps(huge) + b"\n" + lines[1])
    result = run_cli("convert", path, "--to", "portable-jsonl", timeout=300)
    assert result.returncode == 0
    out = result.stdout.splitlines()
    assert len(out) == 3 and len(orjson.loads(out[1])["text"]) == 60_000_000


def test_unexpected_errors_are_one_line_unless_debugging(monkeypatch):
    from sessionport.registry import get_registry

    stage = get_registry().stage("filter")

    def explode(**options):
        def run(events):
            for _ in events:
                raise ValueError("boom")
                yield
        return run

    monkeypatch.setattr(type(stage), "build", property(lambda self: explode), raising=False)
    monkeypatch.delenv("SESSIONPORT_DEBUG", raising=False)
    result = CliRunner().invoke(cli, ["filter", str(SAMPLE), "--role", "user"])
    assert result.exit_code == 1
    err = result.stderr.strip().splitlines()
    assert err[-1].startswith("sessionport: internal error") and "ValueError: boom" in err[-1] and "SESSIONPORT_DEBUG=1" in err[-1]
    assert "Traceback" not in result.stderr
    monkeypatch.setenv("SESSIONPORT_DEBUG", "1")
    debug = CliRunner().invoke(cli, ["filter", str(SAMPLE), "--role", "user"])
    assert debug.exit_code == 1 and "Traceback" in debug.stderr


def test_reading_stops_at_a_line_still_being_written():
    """The file grows while it is read: the reader sees a half line at what is
    then the end, and must stop there rather than read the rest of that line
    later as if it were a new (broken) record."""
    import io

    from sessionport.context import ReadContext
    from sessionport.jsonl import iter_records

    class Growing(io.RawIOBase):
        """Serves what was written so far, then end-of-file once, then what
        was appended meanwhile."""

        def __init__(self):
            self.parts = [b'{"a":1}\n{"b":', b"", b'2}\n{"c":3}\n']

        def readable(self):
            return True

        def readinto(self, buffer):
            while self.parts:
                part = self.parts.pop(0)
                if not part:
                    return 0
                n = min(len(buffer), len(part))
                buffer[:n] = part[:n]
                if part[n:]:
                    self.parts.insert(0, part[n:])
                return n
            return 0

    warnings = []
    ctx = ReadContext(name="<live>", on_warning=warnings.append)
    records = [value for _, value in iter_records(io.BufferedReader(Growing(), buffer_size=8), ctx)]
    assert records == [{"a": 1}]
    assert warnings and "incomplete" in warnings[0]
