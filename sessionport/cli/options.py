"""Options shared by the commands, and the run loop they all end in."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Iterator, Sequence

import click

from sessionport import api
from sessionport.pipeline import batch
from sessionport.reports import progress
from sessionport.context import ReadContext
from sessionport.errors import UsageError
from sessionport.registry import get_registry
from sessionport.sanitise import terminal

WIRE_FORMAT = "portable-jsonl"


def _names(kind: str) -> list[str]:
    registry = get_registry()
    return registry.importer_names() if kind == "import" else registry.exporter_names()


class FormatChoice(click.ParamType):
    """A format name, checked against the registry when used."""

    name = "FORMAT"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def convert(self, value, param, ctx):
        names = _names(self.kind)
        if value not in names:
            self.fail(f"{value!r} is not a format that can be {'read' if self.kind == 'import' else 'written'}; choose from {', '.join(names)}", param, ctx)
        return value

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        return [CompletionItem(n) for n in _names(self.kind) if n.startswith(incomplete)]


def read_options(taken: Iterable[str] = ()) -> Callable:
    """--from, --strict, --skip-bad and every importer's own options."""
    importer_opts, _ = get_registry().option_sets()
    taken = set(taken)

    def decorate(f):
        for opt in reversed([o for o in importer_opts if not taken.intersection(o.flags)]):
            f = _attach(f, opt.click_option())
        f = click.option("-q", "--quiet", is_flag=True, help="No progress bar and no warnings on stderr (errors are still shown).")(f)
        f = click.option("--skip-bad", is_flag=True, help="Skip unreadable records, counting them on stderr, instead of stopping.")(f)
        f = click.option("--strict", is_flag=True, help="Treat a torn or NUL-padded end of input as an error (exit 1), not a warning.")(f)
        f = click.option("--from", "from_", type=FormatChoice("import"), help="Input format; detected from the first bytes when left out.")(f)
        return f

    return decorate


def exporter_options(taken: Iterable[str] = ()) -> Callable:
    """Every exporter's own options (those whose flags are not ``taken``)."""
    _, exporter_opts = get_registry().option_sets()
    taken = set(taken)

    def decorate(f):
        for opt in reversed([o for o in exporter_opts if not taken.intersection(o.flags)]):
            f = _attach(f, opt.click_option())
        return f

    return decorate


def write_options(*, to_option: bool, taken: Iterable[str] = ()) -> Callable:
    """-o, optionally --to, and every exporter's own options."""

    def decorate(f):
        f = exporter_options(taken)(f)
        f = click.option("-o", "--output", type=click.Path(allow_dash=True), help="Write to this file (atomically) instead of stdout; with several inputs, a directory to write one file per input into.")(f)
        if to_option:
            f = click.option("--to", "to", type=FormatChoice("export"), default=None, help=f"Output format (default: {WIRE_FORMAT}).")(f)
        return f

    return decorate


def _attach(f, option: click.Option):
    if not hasattr(f, "__click_params__"):
        f.__click_params__ = []
    f.__click_params__.append(option)
    return f


def split_format_options(kwargs: dict[str, Any]) -> tuple[dict, dict, dict]:
    """Separate importer options, exporter options and the rest."""
    importer_opts, exporter_opts = get_registry().option_sets()
    read_names = {o.name for o in importer_opts}
    write_names = {o.name for o in exporter_opts}
    reading = {k: kwargs.pop(k) for k in list(kwargs) if k in read_names}
    writing = {k: kwargs.pop(k) for k in list(kwargs) if k in write_names}
    return reading, writing, kwargs


def read_all(
    inputs: Sequence[str | None],
    *,
    from_: str | None,
    strict: bool,
    skip_bad: bool,
    options: dict[str, Any],
    quiet: bool = False,
) -> Iterator[dict]:
    """The events of every input in turn (stdin when there is none), with a
    progress bar when stderr is a terminal."""
    show = progress.wanted(quiet)
    for source in batch.expand(inputs):
        spec = source.spec
        ctx = ReadContext(on_warning=_silent) if quiet else ReadContext()
        events = api.read(spec, format=from_, strict=strict, skip_bad=skip_bad, options=dict(options), context=ctx)
        yield from progress.track(events, ctx) if show else events


def _silent(message: str) -> None:
    pass


def batch_options(f):
    """--jobs and --glob, for commands that take many inputs."""
    f = click.option("--glob", "globs", multiple=True, metavar="PATTERN", help="File names to pick up in directory inputs (repeatable; default: *.jsonl, *.json, *.jsonl.zst, ...).")(f)
    f = click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Convert this many files at once in worker processes (default: the number of cores).")(f)
    return f


def run(
    inputs: Sequence[str | None],
    *,
    from_: str | None,
    to: str,
    output: str | None,
    strict: bool = False,
    skip_bad: bool = False,
    read_opts: dict[str, Any] | None = None,
    write_opts: dict[str, Any] | None = None,
    stages: Sequence[batch.StageFactory] = (),
    quiet: bool = False,
    jobs: int | None = None,
    globs: Sequence[str] = (),
) -> None:
    """Read the inputs, run the stages, write the result.

    One input streams straight through.  Several inputs (or a directory, or
    an ``@`` reference) are a batch: with ``-o DIR`` one output per input,
    mirroring the inputs' layout; without ``-o`` one combined stream on
    stdout in input order.  A failing input is reported and the others go
    on; the exit code is 1 when any failed.
    """
    sources = batch.expand(inputs, globs)
    if not batch.is_batch(inputs, sources):
        events: Iterable[dict] = read_all([sources[0].spec], from_=from_, strict=strict, skip_bad=skip_bad, options=read_opts or {}, quiet=quiet)
        for factory in stages:
            events = factory()(events)
        api.write(events, output, format=to, options=write_opts or {}, inputs=list(inputs))
        return
    run_batch(sources, from_=from_, to=to, output=output, strict=strict, skip_bad=skip_bad, read_opts=read_opts or {}, write_opts=write_opts or {}, stages=tuple(stages), quiet=quiet, jobs=jobs or batch.default_jobs())


def run_batch(sources, *, from_, to, output, strict, skip_bad, read_opts, write_opts, stages, quiet, jobs) -> None:
    if any(s.spec == "-" for s in sources):
        raise UsageError("stdin cannot be one of several inputs; give paths")
    failed: list[batch.Outcome] = []
    done = 0

    def report(outcome: batch.Outcome) -> None:
        nonlocal done
        done += 1
        if not quiet:
            for warning in outcome.warnings:
                click.echo(terminal(f"sessionport: warning: {warning}"), err=True)
        if not outcome.ok:
            failed.append(outcome)
            click.echo(terminal(f"sessionport: error: {outcome.error}"), err=True)

    template = batch.Job("", None, to, from_, strict, skip_bad, read_opts, write_opts, stages)
    if output and output != "-":
        for outcome in batch.run_jobs(batch.directory_jobs(sources, output, template), jobs):
            report(outcome)
    else:
        combined = [dataclasses.replace(template, source=s.spec) for s in sources]
        api.write(batch.combined_stream(combined, jobs, report), None, format=to, options=write_opts)
    if not quiet or failed:
        click.echo(f"sessionport: {done - len(failed)} of {len(sources)} input(s) converted" + (f", {len(failed)} failed" if failed else ""), err=True)
    if failed:
        raise click.exceptions.Exit(1)
