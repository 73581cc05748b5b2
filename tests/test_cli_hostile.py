"""Every command against unusual and hostile inputs, as real processes:
one clear line on stderr, never a traceback, exit 0 ok / 1 bad data /
2 usage, and no output left behind by a run that failed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import orjson
import pytest

from conftest import FIXTURES, ROOT, run_cli

SESSION = FIXTURES / "claude-code" / "session.jsonl"
TWO = FIXTURES / "filter" / "two-sessions.jsonl"
ROLLOUT = FIXTURES / "codex" / "rollout-envelope.jsonl"
EXPORT = FIXTURES / "chatgpt-export" / "conversations.json"


def clean(proc: subprocess.CompletedProcess) -> None:
    assert b"Traceback" not in proc.stderr and b"internal error" not in proc.stderr, proc.stderr


# -- integers beyond 64 bits in JSON printed by the commands ----------------

def test_inspect_json_prints_token_counts_beyond_64_bits(tmp_path):
    source = tmp_path / "big.jsonl"
    source.write_bytes(SESSION.read_bytes().replace(b'"input_tokens":10', b'"input_tokens":123456789012345678901234567890'))
    for args in (["--json"], ["--usage", "--json"]):
        proc = run_cli("inspect", *args, source)
        clean(proc)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["usage"]["input_tokens"] > 2**64  # written as the float a reader reads it as
    text = run_cli("inspect", source)
    clean(text)
    found = re.search(rb"input_tokens=(\d+)", text.stdout)
    assert found and int(found.group(1)) > 2**64, text.stdout  # the text prints the whole number


# -- a closed stdout, at any point ----------------------------------------

@pytest.mark.parametrize("args", [["--help"], ["--version"], ["convert", "--help"], ["formats", "--json"]])
def test_help_and_version_into_a_closed_pipe_end_quietly_with_0(args):
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "sessionport", *args], stdout=write, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    finally:
        os.close(write)
    assert proc.returncode == 0 and proc.stderr == b""


# -- UTF-16 and UTF-32 text ------------------------------------------------

@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-16-le", "utf-32"])
def test_utf16_and_utf32_inputs_read_as_their_utf8_text(tmp_path, encoding):
    """What PowerShell's `>` and Notepad's "Unicode" write: with a byte
    order mark, or without one (JSON's first character beside a NUL)."""
    expected = run_cli("convert", SESSION, "--to", "portable-jsonl")
    source = tmp_path / "wide.jsonl"
    text = SESSION.read_text(encoding="utf-8")
    source.write_bytes(text.encode(encoding) if encoding != "utf-16-be" else b"\xfe\xff" + text.encode(encoding))
    proc = run_cli("convert", source, "--to", "portable-jsonl")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected.stdout and proc.stderr == b""


def test_utf16_documents_seekable_readers_and_the_usage_scan(tmp_path):
    export = tmp_path / "conversations.json"
    export.write_bytes(EXPORT.read_text(encoding="utf-8").encode("utf-16"))
    assert run_cli("convert", export, "--to", "portable-jsonl").stdout == run_cli("convert", EXPORT, "--to", "portable-jsonl").stdout
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_bytes(ROLLOUT.read_text(encoding="utf-8").encode("utf-16"))
    wide = run_cli("inspect", "--usage", "--json", rollout)
    assert wide.returncode == 0, wide.stderr
    assert json.loads(wide.stdout)["usage"] == json.loads(run_cli("inspect", "--usage", "--json", ROLLOUT).stdout)["usage"]
    portable = tmp_path / "two.jsonl"
    portable.write_bytes(TWO.read_text(encoding="utf-8").encode("utf-16"))
    proc = run_cli("validate", portable)
    assert proc.returncode == 0 and b"valid portable-jsonl" in proc.stdout


def test_invalid_utf16_is_one_error_naming_the_offset_and_what_to_try(tmp_path):
    source = tmp_path / "bad16.jsonl"
    wide = SESSION.read_text(encoding="utf-8").encode("utf-16")
    source.write_bytes(wide[:200] + b"\x00\xd8A\x00" + wide[200:])  # a lone high surrogate
    out = tmp_path / "out.jsonl"
    proc = run_cli("convert", source, "--to", "portable-jsonl", "-o", out)
    clean(proc)
    assert proc.returncode == 1
    [line] = proc.stderr.decode().splitlines()
    assert f"{source}: read as UTF-16 text, and the bytes at offset 200 are not UTF-16" in line and "iconv -f UTF16 -t UTF-8" in line
    assert not out.exists()


# -- split leaves nothing behind when it fails ------------------------------

@pytest.mark.parametrize("content", [None, b"\x89PNG garbage", b'{"not json\n'])
def test_split_that_fails_before_a_file_is_written_makes_no_directory(tmp_path, content):
    source = tmp_path / "in.jsonl"
    if content is not None:
        source.write_bytes(content)
    out = tmp_path / "out" / "sub"
    proc = run_cli("split", source, "--to", "markdown", "-o", out)
    clean(proc)
    assert proc.returncode == (2 if content is None else 1)
    assert len(proc.stderr.decode().splitlines()) == 1
    assert not out.exists()


def test_split_of_an_empty_input_writes_nothing_and_makes_no_directory(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    proc = run_cli("split", empty, "--to", "markdown", "-o", tmp_path / "out")
    assert proc.returncode == 0 and b"the input is empty" in proc.stderr and b"wrote 0 file(s)" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_failing_input_leaves_the_last_file_of_the_input_before_it_whole(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"not json\n')
    out = tmp_path / "out"
    # anthropic-messages writes a session once it has all of it: its file is
    # complete only when the next event shows the session has ended
    proc = run_cli("split", TWO, bad, "--to", "anthropic-messages", "-o", out)
    clean(proc)
    assert proc.returncode == 1
    files = sorted(out.iterdir())
    assert len(files) == 2
    for path in files:
        assert orjson.loads(path.read_bytes())["messages"]


# -- a JSON array where JSON Lines are expected, and the other way round -----

def _records(fixture) -> list:
    return [orjson.loads(line) for line in fixture.read_bytes().splitlines() if line.strip()]


SHAPES = {
    "one array on one line": (lambda r: orjson.dumps(r), "in one JSON array", "jq -c '.[]'"),
    "one array, a record a line": (lambda r: b"[" + b",\n".join(map(orjson.dumps, r)) + b"]", "one JSON array", "jq -c '.[]'"),
    "a pretty-printed array": (lambda r: orjson.dumps(r, option=orjson.OPT_INDENT_2), "in one JSON array", "jq -c '.[]'"),
    "pretty-printed records": (lambda r: b"\n".join(orjson.dumps(x, option=orjson.OPT_INDENT_2) for x in r), "pretty-printed over several lines", "jq -c ."),
}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fixture, name", [(SESSION, "claude-code"), (TWO, "portable-jsonl"), (ROLLOUT, "codex")])
def test_json_lines_records_in_another_json_shape_name_the_shape_and_the_fix(tmp_path, fixture, name, shape):
    make, said, fix = SHAPES[shape]
    source = tmp_path / "records.json"
    source.write_bytes(make(_records(fixture)))
    for command in (["convert", source, "--to", "markdown", "-o", tmp_path / "out.md"], ["inspect", source], ["split", source, "--to", "markdown", "-o", tmp_path / "out"]):
        proc = run_cli(*command)
        clean(proc)
        assert proc.returncode == 1
        [line] = proc.stderr.decode().splitlines()
        assert said in line and fix in line and "--skip-bad" not in line, line
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.md").exists()


def test_json_documents_one_per_line_name_json_lines_and_the_fix(tmp_path):
    source = tmp_path / "conversations.jsonl"
    source.write_bytes(b"\n".join(orjson.dumps(c) for c in orjson.loads(EXPORT.read_bytes())) + b"\n")
    out = tmp_path / "out.md"
    proc = run_cli("convert", source, "--to", "markdown", "-o", out)
    clean(proc)
    assert proc.returncode == 1
    [line] = proc.stderr.decode().splitlines()
    assert "more JSON follows the first document, as in JSON Lines" in line and "jq -s ." in line
    assert not out.exists()


# -- -o through a link -----------------------------------------------------

@pytest.mark.parametrize("target", ["/proc/self/fd/1", "/dev/fd/1"])
def test_o_naming_this_process_stdout_through_a_link_writes_there_and_keeps_the_link(tmp_path, target):
    """``-o /dev/stdout`` is a link into /proc: the output goes to the
    descriptor, and the link is never replaced by a plain file (for
    /dev/stdout itself that would break every later program)."""
    if not os.path.exists(target):
        pytest.skip(f"{target} does not exist on this system")
    link = tmp_path / "stdout-link"
    link.symlink_to(target)
    expected = run_cli("convert", SESSION, "--to", "markdown").stdout
    proc = run_cli("convert", SESSION, "--to", "markdown", "-o", link)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected
    assert link.is_symlink() and os.readlink(link) == target
    assert [p.name for p in tmp_path.iterdir()] == ["stdout-link"]  # no partial file left beside it
    report = run_cli("convert", SESSION, "--to", "markdown", "-o", tmp_path / "o.md", "--json-report", link)
    assert report.returncode == 0 and json.loads(report.stdout)["inputs"][0]["status"] == "ok"
    assert link.is_symlink()


@pytest.mark.skipif(not os.path.exists("/proc/self/fd"), reason="descriptors named through /proc")
def test_o_naming_a_descriptor_of_this_process_writes_at_its_place_and_keeps_what_is_there(tmp_path):
    """``-o /dev/stdout`` with stdout on a file (``>>``, or after what a
    script wrote there first) and ``-o /dev/fd/3``: the output follows what
    the file holds, as writing to stdout does, instead of truncating it; a
    pipe closed early ends quietly with 0, as stdout does."""
    expected = run_cli("convert", SESSION, "--to", "markdown").stdout
    command = [sys.executable, "-m", "sessionport", "convert", str(SESSION), "--to", "markdown"]
    log = tmp_path / "log.md"
    log.write_bytes(b"previous\n")
    with open(log, "ab") as appended:
        proc = subprocess.run([*command, "-o", "/dev/stdout"], stdout=appended, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert log.read_bytes() == b"previous\n" + expected
    third = tmp_path / "fd3.md"
    with open(third, "wb") as handle:
        handle.write(b"header\n")
        handle.flush()
        proc = subprocess.run(
            [*command, "-o", "/dev/fd/%d" % handle.fileno()], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=ROOT, timeout=60, pass_fds=(handle.fileno(),),
        )
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert third.read_bytes() == b"header\n" + expected and proc.stdout == b""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([*command, "-o", "/dev/stdout"], stdout=write, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    finally:
        os.close(write)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr


def test_o_naming_a_link_to_a_file_writes_the_file_and_keeps_the_link(tmp_path):
    real = tmp_path / "notes" / "session.md"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / "session.md"
    link.symlink_to(real)
    proc = run_cli("convert", SESSION, "--to", "markdown", "-o", link)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and real.read_bytes() == run_cli("convert", SESSION, "--to", "markdown").stdout
    assert sorted(p.name for p in real.parent.iterdir()) == ["session.md"]
    dangling = tmp_path / "new.md"
    dangling.symlink_to(tmp_path / "notes" / "new.md")
    assert run_cli("convert", SESSION, "--to", "markdown", "-o", dangling).returncode == 0
    assert dangling.is_symlink() and (tmp_path / "notes" / "new.md").read_bytes() == real.read_bytes()


# -- -o under a file -------------------------------------------------------

@pytest.mark.parametrize("command", [
    ["convert", SESSION, "--to", "markdown", "-o", "{f}/"],
    ["convert", SESSION, "--to", "markdown", "-o", "{f}/x.md"],
    ["convert", "{d}", "--to", "markdown", "-o", "{f}/"],
    ["filter", "{d}", "-o", "{f}/sub/", "--jobs", "2"],
    ["split", SESSION, "--to", "markdown", "-o", "{f}/sub"],
    ["import-session", FIXTURES / "session-json" / "agent-session.jsonl", "-o", "{f}/t.json"],
    ["convert", SESSION, "--to", "markdown", "-o", "{o}", "--json-report", "{f}/r.json"],
])
def test_an_output_under_a_file_is_one_usage_error_before_anything_is_written(tmp_path, command):
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (inputs / name).write_bytes(SESSION.read_bytes())
    blocker = tmp_path / "afile"
    blocker.write_bytes(b"x")
    args = [str(a).format(f=blocker, d=inputs, o=tmp_path / "o.md") for a in command]
    proc = run_cli(*args)
    clean(proc)
    assert proc.returncode == 2
    [line] = [line for line in proc.stderr.decode().splitlines() if "warning:" not in line]
    assert f"{blocker} is a file, not a folder; choose another" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "in"] and blocker.read_bytes() == b"x"


# -- options that make no sense together -----------------------------------

@pytest.mark.parametrize("args, flag, output", [
    (["convert", SESSION, "--to", "codex", "--front-matter"], "--front-matter", "codex"),
    (["to", "anthropic-messages", SESSION, "--images", "embed"], "--images", "anthropic-messages"),
    (["convert", SESSION, "--to", "portable-jsonl", "--trace-agent", "x"], "--trace-agent", "portable-jsonl"),
    (["filter", SESSION, "--role", "user", "--front-matter"], "--front-matter", "portable-jsonl"),
    (["chain", "-i", SESSION, "filter", "--role", "user", "to", "codex", "--front-matter"], "--front-matter", "codex"),
    (["split", SESSION, "--to", "codex", "-o", "{tmp}/out", "--front-matter"], "--front-matter", "codex"),
])
def test_an_option_of_another_output_format_is_a_usage_error(tmp_path, args, flag, output):
    proc = run_cli(*[str(a).format(tmp=tmp_path) for a in args])
    assert proc.returncode == 2 and proc.stdout == b""
    assert f"{flag} is an option of " in proc.stderr.decode() and f"the output is {output}, which takes no {flag}" in proc.stderr.decode()
    assert not (tmp_path / "out").exists()


def test_options_of_the_output_format_are_still_taken():
    assert run_cli("convert", SESSION, "--to", "markdown", "--front-matter").stdout.startswith(b"---\n")
    assert run_cli("chain", "-i", SESSION, "to", "markdown", "--front-matter").stdout.startswith(b"---\n")


@pytest.mark.parametrize("extra", [["-o", "{tmp}/x.jsonl"], ["--to", "markdown"]])
def test_redact_check_refuses_an_output(tmp_path, extra):
    proc = run_cli("redact", "--check", SESSION, *[a.format(tmp=tmp_path) for a in extra])
    assert proc.returncode == 2 and b"--check writes nothing" in proc.stderr
    assert not (tmp_path / "x.jsonl").exists()


# -- named pipes and other non-files where session files are looked for ---------

def test_ls_at_all_and_a_folder_input_pass_over_a_named_pipe_instead_of_waiting_on_it(tmp_path):
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-home-user-demo"
    project.mkdir(parents=True)
    (project / "5a1c2e3f-0000-4000-8000-000000000001.jsonl").write_bytes(SESSION.read_bytes())
    os.mkfifo(project / "waiting.jsonl")  # nobody will ever write to it
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "CODEX_HOME": str(home / ".codex")}
    listed = run_cli("ls", "--json", env=env, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert [row["sessionId"] for row in json.loads(listed.stdout)] == ["5a1c2e3f-0000-4000-8000-000000000001"]
    every = run_cli("convert", "@all", "--to", "markdown", "-o", tmp_path / "all/", env=env, timeout=60)
    assert every.returncode == 0, every.stderr
    folder = run_cli("convert", project, "--to", "markdown", "-o", tmp_path / "folder/", timeout=60)
    assert folder.returncode == 0, folder.stderr
    assert [p.name for p in (tmp_path / "folder").iterdir()] == ["5a1c2e3f-0000-4000-8000-000000000001.md"]


def test_validate_says_an_empty_file_is_empty(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n \n")
    for path in (empty, "/dev/null"):
        proc = run_cli("validate", path)
        assert proc.returncode == 1
        assert f"{path}: $: the file is empty".encode() in proc.stdout


# -- no input and a terminal on stdin ---------------------------------------

@pytest.mark.parametrize("args", [["convert", "--to", "markdown"], ["inspect"], ["filter", "--role", "user"], ["split", "--to", "markdown", "-o", "{tmp}/out"], ["chain", "filter"]])
def test_no_input_with_a_terminal_on_stdin_is_a_usage_error_not_a_wait(tmp_path, args):
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "sessionport", *[a.format(tmp=tmp_path) for a in args]],
                              stdin=follower, capture_output=True, cwd=ROOT, timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 2
    assert b"no input given, and stdin is a terminal" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_batch_into_one_file_whose_inputs_all_fail_leaves_no_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"not json\n')
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 4)
    out = tmp_path / "all.md"
    proc = run_cli("convert", bad, garbage, "--to", "markdown", "-o", out)
    clean(proc)
    assert proc.returncode == 1 and b"0 of 2 input(s) converted, 2 failed" in proc.stderr
    assert not out.exists()
    # one good input: the file holds it, and the run still says one failed
    proc = run_cli("convert", bad, SESSION, "--to", "markdown", "-o", out)
    assert proc.returncode == 1 and out.read_bytes() == run_cli("convert", SESSION, "--to", "markdown").stdout


def test_import_session_of_a_transcript_that_is_mostly_not_tool_calls_says_what_it_left_out(tmp_path):
    """A Claude Code transcript put in one array is read by session-json as
    loose entries: only its summary names a "tool"; the rest is counted."""
    source = tmp_path / "records.json"
    source.write_bytes(orjson.dumps(_records(SESSION)))
    report = tmp_path / "report.json"
    proc = run_cli("import-session", source, "-o", tmp_path / "t.json", "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    [warning] = [line for line in proc.stderr.decode().splitlines() if "left out" in line]
    total = len(_records(SESSION))
    assert f"{total - 1} of {total} entries name no tool call this format reads and were left out (assistant x" in warning
    assert json.loads(report.read_text())["inputs"][0]["warnings"] == [warning.removeprefix("sessionport: warning: ")]
