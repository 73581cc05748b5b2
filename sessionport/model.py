"""The events of the ``sessionport/v1`` stream.

Events are plain dicts: they cost nothing to build, orjson serializes them
directly, and user scripts read them without importing our classes.  The
helpers below fix the key order (so output is byte-stable) and drop unknown
fields instead of writing nulls.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

SCHEMA = "sessionport/v1"
ROLES = ("user", "assistant", "system", "tool")
KINDS = ("text", "thinking", "tool_use", "tool_result", "summary", "compaction")

MESSAGE_FIELDS = (
    "role",
    "text",
    "timestamp",
    "id",
    "parentId",
    "toolName",
    "toolCallId",
    "toolInput",
    "isError",
    "meta",
)

Event = dict


def session_event(
    source: str,
    sessionId: str | None = None,
    cwd: str | None = None,
    createdAt: str | None = None,
    title: str | None = None,
    metadata: dict | None = None,
) -> dict:
    event: dict[str, Any] = {"type": "session", "schema": SCHEMA, "source": source}
    if sessionId is not None:
        event["sessionId"] = sessionId
    if cwd is not None:
        event["cwd"] = cwd
    if createdAt is not None:
        event["createdAt"] = createdAt
    if title is not None:
        event["title"] = title
    event["metadata"] = metadata if metadata is not None else {}
    return event


def message_event(
    role: str,
    text: str = "",
    *,
    timestamp: str | None = None,
    id: str | None = None,
    parentId: str | None = None,
    toolName: str | None = None,
    toolCallId: str | None = None,
    toolInput: Any = None,
    isError: bool | None = None,
    meta: dict | None = None,
    **_unknown: Any,
) -> dict:
    """A message event; ``None``-valued fields are left out, never written as null.
    Fields are spelled out in ``MESSAGE_FIELDS`` order rather than looped over:
    importers call this once per message, and this form costs half as much.
    Unknown keyword fields are ignored."""
    event: dict[str, Any] = {"type": "message", "role": role, "text": text}
    if timestamp is not None:
        event["timestamp"] = timestamp
    if id is not None:
        event["id"] = id
    if parentId is not None:
        event["parentId"] = parentId
    if toolName is not None:
        event["toolName"] = toolName
    if toolCallId is not None:
        event["toolCallId"] = toolCallId
    if toolInput is not None:
        event["toolInput"] = toolInput
    if isError is not None:
        event["isError"] = isError
    if meta is not None:
        event["meta"] = meta
    return event


def end_event(**fields: Any) -> dict:
    event: dict[str, Any] = {"type": "end"}
    for key, value in fields.items():
        if value is not None:
            event[key] = value
    return event


def human_size(n: int | float) -> str:
    """A byte count as placeholders show it (``[image: image/png, 1.2 MB]``),
    in decimal units, the same in every format."""
    if n < 1000:
        return f"{int(n)} B"
    if n < 1_000_000:
        return f"{n / 1000:.1f} KB"
    if n < 1_000_000_000:
        return f"{n / 1_000_000:.1f} MB"
    return f"{n / 1_000_000_000:.1f} GB"


def kind_of(event: dict) -> str:
    meta = event.get("meta")
    if meta and "kind" in meta:
        return meta["kind"]
    return "text"


def sealed_reasoning(event: dict) -> bool:
    """A thinking message with no text whose reasoning is kept only
    encrypted (``meta.encryptedContent``: Codex, the Responses API).  Only
    OpenAI's API reads it; a writer for another app leaves it out and says
    how many."""
    meta = event.get("meta")
    if meta.__class__ is not dict or meta.get("kind") != "thinking" or not meta.get("encryptedContent"):
        return False
    text = event.get("text")
    return not text or (text.__class__ is str and text.isspace())


def iter_sessions(events: Iterable[dict]) -> Iterator[tuple[dict, list[dict]]]:
    """Group a stream into (session, messages) pairs; end events are left
    out.  Buffers one session: only for code that needs a whole session."""
    session: dict | None = None
    messages: list[dict] = []
    for event in events:
        kind = event.get("type")
        if kind == "session":
            if session is not None:
                yield session, messages
            session, messages = event, []
        elif kind == "message":
            if session is None:
                session = session_event("unknown")
            messages.append(event)
    if session is not None:
        yield session, messages


_ROLE_SET = frozenset(ROLES)


def message_problem(event: dict) -> str | None:
    """Why ``event`` is not a valid message (role and text), or None.  Cheap:
    the portable readers call it on every message."""
    role = event.get("role")
    if type(role) is not str or role not in _ROLE_SET:
        return f"expected a role of {', '.join(ROLES)}, found {role!r}"
    if type(event.get("text")) is not str:
        return f"expected the message text to be a string, found {type(event.get('text')).__name__}"
    return None
