"""Where a trace imported from a loose log must match AgentScope's own
``import-session`` (measured against its CLI): the run duration a log states,
no invented command, no search without a file counted as a read, test runs
detected from the command line as the shell splits it, and no extra summary
action for a log's summary."""

from __future__ import annotations

import orjson
import pytest

import sessionport
from conftest import FIXTURES, corpus_path, requires_corpus
from sessionport.agentscope.outcome import command_outcome, is_test, unwrap_output


def trace_of(document, **options) -> dict:
    data = orjson.dumps(document)
    events = sessionport.loads(data, format="session-json")
    return orjson.loads(sessionport.dumps(events, format="agentscope-trace", trace_branch="b", **options))


def only_run(document, **options) -> dict:
    runs = trace_of(document, **options)["runs"]
    assert len(runs) == 1
    return runs[0]


# AgentScope's examples/agent-session.json states its start and duration at the top level.
EXAMPLE = {
    "title": "Fix auth token expiry test",
    "agent": "Claude Code",
    "startedAt": "2026-06-06T09:40:00.000Z",
    "duration": "9m 18s",
    "events": [
        {"tool": "Read", "input": {"file_path": "src/auth/session.test.ts"}, "timestamp": "17:40:12"},
        {"tool": "Bash", "input": {"command": "npm test -- session.test.ts"}, "output": "PASS src/auth/session.test.ts",
         "timestamp": "17:41:02"},
    ],
}


def test_the_duration_a_log_states_is_the_runs_duration():
    assert only_run(EXAMPLE)["duration"] == "9m 18s"


@pytest.mark.parametrize(
    "stated, expected",
    [
        ({"metadata": {"duration": "12m 3s"}}, "12m 3s"),
        ({"elapsed": "41s"}, "41s"),
        ({"duration": 558}, "9m 18s"),  # a number is seconds
        ({"durationMs": 1500}, "2s"),
        ({"metadata": {"duration_ms": 90_000}}, "1m 30s"),
    ],
)
def test_a_stated_duration_is_read_from_every_place_and_unit(stated, expected):
    document = {**{k: v for k, v in EXAMPLE.items() if k != "duration"}, **stated}
    assert only_run(document)["duration"] == expected


def test_a_stated_duration_wins_over_the_timestamps_span():
    events = [
        {"tool": "Bash", "input": {"command": "ls"}, "timestamp": "2026-06-06T10:00:00Z"},
        {"tool": "Bash", "input": {"command": "pwd"}, "timestamp": "2026-06-06T11:00:00Z"},
    ]
    assert only_run({"events": events})["duration"] == "1h 00m"
    assert only_run({"duration": "5m 0s", "events": events})["duration"] == "5m 0s"


def test_a_bash_entry_without_a_command_has_no_command():
    run = only_run({"events": [{"tool": "Bash"}, {"tool": "Bash", "input": {"command": "make"}}]})
    first, second = run["actions"]
    assert first["type"] == "run_command" and "command" not in first
    assert first["title"] != "Run Bash"
    assert second["command"] == "make"
    assert run["commands"] == 2


def test_a_portable_shell_call_whose_text_is_the_command_keeps_it():
    events = [
        {"type": "session", "source": "portable"},
        {"type": "message", "role": "tool", "text": "npm test", "toolName": "shell", "toolCallId": "c1",
         "meta": {"kind": "tool_use"}},
    ]
    trace = orjson.loads(sessionport.dumps(events, format="agentscope-trace", trace_branch="b"))
    assert trace["runs"][0]["actions"][0]["command"] == "npm test"


@pytest.mark.parametrize("tool", ["Grep", "Search", "grep_search"])
def test_a_search_with_only_a_pattern_is_not_a_file_read(tool):
    document = {"events": [
        {"tool": tool, "input": {"pattern": "no file given"}},
        {"tool": tool, "input": {"pattern": "TODO", "path": "src"}},
        {"tool": "Read", "input": {"file_path": "a.ts"}},
    ]}
    run = only_run(document)
    assert [(a["type"], a.get("file")) for a in run["actions"]] == [("read_file", "src"), ("read_file", "a.ts")]
    events = sessionport.loads(orjson.dumps(document), format="session-json")
    assert events[-1]["skipped"] == {tool: 1}


@pytest.mark.parametrize(
    "command",
    [
        'ls -la tests && rg -n "^def test_|pytest|assert" tests || true',
        'grep -E "a|pytest" x',
        'echo "run | npm test"',
        "cat pytest.ini",
        "rg -n 'npm test' docs",
        "pytest --version",
    ],
)
def test_a_runner_named_inside_quotes_or_as_an_argument_is_not_a_test_run(command):
    # the output of a search holds the lines it found, test summaries included
    output = "tests/test_a.py:3:def test_a():\nlog.txt:== 3 passed in 0.1s =="
    assert not is_test(command, output)
    assert command_outcome(command, unwrap_output(output), None) == "run_command"


@pytest.mark.parametrize(
    "command",
    [
        "cd web && npm run test:unit",
        "CI=1 uv run pytest -q",
        "bash -lc 'cd app && python -m pytest -x'",
        "(cd a; go test ./...)",
        "timeout 300 cargo test --all",
        "npx tsc --noEmit | tee tsc.log",
        "./gradlew test",
        "ruff check .",
    ],
)
def test_test_runs_are_found_in_every_simple_command(command):
    assert is_test(command, "")


def test_a_script_is_a_test_run_when_its_output_is_a_runner_summary():
    assert is_test("./scripts/ci.sh 2>&1 | tail -20", "== 4 passed in 0.5s ==")
    assert not is_test("./scripts/ci.sh 2>&1 | tail -20", "built")


def test_a_search_command_does_not_change_the_runs_status():
    document = {"events": [
        {"tool": "Bash", "input": {"command": 'rg -n "pytest|FAILED" .'}, "output": "ci.log:1 failed, 3 passed"},
        {"tool": "Edit", "input": {"file_path": "a.py", "old_string": "a", "new_string": "b"}},
    ]}
    run = only_run(document)
    assert run["actions"][0]["type"] == "run_command"
    assert (run["status"], run["trustScore"]) == ("warning", 60)


@requires_corpus
def test_codex_searches_for_test_names_are_not_passed_tests():
    path = corpus_path("codex/codex-0.34.0-2025-11-01-envelope-no-turn-context.jsonl")
    trace = orjson.loads(sessionport.dumps(sessionport.read(str(path)), format="agentscope-trace", trace_branch="b"))
    searches = [a for run in trace["runs"] for a in run["actions"]
                if "rg -n" in a.get("command", "") and "pytest" in a.get("command", "")]
    assert searches, "the corpus file holds the rg searches for test names"
    assert {a["type"] for a in searches} == {"run_command"}


def test_a_logs_summary_is_its_title_and_no_extra_action():
    document = {"summary": "Fixed the flaky test", "events": [{"tool": "Bash", "input": {"command": "make"}}]}
    run = only_run(document)
    assert run["title"] == "Fixed the flaky test"
    assert [a["type"] for a in run["actions"]] == ["run_command"]


def transcript_trace(**options) -> dict:
    # a Claude Code session continued after compaction: its summary, a call, the final answer
    events = [
        {"type": "session", "source": "claude-code", "sessionId": "s1"},
        {"type": "message", "role": "user", "text": "This session is being continued. Summary: fixed the parser.",
         "meta": {"kind": "summary"}},
        {"type": "message", "role": "tool", "text": "make", "toolName": "Bash", "toolCallId": "t1",
         "toolInput": {"command": "make"}, "meta": {"kind": "tool_use"}},
        {"type": "message", "role": "assistant", "text": "Done: the parser is fixed.", "meta": {"kind": "text"}},
    ]
    return orjson.loads(sessionport.dumps(events, format="agentscope-trace", trace_branch="b", **options))


def test_a_transcripts_summary_records_stay_actions_unless_asked_not_to():
    titles = [a["title"] for run in transcript_trace()["runs"] for a in run["actions"]]
    assert titles == ["Session summary", "Run make", "Final response"]
    titles = [a["title"] for run in transcript_trace(trace_no_final_summary=True)["runs"] for a in run["actions"]]
    assert titles == ["Run make"]


def test_each_documented_difference_from_agentscope_is_real(tmp_path):
    from sessionport.reports.validate import validate_file

    page = (FIXTURES.parent / "docs" / "validate.md").read_text()
    section = page[page.index("## Where sessionport differs from AgentScope"):]
    for topic in ("JSON Lines", "bare single entry", "numeric durations", "non-integer `trustScore`", "empty required strings"):
        assert topic in section
    # more permissive: JSON Lines, a bare entry, a numeric duration
    lines = b'{"title": "t", "duration": 558}\n{"tool": "Bash", "command": "make"}\n'
    events = sessionport.loads(lines, format="session-json")
    assert events[0]["metadata"]["shape"] == "jsonl" and events[0]["metadata"]["durationMs"] == 558_000
    assert only_run({"tool": "Bash", "command": "make"})["actions"][0]["command"] == "make"
    # stricter: a non-integer trust score; more permissive: an empty title
    trace = orjson.loads((FIXTURES / "agentscope-trace" / "valid.trace.json").read_bytes())
    trace["runs"][0]["trustScore"] = 85.5
    (tmp_path / "float.trace.json").write_bytes(orjson.dumps(trace))
    assert not validate_file(str(tmp_path / "float.trace.json")).valid
    trace["runs"][0]["trustScore"], trace["runs"][0]["title"] = 85, ""
    (tmp_path / "empty.trace.json").write_bytes(orjson.dumps(trace))
    assert validate_file(str(tmp_path / "empty.trace.json")).valid


def test_a_long_inline_script_is_read_only_as_far_as_needed():
    script = "bash -lc \"pytest -q && cat <<'EOF' > notes.txt\n" + "x = 'a|pytest'\n" * 20_000 + "EOF\""
    assert is_test(script, "")
    assert not is_test("bash -lc \"cat <<'EOF' > notes.txt\n" + "pytest\n" * 20_000 + "EOF\"", "")
