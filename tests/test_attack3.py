"""Hostile inputs and ends of runs, third sweep: each test here is a case a
deliberate attack tried on the installed program, with the behaviour
docs/reliability.md promises for it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import orjson
import pytest

import sessionport
from conftest import FIXTURES, ROOT, wait_for
from sessionport.pipeline import run as pipeline
from sessionport.pipeline import stream
from sessionport.pipeline.signals import Terminated

CLAUDE = FIXTURES / "claude-code" / "session.jsonl"

_DEFAULT_SIGNALS = (
    "import runpy, signal, sys\n"
    "for name in ('SIGTERM', 'SIGHUP'):\n"
    "    signal.signal(getattr(signal, name), signal.SIG_DFL)\n"
    "sys.argv[0] = 'sessionport'\n"
    "runpy.run_module('sessionport', run_name='__main__', alter_sys=True)\n"
)


def _start(args, tmp_path, cwd=None):
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    env.pop("SESSIONPORT_DEBUG", None)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-c", _DEFAULT_SIGNALS, *map(str, args)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd or ROOT, env=env,
    )


def _visible(folder):
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and named pipes")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_batch_into_a_folder_ended_by_sigterm_reports_every_file_it_left(tmp_path, jobs):
    """``convert a b -o out/ --json-report r.json`` ended by SIGTERM while
    it waited on one input wrote a report naming no input at all ("inputs":
    [], 0 inputs), though out/a.md was written: a script reading the report
    could not tell which files of the run to trust or clean up.  With
    --jobs 2 the waiting input comes first, so the file of the one after it
    is in place before its outcome can reach the parent."""
    session = tmp_path / "a.jsonl"
    session.write_bytes(CLAUDE.read_bytes())
    fifo = tmp_path / "b.jsonl"
    os.mkfifo(fifo)
    inputs = [session, fifo] if jobs == "1" else [fifo, session]
    out, report = tmp_path / "out", tmp_path / "r.json"
    proc = _start(["convert", *inputs, "--to", "markdown", "-o", f"{out}/", "--jobs", jobs, "--json-report", report], tmp_path)
    wait_for(lambda: _visible(out) == ["a.md"], "a.md written")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    doc = orjson.loads(report.read_bytes())
    assert doc["exitCode"] == 143 and doc["error"] == "terminated (SIGTERM)"
    assert [(e["input"], e["output"], e["status"]) for e in doc["inputs"]] == [(str(session), str(out / "a.md"), "ok")]
    assert doc["totals"]["inputs"] == 2 and doc["totals"]["converted"] == 1
    assert _visible(out) == ["a.md"]


@pytest.mark.parametrize("layout", ["directory", "single"])
def test_a_signal_just_after_an_output_lands_leaves_it_named(tmp_path, monkeypatch, layout):
    """A signal lands between any two bytecodes: one between an output's
    rename into place and its outcome being recorded left a file the
    report of the run did not name."""
    real_write = stream.write
    calls = []

    def write_then_signal(*args, **kwargs):
        calls.append(args[1])
        written = real_write(*args, **kwargs)
        raise Terminated(signal.SIGTERM)  # the file is in place, its outcome not yet made

    monkeypatch.setattr(stream, "write", write_then_signal)
    first = tmp_path / "a.jsonl"
    first.write_bytes(CLAUDE.read_bytes())
    inputs = [str(first)]
    if layout == "directory":
        second = tmp_path / "b.jsonl"
        second.write_bytes(CLAUDE.read_bytes())
        inputs.append(str(second))
    out = tmp_path / "out"
    out.mkdir()
    sink = pipeline.Sink("markdown", f"{out}/", report=True)
    with pytest.raises(Terminated) as ended:
        pipeline.run(inputs, sink=sink, jobs=1)
    written = pipeline.partial_result(ended.value)
    assert written is not None
    assert [(o.source, o.target, o.ok) for o in written.outcomes] == [(str(first), str(out / "a.md"), True)]
    assert _visible(out) == ["a.md"]


@pytest.mark.parametrize("with_output", [False, True])
def test_import_session_ended_just_after_its_trace_landed_names_the_trace(tmp_path, monkeypatch, with_output):
    """import-session's report said "output": null, the input terminated,
    when the signal came just after the trace was renamed into
    .agentscope/: a whole trace the report did not name."""
    import contextlib

    from click.testing import CliRunner

    from sessionport.agentscope import shortcut
    from sessionport.cli import cli

    real_open = shortcut.open_output

    @contextlib.contextmanager
    def open_then_signal(path, *args, **kwargs):
        with real_open(path, *args, **kwargs) as out:
            yield out
        raise Terminated(signal.SIGTERM)

    monkeypatch.setattr(shortcut, "open_output", open_then_signal)
    monkeypatch.chdir(tmp_path)
    args = ["import-session", str(FIXTURES / "session-json" / "agent-session.json"), "--json-report", "r.json"]
    if with_output:
        args += ["-o", "t.trace.json"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 143, result.output
    traces = [str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.trace.json")]
    assert len(traces) == 1
    doc = orjson.loads((tmp_path / "r.json").read_bytes())
    assert doc["output"] == traces[0] or os.path.abspath(doc["output"]) == str(tmp_path / traces[0])
    assert doc["inputs"][0]["output"] == doc["output"] and doc["inputs"][0]["status"] == "ok"
    assert doc["exitCode"] == 143


def _cli(*args, cwd=None, timeout=60):
    env = dict(os.environ)
    env.pop("SESSIONPORT_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "sessionport", *map(str, args)], capture_output=True, timeout=timeout, cwd=cwd, env=env)


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes")
@pytest.mark.parametrize("where", ["beside", "subagents"])
@pytest.mark.parametrize("command", ["convert", "inspect"])
def test_a_named_pipe_named_as_an_agent_file_beside_a_session_is_passed_over(tmp_path, where, command):
    """A folder of transcripts (a tar unpacked) holding a named pipe called
    agent-1.jsonl beside a Claude Code session, or in its subagents/
    folder: convert and inspect of the session waited on it for ever."""
    session = tmp_path / "s.jsonl"
    session.write_bytes(CLAUDE.read_bytes())
    folder = tmp_path if where == "beside" else tmp_path / "s" / "subagents"
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "agent-1.jsonl")
    args = [command, session] + (["--to", "markdown", "-o", tmp_path / "s.md"] if command == "convert" else [])
    done = _cli(*args, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    if command == "convert":
        assert (tmp_path / "s.md").read_text().count("##") >= 2


@pytest.mark.skipif(not os.path.exists("/dev/zero") or sys.platform == "win32", reason="/dev/zero and named pipes")
@pytest.mark.parametrize("manifest", ["/dev/zero", "fifo"])
def test_a_cline_manifest_that_is_not_a_plain_file_is_passed_over(tmp_path, manifest):
    """A Cline 3 session's manifest <id>.json as a link to /dev/zero was
    read to its (missing) end: memory grew until the system ran out (under
    a 3 GB cap: "internal error ... MemoryError ... This is a bug"); as a
    named pipe the run waited for ever."""
    import shutil

    sid = "1795000000000_k3j9x"
    folder = tmp_path / sid
    shutil.copytree(FIXTURES / "cline-sessions" / sid, folder)
    (folder / f"{sid}.json").unlink()
    if manifest == "fifo":
        os.mkfifo(folder / f"{sid}.json")
    else:
        os.symlink(manifest, folder / f"{sid}.json")
    out = tmp_path / "s.jsonl"
    done = _cli("convert", folder / f"{sid}.messages.json", "--to", "portable-jsonl", "-o", out, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr
    events = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert any(e["type"] == "message" for e in events)


def _blocks_document(n: int) -> bytes:
    block = b'{"type":"text","text":"a"}'
    return b'{"messages":[{"role":"user","content":[' + b",".join([block] * n) + b"]}]}"


def _mapping_export(n: int) -> bytes:
    nodes = b",".join(b'"n%d":{"id":"n%d","parent":%s,"children":["n%d"],"message":null}' % (i, i, b'"n%d"' % (i - 1) if i else b"null", i + 1) for i in range(n))
    return b'[{"title":"t","id":"c1","current_node":"n%d","mapping":{%s}}]' % (n - 1, nodes)


@pytest.mark.parametrize("shape", ["message", "conversation-zip"])
def test_one_item_of_a_json_document_is_bounded_in_keys_and_values(tmp_path, shape):
    """A JSON document item (one message of a provider list, one ChatGPT
    conversation) had no bound on its values, as a JSONL line has: 3,000,000
    copies of one small block gzip to 196 KB and took 1.2 GB; a 10 MB
    ChatGPT export zip of one conversation of 1,000,000 nodes took 900 MB.
    The bound is the JSONL one, per item (lowered here to keep it cheap)."""
    import gzip
    import zipfile

    if shape == "message":
        path = tmp_path / "doc.json.gz"
        path.write_bytes(gzip.compress(_blocks_document(30_000)))
    else:
        path = tmp_path / "export.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("conversations.json", _mapping_export(10_000))
    env = dict(os.environ, SESSIONPORT_MAX_LINE_VALUES="50000")
    env.pop("SESSIONPORT_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "sessionport", "convert", str(path), "--to", "portable-jsonl", "-o", str(tmp_path / "o.jsonl")],
                          capture_output=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    assert b"holds more than 50,000 keys and values" in done.stderr
    assert (b"conversation 1" in done.stderr) == (shape != "message")
    assert not (tmp_path / "o.jsonl").exists()
    # under the bound the same shapes convert
    env["SESSIONPORT_MAX_LINE_VALUES"] = "5000000"
    done = subprocess.run([sys.executable, "-m", "sessionport", "convert", str(path), "--to", "portable-jsonl", "-o", str(tmp_path / "o.jsonl")],
                          capture_output=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr


def test_an_output_name_longer_than_a_file_name_can_be_is_refused_before_the_conversion(tmp_path):
    """``-o`` of 256 bytes (or a batch target: a 255-byte ``X.json`` input
    becomes ``X.jsonl``): the whole conversion ran into a partial file
    shortened to fit, then the rename failed with "cannot write
    .../.yyy...3430f648ee5f.part: File name too long", naming a hidden file."""
    long_name = "y" * 256
    done = _cli("convert", CLAUDE, "--to", "portable-jsonl", "-o", tmp_path / long_name)
    assert done.returncode == 2, done.stderr
    assert b"the file name is 256 bytes, more than the 255" in done.stderr
    assert b".part" not in done.stderr
    assert os.listdir(tmp_path) == []
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / ("x" * 250 + ".json")).write_bytes(CLAUDE.read_bytes())
    (folder / "short.jsonl").write_bytes(CLAUDE.read_bytes())
    done = _cli("convert", folder, "--to", "portable-jsonl", "-o", f"{tmp_path / 'out'}/")
    assert done.returncode == 1, done.stderr
    assert b"the file name is 256 bytes" in done.stderr and b".part" not in done.stderr
    assert os.listdir(tmp_path / "out") == ["short.jsonl"]


@pytest.mark.parametrize("command", ["convert", "inspect", "validate"])
def test_an_integer_of_thousands_of_digits_in_a_json_document_is_named_not_an_internal_error(tmp_path, command):
    """An integer beyond 4,300 digits in a JSON document (a message list, an
    AgentScope trace): naming it called int() on its digits, which Python
    refuses past 4,300: "internal error ... ValueError: Exceeds the limit
    (4300 digits) for integer string conversion ... This is a bug"."""
    digits = "9" * 5000
    if command == "validate":
        path = tmp_path / "t.trace.json"
        path.write_text('{"schemaVersion":"1","runs":[{"id":' + digits + "}]}")
        args = ["validate", path]
    else:
        path = tmp_path / "doc.json"
        path.write_text('{"messages":[{"role":"user","content":"hi","n":' + digits + "}]}")
        args = [command, path] + (["--to", "portable-jsonl", "-o", tmp_path / "o.jsonl"] if command == "convert" else [])
    done = _cli(*args)
    assert done.returncode == 1, done.stderr
    assert b"internal error" not in done.stderr and b"Traceback" not in done.stderr
    where = b"$.runs[0].id" if command == "validate" else b"$.messages[0].n"
    assert b"is out of range" in done.stderr + done.stdout and where in done.stderr + done.stdout


@pytest.mark.parametrize("args", [["convert", "--to", "portable-jsonl"], ["inspect"], ["inspect", "--usage"]])
def test_a_codex_token_count_of_thousands_of_digits_is_a_bad_record_not_an_internal_error(tmp_path, args):
    """A token_count line read from its bytes turned its total_tokens digits
    into an int: 5,000 of them gave "internal error ... ValueError: Exceeds
    the limit (4300 digits)"; the line is now parsed, and its number named."""
    import re

    text = (FIXTURES / "codex" / "rollout-0.146-event-only.jsonl").read_text()
    path = tmp_path / "rollout.jsonl"
    path.write_text(re.sub(r'"total_tokens":\d+', '"total_tokens":' + "9" * 5000, text, count=1))
    done = _cli(args[0], path, *args[1:])
    assert done.returncode == 1, done.stderr
    assert b"internal error" not in done.stderr
    assert b"total_token_usage.total_tokens: the number" in done.stderr and b"is out of range" in done.stderr


def _closed_early(args, tmp_path, stderr_too=False):
    """Run ``args``, read a few bytes of what it prints, close the pipe."""
    env = dict(os.environ)
    env.pop("SESSIONPORT_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "sessionport", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT if stderr_too else subprocess.DEVNULL, env=env, cwd=tmp_path)
    proc.stdout.read(10)
    proc.stdout.close()
    return proc.wait(timeout=120)


def test_validate_read_by_a_reader_that_stops_early_still_exits_with_its_verdict(tmp_path):
    """``sessionport validate traces/* | head`` ended with 0 when head went
    away: under ``set -o pipefail`` a CI gate passed files it had found
    invalid, and files it never looked at."""
    files = []
    for n in range(12):
        bad = tmp_path / f"bad{n}.jsonl"
        bad.write_text('{"type":"message"}\n' * 300)
        files.append(bad.name)
    assert _closed_early(["validate", "--max-errors", "1000", *files], tmp_path) == 1
    good = FIXTURES / "portable-jsonl" / "session.jsonl"
    assert _closed_early(["validate", *([good] * 3)], tmp_path) == 0


def test_redact_check_read_by_a_reader_that_stops_early_still_exits_with_its_verdict(tmp_path):
    """``sessionport redact --check --report s.jsonl 2>&1 | head`` ended with
    0 ("nothing found") when head went away, though it had found (and was
    listing) secrets."""
    lines = [orjson.dumps({"type": "session", "schema": "sessionport/v1", "source": "x", "sessionId": "s"})]
    lines += [orjson.dumps({"type": "message", "role": "user", "id": f"m{i}", "text": "token ghp_" + "A%035d" % i}) for i in range(3000)]
    (tmp_path / "s.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    assert _closed_early(["redact", "--check", "--report", "s.jsonl"], tmp_path, stderr_too=True) == 1


def test_validate_of_a_trace_bounds_the_keys_and_values_of_one_action(tmp_path):
    """validate walks a trace action by action, by its own loop: one
    action of 3,000,000 small blocks (a 196 KB gzip) took 1.2 GB there."""
    import gzip

    block = b'{"type":"text","text":"a"}'
    path = tmp_path / "t.trace.json.gz"
    path.write_bytes(gzip.compress(b'{"schemaVersion":"1.0.0","runs":[{"id":"r","actions":[{"x":[' + b",".join([block] * 30_000) + b"]}]}]}"))
    env = dict(os.environ, SESSIONPORT_MAX_LINE_VALUES="50000")
    done = subprocess.run([sys.executable, "-m", "sessionport", "validate", str(path)], capture_output=True, env=env, timeout=120)
    assert done.returncode == 1
    assert b"runs[].actions[]" in done.stdout and b"holds more than 50,000 keys and values" in done.stdout, done.stdout + done.stderr


def _with_closed(fd, args, cwd):
    """Run sessionport with descriptor ``fd`` closed (``<&-``, ``>&-``, ``2>&-``)."""
    env = dict(os.environ)
    env.pop("SESSIONPORT_DEBUG", None)
    keep = {0: "0<&-", 1: "1>&-", 2: "2>&-"}[fd]
    command = " ".join(["exec", sys.executable, "-m", "sessionport", *(f"'{a}'" for a in map(str, args)), keep])
    return subprocess.run(["sh", "-c", command], capture_output=True, env=env, cwd=cwd, timeout=120)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell redirections")
def test_a_run_started_with_a_standard_stream_closed_is_not_an_internal_error(tmp_path):
    """Started as cron or a daemon may start it, with stdin, stdout or
    stderr closed: "internal error ... AttributeError: 'NoneType' object
    has no attribute 'buffer'" for stdin and stdout; with stderr closed the
    run failed with 1 and nothing to say why (the progress check asked the
    missing stderr whether it is a terminal), though -o named a file."""
    session = tmp_path / "s.jsonl"
    session.write_bytes(CLAUDE.read_bytes())
    done = _with_closed(0, ["convert", "--to", "markdown"], tmp_path)
    assert done.returncode == 2 and b"stdin is closed" in done.stderr, done.stderr
    done = _with_closed(1, ["convert", session, "--to", "markdown"], tmp_path)
    assert done.returncode == 1 and b"stdout is closed" in done.stderr, done.stderr
    assert b"internal error" not in done.stderr
    done = _with_closed(2, ["convert", session, "--to", "markdown", "-o", tmp_path / "s.md"], tmp_path)
    assert done.returncode == 0
    assert (tmp_path / "s.md").read_text().count("##") >= 2
    # with stderr closed, a warning goes nowhere: not into the output on stdout
    (tmp_path / "w.jsonl").write_bytes(CLAUDE.read_bytes() + b'{"type":"zzz-new-record","uuid":"q1"}\n')
    done = _with_closed(2, ["convert", "w.jsonl", "--to", "portable-jsonl"], tmp_path)
    assert done.returncode == 0
    assert b"sessionport:" not in done.stdout and all(orjson.loads(line) for line in done.stdout.splitlines())


def test_a_line_size_beyond_a_float_is_a_usage_error(tmp_path):
    """``--max-line-size`` of 400 digits: "internal error ... OverflowError:
    cannot convert float infinity to integer"."""
    done = _cli("convert", CLAUDE, "--to", "portable-jsonl", "--max-line-size", "9" * 400, "-o", tmp_path / "o.jsonl")
    assert done.returncode == 2, done.stderr
    assert b"is too large to be a size" in done.stderr and b"internal error" not in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes and links")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_link_put_at_a_batch_target_while_the_batch_runs_is_not_written_through(tmp_path, jobs):
    """The guard checked each target under -o DIR when the batch began; a
    link put at a later target's name while an earlier input was still
    being read (a folder others can write to) had that output written over
    the file the link named, outside the folder."""
    (tmp_path / "in").mkdir()
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    victim = outside / "victim.md"
    victim.write_text("precious")
    fifo = tmp_path / "in" / "a.jsonl"
    os.mkfifo(fifo)
    (tmp_path / "in" / "b.jsonl").write_bytes(CLAUDE.read_bytes())
    inputs = [fifo, tmp_path / "in" / "b.jsonl"]
    env = dict(os.environ)
    env.pop("SESSIONPORT_DEBUG", None)
    # --jobs 2 would start b at once: there the link goes in before the run
    # (the guard's own check), with --jobs 1 while it waits on the pipe
    if jobs == "2":
        os.symlink(victim, out / "b.md")
    proc = subprocess.Popen([sys.executable, "-m", "sessionport", "convert", *map(str, inputs), "--to", "markdown", "-o", f"{out}/", "--jobs", jobs],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if jobs == "1":
        wait_for(lambda: proc.poll() is None and os.path.isdir(out), "the run to start")
        import time

        time.sleep(1.0)  # the targets are handed out before the first input is opened
        os.symlink(victim, out / "b.md")
    with open(fifo, "wb") as writer:
        writer.write(CLAUDE.read_bytes())
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert victim.read_text() == "precious"
    assert b"resolves outside" in err
    assert (out / "a.md").read_text().count("##") >= 2


def test_split_shows_the_files_it_writes_with_terminal_codes_escaped(tmp_path):
    """split listed each file on stderr, and the folder in its last line,
    as they were: an -o folder a glob expanded from a hostile file name
    set the terminal's title (OSC 0) at every line."""
    folder = tmp_path / "sp\x1b]0;PWNED\x07"
    done = _cli("split", FIXTURES / "chatgpt-export" / "conversations.json", "--to", "markdown", "-o", folder)
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in done.stderr and b"\\x1b]0;PWNED\\x07" in done.stderr
    assert len(os.listdir(folder)) >= 2


@pytest.mark.parametrize("shape", ["message", "chatgpt"])
def test_a_string_of_a_json_document_is_bounded_as_a_line_is(tmp_path, shape):
    """One string in a JSON document had no bound: a 600 KB gzip of a
    600 MB string took 3.8 GB (and died of SIGSEGV under a 6 GB cap).  It is
    now held to --max-line-size, as a JSONL line is (lowered here)."""
    import gzip

    text = b"a" * (6 << 20)
    if shape == "message":
        data = b'{"messages":[{"role":"user","content":"' + text + b'"}]}'
    else:
        data = (b'[{"title":"t","id":"c","current_node":"a","mapping":{"a":{"id":"a","parent":null,"children":[],'
                b'"message":{"id":"a","author":{"role":"user"},"content":{"content_type":"text","parts":["' + text + b'"]}}}}}]')
    path = tmp_path / "doc.json.gz"
    path.write_bytes(gzip.compress(data))
    done = _cli("convert", path, "--to", "portable-jsonl", "--max-line-size", "2M", "-o", tmp_path / "o.jsonl")
    assert done.returncode == 1, done.stderr
    assert b"a string (or a run of text without a quote) of more than 2 MiB" in done.stderr
    assert not (tmp_path / "o.jsonl").exists()
    done = _cli("convert", path, "--to", "portable-jsonl", "--max-line-size", "8M", "-o", tmp_path / "o.jsonl")
    assert done.returncode == 0, done.stderr


def test_a_signal_just_after_a_markdown_document_lands_keeps_its_images(tmp_path, monkeypatch):
    """--images DIR: the images of a document are removed with it when the
    run fails; a signal landing just after the document's rename into place
    removed them too, leaving a document whose image links point nowhere."""
    from click.testing import CliRunner

    from sessionport import io as sp_io
    from sessionport.cli import cli

    real_replace = os.replace

    def replace_then_signal(src, dst, *args, **kwargs):
        real_replace(src, dst, *args, **kwargs)
        if str(dst).endswith(".md"):
            raise Terminated(signal.SIGTERM)

    monkeypatch.setattr(sp_io.os, "replace", replace_then_signal)
    out = tmp_path / "s.md"
    result = CliRunner().invoke(cli, ["convert", str(FIXTURES / "images" / "codex-input-image.jsonl"), "--keep-images", "--to", "markdown",
                                      "--images", str(tmp_path / "imgs"), "-o", str(out)])
    assert result.exit_code == 143, result.output
    assert out.exists()
    images = os.listdir(tmp_path / "imgs")
    assert images and all(name in out.read_text() for name in images)


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes")
def test_a_named_pipe_named_as_an_image_of_a_chatgpt_export_folder_is_passed_over(tmp_path):
    """The image a ChatGPT message points to, looked up in the export
    folder, as a named pipe: convert --keep-images waited on it for ever."""
    import shutil

    shutil.copy(FIXTURES / "chatgpt-export" / "conversations.json", tmp_path / "conversations.json")
    os.mkfifo(tmp_path / "file-abc-chart.png")
    done = _cli("convert", tmp_path / "conversations.json", "--keep-images", "--to", "html", "--images", "embed", "-o", tmp_path / "p.html", timeout=60)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "p.html").exists()
