"""`sessionport validate`: the three kinds detected, problems named by JSON path
and rule, exit codes, streaming of big inputs, damaged files."""

from __future__ import annotations

import io

import orjson
import pytest
from click.testing import CliRunner

import sessionport
from conftest import FIXTURES, corpus_path, run_cli
from sessionport.cli import cli
from sessionport.reports.validate import PORTABLE, PORTABLE_JSONL, TRACE, detect_kind, json_path, validate_file, validate_stream

TRACES = FIXTURES / "agentscope-trace"
PORTABLE_DOC = FIXTURES / "portable" / "session.json"
PORTABLE_LINES = FIXTURES / "portable-jsonl" / "session.jsonl"


def invoke(*args):
    return CliRunner().invoke(cli, ["validate", *map(str, args)])


def check_bytes(data: bytes, kind=None):
    return validate_stream(io.BufferedReader(io.BytesIO(data)), "<test>", kind)


def problems(report) -> list[str]:
    return [str(p) for p in report.problems]


def test_the_bad_traces_are_rejected_with_path_and_rule():
    result = invoke(TRACES / "bad-trust-score-140.trace.json", TRACES / "bad-missing-risk.trace.json")
    assert result.exit_code == 1
    assert "bad-trust-score-140.trace.json: runs[0].trustScore: 140 is greater than the maximum of 100" in result.output
    assert "bad-missing-risk.trace.json: runs[0].actions[1]: 'risk' is a required property" in result.output
    report = validate_file(str(TRACES / "bad-trust-score-140.trace.json"))
    assert [(p.path, p.rule) for p in report.problems] == [("runs[0].trustScore", "maximum")]


def test_valid_files_of_each_kind_pass_with_exit_0():
    result = invoke(TRACES / "valid.trace.json", PORTABLE_DOC, PORTABLE_LINES)
    assert result.exit_code == 0, result.output
    assert "valid.trace.json: valid agentscope-trace (1 run, 2 actions)" in result.output
    assert "session.json: valid portable" in result.output and "session.jsonl: valid portable-jsonl" in result.output


def test_one_invalid_file_among_valid_ones_exits_1_as_a_process():
    done = run_cli("validate", TRACES / "valid.trace.json", TRACES / "bad-missing-risk.trace.json")
    assert done.returncode == 1
    assert b"valid.trace.json: valid" in done.stdout and b"'risk' is a required property" in done.stdout


def test_json_reports():
    result = invoke("--json", TRACES / "bad-trust-score-140.trace.json")
    report = orjson.loads(result.output.splitlines()[0])
    assert report["valid"] is False and report["kind"] == TRACE
    assert report["problems"] == [{"path": "runs[0].trustScore", "rule": "maximum", "message": "140 is greater than the maximum of 100"}]


@pytest.mark.parametrize(
    "head, kind",
    [
        (b'{"schemaVersion":"1.0.0","runs":[', TRACE),
        (b'{\n  "runs": [\n', TRACE),
        (b'{"type":"session","schema":"sessionport/v1","source":"x"}\n', PORTABLE_JSONL),
        (b'{"schema":"sessionport/v1","source":"x","messages":[', PORTABLE),
        (b'[{"schema":"sessionport/v1","source":"x","messages":[', PORTABLE),
        (b"\xef\xbb\xbf  " + b'{"type":"message","role":"user","text":"a"}\n', PORTABLE_JSONL),
        (b"# notes", None),
        (b'{"title":"loose log","events":[]}', None),
    ],
)
def test_kind_detection(head, kind):
    assert detect_kind(head) == kind


def test_an_unknown_kind_is_a_problem_and_as_overrides_detection(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b'{"title": "loose"}')
    result = invoke(path)
    assert result.exit_code == 1 and "not an AgentScope trace, a portable document or a portable-jsonl stream" in result.output
    forced = invoke("--as", "agentscope-trace", path)
    assert forced.exit_code == 1
    assert "$: Additional properties are not allowed ('title' was unexpected)" in forced.output
    assert "$: 'runs' is a required property" in forced.output


def test_trace_is_checked_action_by_action_whatever_its_shape():
    data = orjson.dumps({"schemaVersion": "1.0.0", "runs": [1, {"id": 1, "actions": 5}, {"actions": [{"id": "a"}, "x"]}], "z": 1})
    found = {(p.path, p.rule) for p in check_bytes(data).problems}
    assert {("runs[0]", "type"), ("runs[1].actions", "type"), ("runs[1].id", "type"), ("runs[2].actions[1]", "type"),
            ("runs[2].actions[0]", "required"), ("$", "additionalProperties")} <= found
    trace = orjson.loads((TRACES / "valid.trace.json").read_bytes())
    trace["runs"][0]["actions"] *= 500
    trace["runs"].append(dict(trace["runs"][0], trustScore=101))
    report = check_bytes(orjson.dumps(trace))
    assert report.counts == {"runs": 2, "actions": 2000}
    assert problems(report) == ["runs[1].trustScore: 101 is greater than the maximum of 100"]
    cut = check_bytes(orjson.dumps(trace)[:5000])
    assert [p.rule for p in cut.problems] == ["json"] and cut.problems[0].path.startswith("runs[].actions[]")


def test_trace_document_level_rules():
    report = check_bytes(b'{"schemaVersion": "2.0", "runs": []}')
    assert sorted(problems(report)) == ["runs: [] should be non-empty", "schemaVersion: '1.0.0' was expected"]
    report = check_bytes(b'[1, 2]', TRACE)
    assert not report.valid and report.problems[0].path == "$"


def test_every_closed_object_and_enum_is_enforced():
    trace = orjson.loads((TRACES / "valid.trace.json").read_bytes())
    run = trace["runs"][0]
    run["status"], run["extra"] = "ok", 1
    run["actions"][0].update(type="think", details="not a list", risk="LOW")
    report = check_bytes(orjson.dumps(trace))
    paths = {p.path: p.rule for p in report.problems}
    assert paths == {
        "runs[0]": "additionalProperties",
        "runs[0].status": "enum",
        "runs[0].actions[0].type": "enum",
        "runs[0].actions[0].details": "type",
        "runs[0].actions[0].risk": "enum",
    }


def test_portable_jsonl_errors_name_the_line_and_path():
    lines = PORTABLE_LINES.read_bytes().splitlines()
    bad = orjson.loads(lines[1])
    bad["role"], bad["timestamp"] = "bot", None
    data = b"\n".join([lines[0], orjson.dumps(bad), b"not json", *lines[2:]]) + b"\n"
    report = check_bytes(data)
    found = problems(report)
    assert "line 2: role: 'bot' is not one of ['user', 'assistant', 'system', 'tool']" in found
    assert "line 2: timestamp: None is not of type 'string'" in found
    assert any(p.startswith("line 3: $: invalid JSON") for p in found)


def test_portable_document_is_checked_message_by_message():
    document = orjson.loads(PORTABLE_DOC.read_bytes())
    document["messages"][1]["role"] = "robot"
    document["messages"][2] = {"role": "tool", "text": "x", "meta": {"kind": "tool_use"}}
    del document["source"]
    report = check_bytes(orjson.dumps(document))
    assert {(p.path, p.rule) for p in report.problems} == {
        ("messages[1].role", "enum"),
        ("messages[2]", "required"),
        ("$", "required"),
    }
    array = check_bytes(orjson.dumps([orjson.loads(PORTABLE_DOC.read_bytes()), document]))
    assert {p.path for p in array.problems} == {"[1].messages[1].role", "[1].messages[2]", "[1]"}


def test_truncated_files_are_invalid():
    data = (TRACES / "valid.trace.json").read_bytes()
    report = check_bytes(data[: len(data) // 2], TRACE)
    assert not report.valid and "ends early" in problems(report)[0]
    lines = PORTABLE_LINES.read_bytes()
    report = check_bytes(lines[: len(lines) - 20], PORTABLE_JSONL)
    assert not report.valid and "incomplete last line" in problems(report)[-1]


def test_a_big_portable_jsonl_stream_validates_line_by_line():
    lines = PORTABLE_LINES.read_bytes().splitlines()
    body = lines[1:-1] * 100
    data = b"\n".join([lines[0], *body, lines[-1]]) + b"\n"
    report = check_bytes(data)
    assert report.valid and report.counts["events"] == len(body) + 2


def test_problem_lists_are_capped_but_counted():
    lines = PORTABLE_LINES.read_bytes().splitlines()
    data = b"\n".join([lines[0]] + [b'{"type":"message","role":"bot","text":"x"}'] * 80) + b"\n"
    result = CliRunner().invoke(cli, ["validate", "--max-errors", "5", "-"], input=data)
    assert result.exit_code == 1
    assert "<stdin>: invalid portable-jsonl: 80 problem(s)" in result.output and "<stdin>: ... and 75 more" in result.output
    report = validate_stream(io.BufferedReader(io.BytesIO(data)), "<t>", None, max_problems=5)
    assert report.problem_count == 80 and len(report.problems) == 5


def test_json_path_spelling():
    assert json_path(["runs", 0, "trustScore"]) == "runs[0].trustScore"
    assert json_path([]) == "$"
    assert json_path([2, "messages", 0]) == "[2].messages[0]"
    assert json_path(["metadata", "odd key"]) == 'metadata["odd key"]'


@pytest.mark.parametrize(
    "folder, name",
    [
        ("claude-code", "06_cc-2.0.55_a7da6a22_interleaved-msgid.jsonl"),
        ("codex", "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl"),
    ],
)
def test_portable_output_of_real_transcripts_validates(folder, name, tmp_path):
    from sessionport.registry import get_registry

    if folder not in get_registry().importer_names():
        pytest.skip(f"the {folder} importer is not registered in this checkout")
    events = list(sessionport.read(str(corpus_path(folder, name))))
    for kind in (PORTABLE, PORTABLE_JSONL):
        out = tmp_path / f"out.{kind}"
        sessionport.write(iter(events), str(out), format=kind)
        report = validate_file(str(out))
        assert report.kind == kind and report.valid, problems(report)[:5]


@pytest.mark.parametrize(
    "value, found",
    [
        (b"NaN", "NaN is not a JSON value"),
        (b"1e999", "the number 1e999 is out of range"),
        (b"123456789012345678901234567890", "the integer 123456789012345678901234567890 is out of range"),
    ],
)
def test_a_trace_with_a_refused_number_names_it_and_its_path(tmp_path, value, found):
    # the JSON parser says only "invalid char" or "overflow": the value and
    # its exact place are what a user needs to mend the file
    trace = tmp_path / "trace.json"
    trace.write_bytes(b'{"runs":[{"id":"r1","actions":[{"type":"message","n":' + value + b"}]}]}")
    result = run_cli("validate", str(trace))
    assert result.returncode == 1
    out = (result.stderr + result.stdout).decode()
    assert f"$.runs[0].actions[0].n: {found}" in out
    assert "replace the value" in out
    assert "Traceback" not in out
