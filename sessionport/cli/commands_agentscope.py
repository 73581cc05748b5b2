"""``import-session``: AgentScope's compatibility shortcut, a loose log in, a trace out."""

from __future__ import annotations

import os
import shutil
import tempfile

import click

from .. import api
from ..io import open_output
from .app import cli

TRACE_DIR = ".agentscope"
SPOOL_MEMORY = 8 << 20


def import_session(source: str, output: str | None = None, *, skip_bad: bool = False, options: dict | None = None) -> str:
    """Convert a session-json log to an AgentScope trace; returns the path written.

    Without ``output`` the trace goes to ``.agentscope/<run-id>.trace.json``
    in the current directory; the run id is known only once the session has
    been read, so the trace is spooled first, then written atomically.
    """
    run_ids: list[str] = []
    write_opts = dict(options or {})
    write_opts["_run_ids"] = run_ids
    events = api.read(source, format="session-json", skip_bad=skip_bad)
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_MEMORY) as spool:
        api.write_events(events, spool, format="agentscope-trace", options=write_opts)
        if output is None:
            os.makedirs(TRACE_DIR, exist_ok=True)
            output = os.path.join(TRACE_DIR, f"{run_ids[0]}.trace.json")
        spool.seek(0)
        with open_output(output, [source]) as out:
            shutil.copyfileobj(spool, out)
    return output


@cli.command("import-session")
@click.argument("source", metavar="FILE")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write the trace here (default: .agentscope/<run-id>.trace.json).")
@click.option("--skip-bad", is_flag=True, help="Skip unreadable records, counting them on stderr, instead of stopping.")
@click.option("--agent", help="The run's agent name (default: from the log, or inferred).")
@click.option("--branch", help="The run's git branch (default: from the log, else the current branch).")
def import_session_command(source, output, skip_bad, agent, branch):
    """Turn a loose tool-call log (session-json) into an AgentScope trace.

    The same as `sessionport convert FILE --from session-json --to
    agentscope-trace`, written to .agentscope/<run-id>.trace.json unless -o
    is given, like AgentScope's own `import-session`.

    \b
      sessionport import-session examples/agent-session.json
      sessionport validate .agentscope/*.trace.json
    """
    options = {"trace_agent": agent, "trace_branch": branch}
    written = import_session(source, output, skip_bad=skip_bad, options=options)
    if written != "-":
        click.echo(f"AgentScope trace written to {written}", err=True)
