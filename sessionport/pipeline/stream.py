"""One stream, in the order its data flows: one input read as events, the
stages, the events written as one output.

:func:`read` opens an input (decompressing it), detects its format from the
first bytes unless one is given, and runs the importer.  :func:`apply_stages`
chains the stages.  :func:`write` passes events through the exporter into a
path (atomically), a binary stream or stdout.  ``sessionport.read``/``sessionport.write`` and every run
of :mod:`sessionport.pipeline.run` go through these two functions.
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Sequence

from sessionport.context import ReadContext, WriteContext
from sessionport.detect import detect, detect_input, is_blank
from sessionport.errors import UsageError
from sessionport.io import Input, open_input, open_output, spool_to_file
from sessionport.registry import Exporter, LossCounter, get_registry


def _seekable_opener(inp: Input) -> Callable[[], BinaryIO]:
    def open_seekable() -> BinaryIO:
        if inp.path and not inp.compression and not inp.encoding:
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
    run: Callable[[Any, BinaryIO, ReadContext], Iterable] | None = None,
    head: int | None = None,
) -> Iterator[dict]:
    """Yield the events of ``source`` (a path, URL, ``-`` or None for stdin).

    The input is opened when iteration starts and closed when it ends.
    ``format`` overrides detection.  ``run(importer, stream, ctx)``, when
    given, takes the place of ``importer.read`` (``inspect`` counts with the
    importer's census) and what it returns is yielded.  ``head``, when
    given, is how many bytes of the (decompressed) input are read at most:
    the reader then sees the input end there.
    """
    registry = get_registry()
    importer = registry.importer(format) if format else None
    inp = open_input(source)
    ctx = context or ReadContext()
    ctx.name, ctx.path = inp.name, inp.path
    ctx.position, ctx.size, ctx.compressed = inp.bytes_read, inp.size, inp.compression is not None
    ctx.strict, ctx.skip_bad = strict or ctx.strict, skip_bad or ctx.skip_bad
    if options:
        ctx.options.update(options)
    ctx.open_seekable = _seekable_opener(inp)
    try:
        if importer is None:
            if is_blank(inp.head):
                ctx.warn("the input is empty; no sessions in it")
                return
            importer = detect_input(inp, registry, lambda head, name, known: detect(head, name, known))
        ctx.options.setdefault("_format", importer.name)
        source_stream = inp.stream if head is None else _Head(inp.stream, head)
        if run is not None:
            items, found = run(importer, source_stream, ctx), _holds_messages
        else:
            items, found = importer.read(source_stream, ctx), _is_message
        if format and not is_blank(inp.head):
            items = _forced(items, found, importer, inp, ctx, registry)
        if ctx.options.get(HEADING_TITLE) and run is None:
            items = titled(items, importer, inp, mark=bool(ctx.options.get(FILE_SESSION)))
        yield from items
        _report_damage(inp, ctx)
        ctx.report_bad()
    finally:
        inp.close()


class _Head:
    """The first ``left`` bytes of a binary stream, as a stream that ends there."""

    def __init__(self, stream: BinaryIO, left: int) -> None:
        self._stream, self._left = stream, left

    def _size(self, size: int | None) -> int:
        return self._left if size is None or size < 0 else min(size, self._left)

    def _took(self, data: bytes) -> bytes:
        self._left -= len(data)
        return data

    def read(self, size: int | None = -1) -> bytes:
        return self._took(self._stream.read(self._size(size))) if self._left > 0 else b""

    def read1(self, size: int = -1) -> bytes:
        return self._took(self._stream.read1(self._size(size))) if self._left > 0 else b""

    def readline(self, size: int | None = -1) -> bytes:
        return self._took(self._stream.readline(self._size(size))) if self._left > 0 else b""

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")[: max(self._left, 0)]
        if not len(view):
            return 0
        got = self._stream.readinto(view) or 0
        self._left -= got
        return got

    def peek(self, size: int = 0) -> bytes:
        return self._stream.peek(size)[: self._left] if self._left > 0 else b""

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")

    def readable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


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


# A read option the runs into the readable exporters set: the first
# session event carries the title the app shows, found by the importer's
# title scan before the file is read (see sessionport.title_scan).
HEADING_TITLE = "_heading_title"
READABLE_FORMATS = frozenset(("markdown", "html"))
# A read option (set by the runs of one input into a readable format) and
# what :func:`titled` then adds to the first session event when it scanned
# a plain file: the file holds that session and the subagent sessions it
# announces (``metadata.subagents``), no other, as every format with a
# title scan keeps one session per file; the stream holds no other input's.
# Markdown written to a pipe streams its body when it knows no table of
# contents will have to go in front.
FILE_SESSION = "_file_session"


def heading_options(format: str | None, options: dict[str, Any] | None) -> dict[str, Any]:
    """The read options for output in ``format``: with :data:`HEADING_TITLE`
    when that format writes a heading (so a file's late title is in it, not
    in a note at the end), else ``options`` unchanged (as a new dict)."""
    options = dict(options or {})
    if format in READABLE_FORMATS:
        options[HEADING_TITLE] = True
    return options


def titled(items: Iterable[dict], importer, inp: Input, mark: bool = False) -> Iterator[dict]:
    """The events, the first session's title the one its file records
    last (when the input is a plain file and the importer can scan for
    it); that session's ``end.title``, then in its heading, is left out.
    With ``mark``, that first session event also carries :data:`FILE_SESSION`."""
    scan = importer.title_scan_function()
    path = inp.path
    if scan is None or not path or inp.compression or inp.encoding or not os.path.isfile(path):
        yield from items
        return
    title: str | None = None
    state = 0  # 0: before the first session, 1: in it, 2: after its end
    for event in items:
        if state < 2:
            kind = event.get("type")
            if kind == "session" and state == 0:
                state = 1
                try:
                    title = scan(path)
                except OSError:
                    title = None
                if title is not None and event.get("title") != title:
                    event = {**event, "title": title}
                if mark:
                    event = {**event, FILE_SESSION: True}
            elif kind == "session":
                state = 2
            elif kind == "end" and state == 1:
                state = 2
                if title is not None and event.get("title") == title:
                    event = {k: v for k, v in event.items() if k != "title"}
        yield event


def _is_message(event: dict) -> bool:
    return event.get("type") == "message"


def _holds_messages(summary: Any) -> bool:
    # What a ``run`` yields in place of events (inspect's session summaries).
    return bool(getattr(summary, "messages", 0))


def _forced(items: Iterable, found: Callable[[Any], bool], importer, inp: Input, ctx: ReadContext, registry) -> Iterator:
    """An importer named with ``--from``: when it finds no message in an
    input that is not empty, say so and what detection makes of it."""
    messages = 0
    for item in items:
        messages += found(item)
        yield item
    if messages:
        return
    from sessionport.detect import rank

    others = [imp.name for _, imp in rank(inp.head, registry) if imp.name != importer.name]
    guess = f"; it looks like {others[0]}: drop --from (or use --from {others[0]})" if others else "; try without --from to let detection choose"
    ctx.warn(f"--from {importer.name} found nothing it recognises in this input{guess}")


def apply_stages(events: Iterable[dict], stages: Sequence[Callable[[], Callable[[Iterable[dict]], Iterator[dict]]]]) -> Iterable[dict]:
    """``events`` through each stage in turn; a stage is built by its factory
    here, so every input of a batch gets fresh stage state."""
    for factory in stages:
        events = factory()(events)
    return events


def one_session_only(events: Iterable[dict], exporter: Exporter, ctx: WriteContext | None = None) -> Iterator[dict]:
    """Pass events through, failing at a second session for formats that hold one.

    With a write context, the subagent sessions that follow the first one
    (``metadata.parentSessionId`` naming it or one of its subagents, as the
    Claude Code and Gemini CLI importers read them from beside a session
    file) are left out, counted in ``ctx.losses`` and named in a warning: the
    conversation itself is whole without them (the parent holds each
    subagent's call and answer), and refusing the run would make
    ``convert session.jsonl --to codex`` fail for every session that ever
    started one.  Any other second session is still refused."""
    seen = 0
    family: set[str] = set()
    skipping = False
    left_sessions = left_messages = 0
    for event in events:
        if event.get("type") == "session":
            seen += 1
            sid = event.get("sessionId")
            if seen == 1:
                if isinstance(sid, str):
                    family.add(sid)
                skipping = False
            else:
                metadata = event.get("metadata")
                parent = metadata.get("parentSessionId") if isinstance(metadata, dict) else None
                if ctx is None or not isinstance(parent, str) or parent not in family:
                    raise UsageError(
                        f"the {exporter.name} format holds one session and this stream has several; "
                        "pick one with --session ID, or write a file per session with `sessionport split`"
                    )
                if isinstance(sid, str):
                    family.add(sid)
                skipping = True
                left_sessions += 1
                continue
        elif skipping:
            # Everything up to the next session, the subagent's own end included.
            left_messages += event.get("type") == "message"
            continue
        yield event
    if left_sessions and ctx is not None:
        ctx.losses["subagent sessions"] = ctx.losses.get("subagent sessions", 0) + left_sessions
        # not a LOSSES name: the report takes them off the messages written (batch.Tally)
        ctx.losses["subagent messages"] = ctx.losses.get("subagent messages", 0) + left_messages
        ctx.warn(
            f"{left_sessions} subagent session(s) ({left_messages} message(s)) left out: the {exporter.name} "
            "format holds one session per file; `sessionport split` writes each to a file of its own, "
            "--no-subagents leaves them out without this warning"
        )


def write_events(
    events: Iterable[dict],
    out: BinaryIO,
    *,
    format: str,
    options: dict[str, Any] | None = None,
    context: WriteContext | None = None,
) -> WriteContext:
    """Write ``events`` to the binary stream ``out`` in ``format``; the
    context returned holds what could not be carried (``losses``)."""
    exporter = get_registry().exporter(format)
    ctx = context or WriteContext()
    if options:
        ctx.options.update(options)
    if not exporter.multi_session:
        events = one_session_only(events, exporter, ctx)
    losses = LossCounter(exporter)
    exporter.write(losses.watch(events) if losses.losses else events, out, ctx)
    for name in ctx.carried:
        losses.counts.pop(name, None)
    ctx.losses.update(losses.counts)
    sentence = losses.sentence()
    if sentence:
        ctx.warn(sentence)
    return ctx


def write(
    events: Iterable[dict],
    dest: str | BinaryIO | None = None,
    *,
    format: str = "portable-jsonl",
    options: dict[str, Any] | None = None,
    inputs: Iterable[str | None] = (),
) -> WriteContext:
    """Write ``events`` to ``dest``: a path (written atomically, never onto
    one of ``inputs``), a binary stream, or None for stdout; returns the
    write's context (see :func:`write_events`)."""
    if dest is not None and not isinstance(dest, str):
        return write_events(events, dest, format=format, options=options)
    inputs = list(inputs)
    if dest is not None and inputs:
        from sessionport.pipeline.targets import OutputGuard

        OutputGuard(inputs).check(dest)
    with open_output(dest, inputs) as out:
        return write_events(events, out, format=format, options=options, context=WriteContext(name=dest or "<stdout>"))
