"""The Markdown body spooled to disk reaches the output whole, whatever the
output is: a file, an appended file, a pipe, an in-memory stream.

The body is held in a spool while the table of contents waits for the last
session; a spool that went to disk is copied to the output by the kernel
(``sendfile``) when the output takes it, through a buffer otherwise.  Each
way must give the bytes the in-memory spool gives.
"""

from __future__ import annotations

import io
import os
import threading

import pytest

from sessionport.context import WriteContext
from sessionport.model import end_event, message_event, session_event
from sessionport.render import markdown as md_exporter


def _events():
    for number in range(3):  # several sessions: a table of contents in front
        yield session_event("claude-code", sessionId=f"s{number}", title=f"Session · {number}")
        for i in range(400):
            yield message_event("user", f"prompt {i} · é\n" + "line\n" * (i % 40))
            yield message_event("tool", "ls -la", toolName="Bash", toolCallId=f"c{number}-{i}", toolInput={"command": "ls -la"}, meta={"kind": "tool_use"})
            yield message_event("tool", "out\n" * (i % 50), toolCallId=f"c{number}-{i}", meta={"kind": "tool_result"})
        yield end_event()


def _expected() -> bytes:
    out = io.BytesIO()
    md_exporter.write(_events(), out, WriteContext())
    return out.getvalue()


@pytest.fixture
def small_spool(monkeypatch):
    """A spool that goes to disk after its first kilobyte."""
    monkeypatch.setattr(md_exporter, "SPOOL_MEMORY", 1024)


def test_in_memory_output_gets_the_whole_document(small_spool) -> None:
    out = io.BytesIO()
    md_exporter.write(_events(), out, WriteContext())
    assert out.getvalue() == _expected_default


@pytest.mark.parametrize("mode", ["wb", "ab"])
def test_file_output_gets_the_whole_document(small_spool, tmp_path, mode) -> None:
    path = tmp_path / "out.md"
    path.write_bytes(b"before\n" if mode == "ab" else b"")
    with open(path, mode) as out:
        md_exporter.write(_events(), out, WriteContext())
    assert path.read_bytes() == (b"before\n" if mode == "ab" else b"") + _expected_default


def test_pipe_output_gets_the_whole_document(small_spool) -> None:
    read_end, write_end = os.pipe()
    received = []
    reader = threading.Thread(target=lambda: received.append(os.fdopen(read_end, "rb").read()))
    reader.start()
    with open(write_end, "wb") as out:
        md_exporter.write(_events(), out, WriteContext())
    reader.join()
    assert received == [_expected_default]


_expected_default = _expected()
