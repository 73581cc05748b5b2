"""Helpers for tests that feed an importer bytes held in memory.

``read_bytes_with(openai_chat.read, data)`` runs an importer's ``read`` on a
buffered in-memory stream, the way the CLI hands it a decompressed file;
``messages`` and ``kind`` pick out what most assertions look at.
"""

from __future__ import annotations

import io
from typing import Callable, Iterable, Iterator

from sessionport.context import ReadContext


def read_bytes_with(
    read: Callable[..., Iterator[dict]],
    data: bytes,
    warnings: list[str] | None = None,
    name: str = "<test>",
    **ctx_fields,
) -> list[dict]:
    """All events of ``data``; warnings are collected in ``warnings`` when given."""
    on_warning = warnings.append if warnings is not None else (lambda message: None)
    ctx = ReadContext(name=name, on_warning=on_warning, **ctx_fields)
    return list(read(io.BufferedReader(io.BytesIO(data)), ctx))


def messages(events: Iterable[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "message"]


def kind(event: dict) -> str | None:
    return (event.get("meta") or {}).get("kind")


def sessions_of(events: list[dict]) -> list[tuple[dict, list[dict], dict | None]]:
    """``(session, messages, end event or None)`` for each session of a stream."""
    out: list[list] = []
    for event in events:
        if event["type"] == "session":
            out.append([event, [], None])
        elif event["type"] == "message":
            out[-1][1].append(event)
        elif event["type"] == "end":
            out[-1][2] = event
    return [tuple(s) for s in out]
