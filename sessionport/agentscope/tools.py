"""What a tool call did, read from its name and input: the AgentScope action type
and the file(s), command, diff, URL or pattern it touched.

Real tool names come first (Claude Code, Codex, Gemini CLI, Cursor-like
editors); unknown names are split into words and matched against the
keyword families of the AgentScope Session JSON adapter; then the content
decides (a diff means an edit, a command means a command).  The same
classifier decides which loose ``session-json`` entries are supported.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

READ_FILE = "read_file"
EDIT_FILE = "edit_file"
RUN_COMMAND = "run_command"
TEST_FAILED = "test_failed"
TEST_PASSED = "test_passed"
GENERATE_SUMMARY = "generate_summary"
ACTION_TYPES = (READ_FILE, EDIT_FILE, RUN_COMMAND, TEST_FAILED, TEST_PASSED, GENERATE_SUMMARY)

# Lower-cased real tool names.  ``kind`` refines titles and risk.
_KNOWN: dict[str, tuple[str, str]] = {}


def _known(action: str, kind: str, *names: str) -> None:
    for name in names:
        _KNOWN[name] = (action, kind)


_known(READ_FILE, "read", "read", "view", "open", "cat", "notebookread", "read_file", "read_many_files",
       "view_image", "readfile", "open_file")
_known(READ_FILE, "search", "grep", "glob", "search", "ls", "list_dir", "list_directory", "search_file_content",
       "codebase_search", "file_search", "grep_search", "find", "toolsearch", "list_mcp_resources",
       "read_mcp_resource")
_known(READ_FILE, "web", "webfetch", "websearch", "web_search", "web_fetch", "google_web_search", "fetch",
       "web_search_call")
_known(EDIT_FILE, "edit", "edit", "write", "multiedit", "notebookedit", "apply_patch", "replace", "write_file",
       "edit_file", "str_replace", "str_replace_editor", "str_replace_based_edit_tool", "create_file",
       "search_replace", "insert", "multi_edit")
_known(RUN_COMMAND, "shell", "bash", "shell", "shell_command", "exec_command", "local_shell_call", "local_shell",
       "container.exec", "run_shell_command", "run_terminal_cmd", "terminal", "exec", "command", "run_command",
       "execute_command", "powershell")
_known(RUN_COMMAND, "process", "bashoutput", "killshell", "killbash", "write_stdin", "wait")
_known(RUN_COMMAND, "agent", "task", "agent", "spawn_agent", "sendmessage", "send_message")
_known(GENERATE_SUMMARY, "plan", "todowrite", "todoread", "update_plan", "exitplanmode", "exit_plan_mode",
       "taskcreate", "taskupdate", "tasklist", "taskget", "write_todos")
_known(GENERATE_SUMMARY, "summary", "summarize", "summary", "report", "wrap_up", "wrapup", "generate_summary")
_known(RUN_COMMAND, "ask", "askuserquestion", "request_user_input")
_known(RUN_COMMAND, "shell", "test_passed", "test_failed")  # AgentScope's own action types as names

_WORD_FAMILIES = (
    (GENERATE_SUMMARY, "summary", {"summary", "summarize", "summarise", "report", "wrapup", "wrap"}),
    (READ_FILE, "read", {"read", "view", "open", "cat", "grep", "search", "glob", "list", "get", "fetch", "find",
                          "show", "query", "lookup", "ls"}),
    (EDIT_FILE, "edit", {"edit", "write", "replace", "patch", "multiedit", "create", "update", "insert", "delete",
                          "remove", "rename", "move", "modify", "append"}),
    (RUN_COMMAND, "shell", {"bash", "shell", "terminal", "exec", "execute", "command", "cmd", "run"}),
)

_FILE_KEYS = ("file_path", "path", "file", "filepath", "target_file", "notebook_path", "absolute_path",
              "filename", "target", "dir_path", "directory")
_COMMAND_KEYS = ("command", "cmd", "script")
_DIFF_KEYS = ("diff", "patch")
_NAME_GARBAGE = re.compile(r"[^A-Za-z0-9_.\-]")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$|^\+\+\+ (?:b/)?(.+)$", re.M)
_SHELL_WRAPPERS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "powershell", "pwsh",
                   "powershell.exe", "cmd", "cmd.exe"}
_DIFF_MARK = re.compile(r"^(@@ |\+\+\+ |--- |diff --git )", re.M)
MAX_SYNTH_DIFF = 200_000


@dataclass
class ToolFacts:
    """What one tool call touched.  ``files`` is every file an edit changed."""

    name: str
    action: str | None
    kind: str
    file: str | None = None
    files: list[str] = field(default_factory=list)
    command: str | None = None
    diff: str | None = None
    url: str | None = None
    pattern: str | None = None
    workdir: str | None = None
    mcp: bool = False
    deletes: bool = False


def clean_name(name: Any) -> str:
    """``shell<|channel|>`` -> ``shell``: models sometimes leak tokens into names."""
    if not isinstance(name, str):
        return ""
    head = name.strip().split("<", 1)[0]
    return _NAME_GARBAGE.sub("", head)


def name_words(name: str) -> set[str]:
    spaced = _CAMEL.sub(" ", name)
    return {w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w}


def _first_string(source: dict, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = source.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def command_text(value: Any) -> str | None:
    """A command as one string; ``["bash", "-lc", "npm test"]`` -> ``npm test``."""
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list) and value and all(isinstance(p, str) for p in value):
        if len(value) >= 3 and value[0] in _SHELL_WRAPPERS and value[1] in ("-lc", "-c", "-l", "/c", "-Command"):
            return value[-1]
        import shlex  # lazily: most traces never need it

        return shlex.join(value)
    return None


def looks_like_patch(text: str) -> bool:
    return "*** Begin Patch" in text or bool(_DIFF_MARK.search(text[:4096]))


def patch_files(patch: str) -> list[str]:
    files: list[str] = []
    for match in _PATCH_FILE.finditer(patch):
        path = next(g for g in match.groups() if g).strip()
        if path and path != "/dev/null" and path not in files:
            files.append(path)
    return files


def _lines_diff(path: str, old: str, new: str) -> str:
    import difflib  # lazily: kept out of every command's start-up

    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm="", n=2)
    return "\n".join(lines)


def _synth_diff(name: str, data: dict, path: str | None) -> str | None:
    """A unified diff from edit-tool arguments (old/new strings, whole content)."""
    label = path or "file"
    old = data.get("old_string", data.get("old_str"))
    new = data.get("new_string", data.get("new_str"))
    if isinstance(old, str) and isinstance(new, str):
        return _lines_diff(label, old, new)
    edits = data.get("edits")
    if isinstance(edits, list):
        parts = []
        for edit in edits:
            if isinstance(edit, dict):
                eo, en = edit.get("old_string", edit.get("old_str")), edit.get("new_string", edit.get("new_str"))
                if isinstance(eo, str) and isinstance(en, str):
                    parts.append(_lines_diff(label, eo, en))
        return "\n".join(parts) or None
    content = data.get("content", data.get("file_text", data.get("new_source")))
    if isinstance(content, str) and len(content) <= MAX_SYNTH_DIFF:
        return _lines_diff(label, "", content)
    return None


@functools.lru_cache(maxsize=1024)
def _classify_name(name: str) -> tuple[str | None, str, bool]:
    """(action, kind, mcp) from the tool name alone."""
    lower = name.lower()
    mcp = lower.startswith("mcp__") or ("__" in lower.strip("_") and lower not in _KNOWN)
    if not mcp and lower in _KNOWN:
        action, kind = _KNOWN[lower]
        return action, kind, False
    words = name_words(name.split("__")[-1] if mcp else name)
    if mcp:
        words.discard("mcp")
    for action, kind, family in _WORD_FAMILIES:
        if words & family:
            return action, kind, mcp
    return None, "unknown", mcp


def inspect_tool(name: Any, tool_input: Any, *, strict: bool = False) -> ToolFacts:
    """Classify one call.  ``strict`` leaves ``action`` None for a call with no
    recognisable name or content (loose logs skip those); otherwise an
    unknown tool is a ``run_command``."""
    tool = clean_name(name)
    data = tool_input if isinstance(tool_input, dict) else {}
    raw = tool_input if isinstance(tool_input, str) else None
    action, kind, mcp = _classify_name(tool) if tool else (None, "unknown", False)
    facts = ToolFacts(name=tool, action=action, kind=kind, mcp=mcp)

    facts.file = _first_string(data, _FILE_KEYS)
    facts.command = command_text(next((data[k] for k in _COMMAND_KEYS if k in data and not (
        kind == "edit" and k == "command")), None))
    facts.diff = _first_string(data, _DIFF_KEYS)
    wrapped = _first_string(data, ("input",))
    if facts.diff is None and wrapped and looks_like_patch(wrapped):
        facts.diff = wrapped
    facts.url = _first_string(data, ("url", "uri"))
    facts.pattern = _first_string(data, ("pattern", "query", "glob", "regex"))
    facts.workdir = _first_string(data, ("workdir", "cwd", "working_directory", "directory"))
    action_obj = data.get("action")
    if isinstance(action_obj, dict):  # local_shell_call / web_search_call shapes
        facts.command = facts.command or command_text(action_obj.get("command"))
        facts.workdir = facts.workdir or _first_string(action_obj, ("working_directory",))
        facts.url = facts.url or _first_string(action_obj, ("url",))
        facts.pattern = facts.pattern or _first_string(action_obj, ("query",))
    if raw is not None:
        if looks_like_patch(raw):
            facts.diff = raw
        elif facts.action == RUN_COMMAND and kind == "shell":
            facts.command = raw

    # A shell call that runs apply_patch is an edit (older Codex versions).
    if facts.command and "*** Begin Patch" in facts.command:
        start = facts.command.index("*** Begin Patch")
        end = facts.command.find("*** End Patch", start)
        facts.diff = facts.command[start : end + len("*** End Patch") if end >= 0 else None]
        facts.action, facts.kind, facts.command = EDIT_FILE, "edit", None
    if kind == "edit" and data.get("command") == "view":  # str_replace_based_edit_tool's read mode
        facts.action, facts.kind = READ_FILE, "read"

    if facts.action is None:
        if facts.diff:
            facts.action, facts.kind = EDIT_FILE, "edit"
        elif facts.command:
            facts.action, facts.kind = RUN_COMMAND, "shell"
        elif not strict:
            facts.action, facts.kind = RUN_COMMAND, "agent" if mcp else "unknown"
    elif strict and facts.action == READ_FILE and not (facts.file or (facts.kind == "web" and facts.url)):
        # The adapter's rule: Read/View/Open/Cat/Grep/Search count as a read
        # only "with a file" (a web fetch: with its URL); a bare pattern
        # searches nothing that the log names.
        facts.action = None

    if facts.action == EDIT_FILE:
        if facts.diff is None:
            facts.diff = _synth_diff(tool, data, facts.file)
        files = patch_files(facts.diff) if facts.diff and facts.file is None else []
        facts.files = files or ([facts.file] if facts.file else [])
        facts.file = facts.file or (files[0] if files else None)
        facts.deletes = bool(facts.diff and "*** Delete File:" in facts.diff)
    elif facts.action == READ_FILE and facts.kind == "web":
        facts.file = facts.file or facts.url
    return facts
