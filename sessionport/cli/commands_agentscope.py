"""``import-session``: AgentScope's compatibility shortcut, a loose log in, a trace out."""

from __future__ import annotations

import os

import click

from sessionport.agentscope import import_session
from sessionport.cli.app import cli
from sessionport.cli.options import not_empty, report_option


@cli.command("import-session")
@click.argument("source", metavar="FILE")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), callback=not_empty,
              help="Write the trace here (default: .agentscope/<run-id>.trace.json, never overwriting one).")
@click.option("--skip-bad", is_flag=True, help="Skip unreadable records, counting them on stderr, instead of stopping.")
@click.option("--agent", help="The run's agent name (default: from the log, or inferred).")
@click.option("--branch", help="The run's git branch (default: from the log, else the current branch).")
@report_option(stdout="- for stdout, the path line then going to stderr", files="the trace written")
def import_session_command(source, output, skip_bad, agent, branch, json_report):
    """Turn a loose tool-call log (session-json) into an AgentScope trace.

    The same as `sessionport convert FILE --from session-json --to
    agentscope-trace`, written to .agentscope/<run-id>.trace.json unless -o
    is given, like AgentScope's own `import-session`; an earlier trace of
    the same name is kept (the new one gets -2, -3 ...). The path written is
    printed on stdout.

    \b
      sessionport import-session examples/agent-session.json
      sessionport validate .agentscope/*.trace.json
    """
    options = {"trace_agent": agent, "trace_branch": branch}
    if json_report is not None:
        written = _reported_import(source, output, skip_bad, options, json_report)
    else:
        written = import_session(source, output, skip_bad=skip_bad, options=options)
    if written != "-":
        # As AgentScope prints it: scripts read the path from stdout (stderr
        # when the report is on stdout).
        # (a name holding terminal codes is shown with them as visible escapes)
        from sessionport.sanitise import terminal

        click.echo(terminal(f"AgentScope trace written to {os.path.abspath(written)}"), err=json_report == "-")


def _reported_import(source, output, skip_bad, options, json_report) -> str:
    from sessionport.agentscope.shortcut import write_trace
    from sessionport.context import WriteContext
    from sessionport.errors import SessionportError, UsageError
    from sessionport.pipeline.inputs import Source
    from sessionport.pipeline.run import Reading, Result
    from sessionport.reports import conversion
    from sessionport.reports.per_input import InputLedger

    if json_report == "-" and output == "-":
        raise UsageError("--json-report -: -o - writes the trace to stdout; write the report to a file (--json-report report.json)")
    if json_report != "-":
        conversion.check_target(json_report, output, [source])
    ledger = InputLedger([Source(source, os.path.basename(source))], Reading("session-json", skip_bad=skip_bad))
    written = WriteContext()

    def document(result, exit_code, path):
        doc = conversion.document("import-session", "agentscope-trace", path, result, exit_code)
        doc["output"] = path  # the trace's path (None when none was written)
        return doc

    placed: list[str] = []
    try:
        path = write_trace(next(ledger.streams()), source, output, options=options, context=written, placed=placed)
    except SessionportError as exc:
        result = Result(1, ledger.outcomes(None, exc, files=False), batch=False)
        conversion.write(json_report, document(result, exc.exit_code, output), [source])
        raise
    except BaseException as exc:  # Ctrl-C, SIGTERM, a bug: no earlier run's report may stay at the path
        code, why = conversion.ended(exc)
        if placed:  # the trace was in place when the signal came: it is whole, and named
            ledger.wrote(placed[0], written.losses)
            result = Result(1, ledger.outcomes(placed[0], files=False), batch=False)
        else:
            result = Result(1, ledger.outcomes(None, SessionportError(why), files=False), batch=False)
        doc = document(result, code, placed[0] if placed else output)
        doc["error"] = why
        conversion.write(json_report, doc, [source])
        raise
    ledger.wrote(path, written.losses)
    result = Result(1, ledger.outcomes(path, files=False), batch=False)
    conversion.write(json_report, document(result, 0, path), [source])
    return path
