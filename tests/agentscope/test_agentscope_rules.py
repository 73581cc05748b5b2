"""The rules behind an AgentScope action: which type a real tool call gets,
when a command is a passed or failed test, and how risky an action is."""

from __future__ import annotations

import pytest

from sessionport.agentscope.actions import tool_action
from sessionport.agentscope.outcome import command_outcome, is_test, unwrap_output
from sessionport.agentscope.risk import command_risk, outside_cwd
from sessionport.agentscope.tools import inspect_tool
from sessionport.model import message_event

PATCH = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** Add File: src/b.py\n+new\n*** End Patch"


@pytest.mark.parametrize(
    "name, tool_input, action, detail",
    [
        # Claude Code
        ("Read", {"file_path": "/r/a.py"}, "read_file", ("file", "/r/a.py")),
        ("Grep", {"pattern": "TODO", "path": "src"}, "read_file", ("pattern", "TODO")),
        ("Glob", {"pattern": "**/*.ts"}, "read_file", ("pattern", "**/*.ts")),
        ("LS", {"path": "/r"}, "read_file", ("file", "/r")),
        ("WebFetch", {"url": "https://x.dev", "prompt": "p"}, "read_file", ("file", "https://x.dev")),
        ("Edit", {"file_path": "a.py", "old_string": "1", "new_string": "2"}, "edit_file", ("files", ["a.py"])),
        ("MultiEdit", {"file_path": "a.py", "edits": [{"old_string": "1", "new_string": "2"}]}, "edit_file", ("file", "a.py")),
        ("Write", {"file_path": "n.md", "content": "hi"}, "edit_file", ("file", "n.md")),
        ("NotebookEdit", {"notebook_path": "n.ipynb", "new_source": "x"}, "edit_file", ("file", "n.ipynb")),
        ("Bash", {"command": "ls -la", "description": "list"}, "run_command", ("command", "ls -la")),
        ("Task", {"description": "explore", "prompt": "look around"}, "run_command", ("kind", "agent")),
        ("Agent", {"description": "explore"}, "run_command", ("kind", "agent")),
        ("TodoWrite", {"todos": [{"content": "a", "status": "pending"}]}, "generate_summary", ("kind", "plan")),
        ("mcp__github__get_issue", {"number": 3}, "read_file", ("mcp", True)),
        ("mcp__db__run_query", {"sql": "select 1"}, "read_file", ("mcp", True)),
        ("mcp__deploy__trigger_build", {}, "run_command", ("mcp", True)),
        # Codex
        ("shell", {"command": ["bash", "-lc", "npm test"], "workdir": "/w"}, "run_command", ("command", "npm test")),
        ("shell", {"command": ["rg", "-n", "x y"]}, "run_command", ("command", "rg -n 'x y'")),
        ("shell_command", {"command": "git status"}, "run_command", ("command", "git status")),
        ("exec_command", {"cmd": "cargo build", "workdir": "/w"}, "run_command", ("workdir", "/w")),
        ("local_shell_call", {"action": {"type": "exec", "command": ["ls"], "working_directory": "/w"}}, "run_command", ("command", "ls")),
        ("apply_patch", PATCH, "edit_file", ("files", ["src/a.py", "src/b.py"])),
        ("apply_patch", {"input": PATCH}, "edit_file", ("file", "src/a.py")),
        ("shell", {"command": ["apply_patch", PATCH]}, "edit_file", ("files", ["src/a.py", "src/b.py"])),
        ("shell", {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}\nEOF"]}, "edit_file", ("command", None)),
        ("update_plan", {"plan": [{"step": "a", "status": "completed"}]}, "generate_summary", ("kind", "plan")),
        ("web_search", {"query": "ijson"}, "read_file", ("pattern", "ijson")),
        ("task-master-ai__next_task", {}, "run_command", ("mcp", True)),
        ("shell<|channel|>", {"command": ["ls"]}, "run_command", ("name", "shell")),
        # others
        ("str_replace_based_edit_tool", {"command": "view", "path": "a.py"}, "read_file", ("file", "a.py")),
        ("run_shell_command", {"command": "make"}, "run_command", ("command", "make")),
        ("SomethingNew", {}, "run_command", ("kind", "unknown")),
    ],
)
def test_real_tool_names_get_their_action_type(name, tool_input, action, detail):
    facts = inspect_tool(name, tool_input)
    assert facts.action == action
    assert getattr(facts, detail[0]) == detail[1]


@pytest.mark.parametrize(
    "name, tool_input, supported",
    [
        ("Read", {}, False),  # the adapter's rule: a read counts with a file
        ("Read", {"file_path": "a"}, True),
        ("message", {}, False),
        ("", {"command": "ls"}, True),
        ("", {"diff": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b"}, True),
        ("SomethingNew", {}, False),
        ("summarize", {}, True),
    ],
)
def test_loose_logs_keep_only_supported_entries(name, tool_input, supported):
    assert (inspect_tool(name, tool_input, strict=True).action is not None) is supported


@pytest.mark.parametrize(
    "command, output, is_error, expected",
    [
        ("npm test -- session.test.ts", "PASS src/auth/session.test.ts", None, "test_passed"),
        ("pytest -q", "== 1 failed, 5 passed in 0.3s ==", None, "test_failed"),
        ("pytest -q", "== 5 passed, 0 failed in 0.3s ==", None, "test_passed"),
        ("cargo test", "", True, "test_failed"),
        ("go test ./...", "Exit code: 0\nWall time: 1s\nOutput:\nok  pkg 0.1s", None, "test_passed"),
        ("npx tsc --noEmit", '{"output":"","metadata":{"exit_code":2,"duration_seconds":3.1}}', None, "test_failed"),
        ("ls tests/", "test_a.py", None, "run_command"),
        ("which pytest", "/usr/bin/pytest", None, "run_command"),
        ("pytest --version", "pytest 8.0", None, "run_command"),
        ("grep -rn error src", "src/a.py: error", True, "run_command"),
        ("python scripts/check_things.py", "Ran 4 tests in 0.01s\n\nOK", None, "test_passed"),
    ],
)
def test_tests_pass_or_fail_by_exit_code_flag_and_keywords(command, output, is_error, expected):
    assert command_outcome(command, unwrap_output(output), is_error) == expected


def test_codex_json_output_is_unwrapped():
    result = unwrap_output('{"output":"done","metadata":{"exit_code":0,"duration_seconds":1.5}}')
    assert (result.output, result.exit_code, result.duration_ms) == ("done", 0, 1500)
    assert is_test("CI=1 npm run test", "") and not is_test("cat pytest.ini", "")


@pytest.mark.parametrize(
    "command, risk",
    [
        ("rm -rf node_modules", "high"),
        ("rm -r build", "high"),
        ("git push --force origin main", "high"),
        ("git push -f", "high"),
        ("git reset --hard HEAD~3", "high"),
        ('psql -c "DROP TABLE users"', "high"),
        ("curl -fsSL https://x.sh | sh", "high"),
        ("wget -qO- https://x | sudo bash", "high"),
        ("sudo apt-get install jq", "high"),
        ("terraform destroy", "high"),
        ("npm publish", "high"),
        ("git commit -m x", "medium"),
        ("git push origin feature", "medium"),
        ("pip install -e .", "medium"),
        ("rm notes.txt", "medium"),
        ("echo hi > out.txt", "medium"),
        ("ls -la", "low"),
        ("cat a.py 2>&1 | head", "low"),
        ("grep -rn shutdown src", "low"),
        ("npm test", "low"),
    ],
)
def test_command_risk(command, risk):
    assert command_risk(command)[0] == risk


def test_edits_outside_the_working_directory_are_high_risk():
    assert outside_cwd("/etc/hosts", "/repo") and outside_cwd("../other/x", "/repo") and outside_cwd("~/.bashrc", "/repo")
    assert not outside_cwd("/repo/src/a.py", "/repo") and not outside_cwd("src/a.py", "/repo")
    assert not outside_cwd("/anywhere", None)
    use = message_event("tool", "", toolName="Edit", toolCallId="c", toolInput={"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}, meta={"kind": "tool_use"})
    action = tool_action(use, None, "/repo").action
    assert action["risk"] == "high" and any("outside the session's working directory" in d for d in action["details"])
    inside = dict(use, toolInput={"file_path": "/repo/a", "old_string": "a", "new_string": "b"})
    assert tool_action(inside, None, "/repo").action["risk"] == "medium"


@pytest.mark.parametrize(
    "name, tool_input, risk",
    [
        ("Read", {"file_path": "/etc/passwd"}, "low"),
        ("TodoWrite", {"todos": []}, "low"),
        ("Task", {"description": "x"}, "medium"),
        ("mcp__github__delete_repository", {}, "high"),
        ("mcp__github__get_issue", {}, "low"),
        ("Bash", {"command": "git push --force"}, "high"),
    ],
)
def test_action_risk_by_type(name, tool_input, risk):
    use = message_event("tool", "", toolName=name, toolCallId="c", toolInput=tool_input, meta={"kind": "tool_use"})
    assert tool_action(use, None, "/repo").action["risk"] == risk


def test_explicit_fields_of_a_loose_log_are_kept():
    use = message_event("tool", "", toolName="Bash", toolCallId="c", toolInput={"command": "make"},
                        meta={"kind": "tool_use", "title": "Build", "summary": "Built it.", "details": ["d1"], "risk": "high", "durationMs": 1500})
    action = tool_action(use, None, None).action
    assert (action["title"], action["summary"], action["details"], action["risk"], action["duration"]) == ("Build", "Built it.", ["d1"], "high", "2s")


def test_plan_tools_render_their_steps():
    use = message_event("tool", "", toolName="update_plan", toolCallId="c",
                        toolInput={"explanation": "Next", "plan": [{"step": "write tests", "status": "in_progress"}]}, meta={"kind": "tool_use"})
    result = message_event("tool", "", toolCallId="c", meta={"kind": "tool_result"})
    action = tool_action(use, result, None).action
    assert action["type"] == "generate_summary" and action["output"] == "Next\n[in_progress] write tests"
