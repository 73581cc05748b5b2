"""Tool calls in the vocabulary of the app a session is written for.

Claude Code, Codex CLI and Gemini CLI each give the model their own tools for
the same jobs.  A session moved from one app to another resumes best when
its past calls use the tools the new app offers, so the writers for the
three apps rename the calls of the other two (and reshape their input):

| job | Claude Code | Codex CLI | Gemini CLI |
| --- | --- | --- | --- |
| run a shell command | ``Bash`` ``{command, description?}`` | ``exec_command`` ``{cmd, workdir?}`` (also read: ``shell`` ``{command: [argv]}``, ``shell_command`` ``{command}``) | ``run_shell_command`` ``{command, description?, dir_path?}`` |
| read a file | ``Read`` ``{file_path, offset?, limit?}`` | none (kept as it is) | ``read_file`` ``{file_path, start_line?, end_line?}`` |
| replace text in a file | ``Edit`` ``{file_path, old_string, new_string, replace_all?}`` | ``apply_patch`` (one ``*** Update File`` hunk) | ``replace`` ``{file_path, old_string, new_string, allow_multiple?}`` |
| write a whole file | ``Write`` ``{file_path, content}`` | ``apply_patch`` (``*** Add File``), read only | ``write_file`` ``{file_path, content}`` |

Qwen Code, a Gemini CLI fork, keeps Gemini CLI's names but for the edit
(``edit`` ``{file_path, old_string, new_string, replace_all?}``), and reads a
file as ``read_file`` ``{file_path, offset?, limit?}`` with ``offset`` counted
from 0 (``start_line`` counts from 1); its shell command takes ``directory``.

A call is mapped only when its input has the expected shape; anything else
(other tools, MCP tools, odd inputs) is written as it was.  Input fields with
no counterpart in the target tool (``Bash.timeout``, ``exec_command``'s
``yield_time_ms`` ...) are left out of the mapped call.  The core holds this
table so that every writer and the conformance tests share it.
"""

from __future__ import annotations

import shlex
from typing import Any

APPS = ("claude-code", "codex", "gemini-cli", "qwen-code")

# What each app calls its own tools (a call with one of these names is never renamed).
OWN_TOOLS = {
    "claude-code": frozenset(("Bash", "Read", "Edit", "Write", "MultiEdit", "Glob", "Grep", "LS", "Task", "Agent", "TodoWrite", "WebFetch", "WebSearch", "NotebookEdit")),
    "codex": frozenset(("exec_command", "shell", "shell_command", "local_shell", "apply_patch", "write_stdin", "update_plan", "view_image", "web_search")),
    "gemini-cli": frozenset(("run_shell_command", "read_file", "replace", "write_file", "list_directory", "glob", "grep_search", "search_file_content", "read_many_files", "google_web_search", "web_fetch", "save_memory", "write_todos")),
    "qwen-code": frozenset(("run_shell_command", "read_file", "edit", "replace", "write_file", "list_directory", "glob", "grep_search", "web_fetch", "web_search", "save_memory", "todo_write", "agent", "skill")),
}

_SHELLS = {("bash", "-lc"), ("bash", "-c"), ("sh", "-c"), ("zsh", "-lc"), ("zsh", "-c"), ("/bin/bash", "-lc"), ("/bin/bash", "-c"), ("/bin/sh", "-c")}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _command_of(argv: Any) -> str | None:
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
        return None
    if len(argv) == 3 and (argv[0], argv[1]) in _SHELLS:
        return argv[2]
    return shlex.join(argv)


# -- apply_patch ---------------------------------------------------------------
def parse_patch(patch: str) -> tuple[str, dict] | None:
    """A Codex patch of one file as ("edit", {file_path, old_string, new_string})
    or ("write", {file_path, content}); None for anything larger."""
    lines = patch.strip("\n").split("\n")
    if len(lines) < 3 or lines[0].strip() != "*** Begin Patch" or lines[-1].strip() != "*** End Patch":
        return None
    body = lines[1:-1]
    head = body[0]
    if head.startswith("*** Add File: "):
        rest = body[1:]
        if not rest or not all(x.startswith("+") for x in rest):
            return None
        return "write", {"file_path": head[len("*** Add File: ") :].strip(), "content": "\n".join(x[1:] for x in rest) + "\n"}
    if not head.startswith("*** Update File: "):
        return None
    rest = body[1:]
    if rest and rest[0].startswith("@@"):
        rest = rest[1:]
    if not rest or any(x.startswith(("@@", "*** ")) for x in rest):
        return None  # several hunks, a move, or several files
    old, new = [], []
    for x in rest:
        tag, text = x[:1], x[1:]
        if tag == " ":
            old.append(text)
            new.append(text)
        elif tag == "-":
            old.append(text)
        elif tag == "+":
            new.append(text)
        else:
            return None
    return "edit", {"file_path": head[len("*** Update File: ") :].strip(), "old_string": "\n".join(old), "new_string": "\n".join(new)}


def make_patch(kind: str, fields: dict) -> str:
    if kind == "write":
        content = fields["content"]
        lines = content[:-1].split("\n") if content.endswith("\n") else content.split("\n")
        return "*** Begin Patch\n*** Add File: " + fields["file_path"] + "\n" + "".join(f"+{x}\n" for x in lines) + "*** End Patch\n"
    old = fields["old_string"].split("\n")
    new = fields["new_string"].split("\n")
    body = "".join(f"-{x}\n" for x in old) + "".join(f"+{x}\n" for x in new)
    return "*** Begin Patch\n*** Update File: " + fields["file_path"] + "\n@@\n" + body + "*** End Patch\n"


# -- to and from the shared vocabulary -------------------------------------------
def _canonical(name: str, args: dict) -> tuple[str, dict] | None:
    """("shell" | "read" | "edit" | "write", fields) for a known tool of any app."""
    if name == "Bash" and _str(args.get("command")):
        return "shell", {"command": args["command"], "description": _str(args.get("description"))}
    if name == "run_shell_command" and _str(args.get("command")):
        return "shell", {"command": args["command"], "description": _str(args.get("description")), "workdir": _str(args.get("dir_path") or args.get("directory"))}
    if name == "exec_command" and _str(args.get("cmd")):
        return "shell", {"command": args["cmd"], "workdir": _str(args.get("workdir"))}
    if name == "shell_command" and _str(args.get("command")):
        return "shell", {"command": args["command"], "workdir": _str(args.get("workdir"))}
    if name in ("shell", "container.exec") and _command_of(args.get("command")):
        return "shell", {"command": _command_of(args["command"]), "workdir": _str(args.get("workdir"))}
    if name == "Read" and _str(args.get("file_path")):
        return "read", {"file_path": args["file_path"], "offset": _int(args.get("offset")), "limit": _int(args.get("limit"))}
    if name == "read_file" and _str(args.get("file_path") or args.get("absolute_path")) and ("offset" in args or "limit" in args) and not ("start_line" in args or "end_line" in args):
        # Qwen Code's and older Gemini CLI's: offset counts from 0
        offset = _int(args.get("offset"))
        return "read", {"file_path": args.get("file_path") or args["absolute_path"], "offset": offset + 1 if offset is not None else None, "limit": _int(args.get("limit"))}
    if name == "read_file" and _str(args.get("file_path") or args.get("absolute_path")):
        start, end = _int(args.get("start_line")), _int(args.get("end_line"))
        limit = end - start + 1 if start is not None and end is not None and end >= start else None
        return "read", {"file_path": args.get("file_path") or args["absolute_path"], "offset": start, "limit": limit}
    if name in ("Edit", "replace", "edit") and all(_str(args.get(k)) is not None for k in ("file_path", "old_string", "new_string")):
        every = args.get("replace_all") is True or args.get("allow_multiple") is True or (_int(args.get("expected_replacements")) or 1) > 1
        return "edit", {"file_path": args["file_path"], "old_string": args["old_string"], "new_string": args["new_string"], "all": every}
    if name in ("Write", "write_file") and _str(args.get("file_path")) and _str(args.get("content")) is not None:
        return "write", {"file_path": args["file_path"], "content": args["content"]}
    if name == "apply_patch" and _str(args.get("input")) and len(args) == 1:
        return parse_patch(args["input"])
    return None


def _clean(d: dict) -> dict:
    return {k: v for k, v in d.items() if v is not None and v is not False}


def _render(app: str, kind: str, f: dict) -> tuple[str, dict] | None:
    if app == "claude-code":
        if kind == "shell":
            return "Bash", _clean({"command": f["command"], "description": f.get("description")})
        if kind == "read":
            return "Read", _clean({"file_path": f["file_path"], "offset": f.get("offset"), "limit": f.get("limit")})
        if kind == "edit":
            return "Edit", _clean({"file_path": f["file_path"], "old_string": f["old_string"], "new_string": f["new_string"], "replace_all": f.get("all")})
        return "Write", {"file_path": f["file_path"], "content": f["content"]}
    if app == "codex":
        if kind == "shell":
            return "exec_command", _clean({"cmd": f["command"], "workdir": f.get("workdir")})
        if kind == "edit" and not f.get("all"):
            return "apply_patch", {"input": make_patch("edit", f)}
        return None  # Codex has no tool that reads a file, nor one that overwrites it
    if app == "qwen-code":
        if kind == "shell":
            return "run_shell_command", _clean({"command": f["command"], "description": f.get("description"), "directory": f.get("workdir")})
        if kind == "read":
            start = f.get("offset")
            return "read_file", _clean({"file_path": f["file_path"], "offset": start - 1 if start is not None and start > 0 else None, "limit": f.get("limit")})
        if kind == "edit":
            return "edit", _clean({"file_path": f["file_path"], "old_string": f["old_string"], "new_string": f["new_string"], "replace_all": f.get("all")})
        return "write_file", {"file_path": f["file_path"], "content": f["content"]}
    if kind == "shell":
        return "run_shell_command", _clean({"command": f["command"], "description": f.get("description"), "dir_path": f.get("workdir")})
    if kind == "read":
        start, limit = f.get("offset"), f.get("limit")
        end = start + limit - 1 if start is not None and limit is not None else None
        return "read_file", _clean({"file_path": f["file_path"], "start_line": start, "end_line": end})
    if kind == "edit":
        return "replace", _clean({"file_path": f["file_path"], "old_string": f["old_string"], "new_string": f["new_string"], "allow_multiple": f.get("all")})
    return "write_file", {"file_path": f["file_path"], "content": f["content"]}


def map_call(app: str, name: Any, tool_input: Any) -> tuple[Any, Any]:
    """The (name, input) a call should have in a session written for ``app``:
    a call of another app's tool becomes the matching tool of ``app``; any
    other call is returned as it is."""
    if app not in OWN_TOOLS or not isinstance(name, str) or name in OWN_TOOLS[app] or not isinstance(tool_input, dict):
        return name, tool_input
    found = _canonical(name, tool_input)
    if found is None:
        return name, tool_input
    mapped = _render(app, *found)
    return mapped if mapped is not None else (name, tool_input)


class Renames:
    """Counts the calls a writer renamed, for one warning at the end."""

    def __init__(self, app: str, enabled: bool = True) -> None:
        self.app = app
        self.enabled = enabled
        self.counts: dict[tuple[str, str], int] = {}

    def __call__(self, name: Any, tool_input: Any) -> tuple[Any, Any]:
        if not self.enabled:
            return name, tool_input
        new_name, new_input = map_call(self.app, name, tool_input)
        if new_name != name:
            key = (name, new_name)
            self.counts[key] = self.counts.get(key, 0) + 1
        return new_name, new_input

    def report(self, warn) -> None:
        if self.counts:
            done = ", ".join(f"{a} -> {b} ({n})" for (a, b), n in sorted(self.counts.items()))
            warn(f"tool calls renamed to {self.app}'s own tools: {done} (--keep-tool-names writes them as they were)")


def _keep_option():
    from sessionport.registry import Option

    return Option(
        name="keep_tool_names",
        flags=("--keep-tool-names",),
        help="Claude Code, Codex, Gemini CLI: write tool calls under their original names instead of the target app's own tools (Bash, exec_command, run_shell_command ...).",
        is_flag=True,
    )


KEEP_TOOL_NAMES = _keep_option()
