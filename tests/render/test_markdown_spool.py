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
    """A spool that goes to disk after its first kilobyte, and a body written
    in chunks of 4 KB (the document is written as it comes, not at the end)."""
    monkeypatch.setattr(md_exporter, "SPOOL_MEMORY", 1024)
    monkeypatch.setattr(md_exporter, "BODY_CHUNK", 4096)


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


# -- the body written straight to the output ------------------------------
#
# One session without front matter has nothing in front of its body: it
# goes straight to a plain file open to read and write (what ``-o PATH``
# writes through) or to the null device, and a second session moves what
# was written into the spool.  Each way gives the spooled bytes.


def _one_session():
    yield session_event("claude-code", sessionId="only", title="One · session")
    for i in range(400):
        yield message_event("user", f"prompt {i} · é\n" + "line\n" * (i % 40))
        yield message_event("tool", "out\n" * (i % 50), toolCallId=f"c{i}", meta={"kind": "tool_result"})
    yield end_event()


def _spooled(events) -> bytes:
    out = io.BytesIO()  # an in-memory stream is always spooled
    md_exporter.write(events, out, WriteContext())
    return out.getvalue()


@pytest.mark.parametrize("events", [_one_session, _events], ids=["one-session", "three-sessions"])
@pytest.mark.parametrize("before", [b"", b"already here\n"], ids=["empty", "after-text"])
def test_read_write_file_output_gets_the_spooled_document(small_spool, tmp_path, events, before) -> None:
    path = tmp_path / "out.md"
    path.write_bytes(before)
    with open(path, "r+b") as out:
        out.seek(0, os.SEEK_END)
        assert md_exporter._direct_target(out) == len(before)
        md_exporter.write(events(), out, WriteContext())
    assert path.read_bytes() == before + _spooled(events())


def _broken_in_the_first_session():
    yield from list(_one_session())[:-1]
    raise RuntimeError("the stream broke")


def _broken_in_the_second_session():
    yield from _one_session()
    yield session_event("claude-code", sessionId="second")
    raise RuntimeError("the stream broke")


@pytest.mark.parametrize("events", [_broken_in_the_first_session, _broken_in_the_second_session])
def test_a_failure_takes_back_what_was_written_of_the_body(small_spool, tmp_path, events) -> None:
    path = tmp_path / "out.md"
    path.write_bytes(b"kept\n")
    with open(path, "r+b") as out:
        out.seek(0, os.SEEK_END)
        written = []
        real_write = out.write
        out.write = lambda data: written.append(len(data)) or real_write(data)  # type: ignore[method-assign]
        with pytest.raises(RuntimeError):
            md_exporter.write(events(), out, WriteContext())
        assert sum(written) > 20_000  # the body had been written to the file
    assert path.read_bytes() == b"kept\n"


def test_a_file_holding_more_after_the_document_is_spooled(small_spool, tmp_path) -> None:
    path = tmp_path / "out.md"
    path.write_bytes(b"x" * 100_000)
    with open(path, "r+b") as out:
        assert md_exporter._direct_target(out) is None  # an error must not cut what follows
        with pytest.raises(RuntimeError):
            md_exporter.write(_broken_in_the_first_session(), out, WriteContext())
    assert path.read_bytes() == b"x" * 100_000


def test_the_null_device_takes_the_document(small_spool) -> None:
    with open(os.devnull, "wb") as out:
        assert md_exporter._direct_target(out) == -1
        md_exporter.write(_events(), out, WriteContext())


def test_cli_output_path_gets_the_spooled_document(tmp_path) -> None:
    from conftest import run_cli

    source = tmp_path / "in.jsonl"
    import orjson

    source.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in _events()))
    for name, args in (("several.md", []), ("first.md", ["--session", "s0"])):
        target = tmp_path / name
        result = run_cli("convert", str(source), "--to", "markdown", "-o", str(target), *args)
        assert result.returncode == 0, result.stderr
        spooled = run_cli("convert", str(source), "--to", "markdown", *args)
        assert target.read_bytes() == spooled.stdout
