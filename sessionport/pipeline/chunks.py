"""One big input read by every core: cut at line ends, the pieces read in
worker processes, their outputs joined in order.

Only where the output can be the very bytes one process writes:

- the input is a plain file (not stdin, a URL or compressed: those are read
  as one stream) of at least ``SESSIONPORT_SPLIT_MIN_SIZE`` (64 MiB);
- its reader can start in the middle and prove it started in the right
  state (``SPLITTERS``; today Codex rollouts: see
  :mod:`sessionport.formats.codex.split`).  Claude Code's records form a
  tree by ``parentUuid`` (and ``--branch`` picks a path through it),
  documents are one JSON value: both are read in one process;
- the file holds no NUL bytes (the one warning about them belongs to the
  first place they are found).

Each worker writes its piece's events to a temporary file.  When the writer
keeps no state from one event to the next (portable-jsonl) and no stage sees
the stream, those files are the output: the parent copies them in order.
Otherwise (Markdown and HTML pair calls with results and write headers;
``--session``, ``--title``, filter and redact see the whole stream) the
pieces are written as portable-jsonl, and the parent reads their events back
in order and runs them through the stages and the writer as one process
would: the workers decode and normalise, the parent renders.

A progress bar (stderr a terminal) moves on as pieces are taken.

Anything else is read in one process as before, with a note on stderr when
``SESSIONPORT_DEBUG`` is set.  No process holds more than one piece's state.
On SIGINT or SIGTERM the workers end, the temporary files go, and ``-o`` is
left as it was.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
import time
from typing import Any, Callable

from sessionport.context import ReadContext, WriteContext
from sessionport.io import is_stdin, is_url, open_input, open_output
from sessionport.jsonl import BOM, parse_size
from sessionport.pipeline import batch
from sessionport.pipeline.signals import Terminated
from sessionport.registry import LossCounter, get_registry
from sessionport.sanitise import terminal

MIN_SIZE_ENV = "SESSIONPORT_SPLIT_MIN_SIZE"
CHUNK_SIZE_ENV = "SESSIONPORT_SPLIT_CHUNK_SIZE"
WARM_UP_ENV = "SESSIONPORT_SPLIT_WARM_UP"
DEFAULT_MIN_SIZE = 64 << 20
# Pieces per worker by default: several, so that the parent copies the
# first outputs while the last pieces are read, and a worker slowed by a
# busy machine holds up less.
PIECES_PER_WORKER = 4
MIN_CHUNK = 32 << 20
# The largest piece when this process writes the pieces' events (a Markdown
# or HTML writer, a stage): its output waits in a temporary file while the
# writer catches up.
MAX_WRITTEN_HERE_CHUNK = 128 << 20
# The largest piece when the pieces' own files are the output, and what
# the pieces read ahead of the one being copied may hold between them:
# their files wait in $TMPDIR (often a tmpfs, so memory) while the output
# takes the piece before them.  Without the bound a 100 GB rollout on two
# cores kept half of itself there.
MAX_COPIED_CHUNK = 256 << 20
AHEAD_BUDGET = 1 << 30
DEFAULT_WARM_UP = 1 << 20
# ... and at least this many lines, when they start within a few warm-ups.
WARM_UP_LINES = 8
WARM_UP_REACH = 4

SPLITTERS = {"codex": "sessionport.formats.codex.split"}
STATELESS_WRITERS = frozenset(("portable-jsonl",))
ONE_PROCESS = {
    "claude-code": "a Claude Code log is a tree of records by parentUuid (and --branch picks a path through it)",
}


def debug(message: str) -> None:
    if os.environ.get("SESSIONPORT_DEBUG"):
        print(terminal(f"sessionport: debug: {message}"), file=sys.stderr)


def _size_setting(name: str, default: int) -> int:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return parse_size(value)
    except ValueError as exc:
        from sessionport.errors import UsageError

        raise UsageError(f"{name}: {exc}") from None


def convert_in_pieces(source: Any, output: str | None, reading: Any, stages: Any, sink: Any, jobs: int | None) -> bool:
    """Convert one input in pieces when it can be; False (nothing written)
    when it is to be read in one process."""
    spec = source.spec if hasattr(source, "spec") else source
    workers = batch.worker_count(jobs)
    reason = _refusal(spec, reading, stages, sink, workers)
    if reason is not None:
        debug(f"{spec}: read in one process: {reason}")
        return False
    inp = open_input(spec)
    try:
        if inp.compression or inp.encoding or not inp.path:
            debug(f"{spec}: read in one process: compressed or UTF-16 input is read as one stream")
            return False
        registry = get_registry()
        importer = registry.importer(reading.format) if reading.format else _detect(inp)
        module = SPLITTERS.get(importer.name)
        if module is None:
            why = ONE_PROCESS.get(importer.name, f"the {importer.name} reader carries state that is not split")
            debug(f"{spec}: read in one process: {why}")
            return False
        splitter = importlib.import_module(module)
        why = splitter.refusal(inp.stream)
        if why is not None:
            debug(f"{spec}: read in one process: {why}")
            return False
        return _Split(splitter, inp, importer, reading, sink, output, workers, stages).run()
    finally:
        inp.close()


def _reads_all(factory: Any) -> bool:
    """Whether a stage factory (batch.stage_factory) builds a registered
    stage that pulls its whole input (``Stage.reads_all``), or a builder
    that says so itself (the CLI's --session/--title selection)."""
    build = getattr(factory, "func", None)
    if build is None:
        return False
    if getattr(build, "reads_all", False) is True:
        return True
    found = batch.registered_stage(factory)
    if found is None:
        return False
    stage, options = found
    return bool(stage.reads_all(options) if callable(stage.reads_all) else stage.reads_all)


def copies_pieces(stages: Any, sink: Any) -> bool:
    """Whether the pieces' own output is the output (else the parent reads
    their events back and writes them, see the module's doc)."""
    return not stages and sink.format in STATELESS_WRITERS and not LossCounter(get_registry().exporter(sink.format)).losses


def _detect(inp):
    from sessionport.detect import detect_input

    return detect_input(inp, get_registry())


def _refusal(spec: str | None, reading: Any, stages: Any, sink: Any, workers: int) -> str | None:
    if workers <= 1:
        return "--jobs 1"
    if is_stdin(spec):
        return "stdin is read as one stream"
    if is_url(spec):
        return "a URL is read as one stream"
    if stages and not all(_reads_all(factory) for factory in stages):
        return "a stage that may stop reading early (filter --head) sees the stream"
    path = spec[len("file://") :] if spec.startswith("file://") else spec
    try:
        size = os.stat(path).st_size
    except OSError:
        return "not a file"
    threshold = _size_setting(MIN_SIZE_ENV, DEFAULT_MIN_SIZE)
    if size < threshold:
        return f"smaller than {threshold} bytes ({MIN_SIZE_ENV})"
    return None


def _line_start(f, offset: int) -> int:
    """The first line start at or after ``offset``."""
    if offset <= 0:
        return 0
    f.seek(offset - 1)
    f.readline()
    return f.tell()


def _lines_back(f, start: int, lines: int, reach: int) -> int:
    """The start of the line ``lines`` lines before ``start`` (a line
    start), or of the earliest line that starts within ``reach`` bytes
    before it."""
    low = max(0, start - reach)
    f.seek(low)
    block = f.read(start - low)
    end = len(block) - 1  # the newline that ends the line before ``start``
    for _ in range(lines):
        found = block.rfind(b"\n", 0, max(end, 0))
        if found == -1:
            if low == 0:
                return 0
            earliest = low + block.find(b"\n") + 1
            return earliest if low < earliest < start else start
        end = found
    return low + end + 1


def cuts(path: str, size: int, chunk: int, warm_up: int) -> tuple[list[int], list[int]]:
    """Where the pieces start (line starts, never on a byte order mark) and
    where reading of each starts (its warm-up before it)."""
    starts = [0]
    with open(path, "rb") as f:
        offset = chunk
        while offset < size:
            start = _line_start(f, max(offset, starts[-1] + 1))
            while start < size:
                f.seek(start)
                if f.read(3) != BOM:
                    break
                start = _line_start(f, start + 1)
            if start >= size:
                break
            starts.append(start)
            offset = start + chunk
        windows = [0]
        for start in starts[1:]:
            window = _line_start(f, start - warm_up) if warm_up else start
            if warm_up and start - window < warm_up:
                window = min(window, _lines_back(f, start, WARM_UP_LINES, WARM_UP_REACH * warm_up))
            while window < start:
                f.seek(window)
                if f.read(3) != BOM:
                    break
                window = min(start, _line_start(f, window + 1))
            windows.append(window)
    return starts, windows


def _call(fn: Callable, *args: Any) -> Any:
    """Run in a worker: a signal ends the worker (see batch._worker_signal)."""
    batch._in_job = True
    try:
        return fn(*args)
    except Terminated as exc:
        os._exit(exc.exit_code)
    finally:
        batch._in_job = False


class _Split:
    def __init__(self, splitter, inp, importer, reading, sink, output, workers: int, stages: Any = ()) -> None:
        self.splitter, self.inp, self.importer = splitter, inp, importer
        self.reading, self.sink, self.output, self.workers = reading, sink, output, workers
        self.stages = tuple(stages or ())
        self.copy = copies_pieces(self.stages, sink)

    def run(self) -> bool:
        inp, reading = self.inp, self.reading
        self.cpu = time.process_time()
        self.planned = os.stat(inp.path)
        size = inp.size or self.planned.st_size
        chunk = max(MIN_CHUNK, -(-size // (self.workers * PIECES_PER_WORKER)))
        chunk = min(chunk, MAX_COPIED_CHUNK if self.copy else MAX_WRITTEN_HERE_CHUNK)
        chunk = _size_setting(CHUNK_SIZE_ENV, chunk)
        warm_up = _size_setting(WARM_UP_ENV, min(DEFAULT_WARM_UP, chunk)) if os.environ.get(WARM_UP_ENV) != "0" else 0
        starts, windows = cuts(inp.path, size, chunk, warm_up)
        if len(starts) < 2:
            debug(f"{inp.name}: read in one process: one piece")
            return False
        ctx = ReadContext(on_warning=lambda m: None) if reading.quiet else ReadContext()
        ctx.name, ctx.path, ctx.size = inp.name, inp.path, inp.size
        ctx.strict, ctx.skip_bad = reading.strict, reading.skip_bad
        ctx.options.update(reading.options)
        ctx.options.setdefault("_format", self.importer.name)
        self.ctx = ctx
        bounds = sorted(set(starts) | set(windows) | {size})
        segments = list(zip(bounds, bounds[1:]))
        import shutil
        import tempfile  # only a run that splits needs them

        scratch = tempfile.mkdtemp(prefix="sessionport-split-")
        try:
            pool = batch._pool(min(self.workers, len(starts)))
            try:
                return self._pieces(pool, scratch, starts, windows, segments, size)
            except BaseException as exc:
                batch._end_workers(pool)
                batch._await_signal(exc)
                lost = batch.lost_worker(exc)
                if lost is not None:
                    raise lost from None
                raise
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            # Only once no worker is left: one reading ahead when a piece
            # failed would otherwise start its piece's file while the folder
            # is being removed, leaving the file behind and the removal's
            # error ("Directory not empty") in place of the piece's own.
            shutil.rmtree(scratch, ignore_errors=True)

    def _unchanged(self, size: int, *, at_end: bool) -> None:
        """Refuse the output when the file changed under the pieces (a
        shrink, a replacement, a rewrite), as one process refuses a
        damaged record; growth is a warning once all is read, as a torn
        tail is (with ``--strict``: an error)."""
        changed = changed_while_read(self.inp.name, self.inp.path, self.planned, size)
        if changed is None:
            return
        message, growth = changed
        from sessionport.errors import DataError

        if growth and not at_end:
            return  # the pieces read bytes the file still holds
        if growth and not self.ctx.strict:
            self.ctx.on_warning(f"{message}; {_CHANGED_HINT}")
            return
        raise DataError(self.inp.name, message.removeprefix(f"{self.inp.name}: "), hint=_CHANGED_HINT)

    def _pieces(self, pool, scratch: str, starts: list[int], windows: list[int], segments: list, size: int) -> bool:
        splitter, inp, reading = self.splitter, self.inp, self.reading
        ends = starts[1:] + [size]

        def piece(index: int, window_line: int, start_line: int):
            return splitter.Piece(
                index, inp.path, inp.name, starts[index], ends[index], windows[index], window_line, start_line,
                os.path.join(scratch, f"{index:06d}.jsonl"), self.sink.format if self.copy else "portable-jsonl", reading.strict, reading.skip_bad,
                dict(self.ctx.options),
            )

        # The line counts first, on every worker: pieces after the first
        # need the line numbers where they start.
        counts = [pool.submit(_call, splitter.count, inp.path, a, b) for a, b in segments]
        pieces = [piece(0, 1, 1)]
        futures = {0: pool.submit(_call, splitter.read_piece, pieces[0])}
        line_at = {0: 1}
        lines = 0
        nul = False
        for (_, b), future in zip(segments, counts):
            found, holds_nul = future.result()
            lines += found
            nul = nul or holds_nul
            line_at[b] = lines + 1
        if nul:
            debug(f"{inp.name}: read in one process: it holds NUL bytes (warned about where they first are)")
            return False
        for index in range(1, len(starts)):
            pieces.append(piece(index, line_at[windows[index]], line_at[starts[index]]))
        # Pieces read ahead of the one being written.  Written here, the
        # writer is the slower side: the workers need no more than a piece
        # each in hand, and the temporary files stay a few pieces' worth.
        ahead = max(2, self.workers * 2) if self.copy else self.workers
        piece_size = max(1, max((b - a for a, b in zip(starts, ends)), default=1))
        ahead = min(ahead, max(self.workers, AHEAD_BUDGET // piece_size))
        submitted = 1

        def submit_more(upto: int) -> None:
            nonlocal submitted
            while submitted < len(pieces) and submitted <= upto + ahead:
                futures[submitted] = pool.submit(_call, splitter.read_piece, pieces[submitted])
                submitted += 1

        submit_more(0)
        registry = get_registry()
        inputs = [inp.name]
        if self.output is not None and self.output != "-":
            from sessionport.pipeline.targets import OutputGuard

            OutputGuard(inputs).check(self.output)
        sums = splitter.Sums()
        messages = 0
        again = 0
        before = None
        bar = _bar(inp, size) if reading.progress else None

        def results():
            """Each piece's result in order, its warnings shown; the
            output of ``take(result)`` comes before the piece's error."""
            nonlocal messages, again, before
            for index in range(len(pieces)):
                submit_more(index)
                result = futures.pop(index).result()
                if before is not None and not splitter.follows(before, result):
                    self._unchanged(size, at_end=False)
                    again += 1
                    _remove(result.out)
                    result = splitter.read_piece(splitter.resumed(pieces[index], before))
                for message in result.warnings:
                    self.ctx.warn(message)
                yield result
                _remove(result.out)
                if result.error is not None:
                    # a piece cut short by a file that shrank fails where its
                    # bytes end: the change is what to report, not that line
                    self._unchanged(size, at_end=False)
                    splitter.raise_error(result.error)
                sums.add(result.sums)
                if bar is not None:
                    bar.update(pieces[index].end - pieces[index].start)
                messages += result.messages
                before = result

        def end_events():
            self._unchanged(size, at_end=True)
            events = splitter.end_events(before.end_state, sums, self.ctx)
            if reading.format and not messages:
                events = _forced(events, self.importer, inp, self.ctx, registry)
            yield from events
            # As one process's read ends: before the stages and the writer
            # say what they have to say at the end (redact --report, losses).
            self.ctx.report_bad()

        with bar or contextlib.nullcontext():
            if self.copy:
                with open_output(self.output, inputs) as out:
                    for result in results():
                        _copy(result.out, out)
                    registry.exporter(self.sink.format).write(end_events(), out, WriteContext(name=self.output or "<stdout>"))
            else:
                from sessionport.pipeline import stream

                def events():
                    for result in results():
                        yield from _events(result.out)
                    yield from end_events()

                joined = events()
                if reading.options.get(stream.HEADING_TITLE):
                    joined = stream.titled(joined, self.importer, inp, mark=bool(reading.options.get(stream.FILE_SESSION)))
                stream.write(
                    stream.apply_stages(joined, self.stages), self.output,
                    format=self.sink.format, options=dict(self.sink.options), inputs=inputs,
                )
        debug(
            f"{inp.name}: read in {len(pieces)} pieces by {min(self.workers, len(pieces))} processes; {again} read again in order "
            f"(the state they started from was not the one before them); this process"
            f"{'' if self.copy else ' (which wrote their events)'}: {time.process_time() - self.cpu:.2f} s CPU"
        )
        return True


def changed_while_read(name: str, path: str, planned: os.stat_result, size: int) -> tuple[str, bool] | None:
    """How the file at ``path`` changed since it was planned in pieces at
    ``size`` bytes (``planned`` its stat then), and whether that is only
    growth (the pieces read what it held; what came after was not read);
    None when it is as it was."""
    try:
        now = os.stat(path)
    except OSError as exc:
        return f"{name}: the file went away while it was read in pieces (--jobs): {exc.strerror or exc}", False
    if (now.st_dev, now.st_ino) != (planned.st_dev, planned.st_ino):
        return f"{name}: the file was replaced by another while it was read in pieces (--jobs)", False
    if now.st_size < size:
        return (
            f"{name}: the file was truncated while it was read in pieces (--jobs): it held {size:,} bytes "
            f"when reading began and holds {now.st_size:,} now, so pieces after the cut read nothing or a torn line"
        ), False
    if now.st_size > size:
        return (
            f"{name}: the file grew while it was read in pieces (--jobs): its first {size:,} bytes "
            f"(its size when reading began) were read, not the {now.st_size - size:,} written since"
        ), True
    if now.st_mtime_ns != planned.st_mtime_ns:
        return f"{name}: the file was modified while it was read in pieces (--jobs), at the same size: pieces may have read different versions of it", False
    return None


_CHANGED_HINT = "it is still being written: convert it again once it is complete, or with --jobs 1, which reads it as one stream"


def _bar(inp, size: int):
    """The progress bar a one-process read draws, moved on by whole pieces."""
    import click

    from sessionport.reports.progress import MIN_SIZE

    if size < MIN_SIZE:
        return None
    return click.progressbar(length=size, label=terminal(inp.name), file=sys.stderr, show_eta=True, show_percent=True)


def _forced(events, importer, inp, ctx, registry):
    from sessionport.pipeline.stream import _forced as forced, _is_message

    return forced(events, _is_message, importer, inp, ctx, registry)


def _events(path: str):
    """The events a worker wrote (portable-jsonl, from the reader's own
    events: one object per line, nothing to check again)."""
    import orjson

    loads = orjson.loads
    with open(path, "rb", buffering=1 << 20) as written:
        for line in written:
            yield loads(line)


def _copy(path: str, out) -> None:
    """A piece's output onto the output, in the kernel where it can be."""
    with open(path, "rb") as written:
        try:
            fd = out.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        if fd is not None and hasattr(os, "sendfile"):
            out.flush()
            size = os.fstat(written.fileno()).st_size
            offset = 0
            try:
                while offset < size:
                    sent = os.sendfile(fd, written.fileno(), offset, size - offset)
                    if sent == 0:
                        break
                    offset += sent
                return
            except OSError as exc:
                if offset or exc.errno not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                    raise
        import shutil

        shutil.copyfileobj(written, out, 1 << 20)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
