"""The agentscope-trace exporter and `import-session`: the seed example's run,
run metadata rules, real Claude Code and Codex transcripts, and the document
shape (exact keys, one run per session, schema-valid)."""

from __future__ import annotations

import re

import orjson
import pytest
from click.testing import CliRunner

import sessionport
from conftest import FIXTURES, corpus_files, corpus_path, requires_corpus, run_cli
from sessionport.cli import cli
from sessionport.agentscope import document as agentscope_document
from sessionport.model import end_event, message_event, session_event
from sessionport.registry import get_registry
from sessionport.reports.validate import TRACE, validate_file

SEED = FIXTURES / "session-json" / "agent-session.json"
RUN_KEYS = ["id", "title", "agent", "branch", "status", "trustScore", "startedAt", "duration", "cost", "filesChanged", "commands", "actions"]
ACTION_KEYS = {"id", "type", "title", "timestamp", "duration", "risk", "summary", "details"}
OPTIONAL_KEYS = {"file", "command", "output", "diff"}


def trace_of(events, **options) -> dict:
    return orjson.loads(sessionport.dumps(events, format="agentscope-trace", **options))


def check_shape(trace: dict) -> None:
    assert list(trace) == ["schemaVersion", "runs"] and trace["schemaVersion"] == "1.0.0"
    for run in trace["runs"]:
        assert list(run) == RUN_KEYS
        for action in run["actions"]:
            assert ACTION_KEYS <= action.keys() <= ACTION_KEYS | OPTIONAL_KEYS
            assert all(isinstance(action[k], str) and action[k] for k in ACTION_KEYS - {"details"})


def test_the_seed_example_becomes_a_passed_run_that_validate_accepts(tmp_path):
    out = tmp_path / "seed.trace.json"
    sessionport.write(sessionport.read(str(SEED)), str(out), format="agentscope-trace")
    report = validate_file(str(out))
    assert report.kind == TRACE and report.valid, report.problems
    trace = orjson.loads(out.read_bytes())
    check_shape(trace)
    (run,) = trace["runs"]
    assert (run["title"], run["agent"], run["status"], run["trustScore"]) == ("Fix auth token expiry test", "Claude Code", "passed", 85)
    assert (run["filesChanged"], run["commands"]) == (0, 1)
    assert re.fullmatch(r"run-session-\d{4}-\d{2}-\d{2}-\d{6}", run["id"])
    read, test = run["actions"]
    assert (read["id"], read["type"], read["file"], read["risk"]) == ("a1", "read_file", "src/auth/session.test.ts", "low")
    assert read["summary"] == "Read the failing test before editing code."
    assert (test["type"], test["command"], test["output"]) == ("test_passed", "npm test -- session.test.ts", "PASS src/auth/session.test.ts")


GOLDEN = [
    (FIXTURES / "session-json" / "agent-session.jsonl", FIXTURES / "agentscope-trace" / "agent-session.expected.trace.json"),
    (FIXTURES / "session-json" / "steps-object.json", FIXTURES / "agentscope-trace" / "steps-object.expected.trace.json"),
]


@pytest.mark.parametrize("source, expected", GOLDEN, ids=lambda p: p.name)
def test_golden_traces(source, expected):
    """The whole trace of a sample; SESSIONPORT_REGEN=1 rewrites it for review with git diff."""
    import os

    data = sessionport.dumps(sessionport.read(str(source)), format="agentscope-trace", trace_branch="review")
    if os.environ.get("SESSIONPORT_REGEN") == "1":
        expected.write_bytes(data)
    assert data == expected.read_bytes(), f"{expected.name} differs: rerun with SESSIONPORT_REGEN=1 and review the diff"


def test_import_session_writes_into_dot_agentscope_and_validates(tmp_path):
    done = run_cli("import-session", SEED, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (written,) = (tmp_path / ".agentscope").iterdir()
    assert re.fullmatch(r"run-session-[\d-]+\.trace\.json", written.name)
    assert done.stdout == f"AgentScope trace written to {written}\n".encode(), "the absolute path, on stdout"
    assert orjson.loads(written.read_bytes())["runs"][0]["id"] + ".trace.json" == written.name
    assert validate_file(str(written)).valid


def test_import_session_with_output_and_options(tmp_path):
    out = tmp_path / "t.json"
    result = CliRunner().invoke(cli, ["import-session", str(SEED), "-o", str(out), "--branch", "fix/x", "--agent", "Bot"])
    assert result.exit_code == 0, result.output
    run = orjson.loads(out.read_bytes())["runs"][0]
    assert (run["branch"], run["agent"]) == ("fix/x", "Bot")


def test_import_session_as_a_library_call(tmp_path, monkeypatch):
    from sessionport.agentscope import import_session

    monkeypatch.chdir(tmp_path)
    written = import_session(str(SEED), options={"trace_branch": "lib"})
    assert written.startswith(".agentscope/run-session-") and written.endswith(".trace.json")
    assert orjson.loads((tmp_path / written).read_bytes())["runs"][0]["branch"] == "lib"


def test_import_session_without_actions_exits_1_and_writes_nothing(tmp_path, monkeypatch):
    source = tmp_path / "chat.json"
    source.write_bytes(b'{"messages": [{"role": "user", "content": "hi"}]}')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["import-session", str(source)])
    assert result.exit_code == 1 and "no supported tool-call action" in result.output
    assert not (tmp_path / ".agentscope").exists()


def _session(**fields):
    return session_event("claude-code", sessionId="s1", cwd="/repo", createdAt="2026-01-02T03:04:05Z", **fields)


def _call(name, tool_input, call_id, ts="2026-01-02T03:04:10Z"):
    return message_event("tool", "", toolName=name, toolCallId=call_id, toolInput=tool_input, timestamp=ts, meta={"kind": "tool_use"})


def _result(call_id, text, ts="2026-01-02T03:05:26Z", **fields):
    return message_event("tool", text, toolCallId=call_id, timestamp=ts, meta={"kind": "tool_result"}, **fields)


def test_status_trust_counts_and_timing_follow_the_rules():
    events = [
        _session(metadata={"gitBranch": "feature/a"}),
        message_event("user", "Fix the flaky test please", timestamp="2026-01-02T03:04:05Z"),
        _call("Edit", {"file_path": "/repo/a.py", "old_string": "x = 1", "new_string": "x = 2"}, "c1"),
        _result("c1", "ok"),
        _call("Write", {"file_path": "/repo/a.py", "content": "x = 3\n"}, "c2"),
        _call("Bash", {"command": "pytest -q"}, "c3"),
        _result("c3", "1 failed, 2 passed in 0.1s", isError=True),
        _call("Bash", {"command": "pytest -q"}, "c4"),
        _result("c4", "3 passed in 0.1s", ts="2026-01-02T03:16:53Z"),
        message_event("assistant", "Fixed: the test now passes.", timestamp="2026-01-02T03:17:00Z"),
        end_event(usage={"input_tokens": 10}),
    ]
    run = trace_of(events)["runs"][0]
    assert [a["type"] for a in run["actions"]] == ["edit_file", "edit_file", "test_failed", "test_passed", "generate_summary"]
    assert (run["status"], run["trustScore"], run["filesChanged"], run["commands"]) == ("failed", 35, 1, 2)
    assert (run["title"], run["branch"], run["startedAt"], run["duration"]) == ("Fix the flaky test please", "feature/a", "2026-01-02T03:04:05Z", "12m 55s")
    assert run["id"] == "run-session-2026-01-02-030405"
    assert run["actions"][0]["duration"] == "1m 16s"
    assert run["actions"][0]["diff"].splitlines()[-2:] == ["-x = 1", "+x = 2"]
    assert run["cost"] == "unknown"
    without_failure = trace_of([e for e in events if e.get("toolCallId") not in ("c3",)])["runs"][0]
    assert (without_failure["status"], without_failure["trustScore"]) == ("passed", 85)
    no_tests = trace_of(events[:5])["runs"][0]
    assert (no_tests["status"], no_tests["trustScore"]) == ("warning", 60)


def test_calls_keep_their_order_when_results_arrive_out_of_order():
    events = [_session(), _call("Read", {"file_path": "a"}, "c1"), _call("Read", {"file_path": "b"}, "c2"),
              _result("c2", "B"), _result("c9", "orphan"), _result("c1", "A")]
    actions = trace_of(events)["runs"][0]["actions"]
    assert [(a["id"], a["file"], a["output"]) for a in actions] == [("a1", "a", "A"), ("a2", "b", "B")]


def test_an_unanswered_call_is_kept_with_a_note():
    (action,) = trace_of([_session(), _call("Bash", {"command": "sleep 100"}, "c1")])["runs"][0]["actions"]
    assert action["type"] == "run_command" and "No result was recorded for this call." in action["details"]
    assert action["duration"] == "unknown" and "output" not in action


def test_branch_option_then_metadata_then_current_git_branch(monkeypatch):
    monkeypatch.setattr(agentscope_document, "current_git_branch", lambda: "from-git")
    base = [_call("Bash", {"command": "ls"}, "c1")]
    assert trace_of([_session(metadata={"gitBranch": "meta"})] + base, trace_branch="opt")["runs"][0]["branch"] == "opt"
    assert trace_of([_session(metadata={"gitBranch": "meta"})] + base)["runs"][0]["branch"] == "meta"
    assert trace_of([_session(metadata={"git": {"branch": "codex-meta"}})] + base)["runs"][0]["branch"] == "codex-meta"
    assert trace_of([_session(metadata={"gitBranch": "HEAD"})] + base)["runs"][0]["branch"] == "from-git"
    monkeypatch.setattr(agentscope_document, "current_git_branch", lambda: None)
    assert trace_of([_session()] + base)["runs"][0]["branch"] == "unknown"


def test_cost_is_estimated_from_usage_and_list_prices():
    usage = {"input_tokens": 1_000_000, "cached_input_tokens": 500_000, "output_tokens": 100_000}
    per_message = [_session(), message_event("assistant", "a", meta={"model": "claude-sonnet-4-5-20250929", "usage": usage})]
    assert trace_of(per_message)["runs"][0]["cost"] == "$3.15"  # 0.5M x $3 + 0.5M x $0.30 + 0.1M x $15
    totals = [_session(), message_event("assistant", "a", meta={"model": "gpt-5-codex"}), end_event(usage=usage)]
    assert trace_of(totals)["runs"][0]["cost"] == "$1.69"  # 0.5M x $1.25 + 0.5M x $0.125 + 0.1M x $10
    unknown_model = [_session(), message_event("assistant", "a", meta={"model": "llama-3-70b", "usage": usage})]
    assert trace_of(unknown_model)["runs"][0]["cost"] == "unknown"


def test_a_stated_cost_wins_over_the_estimate():
    base = [_call("Bash", {"command": "ls"}, "c1")]
    assert trace_of([_session(metadata={"cost": 0.384})] + base)["runs"][0]["cost"] == "$0.38"
    priced = [_session(), message_event("assistant", "a", meta={"costUSD": 0.25}), message_event("assistant", "b", meta={"costUSD": 0.5})]
    assert trace_of(priced)["runs"][0]["cost"] == "$0.75"


def test_one_run_per_session_with_unique_ids_and_outputs_shortened():
    events = [_session(), _call("Bash", {"command": "cat big"}, "c1"), _result("c1", "x" * 5000),
              _session(), _call("Read", {"file_path": "a"}, "c2")]
    trace = trace_of(events, trace_max_output=1000)
    check_shape(trace)
    assert [r["id"] for r in trace["runs"]] == ["run-session-2026-01-02-030405", "run-session-2026-01-02-030405-2"]
    action = trace["runs"][0]["actions"][0]
    assert len(action["output"]) < 1100 and "characters omitted" in action["output"]
    assert "Output shortened from 5000 to 1000 characters." in action["details"]


def test_an_empty_stream_is_an_empty_run_list_with_a_warning():
    warnings = []
    from sessionport.context import WriteContext
    import io

    out = io.BytesIO()
    sessionport.write_events([], out, format="agentscope-trace", context=WriteContext(on_warning=warnings.append))
    assert orjson.loads(out.getvalue()) == {"schemaVersion": "1.0.0", "runs": []}
    assert warnings and "no run" in warnings[0]


def _requires(importer: str) -> None:
    if importer not in get_registry().importer_names():
        pytest.skip(f"the {importer} importer is not registered in this checkout")


def _tool_calls(events) -> list[dict]:
    return [e for e in events if e["type"] == "message" and (e.get("meta") or {}).get("kind") == "tool_use"]


@pytest.mark.parametrize(
    "folder, name",
    [
        ("claude-code", "06_cc-2.0.55_a7da6a22_interleaved-msgid.jsonl"),
        ("claude-code", "03_cc-1.0.98_fe5e1c67_inline-sidechains.jsonl"),
        ("codex", "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl"),
        ("codex", "codex-legacy-2025-08-23-prenv-typical.jsonl"),
    ],
)
def test_real_transcripts_export_valid_traces_with_every_tool_call(folder, name, tmp_path):
    _requires(folder)
    path = corpus_path(folder, name)
    events = list(sessionport.read(str(path)))
    out = tmp_path / "run.trace.json"
    sessionport.write(iter(events), str(out), format="agentscope-trace", options={"trace_branch": "review"})
    report = validate_file(str(out))
    assert report.valid, [str(p) for p in report.problems]
    trace = orjson.loads(out.read_bytes())
    check_shape(trace)
    sessions = [e for e in events if e["type"] == "session"]
    assert len(trace["runs"]) == len(sessions)
    actions = [a for run in trace["runs"] for a in run["actions"]]
    calls = _tool_calls(events)
    tool_actions = [a for a in actions if not a["title"] in ("Final response", "Session summary")]
    assert len(tool_actions) == len(calls) > 0
    names = {c["toolName"] for c in calls}
    types = {a["type"] for a in actions}
    if names & {"Read", "Edit", "Bash", "shell", "exec_command", "apply_patch"}:
        assert types & {"read_file", "edit_file", "run_command", "test_passed", "test_failed"}
    for run in trace["runs"]:
        assert run["commands"] == sum(a["type"] in ("run_command", "test_passed", "test_failed") for a in run["actions"])


def test_codex_apply_patch_and_shell_map_to_edits_and_commands():
    _requires("codex")
    path = corpus_path("codex", "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl")
    trace = trace_of(sessionport.read(str(path)))
    actions = trace["runs"][0]["actions"]
    edits = [a for a in actions if a["type"] == "edit_file"]
    assert edits and all(a.get("diff", "").startswith("*** Begin Patch") for a in edits)
    assert any(a["type"] == "test_failed" and "pytest" in a["command"] for a in actions)
    assert trace["runs"][0]["agent"].startswith("Codex")


def test_claude_code_session_keeps_its_branch_and_tool_names():
    _requires("claude-code")
    path = corpus_path("claude-code", "06_cc-2.0.55_a7da6a22_interleaved-msgid.jsonl")
    run = trace_of(sessionport.read(str(path)))["runs"][0]
    assert run["agent"].startswith("Claude Code") and run["branch"] == "master"
    assert {"Tool: Read", "Tool: Bash", "Tool: Edit"} <= {a["details"][0] for a in run["actions"]}


CORPUS_FILES = [p for folder in ("claude-code", "codex", "gemini", "chatgpt", "openai") for p in corpus_files(folder) if p.suffix in (".json", ".jsonl")]


@requires_corpus
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name[:40])
def test_every_corpus_transcript_exports_a_schema_valid_trace(path):
    import io

    from sessionport.errors import DetectionError
    from sessionport.reports.validate import validate_stream

    try:
        events = list(sessionport.read(str(path)))
    except DetectionError:
        pytest.skip(f"no registered importer reads {path.name} in this checkout")
    data = sessionport.dumps(events, format="agentscope-trace")
    if not any(e["type"] == "session" for e in events):
        assert orjson.loads(data) == {"schemaVersion": "1.0.0", "runs": []}
        return
    report = validate_stream(io.BufferedReader(io.BytesIO(data)), path.name)
    assert report.valid, [str(p) for p in report.problems[:3]]
    assert report.counts["actions"] >= len(_tool_calls(events))
