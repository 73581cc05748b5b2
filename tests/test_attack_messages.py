"""What a transcript holds, shown by the commands: escape and bidi codes
in redact's findings and warnings and in validate's lines are shown, not
acted on; an unreadable line is quoted with its secrets as tags; front
matter spells markup characters as YAML escapes; an age beyond the
calendar is a usage error."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES, run_cli

PORTABLE = FIXTURES / "portable-jsonl" / "session.jsonl"
CLAUDE = FIXTURES / "claude-code" / "session.jsonl"
TOKEN = "ghp_wnQrS7RPeMOx1jTy2BvKpL0sQa9dZc4fGh8J"


# -- what a transcript holds, on the terminal and in errors --------------------------

EVIL = "\x1b]0;PWNED\x07\x1b[2J\u202e"


def test_redact_check_shows_escape_codes_of_warnings_findings_and_names(tmp_path):
    source = tmp_path / "c.jsonl"
    lines = [
        {"type": "user", "sessionId": "abc", "uuid": "u1", "parentUuid": None, "timestamp": "2025-01-01T00:00:00Z", "cwd": "/x",
         "message": {"role": "user", "content": f"hello {TOKEN}"}},
        {"type": "odd" + EVIL, "sessionId": "abc", "uuid": "u2", "timestamp": "2025-01-01T00:00:01Z"},
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    bad = tmp_path / "bad\x1b]0;T\x07.jsonl"
    bad.write_text("{not json\n")
    result = run_cli("redact", str(source), str(bad), "--check", "--report")
    assert result.returncode == 1
    for raw in (b"\x1b", b"\x07", "\u202e".encode()):
        assert raw not in result.stderr, result.stderr
    assert b"odd\\x1b]0;PWNED\\x07" in result.stderr and b"found: " in result.stderr
    assert b"bad\\x1b]0;T\\x07.jsonl" in result.stderr


def test_validate_shows_the_escape_codes_of_a_file_name_on_every_line(tmp_path):
    trace = tmp_path / "x\x1b]0;V\x07.trace.json"
    trace.write_text(json.dumps({"schemaVersion": "1.0.0", "runs": [{"bogus": i} for i in range(5)]}))
    result = run_cli("validate", str(trace), "--max-errors", "1")
    assert result.returncode == 1
    assert b"\x1b" not in result.stdout and b"\x07" not in result.stdout
    assert b"more" in result.stdout


def test_an_unreadable_line_is_quoted_with_its_secrets_as_tags(tmp_path):
    source = tmp_path / "s.jsonl"
    head = CLAUDE.read_text().splitlines(keepends=True)[:2]
    source.write_text("".join(head) + f'{{"token":"{TOKEN}","password":"Tiger#3068maple" BROKEN\n')
    report = tmp_path / "r.json"
    result = run_cli("redact", str(source), "-o", str(tmp_path / "out.jsonl"), "--json-report", str(report))
    assert result.returncode == 1
    assert b"line 3: expected a JSON object on this line" in result.stderr
    assert b"[REDACTED:github-token#1]" in result.stderr
    for where in (result.stderr.decode(), report.read_text()):
        assert TOKEN[4:] not in where and "Tiger#3068maple" not in where


def test_an_unreadable_line_without_secrets_is_quoted_as_before(tmp_path):
    from sessionport.jsonl import _excerpt

    assert _excerpt('{"type": "user", BROKEN') == '{"type": "user", BROKEN'
    long = '{"type": "user", "text": "' + "word " * 30
    assert _excerpt(long) == long[:60] + "..."
    assert _excerpt("x" * 1000) == "x" * 60 + "..."


# -- front matter ----------------------------------------------------------------------

def test_front_matter_writes_markup_characters_as_escapes_yaml_reads_back(tmp_path):
    yaml = pytest.importorskip("yaml")
    title = 'T <img src=x onerror=alert(1)> & "q"'
    source = tmp_path / "s.jsonl"
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "s1", "title": title},
        {"type": "message", "role": "user", "text": "hi", "id": "u1"},
    ]
    source.write_text("".join(json.dumps(e) + "\n" for e in events))
    out = tmp_path / "s.md"
    result = run_cli("convert", str(source), "--to", "markdown", "--front-matter", "-o", str(out))
    assert result.returncode == 0, result.stderr
    block = out.read_text().split("\n---\n", 1)[0]
    assert "<" not in block and ">" not in block and "&" not in block
    assert yaml.safe_load(block.removeprefix("---\n"))["title"] == title


# -- option values ---------------------------------------------------------------------

@pytest.mark.parametrize("age", ["9999999999999999999d", "3000000d", "1" * 400 + "s"])
def test_an_age_reaching_before_the_year_1_is_a_usage_error(age):
    result = run_cli("filter", str(PORTABLE), "--since", age)
    assert result.returncode == 2, result.stderr
    assert b"reaches back before the year 1" in result.stderr
    assert b"internal error" not in result.stderr
