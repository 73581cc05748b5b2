"""Options shared by the commands, and how a run's outcomes are shown.

The run loop itself is :func:`sessionport.pipeline.run.run`; this module
turns options into its arguments and its outcomes into lines on stderr.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import click

from sessionport.pipeline import run as pipeline
from sessionport.pipeline.batch import Outcome, StageFactory
from sessionport.pipeline.inputs import resolve
from sessionport.pipeline.run import WIRE_FORMAT, Reading, Result, Sink
from sessionport.sanitise import terminal
from sessionport.registry import get_registry


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
        f = click.option("-o", "--output", type=click.Path(allow_dash=True), callback=not_empty, help="Write to this file (atomically) instead of stdout. A directory (ending in / or existing) gets one file per input, named after it; with several inputs, a path ending in the format's extension gets one file holding them all.")(f)
        if to_option:
            f = click.option("--to", "to", type=FormatChoice("export"), default=None, help=f"Output format (default: {WIRE_FORMAT}).")(f)
        return f

    return decorate


def _attach(f, option: click.Option):
    if not hasattr(f, "__click_params__"):
        f.__click_params__ = []
    f.__click_params__.append(option)
    return f


def refuse_foreign_options(to: str, given: Iterable[str]) -> None:
    """A usage error for an exporter option given on the command line that
    the format written does not take (``--front-matter`` with ``--to codex``):
    it would do nothing, silently."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return
    from click.core import ParameterSource

    by_format = get_registry().export_options_by_format()
    own = {o.name for o in by_format.get(to, ())}
    for name in given:
        if name in own or ctx.get_parameter_source(name) not in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            continue
        owners = sorted(fmt for fmt, opts in by_format.items() if any(o.name == name for o in opts))
        flag = next((o.flags[0] for o in by_format.get(owners[0], ()) if o.name == name), name) if owners else name
        raise click.UsageError(
            f"{flag} is an option of {', '.join(owners) or 'another format'} and the output is {to}, which takes no {flag}: "
            f"drop it, or write {owners[0] if owners else 'that format'} (--to)"
        )


def split_format_options(kwargs: dict[str, Any]) -> tuple[dict, dict, dict]:
    """Separate importer options, exporter options and the rest."""
    importer_opts, exporter_opts = get_registry().option_sets()
    read_names = {o.name for o in importer_opts}
    write_names = {o.name for o in exporter_opts}
    reading = {k: kwargs.pop(k) for k in list(kwargs) if k in read_names}
    writing = {k: kwargs.pop(k) for k in list(kwargs) if k in write_names}
    return reading, writing, kwargs


def not_empty(ctx, param, value):
    """A path option given as '' (an unset shell variable: -o "$OUT") is a
    usage error naming the option, not a failure to write a file named ''."""
    if value == "":
        what = "a directory" if param is not None and param.name == "directory" else "a file name (or - for stdout)"
        raise click.BadParameter(f"the path is empty; give {what}")
    return value


def report_option(f=None, *, stdout: str = "- for stdout when -o is a file", files: str = "output"):
    """--json-report: what the run did, per input, as one JSON object.

    A decorator as it is, or called with what ``-`` means for the command
    (``stdout``) and what the report names as an input's output (``files``)."""

    def decorate(f):
        return click.option(
            "--json-report",
            "json_report",
            metavar="FILE",
            type=click.Path(dir_okay=False, allow_dash=True),
            callback=not_empty,
            help=f"Also write a JSON report of the run to FILE ({stdout}): per input its format, {files}, "
            "messages, what the target has no place for (losses), unknown types, warnings and status; totals; exit code.",
        )(f)

    return decorate(f) if f is not None else decorate


def batch_options(f):
    """--jobs and --glob, for commands that take many inputs."""
    f = click.option("--glob", "globs", multiple=True, metavar="PATTERN", help="File names to pick up in directory inputs (repeatable; default: *.jsonl, *.json, *.jsonl.zst, ...).")(f)
    f = click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: the number of cores): this many files at once, or the pieces of one big Codex rollout (64 MiB or more), read in worker processes; the output is the same as with --jobs 1.")(f)
    return f


def reading(from_: str | None, strict: bool, skip_bad: bool, options: dict[str, Any] | None, quiet: bool) -> Reading:
    """The read options of a command, with a progress bar when stderr is a terminal."""
    from sessionport.reports import progress

    return Reading(from_, strict, skip_bad, dict(options or {}), quiet, progress.wanted(quiet))


def show_outcome(outcome: Outcome) -> None:
    """An input's warnings and error, as a batch goes."""
    for warning in outcome.warnings:
        click.echo(terminal(f"sessionport: warning: {warning}"), err=True)
    if not outcome.ok:
        click.echo(terminal(f"sessionport: error: {outcome.error}"), err=True)


def closing_line(result: Result, *, quiet: bool, verb: str = "converted") -> None:
    """The count of a batch's inputs, and exit 1 when any failed."""
    failed = len(result.failed)
    if not quiet or failed:
        done = len(result.outcomes) - failed - result.empty
        line = f"sessionport: {done} of {result.total} input(s) {verb}"
        if result.empty:
            line += f", {result.empty} empty (nothing written)"
        if failed:
            line += f", {failed} failed"
        click.echo(line, err=True)
    if failed:
        raise click.exceptions.Exit(1)


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
    stages: Sequence[StageFactory] = (),
    quiet: bool = False,
    jobs: int | None = None,
    globs: Sequence[str] = (),
    json_report: str | None = None,
    command: str = "convert",
) -> None:
    """A command's run: options to :func:`sessionport.pipeline.run.run`,
    its outcomes to stderr, the ``--json-report`` and the exit code."""
    refuse_foreign_options(to, write_opts or {})
    if json_report is None:
        result = pipeline.run(
            inputs,
            reading=reading(from_, strict, skip_bad, read_opts, quiet),
            stages=stages,
            sink=Sink(to, output, dict(write_opts or {})),
            jobs=jobs,
            globs=globs,
            on_outcome=show_outcome,
        )
        if result.batch:
            closing_line(result, quiet=quiet)
        return
    _reported_run(inputs, from_, to, output, strict, skip_bad, read_opts, write_opts, stages, quiet, jobs, globs, json_report, command)


def _reported_run(inputs, from_, to, output, strict, skip_bad, read_opts, write_opts, stages, quiet, jobs, globs, json_report, command) -> None:
    from sessionport.errors import SessionportError
    from sessionport.reports import conversion

    names = [i for i in inputs if i]
    conversion.check_target(json_report, output, names)
    try:
        resolved = resolve(inputs, globs)
    except SessionportError as exc:
        conversion.write(json_report, conversion.document(command, to, output, None, exc.exit_code, error=str(exc)), names)
        raise
    # the files a directory, a pattern or @ID names: the report is never one of them
    conversion.check_target(json_report, output, resolved.specs)
    names = resolved.specs
    try:
        result = pipeline.run(
            resolved,
            reading=reading(from_, strict, skip_bad, read_opts, quiet),
            stages=stages,
            sink=Sink(to, output, dict(write_opts or {}), report=True, reserved=() if json_report == "-" else (json_report,)),
            jobs=jobs,
            globs=globs,
            on_outcome=show_outcome,
        )
    except SessionportError as exc:  # before any input was read, or while joining a batch
        conversion.write(json_report, conversion.document(command, to, output, None, exc.exit_code, error=str(exc)), names)
        raise
    except BaseException as exc:  # Ctrl-C, SIGTERM, a bug: no earlier run's report may stay at the path
        code, why = conversion.ended(exc)
        if why != "the output pipe was closed" or json_report != "-":  # a report to the closed stdout cannot be written
            # with the outputs written until then: each file the run left is named
            written = pipeline.partial_result(exc)
            conversion.write(json_report, conversion.document(command, to, output, written, code, error=why), names)
        raise
    if result.raised is not None:
        conversion.write(json_report, conversion.document(command, to, output, result, result.raised.exit_code), names)
        raise result.raised
    conversion.write(json_report, conversion.document(command, to, output, result, 1 if result.failed else 0), names)
    if result.batch:
        closing_line(result, quiet=quiet)
