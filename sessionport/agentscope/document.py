"""Writing an AgentScope trace document, run by run (the ``agentscope-trace``
exporter's machinery; the exporter itself is declared in :mod:`.agentscope_trace`)."""

from __future__ import annotations

import functools
from typing import BinaryIO, Iterable

from sessionport.context import WriteContext
from sessionport.model import session_event
from sessionport.agentscope.actions import DEFAULT_MAX_OUTPUT
from sessionport.agentscope.run import RunBuilder, RunOptions, current_git_branch

SCHEMA_VERSION = "1.0.0"


def run_options(options: dict) -> RunOptions:
    max_output = options.get("trace_max_output")
    return RunOptions(
        agent=options.get("trace_agent") or None,
        branch=options.get("trace_branch") or None,
        max_output=DEFAULT_MAX_OUTPUT if max_output is None else int(max_output),
        final_summary=not options.get("trace_no_final_summary"),
        git_branch=functools.lru_cache(maxsize=1)(current_git_branch),
    )


class TraceWriter:
    """Writes the document around the runs; :attr:`run_ids` lists the ids written."""

    def __init__(self, out: BinaryIO, options: RunOptions) -> None:
        self.out = out
        self.options = options
        self.run_ids: list[str] = []
        out.write(b'{"schemaVersion":"' + SCHEMA_VERSION.encode() + b'","runs":[')

    def add_run(self, builder: RunBuilder) -> str:
        builder.finish()
        base = f"run-session-{builder.stamp()}"
        run_id, n = base, 1
        while run_id in self.run_ids:  # sessions that started in the same second
            n += 1
            run_id = f"{base}-{n}"
        self.out.write(b"\n" if not self.run_ids else b",\n")
        builder.write(self.out, run_id)
        self.run_ids.append(run_id)
        return run_id

    def close(self) -> None:
        self.out.write(b"\n]}\n" if self.run_ids else b"]}\n")


def write_trace(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    options = run_options(ctx.options)
    writer = TraceWriter(out, options)
    builder: RunBuilder | None = None
    for event in events:
        kind = event.get("type")
        if kind == "session":
            if builder is not None:
                writer.add_run(builder)
            builder = RunBuilder(event, options)
        elif kind in ("message", "end"):
            if builder is None:
                builder = RunBuilder(session_event("unknown"), options)
            builder.add(event)
    if builder is not None:
        writer.add_run(builder)
    writer.close()
    sink = ctx.options.get("_run_ids")
    if isinstance(sink, list):
        sink.extend(writer.run_ids)
    if not writer.run_ids:
        ctx.warn("the input holds no session, so the trace has no run (AgentScope requires at least one)")
