"""The tool-name mapping between Claude Code, Codex CLI, Gemini CLI and Qwen Code."""

from __future__ import annotations

import pytest

from sessionport.toolmap import make_patch, map_call, parse_patch


@pytest.mark.parametrize(
    "app, name, given, expected",
    [
        ("codex", "Bash", {"command": "ls -la", "description": "List", "timeout": 5000}, ("exec_command", {"cmd": "ls -la"})),
        ("gemini-cli", "Bash", {"command": "ls", "description": "List"}, ("run_shell_command", {"command": "ls", "description": "List"})),
        ("claude-code", "shell", {"command": ["bash", "-lc", "rg foo"], "workdir": "/w"}, ("Bash", {"command": "rg foo"})),
        ("claude-code", "shell", {"command": ["git", "status", "--short"]}, ("Bash", {"command": "git status --short"})),
        ("gemini-cli", "exec_command", {"cmd": "make", "workdir": "/w"}, ("run_shell_command", {"command": "make", "dir_path": "/w"})),
        ("claude-code", "run_shell_command", {"command": "ls", "dir_path": "src"}, ("Bash", {"command": "ls"})),
        ("claude-code", "read_file", {"file_path": "/a.py", "start_line": 10, "end_line": 19}, ("Read", {"file_path": "/a.py", "offset": 10, "limit": 10})),
        ("claude-code", "read_file", {"absolute_path": "/a.py"}, ("Read", {"file_path": "/a.py"})),
        ("gemini-cli", "Read", {"file_path": "/a.py", "offset": 5, "limit": 2}, ("read_file", {"file_path": "/a.py", "start_line": 5, "end_line": 6})),
        ("gemini-cli", "Edit", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": True}, ("replace", {"file_path": "/a", "old_string": "x", "new_string": "y", "allow_multiple": True})),
        ("claude-code", "replace", {"file_path": "/a", "old_string": "x", "new_string": "y"}, ("Edit", {"file_path": "/a", "old_string": "x", "new_string": "y"})),
        ("gemini-cli", "Write", {"file_path": "/a", "content": "hi\n"}, ("write_file", {"file_path": "/a", "content": "hi\n"})),
        # Qwen Code: Gemini CLI's names but its edit, offsets counted from 0
        ("qwen-code", "Bash", {"command": "ls", "description": "List"}, ("run_shell_command", {"command": "ls", "description": "List"})),
        ("qwen-code", "exec_command", {"cmd": "make", "workdir": "/w"}, ("run_shell_command", {"command": "make", "directory": "/w"})),
        ("qwen-code", "Read", {"file_path": "/a.py", "offset": 5, "limit": 2}, ("read_file", {"file_path": "/a.py", "offset": 4, "limit": 2})),
        ("qwen-code", "Edit", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": True}, ("edit", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": True})),
        ("qwen-code", "Write", {"file_path": "/a", "content": "hi\n"}, ("write_file", {"file_path": "/a", "content": "hi\n"})),
        ("qwen-code", "replace", {"file_path": "/a", "old_string": "x", "new_string": "y"}, ("replace", {"file_path": "/a", "old_string": "x", "new_string": "y"})),
        ("claude-code", "read_file", {"file_path": "/a.py", "offset": 4, "limit": 2}, ("Read", {"file_path": "/a.py", "offset": 5, "limit": 2})),
        ("claude-code", "edit", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": True}, ("Edit", {"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": True})),
        ("gemini-cli", "read_file", {"file_path": "/a.py", "offset": 0}, ("read_file", {"file_path": "/a.py", "offset": 0})),
        # no Codex tool reads or overwrites a file: kept as they are
        ("codex", "Read", {"file_path": "/a"}, ("Read", {"file_path": "/a"})),
        ("codex", "Write", {"file_path": "/a", "content": "x"}, ("Write", {"file_path": "/a", "content": "x"})),
        # a tool of the target app, an unknown tool, an odd input: unchanged
        ("claude-code", "Bash", {"command": "ls"}, ("Bash", {"command": "ls"})),
        ("codex", "mcp__github__create_issue", {"title": "x"}, ("mcp__github__create_issue", {"title": "x"})),
        ("codex", "Bash", {"cmd": "ls"}, ("Bash", {"cmd": "ls"})),
    ],
)
def test_map_call(app, name, given, expected):
    assert map_call(app, name, given) == expected


def test_an_edit_becomes_a_patch_codex_applies_and_back():
    name, given = map_call("codex", "Edit", {"file_path": "/src/a.py", "old_string": "a = 1\nb = 2", "new_string": "a = 1\nb = 3"})
    assert name == "apply_patch"
    assert given == {"input": "*** Begin Patch\n*** Update File: /src/a.py\n@@\n-a = 1\n-b = 2\n+a = 1\n+b = 3\n*** End Patch\n"}
    assert map_call("claude-code", name, given) == ("Edit", {"file_path": "/src/a.py", "old_string": "a = 1\nb = 2", "new_string": "a = 1\nb = 3"})


def test_patches_of_one_file_map_and_larger_ones_do_not():
    added = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+hi\n*** End Patch"
    assert parse_patch(added) == ("write", {"file_path": "notes.md", "content": "# Notes\nhi\n"})
    assert map_call("gemini-cli", "apply_patch", {"input": added}) == ("write_file", {"file_path": "notes.md", "content": "# Notes\nhi\n"})
    update = "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n     x = 1\n-    y = 2\n+    y = 3\n*** End Patch\n"
    assert parse_patch(update) == ("edit", {"file_path": "a.py", "old_string": "    x = 1\n    y = 2", "new_string": "    x = 1\n    y = 3"})
    two = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Update File: b.py\n@@\n-x\n+y\n*** End Patch\n"
    assert parse_patch(two) is None and map_call("claude-code", "apply_patch", {"input": two}) == ("apply_patch", {"input": two})
    assert parse_patch(make_patch("write", {"file_path": "n", "content": "a\nb\n"})) == ("write", {"file_path": "n", "content": "a\nb\n"})
