"""The run loop every command, ``sessionport.write`` and ``sessionport.dask`` end in.

A run takes its inputs (resolved by :func:`sessionport.pipeline.inputs.resolve`),
how to read them (:class:`Reading`), stage factories, and a :class:`Sink`
(format, ``-o`` and exporter options).  It goes one of three ways:

- **one input** streams straight through: importer -> stages -> exporter
  -> output, nothing held;
- **a batch into a directory** (``-o DIR/``, an existing directory, or a
  new path without the format's extension): one output per input,
  mirroring the inputs' layout, in parallel worker processes;
- **a batch into one stream** (stdout, or ``-o FILE`` ending in the
  format's extension): every input's events in input order, converted in
  parallel and joined.

In a batch a failing input is reported through ``on_outcome`` and the
others go on; an input that holds no message (empty, or only summary
records) writes nothing and is counted as empty.  The caller shows the
outcomes (the CLI prints them).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from sessionport.context import WANTED_ROLES, ReadContext
from sessionport.errors import SessionportError, UsageError
from sessionport.io import check_folder
from sessionport.pipeline import batch, stream, targets
from sessionport.pipeline.batch import Outcome, StageFactory
from sessionport.pipeline.inputs import Inputs, Source, resolve
from sessionport.plain import Frozen, Record

if TYPE_CHECKING:
    from sessionport.summary import SessionSummary

WIRE_FORMAT = "portable-jsonl"


class Reading(Frozen):
    """How every input of a run is read."""

    __slots__ = ("format", "strict", "skip_bad", "options", "quiet", "progress")
    format: str | None
    strict: bool
    skip_bad: bool
    options: dict[str, Any]
    # Warnings go nowhere (the CLI's --quiet); ``progress`` draws a bar.
    quiet: bool
    progress: bool

    def __init__(self, format: str | None = None, strict: bool = False, skip_bad: bool = False,
                 options: dict[str, Any] | None = None, quiet: bool = False, progress: bool = False) -> None:
        _set = object.__setattr__
        _set(self, "format", format)
        _set(self, "strict", strict)
        _set(self, "skip_bad", skip_bad)
        _set(self, "options", {} if options is None else options)
        _set(self, "quiet", quiet)
        _set(self, "progress", progress)


class Sink(Frozen):
    """Where and how a run writes: ``output`` is a path, ``-`` or None (stdout)."""

    __slots__ = ("format", "output", "options", "report", "reserved")
    format: str
    output: str | None
    options: dict[str, Any]
    # Count, per input, what was read, written and left out (Outcome.report);
    # then a single input's error is returned in Result.raised, not raised.
    report: bool
    # Paths the run writes other files to (the --json-report): never an
    # output under -o DIR.
    reserved: tuple[str, ...]

    def __init__(self, format: str = WIRE_FORMAT, output: str | None = None, options: dict[str, Any] | None = None,
                 report: bool = False, reserved: tuple[str, ...] = ()) -> None:
        _set = object.__setattr__
        _set(self, "format", format)
        _set(self, "output", output)
        _set(self, "options", {} if options is None else options)
        _set(self, "report", report)
        _set(self, "reserved", reserved)


class Result(Record):
    """What a run did: every input's outcome (one entry for a single input)."""

    _fields = ("total", "outcomes", "layout", "batch", "raised")

    total: int
    outcomes: list[Outcome]
    layout: str
    batch: bool
    # The error of a single input, when the sink asked for a report.
    raised: SessionportError | None

    def __init__(
        self,
        total: int,
        outcomes: list[Outcome] | None = None,
        layout: str = targets.STREAM,
        batch: bool = True,
        raised: SessionportError | None = None,
    ) -> None:
        self.total = total
        self.outcomes = [] if outcomes is None else outcomes
        self.layout = layout
        self.batch = batch
        self.raised = raised

    @property
    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]

    @property
    def empty(self) -> int:
        return sum(o.empty for o in self.outcomes)

    @property
    def converted(self) -> int:
        return sum(o.ok and not o.empty for o in self.outcomes)


def _silent(message: str) -> None:
    pass


def read_source(source: Source | str | None, reading: Reading, context: ReadContext | None = None, run: Callable | None = None) -> Iterator[dict]:
    """The events of one input, read as ``reading`` says (``run``: see
    :func:`stream.read`)."""
    spec = source.spec if isinstance(source, Source) else source
    ctx = context or (ReadContext(on_warning=_silent) if reading.quiet else ReadContext())
    events = stream.read(spec, format=reading.format, strict=reading.strict, skip_bad=reading.skip_bad, options=dict(reading.options), context=ctx, run=run)
    if reading.progress:
        from sessionport.reports import progress

        return progress.track(events, ctx)
    return events


def read_all(inputs: Inputs, reading: Reading) -> Iterator[dict]:
    """The events of every input in turn, as one stream (an error ends it)."""
    for source in inputs.sources:
        yield from read_source(source, reading)


def each_input(
    inputs: Inputs | Sequence[str | None],
    reading: Reading,
    consume: Callable[[Iterator[dict]], Any],
    on_outcome: Callable[[Outcome], None] | None = None,
    run: Callable | None = None,
) -> tuple[list[Any], Result]:
    """``consume(events)`` for every input, in order (``run``: see
    :func:`stream.read`): what each returned, and the run's result.  A
    single input's error is raised; in a batch a failing input is reported
    and the others go on, as in :func:`run`.  Each outcome carries its
    input's warnings (already shown on stderr unless ``reading.quiet``)."""
    if not isinstance(inputs, Inputs):
        inputs = resolve(inputs)
    report = on_outcome or (lambda outcome: None)
    result = Result(len(inputs), batch=inputs.batch)
    values = []
    for value, outcome in input_outcomes(inputs, reading, consume, run):
        if outcome.ok:
            values.append(value)
        result.outcomes.append(outcome)
        report(outcome)
    return values, result


def input_outcomes(inputs: Inputs, reading: Reading, consume: Callable[[Iterator[dict]], Any], run: Callable | None = None) -> Iterator[tuple[Any, Outcome]]:
    """``consume(events)`` for every input, in order, each yielded with its
    outcome as it ends (``inspect`` holds none of them; see
    :func:`each_input`)."""
    for source in inputs.sources:
        ctx = ReadContext(on_warning=_silent) if reading.quiet else ReadContext()
        try:
            value = consume(read_source(source, reading, ctx, run))
            outcome = Outcome(source.spec, None, True, None, ctx.warnings)
        except SessionportError as exc:
            if not inputs.batch:
                raise
            value, outcome = None, Outcome(source.spec, None, False, str(exc), ctx.warnings)
        yield value, outcome


def run(
    inputs: Inputs | Sequence[str | None],
    *,
    reading: Reading = Reading(),
    stages: Sequence[StageFactory] = (),
    sink: Sink = Sink(),
    jobs: int | None = None,
    globs: Sequence[str] = (),
    on_outcome: Callable[[Outcome], None] | None = None,
) -> Result:
    """Read the inputs, run the stages, write the result (see the module doc)."""
    if not isinstance(inputs, Inputs):
        inputs = resolve(inputs, globs)
    report = on_outcome or (lambda outcome: None)
    if sink.format in stream.READABLE_FORMATS:
        # a heading is written before a title recorded late is read; the
        # first session of the one input is marked as its file's
        options = stream.heading_options(sink.format, reading.options)
        if not inputs.batch:
            options[stream.FILE_SESSION] = True
        reading = reading.replace(options=options)
    if not inputs.batch:
        source = inputs.sources[0]
        if sink.report:
            return _reported_single(source, reading, stages, sink)
        output = _single_target(source, sink)
        from sessionport.pipeline import chunks  # one big input read in pieces (tempfile, workers)

        if chunks.convert_in_pieces(source, output, reading, stages, sink, jobs):
            return Result(1, [Outcome(source.spec, output, True)], batch=False)
        events = stream.apply_stages(read_source(source, _told_the_wanted_roles(reading, stages)), stages)
        stream.write(events, output, format=sink.format, options=dict(sink.options), inputs=[source.spec])
        return Result(1, [Outcome(source.spec, output, True)], batch=False)
    if any(s.spec == "-" for s in inputs.sources):
        raise UsageError("stdin cannot be one of several inputs; give paths")
    workers = batch.worker_count(jobs)
    result = Result(len(inputs), layout=targets.layout(sink.output, sink.format))

    def record(outcome: Outcome) -> None:
        result.outcomes.append(outcome)
        if reading.quiet:
            if outcome.report is not None:  # not shown, still reported
                outcome.report["warnings"] = outcome.warnings
            outcome.warnings = []
        report(outcome)

    template = batch.Job("", None, sink.format, reading.format, reading.strict, reading.skip_bad, dict(reading.options), dict(sink.options), tuple(stages), report=sink.report)
    if result.layout == targets.DIRECTORY:
        check_folder(sink.output, sink.output)
        guard = targets.OutputGuard(inputs.specs)
        for path in sink.reserved:
            guard.reserve(path, "report")
        _directory_batch(directory_jobs(inputs.sources, sink.output, template, guard), workers, result, record)
        return result
    output = sink.output if result.layout == targets.FILE else None
    combined = [template.replace(source=s.spec) for s in inputs.sources]
    before = targets.file_identity(output) if output is not None else None
    try:
        events: Iterator[dict] = batch.combined_stream(combined, workers, record)
        if output is not None:
            # -o FILE is made only when some input gave an event: a batch whose
            # inputs all failed (or held nothing) leaves no file there
            first = next(events, None)
            if first is None:
                return result
            events = itertools.chain((first,), events)
        stream.write(events, output, format=sink.format, options=dict(sink.options), inputs=inputs.specs)
    except BaseException as exc:
        # the inputs read so far went into -o FILE only if it was replaced
        # (a signal can land just after): else nothing of them was written
        if output is not None and targets.landed(output, before):
            _ended_with(exc, result)
        raise
    return result


def _directory_batch(jobs: list[batch.Job], workers: int, result: Result, record: Callable[[Outcome], None]) -> None:
    """The jobs of a batch into ``-o DIR``, each outcome recorded as it
    comes.  A run ended early (a signal, Ctrl-C) records, for each job
    whose outcome never came, the file it put in place all the same: a
    signal lands between any two bytecodes, also between a file's rename
    into place and its outcome reaching the parent (or a worker's end after
    its rename), and a report must name every file the run left."""
    before = {job.target: targets.file_identity(job.target) for job in jobs if job.target}
    outcomes = batch.run_jobs(jobs, workers)
    try:
        for outcome in outcomes:
            record(outcome)  # its first step puts the outcome in the result
    except BaseException as exc:
        outcomes.close()  # the workers end first: what they put in place is there now
        for job in jobs[len(result.outcomes):]:
            if job.target and targets.landed(job.target, before[job.target]):
                result.outcomes.append(Outcome(job.source, job.target, True))
        _ended_with(exc, result)
        raise


def _ended_with(exc: BaseException, result: Result) -> None:
    """Keep, with the exception that ended a run early, what the run had
    written until then (see :func:`partial_result`)."""
    with contextlib.suppress(AttributeError, TypeError):
        exc.__sessionport_result__ = result  # type: ignore[attr-defined]


def partial_result(exc: BaseException) -> Result | None:
    """What a run ended by ``exc`` (Ctrl-C, a signal, a bug) had written:
    the outcomes of the inputs whose outputs are on disk (an outcome without
    counts when only its file tells of it), or None when nothing it wrote
    is known to be there."""
    return getattr(exc, "__sessionport_result__", None)


def _told_the_wanted_roles(reading: Reading, stages: Sequence[StageFactory]) -> Reading:
    """``reading`` with the roles of the messages the first stage may keep
    (WANTED_ROLES), when their role is all it reads of them; not for a
    Markdown or HTML heading, whose title may come from any message."""
    roles = batch.wanted_roles(stages)
    if roles is None or reading.options.get(stream.HEADING_TITLE):
        return reading
    return reading.replace(options={**reading.options, WANTED_ROLES: roles})


def _reported_single(source: Source, reading: Reading, stages: Sequence[StageFactory], sink: Sink) -> Result:
    """One input streamed through as :func:`run` does, counting what it
    read, wrote and left out; its error comes back in ``Result.raised``."""
    ctx = ReadContext(on_warning=_silent) if reading.quiet else ReadContext()
    shown: list[str] = []  # the warnings as a batch's outcome holds them
    quiet_or_not = ctx.on_warning

    def warn(message: str) -> None:
        shown.append(message)
        quiet_or_not(message)

    ctx.on_warning = warn
    tally = batch.Tally()
    output = None
    before = None
    try:
        output = _single_target(source, sink)
        before = targets.file_identity(output) if output not in (None, "-") else None
        events = stream.apply_stages(tally.reading(read_source(source, reading, ctx)), stages)
        written = stream.write(tally.writing(events), output, format=sink.format, options=dict(sink.options), inputs=[source.spec])
    except SessionportError as exc:
        failed = Outcome(source.spec, output, False, str(exc), shown, report=tally.report(ctx, written=False))
        return Result(1, [failed], batch=False, raised=exc)
    except BaseException as exc:
        # a signal just after the output replaced its target: the file is
        # whole, its messages counted; what it lost is not known
        if output not in (None, "-") and targets.landed(output, before):
            counts = tally.report(ctx, written=False)
            counts["messages"] = tally.written
            _ended_with(exc, Result(1, [Outcome(source.spec, output, True, None, shown, report=counts)], batch=False))
        raise
    return Result(1, [Outcome(source.spec, output, True, None, shown, report=tally.report(ctx, written.losses))], batch=False)


def _single_target(source: Source, sink: Sink) -> str | None:
    """``-o`` for one input: a file, or a directory (``DIR/`` or one that
    exists) to write the input's output into under its own name."""
    if not targets.names_directory(sink.output):
        return sink.output
    assert sink.output is not None
    check_folder(sink.output, sink.output)
    if source.spec == "-":
        raise UsageError(f"{sink.output}: -o names a directory, and stdin has no name to give its output; give -o a file path")
    guard = targets.OutputGuard([source.spec])
    for path in sink.reserved:
        guard.reserve(path, "report")
    target = guard.claim(sink.output, source.relative, targets.extension_of(sink.format))
    os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
    return target


def directory_jobs(sources: Sequence[Source], directory: str, template: batch.Job, guard: targets.OutputGuard | None = None) -> list[batch.Job]:
    """One job per source, each writing under ``directory`` at the source's
    relative path with the target format's extension.  A target the guard
    refuses makes a job that fails without reading its input."""
    guard = guard or targets.OutputGuard(s.spec for s in sources)
    extension = targets.extension_of(template.to)
    jobs = []
    for source in sources:
        try:
            target = guard.claim(directory, source.relative, extension)
        except targets.RefusedTarget as exc:
            jobs.append(template.replace(source=source.spec, refused=f"{source.spec}: {exc}"))
            continue
        jobs.append(template.replace(source=source.spec, target=target, folder=directory))
    return jobs


def write(events: Iterable[dict], sink: Sink, inputs: Sequence[str | None] = ()) -> None:
    """Events to one output, guarded against writing onto ``inputs``."""
    stream.write(events, sink.output, format=sink.format, options=dict(sink.options), inputs=list(inputs))


def summarize_input(
    source: str | None,
    *,
    format: str | None = None,
    strict: bool = False,
    skip_bad: bool = False,
    options: dict[str, Any] | None = None,
    context: Any = None,
) -> list[SessionSummary]:
    """The summaries of one input, opened, detected and reported on exactly
    as ``sessionport.read`` does."""
    from sessionport.summary import census_or_read  # only inspect summarizes

    return list(stream.read(source, format=format, strict=strict, skip_bad=skip_bad, options=options, context=context, run=census_or_read))
