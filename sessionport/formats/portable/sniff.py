"""How the sessionport/v1 document (``portable``) and the wire format
(``portable-jsonl``) are told from their first bytes.

Apart from the reader, so that detecting the format of an input imports no
reader but the one that reads it.
"""

from __future__ import annotations

from sessionport.jsondoc import head_tokens
from sessionport.jsonl import first_json_line
from sessionport.model import SCHEMA

_SCHEMA_KEY = b'"schema"'


def sniff(head: bytes) -> int:
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n[")
    if not start.startswith(b"{"):
        return 0
    marker = f'"{SCHEMA}"'.encode()
    probe = start[:4096]
    if _SCHEMA_KEY in probe and marker in probe and b'"messages"' in head:
        return 95
    if marker in head and b'"messages"' in head and b'"type":"session"' not in head[:200]:
        return 50
    if _portable_messages(head):
        return 60
    return 0


def _portable_messages(head: bytes) -> bool:
    """Whether the first message of a ``messages`` array has the portable
    shape (``role`` and ``text``, no ``content`` or ``parts``): a document
    whose header follows its messages, or that has none.  Provider message
    lists always carry ``content`` (or ``parts``, ``tool_calls``)."""
    if b'"messages"' not in head or b'"text"' not in head:
        return False
    keys: set[str] = set()
    for prefix, event, value in head_tokens(head):
        if event == "map_key" and prefix in ("messages.item", "item.messages.item"):
            keys.add(value)
        elif event == "end_map" and prefix in ("messages.item", "item.messages.item"):
            break
        elif event == "map_key" and prefix in ("", "item") and value != "messages" and keys:
            break
    return {"role", "text"} <= keys and not keys & _PROVIDER_KEYS


_PROVIDER_KEYS = frozenset(("content", "parts", "tool_calls", "function_call", "tool_call_id"))


EVENT_TYPES = frozenset(("session", "message", "end"))


def sniff_jsonl(head: bytes) -> int:
    """The score of ``portable-jsonl``, the wire format."""
    first = first_json_line(head)
    if isinstance(first, dict):
        if first.get("type") == "session" and first.get("schema") == SCHEMA:
            return 100
        if first.get("type") in EVENT_TYPES and "role" in first:
            return 60
    return 0
