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
from typing import Any, BinaryIO, Iterable, Iterator

from sessionport.context import WriteContext
from sessionport.pipeline import stream
from sessionport.pipeline.stream import one_session_only

__all__ = ["dumps", "loads", "one_session_only", "read", "write", "write_events"]


class ReadEvents:
    """The events of one input, read as they are iterated (the input is
    opened at the first event, closed after the last).  Handed to
    :func:`write`, :func:`write_events` or :func:`dumps` for Markdown or
    HTML before anything was taken from it, it first asks the file for its
    late title, as ``convert`` does, so the heading carries the title the
    app shows instead of a note at the end."""

    def __init__(self, source: str | None, options: dict[str, Any]) -> None:
        self._source = source
        self._options = options
        self._events: Iterator[dict] | None = None

    def _titled_for(self, format: str | None) -> "ReadEvents":
        if self._events is None:
            self._options["options"] = stream.heading_options(format, self._options.get("options"))
        return self

    def __iter__(self) -> "ReadEvents":
        return self

    def __next__(self) -> dict:
        if self._events is None:
            self._events = stream.read(self._source, **self._options)
        return next(self._events)

    def close(self) -> None:
        """Stop reading: the input is closed now, not when collected."""
        if self._events is not None and hasattr(self._events, "close"):
            self._events.close()


def read(source: str | None = None, *, heading_title: bool = False, **options: Any) -> ReadEvents:
    """Yield the events of ``source`` (a path, URL, ``-`` or None for
    stdin); ``format``, ``strict``, ``skip_bad``, ``options`` and
    ``context`` as :func:`sessionport.pipeline.stream.read` takes them.
    ``heading_title``: the first session's title is the one its file
    records last (the one the app shows), its ``end.title`` left out; what
    ``convert`` reads for Markdown and HTML, and what :func:`write` asks
    for itself when given these events untouched."""
    events = ReadEvents(source, options)
    return events._titled_for("markdown") if heading_title else events


def _ready(events: Iterable[dict], format: str) -> Iterable[dict]:
    return events._titled_for(format) if isinstance(events, ReadEvents) else events


def write_events(events: Iterable[dict], out: BinaryIO, *, format: str, options: dict[str, Any] | None = None, context: WriteContext | None = None) -> WriteContext:
    """Write ``events`` to the binary stream ``out`` in ``format`` (see
    :func:`sessionport.pipeline.stream.write_events`)."""
    return stream.write_events(_ready(events, format), out, format=format, options=options, context=context)


def write(events: Iterable[dict], dest: str | BinaryIO | None = None, *, format: str = "portable-jsonl", options: dict[str, Any] | None = None, inputs: Iterable[str | None] = ()) -> WriteContext:
    """Write ``events`` to ``dest`` (a path, written atomically; a binary
    stream; None for stdout) in ``format`` (see
    :func:`sessionport.pipeline.stream.write`)."""
    return stream.write(_ready(events, format), dest, format=format, options=options, inputs=inputs)


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
        return list(stream.read(handle.name, format=format, options=options))
    finally:
        os.unlink(handle.name)
