"""The Python API: read any input as events, write events in any format.

>>> import sessionport
>>> events = sessionport.read("fixtures/portable/small.json")   # doctest: +SKIP
>>> sessionport.write(events, "out.md", format="markdown")       # doctest: +SKIP

These are the two ends of the pipeline (:mod:`sessionport.pipeline.stream`),
the same code every command runs; :func:`sessionport.pipeline.run.run` joins
them for many inputs.
"""

from __future__ import annotations

import io
from typing import Any, Iterable

from sessionport.pipeline.stream import one_session_only, read, write, write_events

__all__ = ["dumps", "loads", "one_session_only", "read", "write", "write_events"]


def dumps(events: Iterable[dict], format: str = "portable-jsonl", **options: Any) -> bytes:
    """Render ``events`` in ``format`` to bytes (small streams, tests)."""
    buffer = io.BytesIO()
    write_events(events, buffer, format=format, options=options)
    return buffer.getvalue()


def loads(data: bytes, format: str | None = None, **options: Any) -> list[dict]:
    """Read the events of an in-memory document (small inputs, tests)."""
    import os
    import tempfile

    with tempfile.NamedTemporaryFile(delete=False) as handle:
        handle.write(data)
    try:
        return list(read(handle.name, format=format, options=options))
    finally:
        os.unlink(handle.name)
