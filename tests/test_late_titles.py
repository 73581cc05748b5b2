"""Titles recorded late in a session (Claude Code's /rename and generated
titles, Codex's thread name, Gemini CLI's summary): ``inspect`` reports the
one the app shows, and the Markdown/HTML heading carries it when the input
is a plain file (a byte scan before the read), else a note at the end."""

from __future__ import annotations

import json

import pytest

import sessionport
from conftest import CORPUS, FIXTURES, run_cli
from sessionport import title_scan as scanner
from sessionport.context import ReadContext
from sessionport.errors import SessionportError
from sessionport.pipeline import stream
from sessionport.registry import get_registry

LATE = {
    # a custom-title after the first message, then a later ai-title: the
    # rename stays (Claude Code's picker shows customTitle ?? aiTitle)
    FIXTURES / "claude-code" / "session-2.1.243-late-titles.jsonl": ("claude-code", "retry cap bug"),
    FIXTURES / "codex" / "rollout-0.146-event-only.jsonl": ("codex", "Price rounding"),
    FIXTURES / "gemini-cli" / "session-2026-04-30T09-00-replay01.jsonl": ("gemini-cli", "Count the tests"),
    # the record's envelope comes before its type: matched inside the line
    FIXTURES / "qwen-code" / "9ac9a7c3-51d2-4e0b-8f3a-2ce24fc677d6.jsonl": ("qwen-code", "Listing txt files"),
}


def _read_title(path) -> str | None:
    """The title the reader gives: the session's, replaced by end.title."""
    title = None
    for event in sessionport.read(str(path)):
        if event["type"] == "session":
            title = event.get("title")
        elif event["type"] == "end" and event.get("title"):
            title = event["title"]
            break
    return title


@pytest.mark.parametrize("path", list(LATE), ids=lambda p: p.name)
def test_inspect_reports_the_late_title(path):
    _, title = LATE[path]
    for args in ((), ("--usage",)):
        printed = json.loads(run_cli("inspect", "--json", *args, path).stdout)
        assert printed["sessions"][0]["title"] == title
    table = run_cli("inspect", path).stdout.decode()
    assert f"title:      {title}\n" in table


@pytest.mark.parametrize("path", list(LATE), ids=lambda p: p.name)
def test_the_heading_of_a_file_is_the_late_title(path):
    _, title = LATE[path]
    markdown = run_cli("convert", path, "--to", "markdown").stdout.decode()
    assert markdown.splitlines()[2] == f"# {title}"
    assert "Title recorded later" not in markdown
    html = run_cli("convert", path, "--to", "html").stdout.decode()
    assert f"<title>{title}</title>" in html and "Title recorded later" not in html


@pytest.mark.parametrize("path", list(LATE), ids=lambda p: p.name)
def test_a_stream_names_the_late_title_in_a_note_at_the_end(path):
    source, title = LATE[path]
    piped = run_cli("convert", path, "--to", "portable-jsonl").stdout
    for fmt in ("markdown", "html"):
        shown = run_cli("convert", "-", "--from", "portable-jsonl", "--to", fmt, input=piped).stdout.decode()
        assert f"Title recorded later in the session (the one the app shows): {title}" in shown
    # stdin read as its own format: no file to scan, the note says it
    own = run_cli("convert", "-", "--from", source, "--to", "markdown", input=path.read_bytes()).stdout.decode()
    assert own.rstrip().count(title) >= 1 and f"the one the app shows): {title}" in own


@pytest.mark.parametrize("path", list(LATE), ids=lambda p: p.name)
@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_the_scan_finds_what_the_reader_gives_across_block_edges(path, block, monkeypatch):
    source, title = LATE[path]
    monkeypatch.setattr(scanner, "BLOCK", block)
    scan = get_registry().importer(source).title_scan_function()
    assert scan(str(path)) == title == _read_title(path)


def test_a_title_line_longer_than_the_bound_is_left_to_the_note(tmp_path, monkeypatch):
    path = tmp_path / "long.jsonl"
    original = (FIXTURES / "claude-code" / "session-2.1.243-late-titles.jsonl").read_bytes()
    path.write_bytes(original)
    monkeypatch.setattr(scanner, "TITLE_LINE", 40)
    scan = get_registry().importer("claude-code").title_scan_function()
    assert scan(str(path)) is None  # every title line is longer than 40 bytes


def _all_inputs() -> list:
    paths = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.suffix in (".jsonl", ".json")]
    if CORPUS.is_dir():
        paths += [p for p in sorted(CORPUS.rglob("*")) if p.is_file() and p.suffix in (".jsonl", ".json")]
    return paths


def test_files_without_a_late_title_read_the_same_with_the_scan():
    """The heading option changes nothing in a file whose title is known
    when its session event comes."""
    changed = []
    for path in _all_inputs():
        try:
            plain = list(stream.read(str(path), context=ReadContext(on_warning=lambda m: None)))
            titled = list(stream.read(str(path), options={stream.HEADING_TITLE: True}, context=ReadContext(on_warning=lambda m: None)))
        except SessionportError:
            continue
        if plain != titled:
            changed.append(path)
    assert set(changed) == set(LATE)


def test_a_rollout_read_in_pieces_is_headed_by_its_late_title():
    from sessionport.pipeline import chunks

    path = FIXTURES / "codex" / "rollout-0.146-event-only.jsonl"
    env = {chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "2k", chunks.WARM_UP_ENV: "0", "SESSIONPORT_DEBUG": "1"}
    result = run_cli("convert", path, "--to", "markdown", "--jobs", "2", env=env)
    assert b"pieces by 2 processes" in result.stderr  # the pieces path, not one process
    markdown = result.stdout.decode()
    assert markdown.splitlines()[2] == "# Price rounding" and "Title recorded later" not in markdown


def test_long_lines_are_skipped_and_a_last_line_without_newline_is_read(tmp_path, monkeypatch):
    # the fixture's message lines are longer than 200 bytes, its title
    # lines shorter: read 64 bytes at a time, the long ones are passed over
    # unbuffered; the last title line here has no newline after it
    lines = (FIXTURES / "claude-code" / "session-2.1.243-late-titles.jsonl").read_bytes().splitlines()
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"\n".join(lines + [b'{"type":"custom-title","sessionId":"3b8e1f42","customTitle":"last word"}']))
    monkeypatch.setattr(scanner, "BLOCK", 64)
    monkeypatch.setattr(scanner, "TITLE_LINE", 200)
    assert max(map(len, lines)) > 200
    scan = get_registry().importer("claude-code").title_scan_function()
    assert scan(str(path)) == "last word" == _read_title(path)


def _title_file(tmp_path, position: int, lines: int = 300) -> tuple[object, bytes]:
    """A file of ``lines`` records, one of them (at ``position``) a title."""
    body = [b'{"type":"x","n":%d,"pad":"%s"}' % (i, b"a" * (i % 50)) for i in range(lines)]
    title = b'{"type":"t","v":%d}' % position
    body[position] = title
    path = tmp_path / f"titles-{position}.jsonl"
    path.write_bytes(b"\n".join(body) + b"\n")
    return path, title


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_a_large_file_is_scanned_at_its_two_ends_only(tmp_path, monkeypatch, block):
    """Past twice WINDOW, the lines that start in the first WINDOW bytes
    (the one the window ends inside finished) and those that start in the
    last WINDOW bytes are scanned, each once, and nothing in between."""
    import re

    monkeypatch.setattr(scanner, "BLOCK", block)
    monkeypatch.setattr(scanner, "WINDOW", 2000)
    pattern = re.compile(rb'\n\{"type":"t"')
    seen = {"head": 0, "tail": 0, "middle": 0}
    for position in range(0, 300, 7):
        path, title = _title_file(tmp_path, position)
        data = path.read_bytes()
        start = data.index(title)
        assert len(data) > 2 * scanner.WINDOW
        where = "head" if start < scanner.WINDOW else "tail" if start >= len(data) - scanner.WINDOW else "middle"
        seen[where] += 1
        assert list(scanner.title_lines(str(path), pattern)) == ([] if where == "middle" else [title]), (position, where)
    assert all(seen.values())  # every case was met


def test_a_title_between_the_two_ends_of_a_large_file_is_left_to_the_note(tmp_path, monkeypatch):
    original = (FIXTURES / "claude-code" / "session-2.1.243-late-titles.jsonl").read_bytes().splitlines()
    # the titles (lines 3, 4 and 7) pushed into the middle by copies of the
    # first prompt, the file's tail a prompt too
    filler = [original[0]] * 40
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"\n".join(filler + original + filler) + b"\n")
    monkeypatch.setattr(scanner, "WINDOW", 4096)
    scan = get_registry().importer("claude-code").title_scan_function()
    assert scan(str(path)) is None
    events = list(stream.read(str(path), options={stream.HEADING_TITLE: True}, context=ReadContext(on_warning=lambda m: None)))
    assert events[0]["type"] == "session" and events[0].get("title") != "retry cap bug"
    assert [e.get("title") for e in events if e["type"] == "end"] == ["retry cap bug"]  # for the end note
    # at the file's end, the same titles are found by the scan
    path.write_bytes(b"\n".join(filler + original) + b"\n")
    assert scan(str(path)) == "retry cap bug"
