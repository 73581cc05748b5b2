"""``formats`` and ``inspect``: what sessionport can read, and what an input holds."""

from __future__ import annotations

import click
import orjson

from sessionport.pipeline.batch import Outcome
from sessionport.pipeline.inputs import resolve
from sessionport.pipeline.run import Reading, Result, input_outcomes
from sessionport.registry import get_registry
from sessionport.summary import census_or_read, usage_or_census
from sessionport.cli.app import cli
from sessionport.cli.inspect_output import Report
from sessionport.cli.options import closing_line, read_options, split_format_options
from sessionport.sanitise import terminal


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of formats.")
@click.option("-v", "--verbose", is_flag=True, help="Also say which ijson backend is active and which plugins failed to load.")
def formats(as_json, verbose):
    """List the formats that can be read and written."""
    registry = get_registry()
    rows = []
    for name in sorted(registry.formats):
        info = registry.formats[name]
        rows.append(
            {
                "name": name,
                "description": info.description,
                "import": info.importer is not None,
                "export": info.exporter is not None,
                "multiSession": bool(info.exporter and info.exporter.multi_session),
                "cannotCarry": list(info.exporter.cannot_carry) if info.exporter else [],
                "patterns": list(info.importer.patterns) if info.importer else [],
                "checkedVersions": list(info.importer.versions) if info.importer else [],
            }
        )
    if as_json:
        click.echo(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode())
    else:
        width = max(len(r["name"]) for r in rows)
        click.echo(f"{'format':<{width}}  import  export  description")
        for r in rows:
            click.echo(f"{r['name']:<{width}}  {'yes' if r['import'] else '-':<6}  {'yes' if r['export'] else '-':<6}  {r['description']}")
        stages = ", ".join(sorted(registry.stages))
        click.echo(f"\nstages: {stages}")
    if verbose:
        import ijson

        backend = ijson.backend
        click.echo(f"ijson backend: {backend}", err=True)
        if backend != "yajl2_c":
            click.echo("sessionport: warning: ijson is not using its C backend (yajl2_c); JSON documents will be read slowly. Reinstall ijson from a wheel for this platform.", err=True)
    registry.load_stages()  # their load errors are reported too
    for problem in registry.load_errors:
        click.echo(terminal(f"sessionport: warning: could not load {problem}"), err=True)


@cli.command()
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: totals, usage and a list of sessions.")
@click.option(
    "--usage",
    "usage_only",
    is_flag=True,
    help="Only token usage: each session's identity (source, sessionId, title, cwd) and usage, and the total. "
    "Reads only the records that carry usage (Codex: the token_count lines) and does not validate the rest "
    "of the file; use `sessionport validate` or a full inspect for that.",
)
@read_options()
def inspect(inputs, as_json, usage_only, from_, strict, skip_bad, quiet, **kwargs):
    """Summarize sessions without printing message bodies.

    Counts by role, kind and tool, models, time span, token usage and
    skipped records, per session and in total. Over several inputs or a
    directory, an input that cannot be read is reported and the others go
    on (exit 1 at the end), as with convert.

    Token usage is the whole session's, as its source recorded it. For a
    stream that holds part of a session (after `sessionport filter`) both
    figures are given, each named: the whole session's and that of the
    messages kept (keptUsage in --json).

    With --usage, only the identity and token usage of each session and
    their total are printed, the same figures as a full inspect gives. A
    Codex rollout is then scanned for its token_count lines alone; the
    other records are not read, so neither checked nor reported (a
    resumed or forked rollout, or one not on disk as a plain file, is
    read in full). Other formats are read as inspect reads them.
    """
    read_opts, _, _ = split_format_options(kwargs)
    report = Report(as_json, usage_only)
    run = usage_or_census if usage_only else census_or_read
    resolved = resolve(inputs)
    failed: list[Outcome] = []
    done = 0
    for taken, outcome in input_outcomes(resolved, Reading(from_, strict, skip_bad, dict(read_opts), quiet), report.consume, run=run):
        if outcome.ok:
            done += 1
            report.keep(taken, outcome.warnings)
        else:
            failed.append(outcome)
            report.drop(taken, outcome.warnings)
            click.echo(terminal(f"sessionport: error: {outcome.error}"), err=True)
    report.finish()
    if failed:
        # Like every command over several inputs: the failures were shown as
        # they came, their count closes the run, and the exit code is 1.
        closing_line(Result(len(resolved), [*failed, *[Outcome("", None, True)] * done]), quiet=True, verb="inspected")
