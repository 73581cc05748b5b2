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
