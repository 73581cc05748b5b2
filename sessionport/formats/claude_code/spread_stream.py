"""An assistant ``message`` that is a response stream spread into an object.

Claude Code 2.1.8x run through the Agent SDK against a proxy that answers in
server-sent events it could not parse saved the raw response body spread
into the message object, one key per character (``{"0": "e", "1": "v", …,
"content": []}``): the answer itself (text, thinking, tool calls) is only in
those characters.  :func:`rebuilt_message` joins them and replays the
Messages API stream events into the message Claude Code would have written.
"""

from __future__ import annotations

from typing import Any

import orjson

# The key a spread string starts with; a message of the API has none like it.
FIRST_KEY = "0"


def is_spread(message: Any) -> bool:
    return isinstance(message, dict) and isinstance(message.get(FIRST_KEY), str) and "role" not in message


def _joined(message: dict) -> str:
    parts: list[str] = []
    index = 0
    while True:
        part = message.get(str(index))
        if not isinstance(part, str):
            return "".join(parts)
        parts.append(part)
        index += 1


def rebuilt_message(message: dict) -> dict | None:
    """The assistant message the stream in ``message`` holds, or None when
    its characters are not a Messages API event stream."""
    text = _joined(message)
    start: dict | None = None
    blocks: dict[int, dict] = {}
    partial: dict[int, list[str]] = {}
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        try:
            data = orjson.loads(line[5:].strip())
        except orjson.JSONDecodeError:
            continue  # the closing "[DONE]", or a torn event
        if not isinstance(data, dict):
            continue
        kind = data.get("type")
        if kind == "message_start" and isinstance(data.get("message"), dict):
            start = dict(data["message"])
        elif kind == "content_block_start" and isinstance(data.get("content_block"), dict) and isinstance(data.get("index"), int):
            blocks[data["index"]] = dict(data["content_block"])
        elif kind == "content_block_delta" and isinstance(data.get("delta"), dict):
            block = blocks.get(data.get("index"))
            if block is None:
                continue
            delta = data["delta"]
            dtype = delta.get("type")
            if dtype == "text_delta" and isinstance(delta.get("text"), str):
                block["text"] = f"{block.get('text') or ''}{delta['text']}"
            elif dtype == "thinking_delta" and isinstance(delta.get("thinking"), str):
                block["thinking"] = f"{block.get('thinking') or ''}{delta['thinking']}"
            elif dtype == "signature_delta" and isinstance(delta.get("signature"), str):
                block["signature"] = delta["signature"]
            elif dtype == "input_json_delta" and isinstance(delta.get("partial_json"), str):
                partial.setdefault(data["index"], []).append(delta["partial_json"])
        elif kind == "message_delta" and start is not None:
            delta = data.get("delta")
            if isinstance(delta, dict):
                for key in ("stop_reason", "stop_sequence"):
                    if key in delta:
                        start[key] = delta[key]
            usage = data.get("usage")
            if isinstance(usage, dict):
                merged = dict(start.get("usage") or {}) if isinstance(start.get("usage"), dict) else {}
                merged.update({k: v for k, v in usage.items() if v is not None})
                start["usage"] = merged
    if start is None:
        return None
    for index, pieces in partial.items():
        raw = "".join(pieces)
        try:
            value = orjson.loads(raw) if raw else {}
        except orjson.JSONDecodeError:
            value = {"value": raw}  # a call cut off mid-stream keeps what came
        blocks[index]["input"] = value if isinstance(value, dict) else {"value": value}
    start["content"] = [blocks[i] for i in sorted(blocks)]
    start.setdefault("role", "assistant")
    return start
