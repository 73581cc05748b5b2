"""Reading one loose tool-call entry: the first-match field rules of AgentScope's
Session JSON adapter, and the sessionport/v1 messages an entry becomes.

Each field is taken from the first key of its list that holds a usable
value (see docs/formats/session-json.md for the table).  An entry becomes a
``tool_use`` message and, when it has output, a ``tool_result`` message with
the same (given or synthesized) ``toolCallId``.  Entries that name no
supported action return nothing and are counted as skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

from sessionport.agentscope.time import iso, parse_timestamp
from sessionport.agentscope.tools import command_text, inspect_tool, looks_like_patch
from sessionport.model import message_event

NAME_KEYS = ("tool", "toolName", "tool_name", "name", "type", "action")
INPUT_KEYS = ("input", "tool_input", "arguments", "args", "params", "request")
FILE_KEYS = ("file", "path", "file_path", "filepath", "target_file")
COMMAND_KEYS = ("command", "cmd")
DIFF_KEYS = ("diff", "patch")
OUTPUT_KEYS = ("output", "stdout", "stderr", "content", "result", "response", "tool_result")
TIME_KEYS = ("timestamp", "time", "startedAt", "started_at", "created_at")
END_TIME_KEYS = ("endedAt", "ended_at", "completedAt", "completed_at", "finished_at")
DURATION_KEYS = ("duration", "elapsed", "durationMs", "duration_ms", "elapsed_ms")
CALL_ID_KEYS = ("call_id", "callId", "tool_call_id", "toolCallId", "tool_use_id", "toolUseId", "id")
RESULT_ID_KEYS = ("tool_use_id", "toolUseId", "call_id", "callId", "tool_call_id", "toolCallId")
EXIT_KEYS = ("exit_code", "exitCode", "returncode", "exit_status", "status_code")
# A matched name this generic defers to ``function.name`` (OpenAI tool-call shape).
GENERIC_NAMES = frozenset(("function", "tool", "tool_call", "tool_use", "function_call", "call", "step", "event", "action"))
RESULT_TYPES = frozenset(("tool_result", "function_call_output", "tool_output", "custom_tool_call_output", "result"))
ERROR_STATUSES = frozenset(("error", "failed", "failure", "errored", "cancelled", "canceled"))
_DURATION_TEXT = re.compile(r"^\s*(?:(\d+(?:\.\d+)?)\s*h)?\s*(?:(\d+(?:\.\d+)?)\s*m(?!s))?\s*(?:(\d+(?:\.\d+)?)\s*s)?\s*(?:(\d+(?:\.\d+)?)\s*ms)?\s*$")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def first_string(source: dict, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        found = _text(source.get(key))
        if found:
            return found
    return None


def stringify(value: Any) -> str:
    """Output of any shape as text: strings as they are, blocks by their text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [stringify(item) if not isinstance(item, dict) else _block_text(item) for item in value]
        return "\n".join(p for p in parts if p)
    if isinstance(value, dict):
        return _block_text(value)
    return orjson.dumps(value).decode()


def _block_text(block: dict) -> str:
    for key in ("text", "content", "message", "output", "stdout"):
        if isinstance(block.get(key), (str, list)):
            return stringify(block[key])
    if block.get("type") in ("image", "input_image"):
        return f"[image: {block.get('media_type') or block.get('mime_type') or 'image'}]"
    return orjson.dumps(block).decode()


def duration_ms(entry: dict) -> float | None:
    for key in DURATION_KEYS:
        value = entry.get(key)
        if isinstance(value, bool) or value is None:
            continue
        in_ms = key.lower().endswith("ms")
        if isinstance(value, (int, float)):
            return float(value) if in_ms else float(value) * 1000
        if isinstance(value, str):
            match = _DURATION_TEXT.match(value)
            if match and any(match.groups()):
                h, m, s, ms = (float(g) if g else 0.0 for g in match.groups())
                return ((h * 60 + m) * 60 + s) * 1000 + ms
            try:
                number = float(value)
            except ValueError:
                continue
            return number if in_ms else number * 1000
    return None


def _timestamp(entry: dict, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = entry.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            moment = parse_timestamp(value)
            if moment is not None:
                return iso(moment)
    return None


def _input(entry: dict) -> tuple[dict, str | None]:
    """The input object, or a raw string input; JSON-in-a-string arguments are parsed."""
    sources = [entry]
    if isinstance(entry.get("function"), dict):
        sources.append(entry["function"])
    for source in sources:
        for key in INPUT_KEYS:
            value = source.get(key)
            if isinstance(value, dict):
                return dict(value), None
            if isinstance(value, str) and value.strip():
                stripped = value.strip()
                if stripped.startswith("{"):
                    try:
                        parsed = orjson.loads(stripped)
                    except orjson.JSONDecodeError:
                        parsed = None
                    if isinstance(parsed, dict):
                        return parsed, None
                return {}, value
    return {}, None


def tool_name(entry: dict) -> str | None:
    for key in NAME_KEYS:
        value = entry.get(key)
        if isinstance(value, dict):
            value = value.get("name")
        name = _text(value)
        if name:
            function = entry.get("function")
            if name.lower() in GENERIC_NAMES and isinstance(function, dict) and _text(function.get("name")):
                return function["name"]
            return name
    function = entry.get("function")
    return _text(function.get("name")) if isinstance(function, dict) else None


def output_of(entry: dict) -> str | None:
    for key in OUTPUT_KEYS:
        value = entry.get(key)
        if value is None or value == "" or value == [] or value == {}:
            continue
        text = stringify(value)
        if key == "stdout" and _text(entry.get("stderr")):
            text = f"{text}\n{entry['stderr']}" if text else entry["stderr"]
        return text or None
    return None


def error_flag(entry: dict) -> bool | None:
    for key in ("is_error", "isError"):
        if isinstance(entry.get(key), bool):
            return entry[key]
    if isinstance(entry.get("error"), bool):
        return entry["error"]
    if isinstance(entry.get("success"), bool):
        return not entry["success"]
    status = entry.get("status")
    if isinstance(status, str) and status.lower() in ERROR_STATUSES:
        return True
    return None


def exit_code(entry: dict) -> int | None:
    for key in EXIT_KEYS:
        value = entry.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


@dataclass
class EntryFacts:
    """One entry read with the adapter's rules."""

    name: str | None
    tool_input: dict
    output: str | None
    timestamp: str | None
    call_id: str | None
    meta: dict = field(default_factory=dict)
    result_meta: dict = field(default_factory=dict)
    is_error: bool | None = None
    end_timestamp: str | None = None


def read_entry(entry: dict) -> EntryFacts:
    data, raw = _input(entry)
    file = first_string(entry, FILE_KEYS) or first_string(data, FILE_KEYS)
    command = command_text(next((entry[k] for k in COMMAND_KEYS if k in entry), None))
    command = command or command_text(next((data[k] for k in COMMAND_KEYS if k in data), None))
    diff = first_string(entry, DIFF_KEYS) or first_string(data, DIFF_KEYS)
    name = tool_name(entry)
    if raw is not None:
        if looks_like_patch(raw):
            diff = diff or raw
        elif command is None and inspect_tool(name, {}).kind == "shell":
            command = raw
        else:
            data["input"] = raw
    # Fields found beside the input join it under the names the exporter reads.
    if file and not first_string(data, FILE_KEYS):
        data["file_path"] = file
    if command and not any(k in data for k in COMMAND_KEYS):
        data["command"] = command
    if diff and not first_string(data, DIFF_KEYS):
        data["diff"] = diff

    meta: dict[str, Any] = {"kind": "tool_use"}
    for key, target in (("title", "title"), ("summary", "summary"), ("description", "summary")):
        if _text(entry.get(key)) and target not in meta:
            meta[target] = entry[key]
    if isinstance(entry.get("details"), list) and all(isinstance(d, str) for d in entry["details"]):
        meta["details"] = entry["details"]
    if entry.get("risk") in ("low", "medium", "high"):
        meta["risk"] = entry["risk"]
    duration = duration_ms(entry)
    if duration is not None:
        meta["durationMs"] = duration
    result_meta: dict[str, Any] = {"kind": "tool_result"}
    code = exit_code(entry)
    if code is not None:
        result_meta["exitCode"] = code
    call_id = next((str(entry[k]) for k in CALL_ID_KEYS if isinstance(entry.get(k), (str, int)) and not isinstance(entry.get(k), bool) and str(entry[k])), None)
    return EntryFacts(
        name=name,
        tool_input=data,
        output=output_of(entry),
        timestamp=_timestamp(entry, TIME_KEYS),
        call_id=call_id,
        meta=meta,
        result_meta=result_meta,
        is_error=error_flag(entry),
        end_timestamp=_timestamp(entry, END_TIME_KEYS),
    )


def entry_messages(entry: Any, index: int, known_calls: set[str]) -> tuple[list[dict], str | None]:
    """The messages of one entry, or ``([], reason)`` when it is skipped.

    ``index`` numbers synthesized call ids; ``known_calls`` holds the ids of
    calls already read, so a separate result entry (``tool_result`` /
    ``function_call_output`` naming a known call) joins its call.
    """
    if not isinstance(entry, dict):
        return [], f"non-object entry ({type(entry).__name__})"
    facts = read_entry(entry)
    classified = inspect_tool(facts.name or "", facts.tool_input, strict=True)
    if classified.action is None:
        linked = next((str(entry[k]) for k in RESULT_ID_KEYS if isinstance(entry.get(k), str) and entry[k] in known_calls), None)
        if linked and (facts.output is not None or (facts.name or "").lower() in RESULT_TYPES):
            result = message_event(
                "tool", facts.output or "", timestamp=facts.timestamp, toolCallId=linked,
                isError=facts.is_error, meta=facts.result_meta,
            )
            return [result], None
        return [], facts.name or "entry without a tool name, command, file or diff"
    name = facts.name or ("shell" if classified.kind == "shell" else classified.action)
    call_id = facts.call_id or f"call_{index + 1}"
    if call_id in known_calls:
        call_id = f"{call_id}#{index + 1}"
    known_calls.add(call_id)
    target = classified.command or classified.file or classified.url or classified.pattern or ""
    text = f"{name}: {target}" if target else name
    messages = [
        message_event(
            "tool", text, timestamp=facts.timestamp, toolName=name, toolCallId=call_id,
            toolInput=facts.tool_input, meta=facts.meta,
        )
    ]
    if facts.output is not None or facts.result_meta.get("exitCode") is not None or facts.is_error:
        messages.append(
            message_event(
                "tool", facts.output or "", timestamp=facts.end_timestamp,
                toolName=name, toolCallId=call_id, isError=facts.is_error, meta=facts.result_meta,
            )
        )
    return messages, None
