"""``formats`` and ``inspect``: what sessionport can read, and what an input holds."""

from __future__ import annotations

import click
import orjson

from sessionport import jsonout

from sessionport.pipeline.run import Reading, Result, each_input
from sessionport.registry import get_registry
from sessionport.summary import census_or_read, totals, usage_fields, usage_or_census
from sessionport.cli.app import cli
from sessionport.cli.options import closing_line, read_options, split_format_options
from sessionport.sanitise import terminal, terminal_json


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


def _human(summary: dict) -> list[str]:
    lines = []
    for key in ("source", "sessionId", "title", "cwd", "parentSessionId"):
        if summary.get(key):
            lines.append(f"{key + ':':<12}{summary[key]}")
    if summary.get("start"):
        span = f"{summary['start']} -> {summary.get('end') or '?'}"
        if summary.get("duration_seconds") is not None:
            span += f" ({summary['duration_seconds']:.0f} s)"
        lines.append(f"{'time:':<12}{span}")
    filtered = summary.get("filtered")
    dropped = filtered.get("dropped") if isinstance(filtered, dict) else None
    lines.append(f"{'messages:':<12}{summary['messages']}" + (f" (a filter dropped {dropped})" if isinstance(dropped, int) else ""))
    for label, key in (("by role:", "byRole"), ("by kind:", "byKind"), ("by tool:", "byTool"), ("models:", "models"), ("skipped:", "skipped")):
        if summary.get(key):
            lines.append(f"{label:<12}" + "  ".join(f"{k}={v}" for k, v in summary[key].items()))
    for what, types in (summary.get("unknown") or {}).items():
        label = f"unknown {what}s" if not what.endswith("s") else f"unknown {what}"
        lines.append(f"{'unknown:':<12}{label}: " + "  ".join(f"{k}={v}" for k, v in types.items()))
    if "keptUsage" in summary:
        lines.extend(_partial_usage(summary))
    else:
        usage = summary.get("usage") or {}
        if any(usage.values()):
            lines.append(f"{'usage:':<12}" + _pairs(usage))
    for note in summary.get("notes", []):
        lines.append(f"{'note:':<12}{note}")
    return lines


def _pairs(usage: dict) -> str:
    return "  ".join(f"{k}={v}" for k, v in usage.items())


def _partial_usage(summary: dict) -> list[str]:
    """The two token figures of a session the stream holds only part of:
    the whole session's (from its end event, when the stream has it) and
    that of the messages here, each said to be which."""
    usage, kept, count = summary.get("usage"), summary.get("keptUsage"), summary["messages"]
    here = f"the {count} message{'s' if count != 1 else ''} here"
    if usage is None:
        whole = "whole session: not known (the stream ends before the session's end event)"
    else:
        whole = "whole session: " + (_pairs(usage) if any(usage.values()) else "none recorded by the source")
    mine = f"{here}: {_pairs(kept)}" if kept else f"none of {here} carries its own token usage"
    return [f"{'usage:':<12}{whole}", f"{'kept usage:':<12}{mine}"]


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

    def show_error(outcome):
        if not outcome.ok:
            click.echo(terminal(f"sessionport: error: {outcome.error}"), err=True)

    run = usage_or_census if usage_only else census_or_read
    found, result = each_input(inputs, Reading(from_, strict, skip_bad, dict(read_opts), quiet), list, show_error, run=run)
    sessions = [s for summaries in found for s in summaries]
    warnings = [w for outcome in result.outcomes for w in outcome.warnings]
    per_session = [s.as_dict() for s in sessions]
    total = totals(sessions)
    if usage_only:
        _show_usage(per_session, total, warnings, as_json)
        _end(result)
        return
    if as_json:
        document = {**total, "sessions": per_session, "sessionCount": len(per_session)}
        if warnings:
            document["warnings"] = warnings
        click.echo(terminal_json(jsonout.dumps(document, option=orjson.OPT_INDENT_2)).decode())
        _end(result)
        return
    if not per_session:
        click.echo(terminal("no sessions: " + ("; ".join(warnings) if warnings else "the input holds no conversation")))
        _end(result)
        return
    for index, summary in enumerate(per_session):
        if index:
            click.echo("")
        for line in _human(summary):
            click.echo(terminal(line))
    if len(per_session) > 1:
        click.echo("")
        click.echo(f"{'total:':<12}{total['sessions']} sessions, {total['messages']} messages")
        usage = total["usage"]
        kept = total.get("keptUsage")
        if kept is not None:
            # some sessions are only partly here: say which figure is which
            click.echo(f"{'usage:':<12}whole sessions (where known): " + _pairs(usage))
            click.echo(f"{'kept usage:':<12}the messages here: " + _pairs(kept))
        elif any(usage.values()):
            click.echo(f"{'usage:':<12}" + _pairs(usage))
    _end(result)


def _show_usage(per_session: list[dict], total: dict, warnings: list[str], as_json: bool) -> None:
    """``inspect --usage``: the identity and usage of each session, and the total."""
    document = {key: total[key] for key in ("usage", "keptUsage") if key in total}
    if as_json:
        document.update(sessions=[usage_fields(s) for s in per_session], sessionCount=len(per_session))
        if warnings:
            document["warnings"] = warnings
        click.echo(terminal_json(jsonout.dumps(document, option=orjson.OPT_INDENT_2)).decode())
        return
    if not per_session:
        click.echo(terminal("no sessions: " + ("; ".join(warnings) if warnings else "the input holds no conversation")))
        return
    for index, summary in enumerate(per_session):
        if index:
            click.echo("")
        for key in ("source", "sessionId", "title", "cwd", "parentSessionId"):
            if summary.get(key):
                click.echo(terminal(f"{key + ':':<12}{summary[key]}"))
        if "keptUsage" in summary:
            for line in _partial_usage(summary):
                click.echo(terminal(line))
        else:
            usage = summary.get("usage") or {}
            click.echo(f"{'usage:':<12}" + (_pairs(usage) if any(usage.values()) else "none recorded by the source"))
    if len(per_session) > 1:
        click.echo("")
        click.echo(f"{'total:':<12}{len(per_session)} sessions")
        kept = total.get("keptUsage")
        if kept is not None:
            click.echo(f"{'usage:':<12}whole sessions (where known): " + _pairs(total["usage"]))
            click.echo(f"{'kept usage:':<12}the messages here: " + _pairs(kept))
        else:
            click.echo(f"{'usage:':<12}" + _pairs(total["usage"]))


def _end(result: Result) -> None:
    # Like every command over several inputs: the failures were shown as
    # they came, their count closes the run, and the exit code is 1.
    if result.failed:
        closing_line(result, quiet=True, verb="inspected")
