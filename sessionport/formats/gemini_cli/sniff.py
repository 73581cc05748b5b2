"""How a gemini-cli session file, log or checkpoint is told from its first bytes.

Apart from the reader, so that detecting the format of an input imports no
reader but the one that reads it.
"""

from __future__ import annotations

from typing import Any

import orjson

from sessionport.jsonl import BOM
from sessionport.lazy import lazy

_KEY = lazy(rb'"([A-Za-z$_]+)"\s*:')


def _first_line(head: bytes) -> tuple[bytes, bool]:
    """The first non-blank line of ``head`` and whether it is complete."""
    if head.startswith(BOM):
        head = head[3:]
    head = head.lstrip(b" \t\r\n")
    end = head.find(b"\n")
    if end < 0:
        return head.rstrip(b"\x00 \t\r"), False
    return head[:end].rstrip(b" \t\r"), True


def _parse(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def sniff(head: bytes) -> int:
    line, complete = _first_line(head)
    if not line.startswith(b"{"):
        return 0
    record = _parse(line) if complete or len(line) < len(head) else None
    if isinstance(record, dict):
        if isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
            return 92
        if record.get("type") == "init" and isinstance(record.get("session_id"), str) and "model" in record and len(record) <= 6:
            return 90  # the stream-json output of ``gemini -p``
        if isinstance(record.get("id"), str) and record.get("type") in ("user", "gemini", "info", "error", "warning") and "content" in record and "message" not in record:
            return 60
        if "$set" in record or "$rewindTo" in record:
            return 60
        return 0
    probe = head[:4096]
    if b'"projectHash"' in probe and b'"sessionId"' in probe:
        return 90
    keys = [m.group(1) for m in _KEY.finditer(probe[:512])]
    if keys and keys[0] in (b"history", b"clientHistory") and (b'"parts"' in head or b'"toolCall"' in head or b'"clientHistory"' in head):
        return 80
    return 0
