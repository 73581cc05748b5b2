"""The progress bar: shown on a terminal for a large input, never on a pipe
or with --quiet."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, run_cli

SAMPLE = FIXTURES / "portable-jsonl" / "session.jsonl"


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    path = tmp_path_factory.mktemp("progress") / "large.jsonl"
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    body = b"".join(lines[1:-1])
    with open(path, "wb") as out:
        out.write(lines[0])
        for _ in range(30_000_000 // len(body)):
            out.write(body)
    return path


def run_on_terminal(*args) -> tuple[int, bytes]:
    """Run sessionport with stderr on a pseudo-terminal; stdout to /dev/null."""
    master, slave = pty.openpty()
    with open(os.devnull, "wb") as devnull:
        process = subprocess.Popen([sys.executable, "-m", "sessionport", *map(str, args)], stdout=devnull, stderr=slave, stdin=subprocess.DEVNULL, cwd=ROOT)
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return process.wait(timeout=60), seen


def test_a_terminal_shows_a_progress_bar(large):
    code, seen = run_on_terminal("convert", large, "--to", "portable-jsonl")
    assert code == 0
    assert b"%" in seen and b"large.jsonl" in seen


def test_quiet_hides_the_bar_on_a_terminal(large):
    code, seen = run_on_terminal("convert", large, "--to", "portable-jsonl", "--quiet")
    assert code == 0
    assert seen.strip() == b""


def test_a_pipe_shows_no_bar(large):
    result = run_cli("convert", large, "--to", "portable-jsonl")
    assert result.returncode == 0
    assert result.stderr == b""
