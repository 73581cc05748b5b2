"""Hostile input against every command: a user's regular expression, the
files ``--images`` leaves, a file changing while ``--jobs`` reads it in
pieces, out-of-range numbers, lines of many small keys.  Each test runs
the real program (``run_cli``) and checks its exit code and message."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from conftest import ROOT, SESSIONPORT_WITH_DEFAULT_SIGNALS, run_cli

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


def _image_name(attempt: int = 1) -> str:
    """The name --images DIR gives the fixture's image, first in its document."""
    import base64

    import sessionport
    from sessionport.render.images import image_name

    data = next(base64.b64decode(m["data"]) for e in sessionport.read(str(IMAGE_SOURCE), options={"keep_images": True}) for m in e.get("media", []))
    return image_name(1, "png", data, attempt)


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
    assert (images / _image_name()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not [n for n in _leftovers(tmp_path / "notes") if n.endswith(".part")]


def test_images_of_an_earlier_run_stay_when_a_later_one_fails(tmp_path):
    images = tmp_path / "img"
    done = run_cli("convert", IMAGE_SOURCE, "--keep-images", "--to", "markdown", "--images", images, "-o", tmp_path / "a.md")
    assert done.returncode == 0, done.stderr
    before = (images / _image_name()).read_bytes()
    broken = tmp_path / "broken.jsonl"
    lines = IMAGE_SOURCE.read_text().splitlines()
    broken.write_text("\n".join(lines[:3] + ["[1, 2"] + lines[3:]) + "\n")
    result = run_cli("convert", broken, "--keep-images", "--to", "markdown", "--images", images, "-o", tmp_path / "b.md")
    assert result.returncode == 1
    assert _leftovers(images) == [_image_name()] and (images / _image_name()).read_bytes() == before


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
        [*SESSIONPORT_WITH_DEFAULT_SIGNALS, "convert", str(source), "--keep-images", "--to", "markdown", "--images", str(images), "-o", str(tmp_path / "out" / "doc.md")],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60
        while not (images / _image_name()).exists():
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
    (images / _image_name(1)).symlink_to(outside)
    (images / _image_name(2)).write_text("an input")
    doc = images / _image_name(3)  # the document itself at the next image's name
    result = run_cli("convert", IMAGE_SOURCE, "--keep-images", "--to", "markdown", "--images", images, "-o", doc)
    assert result.returncode == 0, result.stderr
    assert outside.read_text() == "keep me" and (images / _image_name(2)).read_text() == "an input"
    assert doc.read_text().startswith("<a id=")
    assert (images / _image_name(4)).read_bytes()[:4] == b"\x89PNG"
    assert _image_name(4) + ">)" in doc.read_text()


# -- 3. a file changing while --jobs reads it in pieces ---------------------------

ROLLOUT = FIXTURES / "codex" / "rollout-envelope.jsonl"


def _long_rollout(path: Path, replies: int) -> Path:
    lines = [line for line in ROLLOUT.read_text().splitlines() if "future_record" not in line]
    reply = lines[11]  # an assistant message
    assert '"role":"assistant"' in reply
    path.write_text("\n".join(lines[:12] + [reply] * replies + lines[12:]) + "\n")
    return path


def _in_pieces(monkeypatch):
    from sessionport.pipeline import chunks

    monkeypatch.setenv(chunks.MIN_SIZE_ENV, "1")
    monkeypatch.setenv(chunks.CHUNK_SIZE_ENV, "4k")
    monkeypatch.setenv(chunks.WARM_UP_ENV, "0")


@pytest.mark.parametrize(
    "change,found",
    [
        ("truncate", "truncated while it was read in pieces"),
        ("replace", "replaced by another while it was read in pieces"),
        ("rewrite", "modified while it was read in pieces"),
    ],
)
def test_a_file_changed_under_the_pieces_is_an_error(tmp_path, monkeypatch, change, found):
    """The pieces are planned from the file's size; a change after that
    (a log rotated, a rollout rewritten) would give a torn or mixed output
    without a word.  The change is named, nothing is written."""
    import os

    from sessionport.errors import DataError
    from sessionport.pipeline import chunks
    from sessionport.pipeline.run import Reading, Sink, run

    source = _long_rollout(tmp_path / "rollout.jsonl", 400)
    _in_pieces(monkeypatch)
    real_cuts = chunks.cuts

    def cuts_then_change(path, size, chunk, warm_up):
        planned = real_cuts(path, size, chunk, warm_up)
        data = Path(path).read_bytes()
        if change == "truncate":
            os.truncate(path, size // 2)
        elif change == "replace":
            Path(path + ".new").write_bytes(data)
            os.replace(path + ".new", path)
        else:
            stat = os.stat(path)
            Path(path).write_bytes(data.replace(b"I'll run", b"I'd run "))
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
        return planned

    monkeypatch.setattr(chunks, "cuts", cuts_then_change)
    out = tmp_path / "out.md"
    with pytest.raises(DataError) as raised:
        run([str(source)], reading=Reading(), sink=Sink("markdown", str(out)), jobs=2)
    message = str(raised.value)
    assert str(source) in message and found in message and "--jobs 1" in message, message
    assert not out.exists()


def test_a_file_growing_under_the_pieces_is_read_to_its_planned_size_with_a_warning(tmp_path, monkeypatch, capsys):
    from sessionport.errors import DataError
    from sessionport.pipeline import chunks
    from sessionport.pipeline.run import Reading, Sink, run

    source = _long_rollout(tmp_path / "rollout.jsonl", 400)
    size = source.stat().st_size
    _in_pieces(monkeypatch)
    real_cuts = chunks.cuts

    def cuts_then_grow(path, size, chunk, warm_up):
        planned = real_cuts(path, size, chunk, warm_up)
        with open(path, "ab") as f:
            f.write(ROLLOUT.read_text().splitlines()[11].encode() + b"\n")
        return planned

    monkeypatch.setattr(chunks, "cuts", cuts_then_grow)
    out = tmp_path / "out.jsonl"
    run([str(source)], reading=Reading(), sink=Sink("portable-jsonl", str(out)), jobs=2)
    assert out.exists()
    warned = capsys.readouterr().err
    assert f"{source}: the file grew while it was read in pieces (--jobs): its first {size:,} bytes" in warned, warned
    with pytest.raises(DataError, match="grew while it was read in pieces"):
        run([str(source)], reading=Reading(strict=True), sink=Sink("portable-jsonl", str(tmp_path / "strict.jsonl")), jobs=2)
    assert not (tmp_path / "strict.jsonl").exists()
    assert size < source.stat().st_size


def test_a_rollout_appended_to_while_jobs_read_it_warns(tmp_path):
    """The real program, a writer appending the whole time (a live session):
    the pieces read what the file held when they were planned, and say so."""
    import subprocess
    import sys
    import threading

    from sessionport.pipeline import chunks

    source = _long_rollout(tmp_path / "rollout.jsonl", 20_000)
    reply = (ROLLOUT.read_text().splitlines()[11] + "\n").encode()
    env = dict(__import__("os").environ, **{chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "256k", chunks.WARM_UP_ENV: "0"})
    env.pop("SESSIONPORT_DEBUG", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "sessionport", "convert", str(source), "--to", "portable-jsonl", "--jobs", "2", "-o", str(tmp_path / "out.jsonl")],
        stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=env,
    )
    done = threading.Event()

    def append():
        with open(source, "ab", buffering=0) as f:
            while not done.is_set():
                f.write(reply)
                time.sleep(0.002)

    writer = threading.Thread(target=append)
    writer.start()
    try:
        stderr = process.communicate(timeout=120)[1]
    finally:
        done.set()
        writer.join()
    assert process.returncode == 0, stderr
    assert b"grew while it was read in pieces (--jobs)" in stderr and b"--jobs 1" in stderr, stderr
    assert str(source).encode() in stderr


# -- 4. numbers JSON readers refuse -------------------------------------------------

LEGACY = FIXTURES / "gemini-cli" / "session-2026-03-01T10-00-legacy01.json"


def _legacy_with(tmp_path: Path, value: str, *, one_line: bool, newline: bool = False) -> Path:
    document = json.loads(LEGACY.read_text())
    text = json.dumps(document, separators=(",", ":")) if one_line else json.dumps(document, indent=2)
    marker = '"id":"m1",' if one_line else '"id": "m1",'
    assert marker in text
    text = text.replace(marker, marker + ('"n":' if one_line else ' "n": ') + value + ",", 1)
    path = tmp_path / "session-2026-03-01T10-00-legacy01.json"
    path.write_text(text + ("\n" if newline else ""))
    return path


@pytest.mark.parametrize("one_line,newline", [(True, False), (True, True), (False, True)], ids=["one-line-no-newline", "one-line", "pretty"])
@pytest.mark.parametrize(
    "value,found",
    [
        ("1e999", "the number 1e999 is out of range"),
        ("-1e400", "the number -1e400 is out of range"),
        ("NaN", "NaN is not a JSON value"),
        ("Infinity", "Infinity is not a JSON value"),
    ],
)
def test_gemini_legacy_json_with_a_refused_number_names_it_and_its_path(tmp_path, one_line, newline, value, found):
    """A one-line legacy document without a newline was taken for a torn
    last line: a warning, exit 0 and no message at all."""
    path = _legacy_with(tmp_path, value, one_line=one_line, newline=newline)
    result = run_cli("convert", path, "--to", "portable-jsonl")
    err = result.stderr.decode()
    assert result.returncode == 1, err
    assert "incomplete" not in err and "Traceback" not in err
    assert str(path) in err and "$.messages[0].n" in err and found in err and "replace the value" in err, err


def test_a_huge_integer_in_a_json_document_is_named(tmp_path):
    path = _legacy_with(tmp_path, "123456789012345678901234567890", one_line=False, newline=True)
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 1
    assert b"$.messages[0].n: the integer 123456789012345678901234567890 is out of range" in result.stderr, result.stderr


def test_a_torn_last_line_is_still_a_torn_tail(tmp_path):
    lines = (FIXTURES / "claude-code" / "session.jsonl").read_text().splitlines()
    path = tmp_path / "torn.jsonl"
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0 and b"the last line is incomplete" in result.stderr, result.stderr


def test_a_refused_number_in_a_jsonl_line_is_skipped_with_skip_bad(tmp_path):
    lines = (FIXTURES / "claude-code" / "session.jsonl").read_text().splitlines()
    record = json.loads(lines[1])
    bad = json.dumps(record)[:-1] + ', "costUSD": 1e999}'
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([lines[0], bad, *lines[2:]]) + "\n")
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 1 and b"line 2, at $.costUSD: the number 1e999 is out of range" in result.stderr, result.stderr
    result = run_cli("convert", path, "--to", "portable-jsonl", "--skip-bad")
    assert result.returncode == 0 and b"skipped 1 unreadable record(s)" in result.stderr, result.stderr


# -- 5. lines of many small keys ------------------------------------------------------


def _peak(args: list, env: dict | None = None) -> tuple[int, int, bytes]:
    """Exit code, peak RSS (MB) and stderr of the real program, measured in a
    process of its own (RUSAGE_CHILDREN holds only that run)."""
    import subprocess
    import sys

    code = (
        "import os, resource, subprocess, sys\n"
        f"r = subprocess.run([sys.executable, '-m', 'sessionport', *{[str(a) for a in args]!r}], capture_output=True, env=dict(os.environ, **{env or {}!r}))\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
        "sys.stderr.buffer.write(r.stderr)\n"
    )
    probe = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=300)
    rc, peak = map(int, probe.stdout.split())
    return rc, peak, probe.stderr


def _many_keys_session(path: Path, keys: int) -> Path:
    head = {"type": "user", "message": {"role": "user", "content": "hello"}, "uuid": "u1", "sessionId": "s1", "timestamp": "2025-01-01T00:00:00Z"}
    wide = dict(head, uuid="u2", parentUuid="u1", timestamp="2025-01-01T00:00:01Z")
    line = json.dumps(wide, separators=(",", ":"))[:-1] + ',"extra":{' + ",".join(f'"k{n}":{n}' for n in range(keys)) + "}}"
    after = dict(head, uuid="u3", parentUuid="u2", message={"role": "user", "content": "after"}, timestamp="2025-01-01T00:00:02Z")
    path.write_text("\n".join([json.dumps(head), line, json.dumps(after)]) + "\n")
    return path


def test_a_line_of_too_many_keys_is_refused_with_little_memory(tmp_path):
    """4.5 million keys and values in 40 MB: parsed, about 450 MB of Python
    objects; refused before parsing, in about the line's size twice."""
    source = _many_keys_session(tmp_path / "wide.jsonl", 2_250_000)
    size_mb = source.stat().st_size >> 20
    rc, peak, stderr = _peak(["convert", source, "--to", "portable-jsonl", "-o", tmp_path / "out.jsonl"])
    assert rc == 1, stderr
    assert b"line 2: this line (" in stderr and b"holds more than 4,000,000 keys and values" in stderr, stderr
    assert b"SESSIONPORT_MAX_LINE_VALUES" in stderr and b"--skip-bad" in stderr
    assert peak < 60 + 3 * size_mb, (peak, size_mb)
    assert not (tmp_path / "out.jsonl").exists()
    rc, peak, stderr = _peak(["convert", source, "--to", "portable-jsonl", "--skip-bad", "-o", tmp_path / "out.jsonl"])
    assert rc == 0 and b"skipped 1 unreadable record(s)" in stderr, stderr
    assert peak < 60 + 3 * size_mb, (peak, size_mb)
    assert b'"text":"after"' in (tmp_path / "out.jsonl").read_bytes()


def test_the_values_limit_is_set_by_the_environment(tmp_path):
    source = _many_keys_session(tmp_path / "wide.jsonl", 60_000)
    small = {"SESSIONPORT_MAX_LINE_VALUES": "100000"}
    result = run_cli("convert", source, "--to", "portable-jsonl", env=small)
    assert result.returncode == 1 and b"holds more than 100,000 keys and values" in result.stderr, result.stderr
    assert run_cli("convert", source, "--to", "portable-jsonl").returncode == 0
    result = run_cli("convert", source, "--to", "portable-jsonl", env={"SESSIONPORT_MAX_LINE_VALUES": "lots"})
    assert result.returncode == 2 and b"SESSIONPORT_MAX_LINE_VALUES: 'lots'" in result.stderr, result.stderr


def test_commas_and_colons_inside_strings_are_no_values(tmp_path):
    """A long tool output full of commas (CSV, minified code) is text: it is
    read, quickly (the count reads it once)."""
    text = "a,b:c " * 200_000
    record = {"type": "user", "message": {"role": "user", "content": text}, "uuid": "u1", "sessionId": "s1", "timestamp": "2025-01-01T00:00:00Z"}
    source = tmp_path / "csv.jsonl"
    source.write_text(json.dumps(record) + "\n")
    started = time.monotonic()
    result = run_cli("convert", source, "--from", "claude-code", "--to", "portable-jsonl", env={"SESSIONPORT_MAX_LINE_VALUES": "100000"})
    assert result.returncode == 0, result.stderr
    assert time.monotonic() - started < 30
    assert text.encode() in result.stdout


# -- a first line longer than the detection head ------------------------------------


@pytest.mark.parametrize("how", ["file", "stdin", "gzip"])
def test_a_first_line_longer_than_the_head_is_still_recognised(tmp_path, how):
    """A session whose first record is a long pasted prompt (200 KB) left
    the sniffers no complete line in their 64 KiB: "the format could not be
    recognised"."""
    import gzip

    lines = (FIXTURES / "claude-code" / "session.jsonl").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if json.loads(line).get("type") == "user")
    record = json.loads(lines[first])
    record["message"]["content"] = "pasted log line\n" * 12_500
    source = tmp_path / "long-first.jsonl"
    source.write_text("\n".join([json.dumps(record), *lines[first + 1 :]]) + "\n")
    expected = run_cli("convert", source, "--from", "claude-code", "--to", "portable-jsonl")
    assert expected.returncode == 0, expected.stderr
    if how == "file":
        result = run_cli("convert", source, "--to", "portable-jsonl")
    elif how == "stdin":
        result = run_cli("convert", "-", "--to", "portable-jsonl", input=source.read_bytes())
    else:
        packed = tmp_path / "long-first.jsonl.gz"
        packed.write_bytes(gzip.compress(source.read_bytes()))
        result = run_cli("convert", packed, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected.stdout


def test_user_patterns_take_text_holding_lone_surrogates():
    """RE2 reads UTF-8, which holds no lone surrogate: such text (a string
    cut inside an emoji that reached the stream) must not end the run."""
    from sessionport.user_regex import compile_user

    pattern = compile_user(r"(?P<s>a+)", "--pattern")
    assert pattern.search("\ud83daa").span() == (1, 3)
    assert [m.span("s") for m in pattern.finditer("x\udfffaa b a")] == [(2, 4), (7, 8)]


def test_contains_agrees_with_search():
    from sessionport.user_regex import compile_user

    texts = ["", "a" * 50 + "b", "¿café?", "line\nnext", "ünïcödé 123", "x\ud83dy"]
    for source in [r"(a+)+$", r"\w+", r"^caf", r"(?i)CAFÉ", r"\d{3}", r"(?s)line.next", r"^next", "y$"]:
        pattern = compile_user(source, "--grep")
        for text in texts:
            assert pattern.contains(text) == (pattern.search(text) is not None), (source, text)
