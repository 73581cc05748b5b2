"""``--json-report`` of ``split`` and ``import-session``, checked on real
processes against what the run wrote (files, stdout, stderr, exit codes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import orjson
import pytest

from conftest import FIXTURES, ROOT, SESSIONPORT_WITH_DEFAULT_SIGNALS, run_cli, wait_for
from test_conversion_report import with_records

SESSION = FIXTURES / "claude-code" / "session.jsonl"
TWO = FIXTURES / "filter" / "two-sessions.jsonl"
LOG = FIXTURES / "session-json" / "agent-session.jsonl"


def messages_in(path) -> int:
    return sum(orjson.loads(line)["type"] == "message" for line in path.read_bytes().splitlines())


def listing(directory) -> list[str]:
    return sorted(str(p) for p in directory.iterdir())


def test_split_reports_each_input_with_the_files_written_from_it(tmp_path):
    out, report = tmp_path / "out", tmp_path / "report.json"
    proc = run_cli("split", SESSION, TWO, "--to", "portable-jsonl", "-o", out, "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(report.read_text())
    assert (doc["schema"], doc["command"], doc["to"], doc["output"], doc["exitCode"]) == (
        "sessionport/conversion-report/v1", "split", "portable-jsonl", str(out), 0)
    first, second = doc["inputs"]
    assert (first["input"], first["format"], first["status"]) == (str(SESSION), "claude-code", "ok")
    assert (second["input"], second["format"], second["status"]) == (str(TWO), "portable-jsonl", "ok")
    assert len(first["files"]) == 1 and len(second["files"]) == 2
    # every file on disk is named once, with the input it came from
    assert sorted(first["files"] + second["files"]) == listing(out)
    for entry in (first, second):
        assert entry["output"] == str(out) and entry["error"] is None
        assert entry["messages"] == sum(messages_in(tmp_path / "out" / p.rsplit("/", 1)[-1]) for p in entry["files"])
        assert entry["messages"] == entry["messagesRead"] > 0
    assert messages_in(TWO) == second["messagesRead"]
    assert doc["totals"]["inputs"] == 2 and doc["totals"]["converted"] == 2
    assert doc["totals"]["messages"] == first["messages"] + second["messages"]
    # the files are listed on stderr as without the report
    assert proc.stderr.decode().count(str(out)) == 4  # three paths and the closing line


def test_split_counts_what_the_target_has_no_place_for_and_the_warnings(tmp_path):
    source = with_records(tmp_path, "image.jsonl", image=True, unknown=True)
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(SESSION.read_bytes()[:-40])  # the last line cut short
    report = tmp_path / "report.json"
    proc = run_cli("split", source, torn, "--keep-images", "--to", "anthropic-messages", "-o", tmp_path / "out", "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    image, cut = json.loads(report.read_text())["inputs"]
    assert image["losses"]["media"] == 1 and image["losses"]["timestamps"] == image["messages"]
    assert image["unknown"] == {"record": {"brand-new-record": 1}}
    assert any("brand-new-record" in w for w in image["warnings"])
    assert any("the last line is incomplete" in w for w in cut["warnings"])
    assert cut["messagesRead"] < image["messagesRead"]
    for warning in image["warnings"] + cut["warnings"]:
        assert warning in proc.stderr.decode()


def test_split_stops_at_a_failing_input_and_reports_it(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(SESSION.read_bytes().replace(b'"userType":', b'"userType":\x00', 1))
    out, report = tmp_path / "out", tmp_path / "report.json"
    # anthropic-messages holds a whole session before writing it: the first
    # input's file is complete before the bad input is opened
    proc = run_cli("split", SESSION, bad, TWO, "--to", "anthropic-messages", "-o", out, "--json-report", report)
    assert proc.returncode == 1
    doc = json.loads(report.read_text())
    assert doc["exitCode"] == 1 and "error" not in doc
    good, failed = doc["inputs"]  # the input after the failure is not read
    assert doc["totals"]["inputs"] == 3 and doc["totals"]["failed"] == 1 and doc["totals"]["converted"] == 1
    assert good["status"] == "ok" and good["files"] == listing(out)
    assert orjson.loads((out / good["files"][0].rsplit("/", 1)[-1]).read_bytes())["messages"]
    assert failed["status"] == "failed" and failed["files"] == [] and failed["output"] is None
    assert failed["error"].startswith(f"{bad}, line 2: ") and failed["messages"] is None
    assert f"error: {failed['error']}" in proc.stderr.decode()


def test_split_without_a_matching_session_is_the_runs_error_and_leaves_no_directory(tmp_path):
    out, report = tmp_path / "out", tmp_path / "report.json"
    proc = run_cli("split", SESSION, "--title", "no such title", "--to", "markdown", "-o", out, "--json-report", report)
    assert proc.returncode == 2
    doc = json.loads(report.read_text())
    assert doc["exitCode"] == 2 and "no session matches --title" in doc["error"]
    [entry] = doc["inputs"]
    assert entry["status"] == "ok" and entry["messages"] == 0 and entry["files"] == [] and entry["output"] is None
    assert not out.exists()


def test_split_report_on_stdout(tmp_path):
    proc = run_cli("split", TWO, "--to", "markdown", "-o", tmp_path / "out", "--json-report", "-")
    assert proc.returncode == 0, proc.stderr
    assert [len(e["files"]) for e in json.loads(proc.stdout)["inputs"]] == [2]


def test_split_writes_the_same_files_with_and_without_the_report(tmp_path):
    plain = run_cli("split", SESSION, TWO, "--to", "markdown", "-o", tmp_path / "plain")
    reported = run_cli("split", SESSION, TWO, "--to", "markdown", "-o", tmp_path / "reported", "--json-report", tmp_path / "r.json")
    assert plain.returncode == reported.returncode == 0
    names = sorted(p.name for p in (tmp_path / "plain").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "reported").iterdir())
    for name in names:
        assert (tmp_path / "plain" / name).read_bytes() == (tmp_path / "reported" / name).read_bytes()
    assert plain.stderr == reported.stderr.replace(b"/reported/", b"/plain/").replace(b"/reported\n", b"/plain\n")


def test_import_session_reports_the_trace_it_wrote(tmp_path):
    report = tmp_path / "report.json"
    proc = run_cli("import-session", LOG, "--json-report", report, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.decode().strip().removeprefix("AgentScope trace written to ")
    doc = json.loads(report.read_text())
    assert (doc["command"], doc["to"], doc["exitCode"]) == ("import-session", "agentscope-trace", 0)
    [entry] = doc["inputs"]
    assert str(tmp_path / entry["output"]) == printed and doc["output"] == entry["output"]
    assert entry["format"] == "session-json" and entry["status"] == "ok"
    trace = json.loads((tmp_path / entry["output"]).read_text())
    assert entry["messages"] == entry["messagesRead"] > 0 and trace["runs"][0]["actions"]


def test_import_session_reports_a_failing_input_and_writes_no_trace(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(LOG.read_bytes().replace(b'"tool":', b'"tool":\x00', 1))
    target, report = tmp_path / "t.json", tmp_path / "report.json"
    proc = run_cli("import-session", bad, "-o", target, "--json-report", report)
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr and proc.stderr.decode().count("error:") == 1
    doc = json.loads(report.read_text())
    [entry] = doc["inputs"]
    assert doc["exitCode"] == 1 and entry["status"] == "failed" and entry["output"] is None
    assert entry["error"].startswith(f"{bad}, line ") and entry["error"] in proc.stderr.decode()
    assert not target.exists()


def test_import_session_report_on_stdout_moves_the_path_line_to_stderr(tmp_path):
    proc = run_cli("import-session", LOG, "-o", tmp_path / "t.json", "--json-report", "-")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["inputs"][0]["output"] == str(tmp_path / "t.json")
    assert b"AgentScope trace written to" in proc.stderr
    both = run_cli("import-session", LOG, "-o", "-", "--json-report", "-")
    assert both.returncode == 2 and both.stdout == b"" and b"--json-report -" in both.stderr
    onto = run_cli("import-session", LOG, "-o", tmp_path / "u.json", "--json-report", LOG)
    assert onto.returncode == 2 and not (tmp_path / "u.json").exists()


def _many_sessions(path, count: int = 2000) -> None:
    lines = [orjson.loads(line) for line in TWO.read_bytes().splitlines() if line.strip()]
    with open(path, "wb") as out:
        for i in range(count):
            for event in lines:
                if event["type"] == "session":
                    event = {**event, "sessionId": f"{event['sessionId'][:-6]}{i:06d}"}
                elif event["type"] == "message":
                    event = {**event, "text": event.get("text", "") + " word" * 200}
                out.write(orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("command", ["split", "convert"])
def test_an_interrupted_run_replaces_an_earlier_report_with_one_saying_so(tmp_path, command, signum):
    source = tmp_path / "many.jsonl"
    _many_sessions(source)
    report = tmp_path / "report.json"
    report.write_text('{"exitCode": 0, "stale": true}')  # an earlier run's
    out = tmp_path / ("out" if command == "split" else "out.html")
    args = ["split", source, "--to", "html", "-o", out] if command == "split" else ["convert", source, "--to", "html", "-o", out]
    proc = subprocess.Popen([*SESSIONPORT_WITH_DEFAULT_SIGNALS, *map(str, args), "--json-report", str(report)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        if command == "split":
            wait_for(lambda: out.is_dir() and any(p.suffix == ".html" for p in out.iterdir()), "the first file")
        else:
            wait_for(lambda: any(p.name.endswith(".part") for p in tmp_path.iterdir()), "the partial output")
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    code, said = (130, "interrupted") if signum == signal.SIGINT else (143, "terminated (SIGTERM)")
    assert proc.returncode == code, err
    doc = json.loads(report.read_text())
    assert doc["exitCode"] == code and doc["error"] == said and "stale" not in doc
    if command == "split":
        [entry] = doc["inputs"]
        assert entry["status"] == "failed" and sorted(entry["files"]) == listing(out)  # no partial file left, none unlisted
    else:
        assert not out.exists()


@pytest.mark.parametrize("command", ["convert", "redact"])
def test_a_run_into_a_closed_pipe_replaces_an_earlier_report(tmp_path, command):
    """stdout closed by its reader (``| head``) ends the run quietly with 0;
    the report at --json-report then says so instead of an earlier run's
    staying there."""
    report = tmp_path / "report.json"
    report.write_text('{"exitCode": 1, "stale": true}')  # an earlier run's
    read, write = os.pipe()
    os.close(read)
    try:
        args = [command, str(SESSION), "--to", "markdown", "--json-report", str(report)]
        proc = subprocess.run([sys.executable, "-m", "sessionport", *args], stdout=write, stderr=subprocess.PIPE, cwd=ROOT, timeout=60)
    finally:
        os.close(write)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    doc = json.loads(report.read_text())
    assert "stale" not in doc and doc["exitCode"] == 0 and doc["error"] == "the output pipe was closed"


@pytest.mark.parametrize("lands", ["before the rename", "after the rename"])
def test_a_signal_at_a_file_s_end_leaves_the_report_naming_exactly_the_files_there(tmp_path, monkeypatch, lands):
    """A signal lands between any two bytecodes: one between a session's
    file taking its place and the report being told of it must not leave
    a file the per-input report does not name (nor name one never there)."""
    from click.testing import CliRunner

    from conftest import interrupt_split_at_second_file
    from sessionport.cli import cli

    interrupt_split_at_second_file(monkeypatch, lands)
    out, report = tmp_path / "out", tmp_path / "report.json"
    CliRunner().invoke(cli, ["split", str(TWO), "--to", "portable-jsonl", "-o", str(out), "--json-report", str(report)])
    there = listing(out)
    assert len(there) == (1 if lands == "before the rename" else 2)
    doc = json.loads(report.read_text())
    [entry] = doc["inputs"]
    assert doc["exitCode"] == 143 and entry["status"] == "failed"
    assert sorted(entry["files"]) == there
