"""Markdown written into a pipe: a document of one session streams (its
first bytes come while the input is still being read, and a reader that
stops early ends the program at once), and is byte for byte the document
written to a file; a document of several sessions, or one from a stream
on stdin, still has its table of contents in front."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading

import pytest

from conftest import FIXTURES, ROOT, run_cli
from sessionport.context import WriteContext
from sessionport.pipeline.stream import FILE_SESSION
from sessionport.render import markdown

PROC = os.path.isdir("/proc/self/fdinfo")


@pytest.fixture(scope="module", params=["claude-code", "codex"])
def big_input(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("pipe") / f"{request.param}-generated.jsonl"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), request.param, "8MB", str(path)], check=True, capture_output=True)
    return path


def _input_offset(pid: int, path) -> int | None:
    """How far the process has read the file at ``path`` (None: not open)."""
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                    return int(info.readline().split()[1])
        except (OSError, ValueError, IndexError):
            continue
    return None


@pytest.mark.skipif(not PROC, reason="needs /proc to see how far the input was read")
def test_the_first_bytes_come_while_the_input_is_read(big_input, tmp_path):
    whole = tmp_path / "whole.md"
    assert run_cli("convert", big_input, "--to", "markdown", "-o", whole, "--jobs", "1").returncode == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionport", "convert", str(big_input), "--to", "markdown", "--jobs", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    try:
        first = proc.stdout.read(4096)
        # the program now waits on the full pipe: it has not read its input
        # to the end (a spooled body would only come after the last byte)
        offset = _input_offset(proc.pid, big_input)
        assert offset is not None and offset < big_input.stat().st_size // 2
        assert proc.poll() is None
        rest = proc.stdout.read()
    finally:
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.stderr.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0, stderr
    assert first + rest == whole.read_bytes()


def test_a_reader_that_stops_early_ends_the_program(big_input):
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionport", "convert", str(big_input), "--to", "markdown", "--jobs", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
    )
    first = proc.stdout.read(100)  # what `| head -c 100` takes
    offset = _input_offset(proc.pid, big_input) if PROC else None
    proc.stdout.close()
    stderr = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0  # a closed pipe ends the run quietly
    assert first.startswith(b'<a id="session-1"></a>\n\n# ') and b"Traceback" not in stderr
    if offset is not None:
        assert offset < big_input.stat().st_size // 2


SEVERAL = [
    FIXTURES / "claude-code" / "project" / "5a1c2e3f-0000-4000-8000-000000000002.jsonl",  # a session and its subagent
    FIXTURES / "markdown" / "two-sessions.jsonl",
    FIXTURES / "chatgpt-export" / "conversations.json",
]
ONE = [
    FIXTURES / "claude-code" / "session-2.1.243-late-titles.jsonl",
    FIXTURES / "codex" / "rollout-0.146-event-only.jsonl",
]


@pytest.mark.parametrize("path", SEVERAL + ONE, ids=lambda p: p.name)
@pytest.mark.parametrize("flags", [(), ("--front-matter",), ("--no-tools", "--max-output", "3")], ids=" ".join)
def test_a_pipe_gets_the_bytes_a_file_gets(path, flags, tmp_path):
    target = tmp_path / "doc.md"
    to_file = run_cli("convert", path, "--to", "markdown", *flags, "-o", target)
    piped = run_cli("convert", path, "--to", "markdown", *flags)
    assert to_file.returncode == piped.returncode == 0
    assert piped.stdout == target.read_bytes()
    if path in SEVERAL and not flags:
        assert b"## Contents" in piped.stdout.split(b'<a id="session-1">')[0]


@pytest.mark.parametrize("path", ONE, ids=lambda p: p.name)
def test_a_stream_on_stdin_names_its_late_title_at_the_end(path):
    # no file to scan: the heading has the first title, the note the late one
    piped = run_cli("convert", path, "--to", "portable-jsonl").stdout
    shown = run_cli("to", "markdown", input=piped)
    assert shown.returncode == 0
    assert b"Title recorded later in the session (the one the app shows): " in shown.stdout


def _events(sessions: int) -> list[dict]:
    events = []
    for n in range(1, sessions + 1):
        session = {"type": "session", "sessionId": f"s{n}", "source": "codex"}
        if n == 1:
            session[FILE_SESSION] = True
        events += [session, {"type": "message", "role": "user", "text": f"prompt {n}"}, {"type": "end"}]
    return events


def _through_a_pipe(events: list[dict]) -> tuple[bytes, list[str]]:
    read_end, write_end = os.pipe()
    got = io.BytesIO()
    reader = threading.Thread(target=lambda: got.write(os.fdopen(read_end, "rb").read()))
    reader.start()
    ctx = WriteContext()
    warnings: list[str] = []
    ctx.warn = warnings.append  # type: ignore[method-assign]
    with os.fdopen(write_end, "wb") as out:
        markdown.write(iter(events), out, ctx)
    reader.join()
    return got.getvalue(), warnings


def _spooled(events: list[dict]) -> bytes:
    out = io.BytesIO()
    markdown.write(iter(events), out, WriteContext())
    return out.getvalue()


def test_one_session_of_a_file_streams_into_a_pipe_as_it_would_be_spooled():
    streamed, warnings = _through_a_pipe(_events(1))
    assert streamed == _spooled(_events(1)) and not warnings


def test_a_session_the_file_did_not_announce_puts_the_contents_at_the_end():
    streamed, warnings = _through_a_pipe(_events(2))
    assert streamed.startswith(b'<a id="session-1"></a>')
    assert streamed.rstrip().endswith(b"2. [Session s2](#session-2) \xe2\x80\x94 codex \xc2\xb7 1 message")
    assert len(warnings) == 1 and "table of contents is at its end" in warnings[0]
    # without the mark, the document is spooled and the contents lead
    plain = [{k: v for k, v in e.items() if k != FILE_SESSION} for e in _events(2)]
    assert _through_a_pipe(plain)[0] == _spooled(plain) and _spooled(plain).startswith(b"# 2 sessions")


def test_several_inputs_into_one_pipe_have_their_contents_in_front(tmp_path):
    # each input's first session is its file's, the document holds both
    target = tmp_path / "both.md"
    assert run_cli("convert", *ONE, "--to", "markdown", "-o", target).returncode == 0
    piped = run_cli("convert", *ONE, "--to", "markdown")
    assert piped.returncode == 0 and b"table of contents is at its end" not in piped.stderr
    assert piped.stdout == target.read_bytes() and piped.stdout.startswith(b"# 2 sessions\n\n## Contents\n")


def test_a_rollout_read_in_pieces_streams_the_same_bytes(tmp_path):
    from sessionport.pipeline import chunks

    path = FIXTURES / "codex" / "rollout-0.146-event-only.jsonl"
    env = {chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "2k", chunks.WARM_UP_ENV: "0", "SESSIONPORT_DEBUG": "1"}
    target = tmp_path / "doc.md"
    assert run_cli("convert", path, "--to", "markdown", "--jobs", "1", "-o", target).returncode == 0
    piped = run_cli("convert", path, "--to", "markdown", "--jobs", "2", env=env)
    assert b"pieces by 2 processes" in piped.stderr and b"table of contents" not in piped.stderr
    assert piped.stdout == target.read_bytes()
