"""How a Codex rollout of any era is told from its first bytes.

Apart from the reader, so that detecting the format of an input imports no
reader but the one that reads it.
"""

from __future__ import annotations


from sessionport.jsondoc import head_tokens
from sessionport.jsonl import BOM, first_json_line
from sessionport.lazy import lazy

_ENVELOPE_HEAD = lazy(rb'\s*\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"([a-z_]+)","payload":\{')
_ITEM_TYPES = frozenset(("message", "reasoning", "function_call", "function_call_output", "local_shell_call"))


def sniff(head: bytes) -> int:
    try:
        return _sniff(head)
    except Exception:  # a sniffer never raises, whatever the bytes
        return 0


def _sniff(head: bytes) -> int:
    if head.startswith(BOM):
        head = head[3:]
    first = first_json_line(head)
    if isinstance(first, dict):
        if isinstance(first.get("session"), dict) and isinstance(first.get("items"), list):
            return 85  # a TypeScript-era document written on one line
        if first.get("type") == "thread.started" and isinstance(first.get("thread_id"), str) and len(first) == 2:
            return 90  # the event stream of ``codex exec --json``
        payload = first.get("payload")
        if isinstance(payload, dict) and "timestamp" in first:
            kind = first.get("type")
            if kind == "session_meta":
                return 95
            if kind in ("response_item", "event_msg", "turn_context", "compacted"):
                return 70  # a rollout without its first line
            return 0
        if "id" in first and "timestamp" in first and "type" not in first and "role" not in first:
            if "instructions" in first or "git" in first:
                return 85
            return 40 if _later_lines_are_items(head) else 0
        return 0
    match = _ENVELOPE_HEAD.match(head)
    if match:  # a first line longer than the head (huge base instructions)
        return 90 if match.group(1) == b"session_meta" else 65
    return _sniff_document(head)


def _later_lines_are_items(head: bytes) -> bool:
    for line in head.split(b"\n")[1:4]:
        if b'"record_type"' in line[:40] or any(f'"type":"{t}"'.encode() in line[:60] for t in _ITEM_TYPES):
            return True
    return False


def _sniff_document(head: bytes) -> int:
    """The TypeScript-era document: ``{"session": {...}, "items": [...]}``."""
    if not head.lstrip()[:1] == b"{":
        return 0
    top: set[str] = set()
    session_keys: set[str] = set()
    for prefix, event, value in head_tokens(head):  # a cut head: what was read is enough
        if event == "map_key":
            if prefix == "":
                top.add(value)
            elif prefix == "session":
                session_keys.add(value)
    if "session" in top and session_keys >= {"id", "timestamp"}:
        return 85 if "items" in top or "instructions" in session_keys else 60
    if top and top <= {"session", "items"} and "items" in top:
        return 50
    return 0
