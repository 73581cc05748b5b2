"""The command line as a user meets it: real processes for pipes, exit codes
and stderr; CliRunner for the quick in-process checks."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import signal
import subprocess
import sys
import time

import orjson
import pytest
import zstandard
from click.testing import CliRunner

from conftest import FIXTURES, ROOT, SESSIONPORT_WITH_DEFAULT_SIGNALS, run_cli
from sessionport.cli import cli

SAMPLE = FIXTURES / "portable-jsonl" / "session.jsonl"
ROLES = ("user", "assistant", "tool")


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    """A 3,000-message portable document."""
    path = tmp_path_factory.mktemp("doc") / "doc.json"
    messages = [{"role": ROLES[i % 3], "text": f"message {i}", "timestamp": f"2025-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"} for i in range(3000)]
    path.write_bytes(orjson.dumps({"schema": "sessionport/v1", "source": "test", "sessionId": "doc-1", "cwd": "/work", "createdAt": "2025-01-01T00:00:00Z", "metadata": {}, "messages": messages}))
    return path


def lines(data: bytes) -> list[dict]:
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def test_version_and_module_entry_point():
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith(b"sessionport, version ")


def test_portable_document_converts_to_wire_format(doc):
    result = run_cli("convert", doc, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = lines(result.stdout)
    assert events[0]["type"] == "session" and events[0]["sessionId"] == "doc-1"
    assert len(events) == 3001
    assert [e["text"] for e in events[1:4]] == ["message 0", "message 1", "message 2"]


def test_pipe_filter_to_portable_keeps_exactly_the_user_messages(doc):
    first = subprocess.Popen([sys.executable, "-m", "sessionport", "filter", "--role", "user"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    second = subprocess.Popen([sys.executable, "-m", "sessionport", "to", "portable"], stdin=first.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first.stdout.close()
    first.stdin.write(doc.read_bytes())
    first.stdin.close()
    out, err = second.communicate(timeout=60)
    assert first.wait(timeout=60) == 0 and second.returncode == 0, err
    result = orjson.loads(out)
    assert len(result["messages"]) == 1000
    assert {m["role"] for m in result["messages"]} == {"user"}
    assert result["messages"][0]["text"] == "message 0"


def test_chain_in_one_process_equals_the_pipe(doc):
    piped = subprocess.run(f"'{sys.executable}' -m sessionport filter --role tool '{doc}' | '{sys.executable}' -m sessionport to portable", shell=True, capture_output=True, cwd=ROOT)
    chained = run_cli("chain", "-i", doc, "filter", "--role", "tool", "to", "portable")
    assert piped.returncode == chained.returncode == 0
    assert chained.stdout == piped.stdout
    assert len(orjson.loads(chained.stdout)["messages"]) == 1000


def test_head_closes_the_pipe_quietly(doc):
    result = subprocess.run(f"'{sys.executable}' -m sessionport convert '{doc}' --to portable-jsonl | head -1", shell=True, capture_output=True, cwd=ROOT)
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == 1
    assert result.stderr == b""


def test_output_onto_its_own_input_is_refused(doc, tmp_path):
    target = tmp_path / "doc.json"
    target.write_bytes(doc.read_bytes())
    before = target.read_bytes()
    result = run_cli("convert", target, "--to", "portable", "-o", target)
    assert result.returncode == 2
    assert b"refusing to write the output onto the input" in result.stderr
    assert target.read_bytes() == before


def test_output_file_is_written_whole(doc, tmp_path):
    target = tmp_path / "out.jsonl"
    result = run_cli("convert", doc, "--to", "portable-jsonl", "-o", target)
    assert result.returncode == 0 and result.stdout == b""
    assert len(target.read_bytes().splitlines()) == 3001
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"], "no temporary file is left behind"


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress, zstandard.ZstdCompressor().compress], ids=["gzip", "bz2", "xz", "zstd"])
def test_compressed_input_converts_like_the_plain_file(doc, tmp_path, compress):
    packed = tmp_path / "doc.bin"  # the name says nothing: magic bytes decide
    packed.write_bytes(compress(doc.read_bytes()))
    plain = run_cli("convert", doc, "--to", "portable-jsonl")
    result = run_cli("convert", packed, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert result.stdout == plain.stdout


def test_stdin_and_dash_read_the_same(doc):
    via_dash = run_cli("convert", "-", "--to", "portable-jsonl", input=doc.read_bytes())
    via_nothing = run_cli("to", "portable-jsonl", input=doc.read_bytes())
    assert via_dash.returncode == via_nothing.returncode == 0
    assert via_dash.stdout == via_nothing.stdout
    assert len(via_dash.stdout.splitlines()) == 3001


def broken_stream(tmp_path):
    path = tmp_path / "broken.jsonl"
    good = SAMPLE.read_bytes().splitlines()
    path.write_bytes(b"\n".join(good[:3] + [b'{"type":"message","role":'] + good[3:]) + b"\n")
    return path


def test_broken_line_exits_1_naming_file_and_line(tmp_path):
    path = broken_stream(tmp_path)
    result = run_cli("convert", path, "--to", "portable")
    assert result.returncode == 1
    err = result.stderr.decode()
    assert "broken.jsonl, line 4" in err
    assert "--skip-bad" in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_skip_bad_reports_how_many_and_where(tmp_path):
    path = broken_stream(tmp_path)
    result = run_cli("convert", path, "--to", "portable-jsonl", "--skip-bad")
    assert result.returncode == 0
    assert len(lines(result.stdout)) == len(SAMPLE.read_bytes().splitlines())
    assert b"skipped 1 unreadable record(s): " in result.stderr and b"line 4" in result.stderr


def test_torn_last_line_warns_and_strict_fails(tmp_path):
    path = tmp_path / "torn.jsonl"
    data = SAMPLE.read_bytes()
    path.write_bytes(data + b'{"type":"message","role":"user","te')
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0
    assert result.stdout == data
    assert b"line 11" in result.stderr and b"incomplete" in result.stderr
    strict = run_cli("convert", path, "--to", "portable-jsonl", "--strict")
    assert strict.returncode == 1
    assert b"Traceback" not in strict.stderr


def test_nul_padded_tail_is_dropped_with_a_warning(tmp_path):
    path = tmp_path / "padded.jsonl"
    path.write_bytes(SAMPLE.read_bytes() + b"\x00" * 10000)
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0
    assert result.stdout == SAMPLE.read_bytes()
    assert b"NUL" in result.stderr


def test_unknown_input_names_what_was_tried(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    result = run_cli("convert", path, "--to", "portable")
    assert result.returncode == 1
    err = result.stderr.decode()
    assert "notes.txt" in err and "tried" in err and "portable-jsonl" in err and "--from" in err


def test_usage_errors_exit_2(doc):
    assert run_cli("convert", doc, "--to", "no-such-format").returncode == 2
    assert run_cli("convert", doc).returncode == 2
    missing = run_cli("convert", "/nonexistent/file.jsonl", "--to", "portable")
    assert missing.returncode == 2 and b"no such file" in missing.stderr


def test_full_disk_is_a_clear_error(doc):
    if not os.path.exists("/dev/full"):
        pytest.skip("/dev/full is not available on this system")
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "sessionport", "convert", str(doc), "--to", "portable-jsonl"], stdout=full, stderr=subprocess.PIPE, cwd=ROOT)
    assert result.returncode == 1
    assert b"no space left on device" in result.stderr
    assert b"Traceback" not in result.stderr


def wait_until_blocked_on_stdin(pid: int, limit: float = 60) -> None:
    """Wait until the process has started and is waiting for more input
    (however slow start-up is on a loaded machine)."""
    wchan = f"/proc/{pid}/wchan"
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with open(wchan) as handle:
                if "pipe" in handle.read():
                    return
        except OSError:
            time.sleep(3)  # no /proc: give start-up a generous moment
            return
        time.sleep(0.05)


def test_ctrl_c_exits_130_with_one_line():
    process = subprocess.Popen([*SESSIONPORT_WITH_DEFAULT_SIGNALS, "to", "portable-jsonl"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    process.stdin.write(SAMPLE.read_bytes().splitlines(keepends=True)[0])
    process.stdin.flush()
    wait_until_blocked_on_stdin(process.pid)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert err.decode().strip() == "sessionport: interrupted"


def test_formats_json_lists_every_format():
    result = CliRunner().invoke(cli, ["formats", "--json"])
    assert result.exit_code == 0
    rows = orjson.loads(result.stdout)
    names = {row["name"] for row in rows}
    assert {"portable", "portable-jsonl"} <= names
    for row in rows:
        assert {"name", "description", "import", "export"} <= set(row)


def test_formats_verbose_names_the_ijson_backend():
    result = run_cli("formats", "--verbose")
    assert result.returncode == 0
    assert b"ijson backend: yajl2_c" in result.stderr


def test_inspect_prints_counts_not_bodies(doc):
    result = CliRunner().invoke(cli, ["inspect", str(doc), "--json"])
    assert result.exit_code == 0
    report = orjson.loads(result.stdout)
    session = report["sessions"][0]
    assert session["sessionId"] == "doc-1"
    assert session["byRole"] == {"user": 1000, "assistant": 1000, "tool": 1000}
    assert "message 17" not in result.stdout
    human = CliRunner().invoke(cli, ["inspect", str(doc)])
    assert "messages:   3000" in human.stdout and "message 17" not in human.stdout


def test_empty_input_is_an_empty_result(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0 and result.stdout == b""
    assert b"empty" in result.stderr


def test_chain_to_must_be_last(doc):
    result = CliRunner().invoke(cli, ["chain", "-i", str(doc), "to", "portable", "filter", "--role", "user"])
    assert result.exit_code == 2


def test_chain_to_takes_options_after_the_format(tmp_path):
    target = tmp_path / "out.json"
    result = CliRunner().invoke(cli, ["chain", "-i", str(SAMPLE), "filter", "--role", "user", "to", "portable", "-o", str(target)])
    assert result.exit_code == 0, result.output
    assert [m["role"] for m in orjson.loads(target.read_bytes())["messages"]] == ["user"]
