"""Hostile input against every command: a user's regular expression, the
files ``--images`` leaves, a file changing while ``--jobs`` reads it in
pieces, out-of-range numbers, lines of many small keys.  Each test runs
the real program (``run_cli``) and checks its exit code and message."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

FIXTURES = ROOT / "fixtures"
EVIL = "(a+)+$"  # exponential in Python's re over "aaaa...b"


def _claude_session(path: Path, text: str, title: str | None = None) -> Path:
    records = [{"type": "user", "message": {"role": "user", "content": text}, "uuid": "u1", "sessionId": "s1", "timestamp": "2025-01-01T00:00:00Z"}]
    if title is not None:
        records.append({"type": "summary", "summary": title, "leafUuid": "u1"})
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


# -- 1. user regular expressions --------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("filter", "{f}", "--grep", EVIL),
        ("filter", "{f}", "--grep", EVIL, "-i"),
        ("convert", "{f}", "--to", "markdown", "--title", EVIL),
        ("to", "markdown", "{f}", "--title", EVIL),
        ("redact", "{f}", "--pattern", EVIL),
        ("redact", "{f}", "--check", "--pattern", EVIL),
        ("redact", "{f}", "--allow", EVIL),
        ("split", "{f}", "--to", "markdown", "-o", "{d}", "--title", EVIL),
        ("chain", "-i", "{f}", "filter", "--grep", EVIL, "redact", "--pattern", EVIL, "to", "markdown"),
    ],
)
def test_catastrophic_pattern_runs_in_linear_time(tmp_path, args):
    text = "a" * 60 + "b"
    source = _claude_session(tmp_path / "s.jsonl", text, title=text)
    args = [a.format(f=source, d=tmp_path / "split") for a in args]
    started = time.monotonic()
    result = run_cli(*args, timeout=60)
    assert time.monotonic() - started < 30
    # the text never matches: --title ends in "no session matches" (2)
    assert result.returncode in (0, 2), result.stderr
    assert result.returncode == 0 or b"no session matches" in result.stderr, result.stderr
    assert b"Traceback" not in result.stderr


@pytest.mark.parametrize(
    "option,command",
    [
        ("--grep", ["filter"]),
        ("--title", ["convert", "--to", "markdown"]),
        ("--title", ["split", "--to", "markdown", "-o", "out"]),
        ("--pattern", ["redact"]),
        ("--allow", ["redact"]),
        ("--allow", ["redact", "--check"]),
    ],
)
@pytest.mark.parametrize("pattern,found", [(r"(a)\1", "invalid escape sequence"), ("(?=x)", "invalid perl operator"), ("(", "missing )")])
def test_pattern_re2_cannot_run_is_a_usage_error(tmp_path, option, command, pattern, found):
    source = _claude_session(tmp_path / "s.jsonl", "hello")
    result = run_cli(*command, source, option, pattern, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    err = result.stderr.decode()
    assert option in err and found in err and "RE2" in err, err
    assert "Traceback" not in err and "absl" not in err  # RE2's own log stays quiet
    assert not (tmp_path / "out").exists()


def test_unicode_classes_keep_python_meaning(tmp_path):
    source = _claude_session(tmp_path / "s.jsonl", "¿café? ١٢٣")
    for pattern in (r"\bcaf\w", r"^\W\w+", r"\d{3}", r"[\w]{4}\?"):
        result = run_cli("filter", source, "--grep", pattern)
        assert result.returncode == 0, result.stderr
        assert b'"role":"user"' in result.stdout, pattern


def test_redact_pattern_named_group(tmp_path):
    source = _claude_session(tmp_path / "s.jsonl", "id=abc123 rest")
    result = run_cli("redact", source, "--pattern", r"id=(?P<s>\w+)")
    assert result.returncode == 0, result.stderr
    assert b"id=[REDACTED:custom#1] rest" in result.stdout
