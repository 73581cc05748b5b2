"""The session of a loose tool-call log: title, agent, branch and the other
top-level keys, and the detection score of such a log.

The score is deliberately low: session-json accepts almost any JSON, so
every format with a real signature (openai-chat ``{"messages":[{role,
content}]}``, portable, Claude Code, Codex) must win over it.  It reaches
its highest value only when entries show tool-call keys and no chat
``role``.
"""

from __future__ import annotations

import os
from typing import Any

import orjson

from sessionport.jsonl import first_json_line
from sessionport.model import session_event
from sessionport.lazy import lazy

ENTRY_KEYS = ("events", "messages", "actions", "entries", "toolCalls", "tool_calls", "steps")
TITLE_KEYS = ("title", "task", "summary")
HEADER_KEYS = frozenset(TITLE_KEYS + ("agent", "branch", "cwd", "workdir", "sessionId", "session_id", "metadata", "model"))
INFERENCE_SAMPLE = 8
SCORE_TOOL_LOG = 40
SCORE_TOOL_ARRAY = 35
SCORE_TOOL_LINES = 30
SCORE_BARE_LOG = 10
SCORE_CHAT_LIKE = 3

_ARRAY_KEY = lazy(rb'"(' + b"|".join(k.encode() for k in ENTRY_KEYS) + rb')"\s*:\s*\[')
_TOOL_KEY = lazy(rb'"(tool|toolName|tool_name|command|cmd|file_path|tool_input|toolCalls|tool_calls|arguments|call_id)"\s*:')
_ROLE_KEY = lazy(rb'"role"\s*:')
_TOOL_FIELDS = frozenset(("tool", "toolName", "tool_name", "command", "cmd", "tool_input", "function"))
_OTHER_FORMATS = frozenset(("session", "message", "end", "response_item", "event_msg", "session_meta", "turn_context",
                            "user", "assistant", "summary", "system"))


def _line_score(value: Any) -> int:
    if not isinstance(value, dict) or "role" in value or value.get("type") in _OTHER_FORMATS:
        return 0
    # imported here: sniffing another format's input never gets this far
    from sessionport.agentscope.tools import ACTION_TYPES

    if _TOOL_FIELDS & value.keys() or value.get("type") in ACTION_TYPES:
        return SCORE_TOOL_LINES
    return 0


def sniff(head: bytes) -> int:
    try:
        start = head.lstrip(b"\xef\xbb\xbf \t\r\n")
        if start.startswith(b"["):
            if _ROLE_KEY.search(head):
                return 0
            return SCORE_TOOL_ARRAY if _TOOL_KEY.search(head) else 0
        if not start.startswith(b"{"):
            return 0
        first = first_json_line(head)
        if isinstance(first, dict) and b"\n" in start.rstrip():
            # One object per line: the first line is an entry or a header.
            score = _line_score(first)
            if score == 0 and HEADER_KEYS & first.keys() and "role" not in first and "type" not in first:
                rest = start.split(b"\n", 1)[1]
                score = _line_score(first_json_line(rest))
            return score
        if not _ARRAY_KEY.search(head):
            return _line_score(first)
        if _ROLE_KEY.search(head):
            return SCORE_CHAT_LIKE
        return SCORE_TOOL_LOG if _TOOL_KEY.search(head) else SCORE_BARE_LOG
    except Exception:  # a sniffer never raises
        return 0


def _string(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def title_of(header: dict, file_name: str | None) -> str | None:
    for key in TITLE_KEYS:
        found = _string(header.get(key))
        if found:
            return found
    metadata = header.get("metadata")
    if isinstance(metadata, dict) and _string(metadata.get("title")):
        return metadata["title"].strip()
    return file_name


def explicit_agent(header: dict) -> str | None:
    for holder in (header, header.get("metadata"), header.get("session")):
        if not isinstance(holder, dict):
            continue
        value = holder.get("agent")
        if isinstance(value, dict):
            value = value.get("name")
        if _string(value):
            return value.strip()
    return None


def infer_agent(header: dict, sample: list[Any]) -> str | None:
    """``Claude Code`` or ``Codex`` when their names appear in the first entries or the header."""
    scalars = {k: v for k, v in header.items() if isinstance(v, str)}
    text = orjson.dumps([scalars, sample[:INFERENCE_SAMPLE]], default=str).decode().lower()
    if "claude" in text:
        return "Claude Code"
    if "codex" in text:
        return "Codex"
    return None


def branch_of(header: dict) -> str | None:
    for holder in (header, header.get("metadata")):
        if isinstance(holder, dict) and _string(holder.get("branch")):
            return holder["branch"].strip()
    git = header.get("git")
    if isinstance(git, dict) and _string(git.get("branch")):
        return git["branch"].strip()
    return None


def _created_at(header: dict) -> str | None:
    from sessionport.agentscope.time import iso, parse_timestamp

    for key in ("startedAt", "started_at", "created_at", "createdAt", "timestamp", "time"):
        value = header.get(key)
        if isinstance(value, str) and value.strip():
            return value
        moment = parse_timestamp(value) if isinstance(value, (int, float)) else None
        if moment is not None:
            return iso(moment)
    return None


def stated_duration(header: dict) -> dict:
    """The run's own duration, as the log states it: ``{"duration": "9m 18s"}``
    for a string (kept as written, as AgentScope keeps it), ``{"durationMs": n}``
    for a number (seconds, or milliseconds under a ``...ms`` key).  Top-level
    keys come first, then the same keys under ``metadata``."""
    from sessionport.agentscope.session_json_fields import DURATION_KEYS, duration_ms

    for holder in (header, header.get("metadata")):
        if not isinstance(holder, dict):
            continue
        for key in DURATION_KEYS:
            value = holder.get(key)
            if isinstance(value, str) and value.strip():
                return {"duration": value.strip()}
            milliseconds = duration_ms({key: value}) if isinstance(value, (int, float)) else None
            if milliseconds is not None and milliseconds >= 0:
                return {"durationMs": milliseconds}
    return {}


def file_name(ctx_name: str, path: str | None) -> str | None:
    if path is None and ctx_name.startswith("<"):
        return None
    return os.path.basename(path or ctx_name) or None


def build_session(header: dict, sample: list[Any], first_timestamp: str | None, name: str | None, shape: str) -> dict:
    metadata: dict[str, Any] = {"shape": shape}
    agent = explicit_agent(header)
    if agent is None:
        agent = infer_agent(header, sample)
        if agent:
            metadata["agentInferred"] = True
    if agent:
        metadata["agent"] = agent
    branch = branch_of(header)
    if branch:
        metadata["branch"] = branch
    for key in ("model", "cost", "duration"):
        value = header.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            metadata[key] = value
    metadata.update(stated_duration(header))
    session_id = next((str(header[k]) for k in ("sessionId", "session_id", "id") if isinstance(header.get(k), (str, int)) and not isinstance(header.get(k), bool)), None)
    cwd = _string(header.get("cwd")) or _string(header.get("workdir"))
    return session_event(
        "session-json",
        sessionId=session_id,
        cwd=cwd,
        createdAt=_created_at(header) or first_timestamp,
        title=title_of(header, name),
        metadata=metadata,
    )
