"""Pieces shared by the provider message-list importers (Anthropic, OpenAI).

Placeholders for binary content, a short readable rendering of tool
arguments, tool arguments that arrive as (sometimes doubly) JSON-encoded
strings, OpenAI content parts and tool calls, epoch timestamps, and the
text the provider exporters write for a tool call that has no recorded result
(so that re-importing such a document does not invent a result the source
never had).
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any, Callable

import orjson

from sessionport.model import message_event
from sessionport.model import human_size

# Written by the provider exporters as the result of a call whose result the
# stream did not hold: the APIs reject a call without a result.  The
# importers recognise it and drop it again (counted in the end event).
MISSING_RESULT_TEXT = "[sessionport: no result was recorded for this tool call]"

_RENDER_KEYS = ("command", "cmd", "file_path", "path", "filePath", "pattern", "query", "url", "description", "prompt", "input")
_RENDER_LIMIT = 200
_DATA_URL = re.compile(r"^data:([^;,]+)?(;base64)?,", re.ASCII)


def base64_size(data: Any) -> int | None:
    """Decoded size of a base64 string without decoding it."""
    if not isinstance(data, str):
        return None
    padding = len(data) - len(data.rstrip("="))
    return max(0, len(data) * 3 // 4 - padding)


def placeholder(kind: str, media_type: Any = None, size: int | None = None, label: Any = None) -> str:
    """``[image: image/png, 1.0 MB]`` and friends; never the payload itself.
    Values that are not strings (malformed input) are left out."""
    parts = [p for p in (media_type, human_size(size) if size is not None else None, label) if isinstance(p, str) and p]
    return f"[{kind}: {', '.join(parts)}]" if parts else f"[{kind}]"


def url_placeholder(kind: str, url: Any, media_type: str | None = None) -> str:
    """An image or file given by URL: a ``data:`` URL becomes a sized
    placeholder, a real URL is kept (it is a reference, not a payload)."""
    if not isinstance(url, str):
        return placeholder(kind, media_type)
    match = _DATA_URL.match(url)
    if match:
        data = url[match.end():]
        size = base64_size(data) if match.group(2) else len(data)
        return placeholder(kind, match.group(1) or media_type, size)
    return placeholder(kind, media_type, label=url)


def render_tool_input(tool_input: Any) -> str:
    """A short readable line for a tool call: the command, path or query if
    the arguments have one, else compact JSON cut to a readable length."""
    if isinstance(tool_input, dict):
        for key in _RENDER_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                return value if len(value) <= _RENDER_LIMIT else value[:_RENDER_LIMIT] + "…"
        if not tool_input:
            return ""
    text = tool_input if isinstance(tool_input, str) else dumps_text(tool_input)
    return text if len(text) <= _RENDER_LIMIT else text[:_RENDER_LIMIT] + "…"


def parse_arguments(raw: Any) -> tuple[dict | None, str | None]:
    """``(toolInput, rawArguments)`` from OpenAI ``arguments``.

    Arguments are a JSON string, sometimes JSON-encoded twice; an object
    comes back as ``toolInput``.  Anything else (invalid JSON, a bare
    string or list) keeps its raw text so nothing is lost.
    """
    if isinstance(raw, dict):
        return raw, None
    if not isinstance(raw, str):
        return None, (None if raw is None else dumps_text(raw))
    value: Any = raw
    for _ in range(2):  # a second pass unwraps double-encoded arguments
        if not isinstance(value, str):
            break
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            break
    if isinstance(value, dict):
        return value, None
    return None, raw


def openai_part(part: Any, text_types: tuple[str, ...], media: Callable[[Any, dict], tuple[str, str] | None]) -> tuple[str, dict]:
    """``(text, meta)`` of one OpenAI content part: a string or a text part as
    text, a refusal flagged, a media part as ``media(type, part)`` renders it
    (its placeholder text and attachment kind), anything else a placeholder
    that keeps the whole part in ``meta``."""
    if isinstance(part, str):
        return part, {"kind": "text"}
    if not isinstance(part, dict):
        return text_of(part), {"kind": "text"}
    ptype = part.get("type")
    if ptype in text_types:
        return text_of(part.get("text")), {"kind": "text"}
    if ptype == "refusal":
        return text_of(part.get("refusal")), {"kind": "text", "refusal": True}
    rendered = media(ptype, part)
    if rendered is not None:
        return rendered[0], {"kind": "text", "attachment": rendered[1]}
    return placeholder(str(ptype)), {"kind": "text", "part": part}


def openai_call_event(body: dict, call_id: Any, custom: bool, more_meta: dict | None = None) -> dict:
    """The tool_use event of an OpenAI tool call (a Chat Completions
    ``tool_calls`` entry or a Responses ``function_call`` item): ``body``
    holds ``name`` and the ``arguments`` string, or a custom tool's free-form
    ``input``.  ``more_meta`` goes after the call's own meta keys."""
    meta: dict = {"kind": "tool_use"}
    if custom:
        tool_input, raw = {"input": body.get("input")}, None
        meta["customTool"] = True
    else:
        tool_input, raw = parse_arguments(body.get("arguments"))
    if raw is not None:
        meta["rawArguments"] = raw
    if more_meta:
        meta.update(more_meta)
    return message_event(
        "tool",
        render_tool_input(tool_input if tool_input is not None else raw or ""),
        toolName=body.get("name") if isinstance(body.get("name"), str) else "",
        toolCallId=nonempty_str(call_id),
        toolInput=tool_input,
        meta=meta,
    )


def iso_from_epoch(value: Any) -> str | None:
    """ISO-8601 UTC for epoch seconds or milliseconds (Cline's ``ts``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    seconds = value / 1000 if value > 1e11 else value
    try:
        moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def dumps_text(value: Any) -> str:
    """Compact JSON text of any parsed value (integers beyond 64 bits too)."""
    try:
        return orjson.dumps(value).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def nonempty_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def web_url(value: Any) -> str | None:
    """``value`` when it is an ``http(s)`` link (not a data URL, not base64),
    else None; only its first bytes are looked at."""
    return value if isinstance(value, str) and value[:8].lower().startswith(("https://", "http://")) else None


def text_of(value: Any) -> str:
    """Text of a value that may be a string, a list of text parts or null."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        pieces = []
        for part in value:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict):
                for key in ("text", "refusal", "output"):
                    if isinstance(part.get(key), str):
                        pieces.append(part[key])
                        break
        return "\n".join(pieces)
    return dumps_text(value)


def compact_extras(block: dict, known: tuple[str, ...]) -> dict | None:
    """The keys of ``block`` this importer does not map, for ``meta`` (nulls
    and empty lists say nothing and are left out).  Opaque strings such as
    signatures are kept verbatim."""
    extras = {k: v for k, v in block.items() if k not in known and v is not None and v != []}
    return extras or None
