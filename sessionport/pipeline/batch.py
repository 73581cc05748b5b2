"""Many inputs: one job per input, run in parallel worker processes, each
reporting its outcome without stopping the others.

A batch is a list of :class:`Job` s, one per input file.  Each job is
independent (its own reader, stages and writer), so it runs in any worker
process; results come back in input order, which keeps every output and the
combined stream deterministic whatever ``--jobs`` is.

Workers end with the run: when the parent is interrupted or terminated
(SIGINT, SIGTERM, SIGHUP) it terminates its workers, each of which removes
the partial file it was writing, and the scratch folder of a combined
stream is removed before the parent exits.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import signal
import time
from typing import Any, Callable, Iterable, Iterator, Sequence

from sessionport.context import ReadContext
from sessionport.errors import SessionportError
from sessionport.pipeline import stream
from sessionport.pipeline.signals import SIGNALS, Terminated, ignore_later
from sessionport.plain import Frozen, Record
from sessionport.registry import LossCounter, get_registry

StageFactory = Callable[[], Callable[[Iterable[dict]], Iterator[dict]]]


class Job(Frozen):
    """Everything a worker needs to convert one input; picklable.

    ``refused`` is set when the guard would not hand out a target for the
    input: the job then fails without reading it.
    """

    __slots__ = ("source", "target", "to", "from_", "strict", "skip_bad", "read_opts", "write_opts", "stages",
                 "refused", "report", "folder")
    source: str
    target: str | None
    to: str
    from_: str | None
    strict: bool
    skip_bad: bool
    read_opts: dict[str, Any]
    write_opts: dict[str, Any]
    stages: tuple[StageFactory, ...]
    refused: str | None
    # Count what the conversion did (Outcome.report), for --json-report.
    report: bool
    # The -o DIR the target was handed out under: checked again just
    # before writing (see _escapes).
    folder: str | None

    def __init__(self, source: str, target: str | None, to: str, from_: str | None = None, strict: bool = False,
                 skip_bad: bool = False, read_opts: dict[str, Any] | None = None, write_opts: dict[str, Any] | None = None,
                 stages: tuple[StageFactory, ...] = (), refused: str | None = None, report: bool = False,
                 folder: str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "source", source)
        _set(self, "target", target)
        _set(self, "to", to)
        _set(self, "from_", from_)
        _set(self, "strict", strict)
        _set(self, "skip_bad", skip_bad)
        _set(self, "read_opts", {} if read_opts is None else read_opts)
        _set(self, "write_opts", {} if write_opts is None else write_opts)
        _set(self, "stages", stages)
        _set(self, "refused", refused)
        _set(self, "report", report)
        _set(self, "folder", folder)


def _escapes(job: Job) -> str | None:
    """Why ``job.target`` may no longer be written: the guard checked it
    when the batch began, and a link put at its name (or in place of its
    folder) since then, in a folder others can write to, would have the
    output written wherever the link points.  None when it is still inside
    its folder."""
    if job.folder is None or job.target is None:
        return None
    folder = os.path.realpath(job.folder)
    real = os.path.realpath(job.target)
    if real == folder or not real.startswith(folder.rstrip(os.sep) + os.sep):
        return f"{job.source}: {job.target} resolves outside {job.folder} (through a link made while the batch ran); refusing to write it"
    return None


class Outcome(Record):
    _fields = ("source", "target", "ok", "error", "warnings", "empty", "report")
    source: str
    target: str | None
    ok: bool
    error: str | None
    warnings: list[str]
    # An input that holds no message (empty, or only summary records)
    # writes nothing.
    empty: bool
    # What the conversion did, when the run asked for it (see Tally.report).
    report: dict | None

    def __init__(
        self,
        source: str,
        target: str | None,
        ok: bool,
        error: str | None = None,
        warnings: list[str] | None = None,
        empty: bool = False,
        report: dict | None = None,
    ) -> None:
        self.source = source
        self.target = target
        self.ok = ok
        self.error = error
        self.warnings = [] if warnings is None else warnings
        self.empty = empty
        self.report = report


class Tally:
    """Counts the messages of one input read and written, when a run is
    asked for a report (otherwise no event passes through it)."""

    __slots__ = ("read", "written")

    def __init__(self) -> None:
        self.read = 0
        self.written: int | None = 0

    def reading(self, events: Iterable[dict]) -> Iterator[dict]:
        for event in events:
            if event.get("type") == "message":
                self.read += 1
            yield event

    def writing(self, events: Iterable[dict]) -> Iterator[dict]:
        for event in events:
            if event.get("type") == "message":
                self.written += 1  # type: ignore[operator]
            yield event

    def report(self, ctx: ReadContext, losses: dict[str, int] | None = None, *, written: bool = True) -> dict:
        """The counts of the input read with ``ctx``: its format, messages
        read and written, what the target could not carry (by
        ``registry.LOSSES`` name), unknown types, unreadable records.  When
        nothing was written (a failure), the written counts are None."""
        from sessionport.registry import LOSSES

        return {
            "format": ctx.options.get("_format"),
            "messagesRead": self.read,
            # the messages of the subagent sessions a one-session format left out
            # passed the tally on their way to the writer (stream.one_session_only)
            "messages": self.written - (losses or {}).get("subagent messages", 0) if written and self.written is not None else (self.written if written else None),
            "losses": {name: (losses or {}).get(name, 0) for name in LOSSES} if written else None,
            "unknown": {what: dict(types) for what, types in ctx.unknown_seen.items()},
            "unreadable": ctx.bad_count,
        }


class _HeldBack:
    """An input's events, held back until its first message: an input with
    none (empty, or only summary records) is known before anything is
    opened for writing, and writes nothing."""

    def __init__(self, events: Iterable[dict]) -> None:
        self._events = iter(events)
        self._held: list[dict] = []
        self.has_messages = False
        for event in self._events:
            self._held.append(event)
            if event.get("type") == "message":
                self.has_messages = True
                break

    def __iter__(self) -> Iterator[dict]:
        held, self._held = self._held, []
        yield from held
        yield from self._events


def run_job(job: Job) -> Outcome:
    """Convert one input; never raises for bad data (the batch goes on)."""
    if job.refused:
        return Outcome(job.source, None, False, job.refused)
    ctx = ReadContext()
    warnings: list[str] = []
    ctx.on_warning = warnings.append
    tally = Tally() if job.report else None
    try:
        events = stream.read(job.source, format=job.from_, strict=job.strict, skip_bad=job.skip_bad, options=dict(job.read_opts), context=ctx)
        held = _HeldBack(tally.reading(events) if tally else events)
        if not held.has_messages:
            return Outcome(job.source, None, True, None, warnings, empty=True, report=tally.report(ctx) if tally else None)
        escape = _escapes(job)
        if escape is not None:
            return Outcome(job.source, None, False, escape, warnings, report=tally.report(ctx, written=False) if tally else None)
        if job.target and os.path.dirname(job.target):
            os.makedirs(os.path.dirname(job.target), exist_ok=True)
        staged = stream.apply_stages(held, job.stages)
        written = stream.write(tally.writing(staged) if tally else staged, job.target, format=job.to, options=dict(job.write_opts), inputs=[job.source])
    except SessionportError as exc:
        return Outcome(job.source, job.target, False, str(exc), warnings, report=tally.report(ctx, written=False) if tally else None)
    except OSError as exc:  # the target's folder could not be made
        return Outcome(job.source, job.target, False, f"{job.source}: cannot write {exc.filename or job.target}: {exc.strerror or exc}", warnings,
                       report=tally.report(ctx, written=False) if tally else None)
    except Exception as exc:  # one broken file must not end the batch
        return Outcome(job.source, job.target, False, f"{job.source}: internal error: {type(exc).__name__}: {exc}", warnings,
                       report=tally.report(ctx, written=False) if tally else None)
    return Outcome(job.source, job.target, True, None, warnings, report=tally.report(ctx, written.losses) if tally else None)


_in_job = False


def _worker_signal(signum, frame) -> None:
    if not _in_job:  # idle, waiting for work: nothing to clean up
        os._exit(128 + signum)
    signal.signal(signum, ignore_later)
    raise Terminated(signum)


def _worker_start() -> None:
    # Ctrl-C reaches every process of the terminal's group: a worker ends
    # quietly, as on SIGTERM, and the parent reports the interruption.
    for sig in (*SIGNALS, signal.SIGINT):
        signal.signal(sig, _worker_signal)


def _worker_job(job: Job) -> Outcome:
    global _in_job
    _in_job = True
    try:
        return run_job(job)
    except Terminated as exc:
        # The partial output was removed on the way out; end this worker
        # rather than let the pool hand it the next job.
        os._exit(exc.exit_code)
    finally:
        _in_job = False


def _pool(jobs: int):
    # Imported here: worker processes are only for --jobs > 1, and these
    # modules cost a single conversion a noticeable part of its start-up.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_worker_start)


# How long workers asked to end get to remove their partial outputs before
# they are killed.
END_GRACE = 2.0


def _end_workers(pool) -> None:
    """Ask every worker to end (SIGTERM: each removes its partial output),
    and kill those still there after END_GRACE seconds.  A worker can be
    past asking: Ctrl-C reaching the whole group can end one worker while it
    holds the pool's result-queue lock, and another then waits for that
    lock forever, with the pool's shutdown waiting on it."""
    processes = list(getattr(pool, "_processes", {}).values())
    for process in processes:
        try:
            process.terminate()
        except (OSError, AttributeError):
            pass
    from multiprocessing.connection import wait

    left = {process.sentinel: process for process in processes if hasattr(process, "sentinel")}
    deadline = time.monotonic() + END_GRACE
    while left:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        for ended in wait(list(left), remaining):
            left.pop(ended, None)
    for process in left.values():
        try:
            process.kill()
        except (OSError, AttributeError):
            pass


def lost_worker(exc: BaseException) -> SessionportError | None:
    """The error to give for a worker process that died (the system's
    out-of-memory killer, a `kill -9`), when that is what ``exc`` is and no
    signal to this process explains it: it is not a bug of the input's."""
    from concurrent.futures.process import BrokenProcessPool

    from sessionport.pipeline import signals

    if isinstance(exc, BrokenProcessPool) and signals.received is None:
        return SessionportError(
            "a worker process ended abruptly (killed by the system, perhaps out of memory); "
            "what it was converting was not written; run again, or with --jobs 1 to read in this process"
        )
    return None


def _await_signal(exc: BaseException) -> None:
    """After a broken pool: a worker ended abruptly by the Ctrl-C or
    SIGTERM that reaches this process too (it can land in a worker still
    starting, before its handlers are set) is given a moment to arrive here,
    so that the run ends as interrupted, not with an internal error."""
    from concurrent.futures.process import BrokenProcessPool

    from sessionport.pipeline import signals

    if isinstance(exc, BrokenProcessPool) and signals.received is None:
        time.sleep(0.25)


def run_jobs(jobs: Sequence[Job], workers: int) -> Iterator[Outcome]:
    """Outcomes in the order of ``jobs``; in parallel when ``workers`` > 1."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield run_job(job)
        return
    with _running(min(workers, len(jobs))) as pool:
        # chunksize keeps the per-file overhead small when files are many and small
        chunk = max(1, min(16, len(jobs) // (workers * 8)))
        yield from pool.map(_worker_job, jobs, chunksize=chunk)


@contextlib.contextmanager
def _running(workers: int) -> Iterator[Any]:
    """A pool of ``workers``; whatever ends its use early (a signal, a
    failing job, a lost worker, the reader stopping) ends its workers
    first, and a lost worker is said as such."""
    pool = _pool(workers)
    try:
        yield pool
    except BaseException as exc:
        _end_workers(pool)
        _await_signal(exc)
        lost = lost_worker(exc)
        if lost is not None:
            raise lost from None
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# Workers per core at most, whatever --jobs asks: each is a whole
# interpreter (forked at once, all of them), and past a few per core they
# only wait for one another, while --jobs 5000 on 5000 files would exhaust
# memory and descriptors.  The output does not depend on the count.
MAX_WORKERS_PER_CORE = 4


def run_jobs_ahead(jobs: Sequence[Job], workers: int, ahead: int) -> Iterator[Outcome]:
    """:func:`run_jobs`, with at most ``ahead`` jobs started beyond the one
    whose outcome is awaited: for outputs that wait on disk until they are
    read back in order (the combined stream), which a slow reader would
    otherwise let grow to every input's copy."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield run_job(job)
        return
    from collections import deque

    with _running(min(workers, len(jobs))) as pool:
        waiting = iter(jobs)
        started = deque(pool.submit(_worker_job, job) for job in itertools.islice(waiting, max(1, ahead)))
        while started:
            outcome = started.popleft().result()
            for job in itertools.islice(waiting, 1):
                started.append(pool.submit(_worker_job, job))
            yield outcome


def worker_count(jobs: int | None) -> int:
    """The worker processes a run uses for ``--jobs`` (None: one per core)."""
    cores = default_jobs()
    return max(1, min(jobs or cores, cores * MAX_WORKERS_PER_CORE))


def combined_stream(jobs: Sequence[Job], workers: int, on_outcome: Callable[[Outcome], None]) -> Iterator[dict]:
    """One stream of every input's events, in input order, converted in
    parallel: workers write portable-jsonl to temporary files that are then
    read back in order; failed inputs are reported and left out."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="sessionport-batch-") as scratch:
        staged = [j.replace(target=os.path.join(scratch, f"{i:06d}.jsonl"), to="portable-jsonl", write_opts={}) for i, j in enumerate(jobs)]
        # Two jobs per worker ahead of the one read back: the scratch files
        # hold a few inputs' events, not the whole batch's.
        for job, outcome in zip(jobs, run_jobs_ahead(staged, workers, 2 * workers)):
            on_outcome(outcome)
            if outcome.ok and not outcome.empty:
                events = stream.read(outcome.target, format="portable-jsonl")
                if outcome.report is None:
                    yield from events
                else:
                    # the scratch file carries everything: what the target
                    # cannot carry is counted here, input by input
                    losses = LossCounter(get_registry().exporter(job.to))
                    yield from losses.watch(events)
                    outcome.report["losses"] = {name: losses.counts.get(name, 0) for name in outcome.report["losses"]}
                os.unlink(outcome.target)


def stage_factory(build: Callable[..., Any], **options: Any) -> StageFactory:
    """A picklable factory for a stage built with ``options``."""
    return functools.partial(build, **options)


def registered_stage(factory: Any) -> tuple[Any, dict] | None:
    """The registered :class:`~sessionport.registry.Stage` a factory of
    :func:`stage_factory` builds, with its options; None for any other
    factory."""
    build = getattr(factory, "func", None)
    if build is None:
        return None
    for stage in get_registry().stages.values():
        if stage.build is build:
            return stage, dict(getattr(factory, "keywords", None) or {})
    return None


def wanted_roles(stages: Sequence[StageFactory]) -> frozenset | None:
    """The roles of the messages the first stage may keep, when their role
    is all it reads of them (``Stage.wanted_roles``), else None."""
    found = registered_stage(stages[0]) if stages else None
    if found is None or found[0].wanted_roles is None:
        return None
    stage, options = found
    return stage.wanted_roles(options)
