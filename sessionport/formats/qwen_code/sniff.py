"""How a Qwen Code session log is told from its first bytes.

Apart from the reader, so that detecting the format of an input imports no
reader but the one that reads it.
"""

from __future__ import annotations

from sessionport.jsonl import first_json_line

RECORD_TYPES = frozenset(("user", "assistant", "tool_result", "system"))
_ENVELOPE = ("uuid", "sessionId", "parentUuid", "timestamp")


def sniff(head: bytes) -> int:
    first = first_json_line(head)
    if not isinstance(first, dict) or first.get("type") not in RECORD_TYPES:
        return 0
    if sum(1 for key in _ENVELOPE if key in first) < 2:
        return 0
    message = first.get("message")
    if isinstance(message, dict) and isinstance(message.get("parts"), list) and "content" not in message:
        return 97  # Gemini parts in Claude Code's envelope: only Qwen Code writes that
    if first.get("type") == "system" and isinstance(first.get("systemPayload"), dict):
        return 97
    if first.get("type") == "system" and isinstance(first.get("managedSession"), dict):
        return 97  # a managed session's journal record (managed_session_*_v1)
    if first.get("type") == "tool_result" and isinstance(first.get("toolCallResult"), dict):
        return 97
    return 0
