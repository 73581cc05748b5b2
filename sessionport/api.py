"""The Python API: read any input as events, write events in any format.

>>> import sessionport
>>> events = sessionport.read("fixtures/portable/small.json")   # doctest: +SKIP
>>> sessionport.write(events, "out.md", format="markdown")       # doctest: +SKIP
"""

from __future__ import annotations

import io
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from sessionport.context import ReadContext, WriteContext
from sessionport.detect import detect, is_blank
from sessionport.errors import UsageError
from sessionport.io import Input, open_input, open_output, spool_to_file
from sessionport.registry import Exporter, get_registry


def _seekable_opener(inp: Input) -> Callable[[], BinaryIO]:
    def open_seekable() -> BinaryIO:
        if inp.path and not inp.compression:
            handle = open(inp.path, "rb")
            inp._closers.append(handle.close)
            return handle
        spool = spool_to_file(inp.stream)
        inp._closers.append(spool.close)
        return spool

    return open_seekable


def read(
    source: str | None = None,
    *,
    format: str | None = None,
    strict: bool = False,
    skip_bad: bool = False,
    options: dict[str, Any] | None = None,
    context: ReadContext | None = None,
) -> Iterator[dict]:
    """Yield the events of ``source`` (a path, ``-`` or None for stdin).

    The input is opened when iteration starts and closed when it ends, so a
    generator can be built long before it runs.  ``format`` overrides
    detection.  Pass a :class:`ReadContext` to collect warnings and counts.
    """
    registry = get_registry()
    importer = registry.importer(format) if format else None
    inp = open_input(source)
    ctx = context or ReadContext()
    ctx.name, ctx.path = inp.name, inp.path
    ctx.position, ctx.size = inp.bytes_read, inp.size
    ctx.strict, ctx.skip_bad = strict or ctx.strict, skip_bad or ctx.skip_bad
    if options:
        ctx.options.update(options)
    ctx.open_seekable = _seekable_opener(inp)
    try:
        if importer is None:
            if is_blank(inp.head):
                ctx.warn("the input is empty; no sessions in it")
                return
            importer = detect(inp.head, inp.name, registry)
        ctx.options.setdefault("_format", importer.name)
        yield from importer.read(inp.stream, ctx)
        _report_damage(inp, ctx)
        ctx.report_bad()
    finally:
        inp.close()


def _report_damage(inp: Input, ctx: ReadContext) -> None:
    """A compressed input that was cut off is a torn tail (a warning, an
    error with ``--strict``); one damaged inside is an unreadable rest (an
    error, or counted with ``--skip-bad``).  Either way everything before
    the damage has been read."""
    if inp.damage is None:
        return
    if inp.corrupt:
        ctx.bad_record(inp.damage, hint="what came before the damage was read; --skip-bad keeps it and exits 0")
        ctx.warn(f"{inp.damage}; everything before it was read")  # with --skip-bad only: bad_record raised otherwise
    else:
        ctx.damaged_tail(inp.damage)


def one_session_only(events: Iterable[dict], exporter: Exporter) -> Iterator[dict]:
    """Pass events through, failing at a second session for formats that hold one."""
    seen = 0
    for event in events:
        if event.get("type") == "session":
            seen += 1
            if seen > 1:
                raise UsageError(
                    f"the {exporter.name} format holds one session and this stream has several; "
                    "pick one with --session ID, or write a file per session with `sessionport split`"
                )
        yield event


def write_events(
    events: Iterable[dict],
    out: BinaryIO,
    *,
    format: str,
    options: dict[str, Any] | None = None,
    context: WriteContext | None = None,
) -> None:
    """Write ``events`` to the binary stream ``out`` in ``format``."""
    exporter = get_registry().exporter(format)
    ctx = context or WriteContext()
    if options:
        ctx.options.update(options)
    if not exporter.multi_session:
        events = one_session_only(events, exporter)
    exporter.write(events, out, ctx)


def write(
    events: Iterable[dict],
    dest: str | BinaryIO | None = None,
    *,
    format: str = "portable-jsonl",
    options: dict[str, Any] | None = None,
    inputs: Iterable[str | None] = (),
) -> None:
    """Write ``events`` to ``dest``: a path (written atomically), a binary
    stream, or None for stdout."""
    if dest is not None and not isinstance(dest, str):
        write_events(events, dest, format=format, options=options)
        return
    with open_output(dest, list(inputs)) as out:
        write_events(events, out, format=format, options=options, context=WriteContext(name=dest or "<stdout>"))


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
