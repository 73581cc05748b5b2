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


# -- 2. --images DIR ----------------------------------------------------------------

IMAGE_SOURCE = FIXTURES / "images" / "codex-input-image.jsonl"


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_images_of_a_failed_run_are_removed(tmp_path):
    lines = IMAGE_SOURCE.read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    # a record that is not JSON after the image, then more: a bad record (1)
    broken.write_text("\n".join(lines[:3] + ['{"timestamp": oops'] + lines[3:]) + "\n")
    (tmp_path / "notes").mkdir()
    images = tmp_path / "notes" / "img" / "deep"
    result = run_cli("convert", broken, "--keep-images", "--to", "markdown", "--images", images, "-o", tmp_path / "notes" / "doc.md")
    assert result.returncode == 1, result.stderr
    assert b"line 4" in result.stderr and b"Traceback" not in result.stderr
    assert _leftovers(tmp_path / "notes") == [], "no document, no images, no folder made for them"
    # the same input read past the bad record: the images stay with the document
    result = run_cli("convert", broken, "--keep-images", "--skip-bad", "--to", "markdown", "--images", images, "-o", tmp_path / "notes" / "doc.md")
    assert result.returncode == 0, result.stderr
    assert (images / "image-0001.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [n for n in _leftovers(tmp_path / "notes") if n.endswith(".part")]


def test_images_of_an_earlier_run_stay_when_a_later_one_fails(tmp_path):
    images = tmp_path / "img"
    done = run_cli("convert", IMAGE_SOURCE, "--keep-images", "--to", "markdown", "--images", images, "-o", tmp_path / "a.md")
    assert done.returncode == 0, done.stderr
    before = (images / "image-0001.png").read_bytes()
    broken = tmp_path / "broken.jsonl"
    lines = IMAGE_SOURCE.read_text().splitlines()
    broken.write_text("\n".join(lines[:3] + ["[1, 2"] + lines[3:]) + "\n")
    result = run_cli("convert", broken, "--keep-images", "--to", "markdown", "--images", images, "-o", tmp_path / "b.md")
    assert result.returncode == 1
    assert _leftovers(images) == ["image-0001.png"] and (images / "image-0001.png").read_bytes() == before


@pytest.mark.parametrize("signal_number,code", [(15, 143), (2, 130)])
def test_images_of_an_interrupted_run_are_removed(tmp_path, signal_number, code):
    import os
    import subprocess
    import sys

    images = tmp_path / "out" / "img"
    lines = IMAGE_SOURCE.read_text().splitlines()
    source = tmp_path / "long.jsonl"  # the image first, then 300,000 replies: seconds of writing
    source.write_text("\n".join(lines + [lines[3]] * 300_000) + "\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "sessionport", "convert", str(source), "--keep-images", "--to", "markdown", "--images", str(images), "-o", str(tmp_path / "out" / "doc.md")],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while not (images / "image-0001.png").exists():
            assert time.monotonic() < deadline, "the image was never written"
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.02)
        os.kill(process.pid, signal_number)
        assert process.wait(timeout=60) == code
    finally:
        if process.poll() is None:
            process.kill()
        stderr = process.stderr.read()
        process.stderr.close()
    assert b"Traceback" not in stderr
    assert _leftovers(tmp_path / "out") == [], stderr


def test_images_never_replace_a_file_or_follow_a_link(tmp_path):
    images = tmp_path / "img"
    images.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    (images / "image-0001.png").symlink_to(outside)
    (images / "image-0002.png").write_text("an input")
    doc = images / "image-0003.png"  # the document itself at the next image's name
    result = run_cli("convert", IMAGE_SOURCE, "--keep-images", "--to", "markdown", "--images", images, "-o", doc)
    assert result.returncode == 0, result.stderr
    assert outside.read_text() == "keep me" and (images / "image-0002.png").read_text() == "an input"
    assert doc.read_text().startswith("<a id=")
    assert (images / "image-0004.png").read_bytes()[:4] == b"\x89PNG"
    assert "image-0004.png>)" in doc.read_text()
