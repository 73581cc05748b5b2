"""``import-session``: AgentScope's compatibility shortcut, a loose log in, a trace out."""

from __future__ import annotations

import os

import click

from sessionport.agentscope import import_session
from sessionport.cli.app import cli


@cli.command("import-session")
@click.argument("source", metavar="FILE")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the trace here (default: .agentscope/<run-id>.trace.json, never overwriting one).")
@click.option("--skip-bad", is_flag=True, help="Skip unreadable records, counting them on stderr, instead of stopping.")
@click.option("--agent", help="The run's agent name (default: from the log, or inferred).")
@click.option("--branch", help="The run's git branch (default: from the log, else the current branch).")
def import_session_command(source, output, skip_bad, agent, branch):
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
    written = import_session(source, output, skip_bad=skip_bad, options=options)
    if written != "-":
        # As AgentScope prints it: scripts read the path from stdout.
        click.echo(f"AgentScope trace written to {os.path.abspath(written)}")
