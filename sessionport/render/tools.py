"""How a tool call reads best, for both readable exporters.

A shell command is shown as the command itself, an edit or a patch as a
unified diff, a file read as its path and line range, a plan or a prompt
(``ExitPlanMode``, ``Task``/``Agent``) as Markdown, code given to an
interpreter as code, anything else as pretty-printed JSON.  The shapes recognised are the
ones the importers produce from real files: Claude Code ``Bash``/``Edit``/
``MultiEdit``/``Write``, Codex ``shell`` (argv list), ``shell_command``,
``exec_command``, ``local_shell`` and ``apply_patch`` (free-form patch text).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import orjson

# difflib is quadratic on long inputs: past this many lines an edit is shown
# as all old lines removed and all new lines added.
DIFF_LINE_LIMIT = 2000
SHELL_NAMES = frozenset(
    {"bash", "shell", "shell_command", "exec_command", "local_shell", "local_shell_call", "run_shell_command", "run_terminal_cmd", "terminal", "execute_command", "container.exec"}
)
SHELL_KEYS = ("command", "cmd", "commands", "script")
PATCH_KEYS = frozenset({"input", "patch", "diff", "content", "raw"})  # where a patch may be
PATCH_MARKERS = ("*** Begin Patch", "diff --git ", "--- ", "Index: ")


@dataclass
class ToolView:
    """``kind`` is ``shell``, ``diff``, ``read`` (``body`` the path,
    ``detail`` the range), ``markdown``, ``code`` (``detail`` the language),
    ``json`` or ``text``; ``summary`` a one-line description for a collapsed
    view."""

    kind: str
    body: str
    summary: str = ""
    # an edit or patch a reader wants to see at once (a whole new file is not)
    expand: bool = False
    detail: str = ""


_LEADING_SPACE = re.compile(r"\s*").match
_ONLY_SPACE = re.compile(r"\s*\Z").match


def first_line(text: str) -> str:
    """The first line of ``text`` stripped: what ``text.strip()`` begins
    with up to its first line end, found without the copy ``strip`` makes
    (tool outputs run to megabytes); ``\\s`` is the whitespace of
    ``str.strip``."""
    if "\n" not in text:  # one line (most commands and labels): strip is all there is to do
        return text.strip()
    start = _LEADING_SPACE(text).end()
    end = text.find("\n", start)
    if end < 0 or _ONLY_SPACE(text, end) is not None:  # no line end before the trailing space
        return text[start:].rstrip()
    return text[start:end]


def _first_line(text: str, limit: int = 120) -> str:
    line = first_line(text)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _shell_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value:
        # Codex wraps scripts as ["bash", "-lc", "<script>"]: show the script
        # (checked first, without a pass over the list: nearly every Codex call)
        if len(value) == 3 and value[1] in ("-lc", "-c") and isinstance(value[0], str) and isinstance(value[2], str) and value[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh"):
            return value[2]
        if not all(isinstance(v, str) for v in value):
            return None
        import shlex  # lazily: kept out of every command's start-up

        return shlex.join(value)
    return None


def _shell_view(name: str, tool_input: dict) -> ToolView | None:
    """(A shell command: the caller has checked the name, see :func:`_name_views`.)"""
    action = tool_input.get("action")
    source = action if isinstance(action, dict) else tool_input
    for key in SHELL_KEYS:
        text = _shell_text(source.get(key))
        if text is not None:
            return ToolView("shell", text, _first_line(text))
    return None


def _diff_range(count: int) -> str:
    """A unified diff hunk's range of ``count`` (>= 1) lines from line 1, as difflib writes it."""
    return "1" if count == 1 else f"1,{count}"


def _hunk_range(start: int, stop: int) -> str:
    """A hunk's range of lines ``start:stop``, as difflib's unified_diff writes it."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if not length else start + 1},{length}"


def _edit_diff(path: str, old: str, new: str) -> list[str]:
    """The hunks of the unified diff of an edit, as pieces to join with line
    ends (a piece holds a run of lines: one join or replace per run instead
    of a string per line)."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    if len(old_lines) + len(new_lines) > DIFF_LINE_LIMIT:
        return ["@@ edit @@", "-" + old.replace("\n", "\n-"), "+" + new.replace("\n", "\n+")]
    if old_lines == new_lines:
        return ["@@ no change @@"]
    if set(old_lines).isdisjoint(new_lines):
        # No line in common (every one-line edit): difflib would find one
        # "replace" hunk, written here directly without its matcher.
        return [f"@@ -{_diff_range(len(old_lines))} +{_diff_range(len(new_lines))} @@", "-" + old.replace("\n", "\n-"), "+" + new.replace("\n", "\n+")]
    from difflib import SequenceMatcher  # lazily: kept out of every command's start-up

    # difflib.unified_diff's hunks (without its file header lines), from
    # the same matcher and grouping
    pieces = []
    for group in SequenceMatcher(None, old_lines, new_lines).get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        pieces.append(f"@@ -{_hunk_range(first[1], last[2])} +{_hunk_range(first[3], last[4])} @@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                pieces.append(" " + "\n ".join(old_lines[i1:i2]))
                continue
            if tag != "insert":  # replace or delete
                pieces.append("-" + "\n-".join(old_lines[i1:i2]))
            if tag != "delete":  # replace or insert
                pieces.append("+" + "\n+".join(new_lines[j1:j2]))
    return pieces or ["@@ no change @@"]


_WRITE_KEYS = frozenset({"file_path", "path", "content"})  # a whole file written: all its input


def _edit_view(tool_input: dict) -> ToolView | None:
    path = tool_input.get("file_path") or tool_input.get("path") or tool_input.get("notebook_path")
    if not isinstance(path, str):
        return None
    old = tool_input.get("old_string")
    if isinstance(old, str):
        new = tool_input.get("new_string")
        if isinstance(new, str):
            return ToolView("diff", "\n".join([f"--- a/{path}", f"+++ b/{path}", *_edit_diff(path, old, new)]), path, expand=True)
    edits = tool_input.get("edits")
    if isinstance(edits, list) and edits and all(isinstance(e, dict) for e in edits):
        lines = [f"--- a/{path}", f"+++ b/{path}"]
        for edit in edits:
            old, new = edit.get("old_string"), edit.get("new_string")
            if not isinstance(old, str) or not isinstance(new, str):
                return None
            lines += _edit_diff(path, old, new)
        return ToolView("diff", "\n".join(lines), f"{path} ({len(edits)} edits)", expand=True)
    content = tool_input.get("content")
    if isinstance(content, str) and _WRITE_KEYS.issuperset(tool_input):
        # Every line prefixed with "+", by one replace rather than per line.
        count = content.count("\n") + 1
        body = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{count} @@\n+" + content.replace("\n", "\n+")
        return ToolView("diff", body, f"{path} (new content)")
    return None


def _patch_text(tool_input: Any) -> str | None:
    if isinstance(tool_input, str):
        candidates = [tool_input]
    elif isinstance(tool_input, dict):
        if PATCH_KEYS.isdisjoint(tool_input):  # most calls: no loop over their fields
            return None
        candidates = [v for k, v in tool_input.items() if isinstance(v, str) and k in PATCH_KEYS]
    else:
        return None
    for text in candidates:
        if text.lstrip().startswith(PATCH_MARKERS):
            return text
    return None


# The lines patch_files reports, found by one scan instead of a loop over
# every line of the patch; searched in "\n" + patch, since a pattern that
# starts with a literal character is found several times faster than one
# that starts with a MULTILINE "^".
_PATCH_FILE_LINE = re.compile(r"\n(?:\*\*\* (?:Update|Add|Delete) File: |\+\+\+ b/)(.*)")


def patch_files(patch: str) -> list[str]:
    """The files a patch names (``*** Update/Add/Delete File:`` or ``+++ b/``
    lines), in order."""
    return [name.strip() for name in _PATCH_FILE_LINE.findall("\n" + patch)]


READ_NAMES = frozenset({"read", "read_file", "readfile", "view", "read_many_files"})
PROSE_NAMES = frozenset({"exitplanmode", "task", "agent", "update_plan"})
PROSE_KEYS = ("plan", "prompt")
CODE_KEYS = ("code",)


def _number(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_READ_KEYS = frozenset({"file_path", "path", "absolute_path", "offset", "limit", "pages"})  # a plain read: all its input


def _read_view(name: str, tool_input: dict) -> ToolView | None:
    """(A file read: the caller has checked the name, see :func:`_name_views`.)"""
    path = tool_input.get("file_path") or tool_input.get("path") or tool_input.get("absolute_path")
    if not isinstance(path, str) or not path or not _READ_KEYS.issuperset(tool_input):
        return None
    offset, limit = _number(tool_input.get("offset")), _number(tool_input.get("limit"))
    if offset is not None and limit is not None:
        detail = f"lines {offset:,}–{offset + limit - 1:,}"
    elif offset is not None:
        detail = f"from line {offset:,}"
    elif limit is not None:
        detail = f"first {limit:,} lines"
    else:
        detail = ""
    pages = tool_input.get("pages")
    if isinstance(pages, str) and pages:
        detail = " ".join(x for x in (detail, f"pages {pages}") if x)
    return ToolView("read", path, path + (f" ({detail})" if detail else ""), detail=detail)


def _prose_view(name: str, tool_input: dict) -> ToolView | None:
    for key in PROSE_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip() and (name.lower() in PROSE_NAMES or len(tool_input) <= 3):
            label = tool_input.get("description")
            summary = _first_line(label) if isinstance(label, str) and label.strip() else _first_line(value)
            kind = tool_input.get("subagent_type")
            if isinstance(kind, str) and kind:
                summary = f"{kind}: {summary}"
            return ToolView("markdown", value, summary)
    for key in CODE_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip() and len(tool_input) <= 3:
            lang = tool_input.get("language") or tool_input.get("lang") or "python"
            return ToolView("code", value, _first_line(value), detail=str(lang))
    return None


_NAME_VIEWS: dict = {}  # tool name -> (a shell name, a read name): a few names name every call
MAX_NAME_VIEWS = 256


def _name_views(name: str) -> tuple[bool, bool]:
    """Whether calls named ``name`` may be shell commands, and file reads."""
    views = _NAME_VIEWS.get(name)
    if views is None:
        lowered = name.lower()
        views = (lowered in SHELL_NAMES or lowered.endswith(("__bash", ".bash", "_shell")), lowered in READ_NAMES)
        if len(_NAME_VIEWS) < MAX_NAME_VIEWS:  # names come from the input: a bounded cache
            _NAME_VIEWS[name] = views
    return views


def view_tool_call(name: str | None, tool_input: Any, text: str = "") -> ToolView:
    """The readable form of one tool call."""
    name = name if name.__class__ is str or isinstance(name, str) else ""
    if tool_input.__class__ is dict or isinstance(tool_input, dict):
        shell, read = _name_views(name)
        view = (shell and _shell_view(name, tool_input)) or _edit_view(tool_input) or (read and _read_view(name, tool_input)) or _prose_view(name, tool_input)
        if view:
            return view
    patch = _patch_text(tool_input)
    if patch is not None:
        files = patch_files(patch)
        return ToolView("diff", patch.strip("\n"), ", ".join(files[:3]) + (" …" if len(files) > 3 else ""), expand=True)
    if tool_input is None or tool_input == {}:
        return ToolView("text", text, _first_line(text))
    if isinstance(tool_input, str):
        # free-form input (a custom tool's text): shown as it is
        return ToolView("text", tool_input, _first_line(text) if text else _first_line(tool_input))
    try:
        body = orjson.dumps(tool_input, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_INDENT_2).decode()
    except TypeError:  # values built in Python that JSON cannot hold (huge ints, objects)
        body = json.dumps(tool_input, default=repr, ensure_ascii=False, indent=2)
    return ToolView("json", body, _first_line(text) if text else _first_line(" ".join(body[:400].split()), 100))


# A diff line's CSS class from its first character: (longer prefix, class
# with it, class without).
DIFF_LINE_RULES = {"+": ("+++", "file", "add"), "-": ("---", "file", "del"), "*": ("*** ", "file", ""), "@": ("@@", "hunk", "")}


def diff_line_class(line: str) -> str:
    """CSS class of one diff line: add, del, hunk, file or ''."""
    rule = DIFF_LINE_RULES.get(line[:1])
    if rule is None:
        return ""
    return rule[1] if line.startswith(rule[0]) else rule[2]
