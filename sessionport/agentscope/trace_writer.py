"""``agentscope-trace``: an AgentScope review trace, one run per session.

The document is ``{"schemaVersion": "1.0.0", "runs": [...]}`` with exactly
the fields of AgentScope's trace schema (see
``sessionport/agentscope/schemas/agentscope-trace.schema.json``).  It is written
incrementally, run by run; each run buffers only its own session's actions,
in a spooled temporary file (see :mod:`.agentscope_run`).  Action typing,
risk and run status rules: docs/formats/agentscope-trace.md.
"""

from __future__ import annotations

from typing import BinaryIO, Iterable

import click

from sessionport.context import WriteContext
from sessionport.registry import Exporter, Option

# Kept here, with the option it is the default of; the action builder reads it from here.
DEFAULT_MAX_OUTPUT = 20_000


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    # Every start of the CLI declares this exporter; its machinery (action
    # typing, risk and outcome rules: dozens of regular expressions) is
    # imported only when a trace is written.
    from sessionport.agentscope.document import write_trace

    write_trace(events, out, ctx)


EXPORTER = Exporter(
    name="agentscope-trace",
    description="AgentScope review trace: one run per session, tool calls as typed actions with risk",
    write=write,
    extension=".trace.json",
    multi_session=True,
    options=(
        Option(name="trace_agent", flags=("--trace-agent",), help="agentscope-trace: the run's agent name (default: from the session)."),
        Option(name="trace_branch", flags=("--trace-branch",), help="agentscope-trace: the run's git branch (default: the session's, else the current one)."),
        Option(
            name="trace_max_output",
            flags=("--trace-max-output",),
            type=click.IntRange(min=0),
            help=f"agentscope-trace: keep at most N characters of each output and diff (default {DEFAULT_MAX_OUTPUT}; 0: no limit).",
        ),
        Option(
            name="trace_no_final_summary",
            flags=("--trace-no-final-summary",),
            is_flag=True,
            help="agentscope-trace: add no generate_summary action for a transcript's summary records and last assistant message.",
        ),
    ),
)
