"""One AgentScope action from a tool call (and its result), or from a summary.

An action has exactly the trace schema's keys: ``id, type, title,
timestamp, duration, risk, summary, details`` and, when known, ``file,
command, output, diff``.  Values a transcript does not hold are the string
``unknown`` (the schema requires a string; AgentScope's own validator also
rejects an empty one).  Explicit ``meta.title``, ``meta.summary``,
``meta.details`` and ``meta.risk`` on a tool call (set by the session-json
importer from loose logs) are kept as given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sessionport.agentscope.trace_writer import DEFAULT_MAX_OUTPUT
from sessionport.agentscope.outcome import CommandResult, command_outcome, unwrap_output
from sessionport.agentscope.risk import RISKS, action_risk
from sessionport.agentscope.time import format_duration, parse_timestamp, span_ms
from sessionport.agentscope.tools import (
    EDIT_FILE,
    GENERATE_SUMMARY,
    READ_FILE,
    RUN_COMMAND,
    TEST_FAILED,
    TEST_PASSED,
    ToolFacts,
    clean_name,
    inspect_tool,
)

UNKNOWN = "unknown"
TITLE_LIMIT = 100
SUMMARY_LIMIT = 300


@dataclass
class Built:
    """An action and what the run totals need from it."""

    action: dict
    files: list[str]


def one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def shorten(text: str, limit: int, *, keep_tail: bool) -> tuple[str, bool]:
    """Cut ``text`` to ``limit`` characters; test output keeps its end, where verdicts are."""
    if limit <= 0 or len(text) <= limit:
        return text, False
    omitted = len(text) - limit
    if keep_tail:
        half = limit // 2
        return f"{text[:half]}\n… [{omitted} characters omitted] …\n{text[-(limit - half):]}", True
    return f"{text[:limit]}\n… [{omitted} characters omitted]", True


def _meta(message: dict | None) -> dict:
    meta = message.get("meta") if message else None
    return meta if isinstance(meta, dict) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _plan_text(data: dict) -> str | None:
    """TodoWrite / update_plan arguments as readable lines."""
    items = data.get("todos") or data.get("plan")
    lines = []
    if isinstance(data.get("explanation"), str):
        lines.append(data["explanation"])
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict):
                step = item.get("content") or item.get("step") or item.get("subject") or ""
                status = item.get("status")
                lines.append(f"[{status}] {step}" if status else str(step))
    for key in ("plan", "subject", "description", "summary"):
        if isinstance(data.get(key), str):
            lines.append(data[key])
    return "\n".join(lines) or None


def _title(kind_type: str, facts: ToolFacts, data: dict) -> str:
    name = facts.name or "tool"
    if kind_type == READ_FILE:
        if facts.kind == "web":
            return f"Fetch {facts.url}" if facts.url else f"Search the web: {facts.pattern or ''}".strip()
        if facts.kind == "search":
            where = f" in {facts.file}" if facts.file else ""
            return f"Search {facts.pattern!r}{where}" if facts.pattern else f"List {facts.file or name}"
        return f"Read {facts.file}" if facts.file else f"Call {name}"
    if kind_type == EDIT_FILE:
        if len(facts.files) > 1:
            return f"Patch {len(facts.files)} files"
        verb = "Write" if name.lower() in ("write", "write_file", "create_file") else "Edit"
        return f"{verb} {facts.file}" if facts.file else f"Edit with {name}"
    if kind_type in (TEST_PASSED, TEST_FAILED):
        return f"Tests {'passed' if kind_type == TEST_PASSED else 'failed'}: {facts.command or name}"
    if kind_type == GENERATE_SUMMARY:
        return "Update plan" if facts.kind == "plan" else "Write summary"
    if facts.kind == "agent":
        task = data.get("description") or data.get("prompt") or data.get("message")
        return f"Delegate to sub-agent: {task}" if isinstance(task, str) else f"Delegate to sub-agent ({name})"
    if facts.mcp:
        parts = [p for p in name.split("__") if p and p != "mcp"]
        return f"Call {parts[0]} tool {parts[-1]}" if len(parts) > 1 else f"Call MCP tool {name}"
    if facts.command:
        return f"Run {facts.command}"
    return f"Call {name}"


def _diff_counts(diff: str) -> tuple[int, int]:
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def _summary(kind_type: str, facts: ToolFacts, title: str, exit_code: int | None, output: str | None) -> str:
    if kind_type == READ_FILE and facts.kind == "read" and facts.file:
        text = f"Read {facts.file}"
    elif kind_type == EDIT_FILE:
        text = f"Changed {', '.join(facts.files[:3]) or 'a file'}" + (" and more" if len(facts.files) > 3 else "")
        if facts.diff:
            added, removed = _diff_counts(facts.diff)
            text += f" (+{added} -{removed} lines)"
    elif kind_type in (TEST_PASSED, TEST_FAILED, RUN_COMMAND) and facts.command:
        text = f"Ran `{one_line(facts.command, 120)}`"
        if kind_type != RUN_COMMAND:
            text += "; the tests " + ("passed" if kind_type == TEST_PASSED else "failed")
        elif exit_code is not None:
            text += f"; it exited with code {exit_code}"
    elif kind_type == GENERATE_SUMMARY and output:
        text = output
    else:
        text = title
    return one_line(text, SUMMARY_LIMIT).rstrip(".") + "."


def _evidence(facts: ToolFacts, exit_code: int | None, is_error: Any, risk: str, reason: str | None, unanswered: bool) -> list[str]:
    """The ``details`` of an action: what a reviewer can check the summary against."""
    details = [f"Tool: {facts.name or 'unknown'}"]
    if len(facts.files) > 1:
        details.append("Files: " + ", ".join(facts.files[:20]) + (" …" if len(facts.files) > 20 else ""))
    if facts.workdir:
        details.append(f"Working directory: {facts.workdir}")
    if exit_code is not None:
        details.append(f"Exit code: {exit_code}")
    if is_error:
        details.append("The tool reported an error.")
    if facts.deletes:
        details.append("The patch deletes a file.")
    if reason:
        details.append(f"Risk {risk}: {reason}.")
    if unanswered:
        details.append("No result was recorded for this call.")
    return details


def tool_action(use: dict, result: dict | None, cwd: str | None, max_output: int = DEFAULT_MAX_OUTPUT) -> Built:
    """The action of one tool call; ``result`` is its tool_result message, if any."""
    meta = _meta(use)
    data = use.get("toolInput") if isinstance(use.get("toolInput"), dict) else {}
    facts = inspect_tool(use.get("toolName"), use.get("toolInput"))
    text = use.get("text")
    if facts.command is None and facts.kind == "shell" and not use.get("toolInput") and isinstance(text, str):
        # A shell call logged with its command only as the message text.  Text
        # that merely restates the tool's name is no command.
        if text.strip() and text.strip() != clean_name(use.get("toolName")):
            facts.command = text
    result_meta = _meta(result)
    raw_output = result.get("text") if result else None
    is_error = result.get("isError") if result else None
    outcome = CommandResult(raw_output or None)
    action_type = facts.action or RUN_COMMAND
    if action_type == RUN_COMMAND and facts.kind == "shell":
        outcome = unwrap_output(raw_output)
        code = result_meta.get("exitCode")
        if isinstance(code, int) and not isinstance(code, bool):
            outcome.exit_code = code
        action_type = command_outcome(facts.command, outcome, is_error)
    forced = clean_name(use.get("toolName")).lower()
    if forced in (TEST_PASSED, TEST_FAILED):
        action_type = forced
    if action_type == GENERATE_SUMMARY and not outcome.output:
        outcome.output = _plan_text(data)

    risk, reason = action_risk(action_type, facts, cwd)
    if meta.get("risk") in RISKS:
        risk, reason = meta["risk"], None

    duration = _number(meta.get("durationMs"))
    if duration is None:
        duration = outcome.duration_ms
    if duration is None:
        duration = _number(result_meta.get("durationMs"))
    if duration is None and _number(result_meta.get("durationSeconds")) is not None:
        duration = _number(result_meta.get("durationSeconds")) * 1000
    if duration is None and result is not None:
        duration = span_ms(parse_timestamp(use.get("timestamp")), parse_timestamp(result.get("timestamp")))

    title = meta["title"] if isinstance(meta.get("title"), str) and meta["title"].strip() else _title(action_type, facts, data)
    title = one_line(title, TITLE_LIMIT)
    summary = meta.get("summary")
    if not (isinstance(summary, str) and summary.strip()):
        summary = _summary(action_type, facts, title, outcome.exit_code, outcome.output)

    given = meta.get("details")
    if isinstance(given, list) and all(isinstance(d, str) for d in given):
        details = list(given)
    else:
        details = _evidence(facts, outcome.exit_code, is_error, risk, reason, result is None)

    action: dict[str, Any] = {
        "id": "",
        "type": action_type,
        "title": title or UNKNOWN,
        "timestamp": use.get("timestamp") if isinstance(use.get("timestamp"), str) else UNKNOWN,
        "duration": format_duration(duration) or UNKNOWN,
        "risk": risk,
        "summary": summary,
        "details": details,
    }
    if facts.file:
        action["file"] = facts.file
    if facts.command and action_type in (RUN_COMMAND, TEST_PASSED, TEST_FAILED):
        action["command"] = facts.command
    if outcome.output:
        text, cut = shorten(outcome.output, max_output, keep_tail=action_type != GENERATE_SUMMARY)
        action["output"] = text
        if cut:
            details.append(f"Output shortened from {len(outcome.output)} to {max_output} characters.")
    if facts.diff and action_type == EDIT_FILE:
        text, cut = shorten(facts.diff, max_output, keep_tail=False)
        action["diff"] = text
        if cut:
            details.append(f"Diff shortened from {len(facts.diff)} to {max_output} characters.")
    files = facts.files if action_type == EDIT_FILE else []
    return Built(action, files)


def summary_action(message: dict, title: str, max_output: int = DEFAULT_MAX_OUTPUT) -> Built:
    """A ``generate_summary`` action from a summary or final assistant message."""
    text = message.get("text") or ""
    output, cut = shorten(text, max_output, keep_tail=False)
    details = [f"From the {message.get('role', 'assistant')} message of kind {_meta(message).get('kind', 'text')}."]
    if cut:
        details.append(f"Text shortened from {len(text)} to {max_output} characters.")
    action = {
        "id": "",
        "type": GENERATE_SUMMARY,
        "title": title,
        "timestamp": message.get("timestamp") if isinstance(message.get("timestamp"), str) else UNKNOWN,
        "duration": UNKNOWN,
        "risk": "low",
        "summary": one_line(text, SUMMARY_LIMIT) or title,
        "details": details,
    }
    if output:
        action["output"] = output
    return Built(action, [])
