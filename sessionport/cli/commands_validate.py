"""``validate``: check traces, portable documents and portable-jsonl streams against their schemas."""

from __future__ import annotations

import click

from sessionport import jsonout

from sessionport.reports import validate as checks
from sessionport.cli.app import VerdictLines, cli
from sessionport.sanitise import terminal, terminal_json


def _summary(report: checks.Report) -> str:
    parts = [f"{n} {key[:-1] if n == 1 and key.endswith('s') else key}" for key, n in report.counts.items()]
    return f" ({', '.join(parts)})" if parts else ""


@cli.command()
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--as", "kind", type=click.Choice(checks.KINDS), help="Check every FILE as this kind instead of detecting it.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report per file (JSON Lines) instead of text.")
@click.option("--max-errors", type=click.IntRange(min=1), default=checks.DEFAULT_MAX_PROBLEMS, show_default=True,
              help="List at most this many problems per file (all are counted).")
def validate(files, kind, as_json, max_errors):
    """Check traces and portable files against their JSON Schemas.

    Each FILE's kind is detected: an AgentScope trace, a portable document or a
    portable-jsonl stream. Each problem is printed with its JSON path and
    the rule it breaks; the exit status is 1 when any file is invalid.

    \b
      sessionport validate .agentscope/*.trace.json
      sessionport validate session.json events.jsonl --json
    """
    invalid = 0
    say = VerdictLines()  # a reader stopping early must not turn invalid files into exit 0
    for report in checks.validate_files(files, kind, max_errors):
        invalid += not report.valid
        if as_json:
            say(terminal_json(jsonout.dumps(report.as_dict())).decode())
            continue
        if report.valid:
            say(terminal(f"{report.name}: valid {report.kind}{_summary(report)}"))
            continue
        label = report.kind or "file"
        say(terminal(f"{report.name}: invalid {label}: {report.problem_count} problem(s)"))
        for problem in report.problems:
            say(terminal(f"{report.name}: {problem}"))
        if report.problem_count > len(report.problems):
            say(terminal(f"{report.name}: ... and {report.problem_count - len(report.problems)} more"))
    if invalid:
        raise click.exceptions.Exit(1)
