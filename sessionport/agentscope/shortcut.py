"""AgentScope's compatibility shortcut as a library call: a loose log in, a trace file out.

>>> from sessionport.agentscope import import_session
>>> import_session("examples/agent-session.json")        # doctest: +SKIP
'.agentscope/run-session-2026-06-04-184100.trace.json'
"""

from __future__ import annotations

import os
import shutil
import tempfile

from sessionport import api
from sessionport.io import open_output

TRACE_DIR = ".agentscope"
SPOOL_MEMORY = 8 << 20


def import_session(source: str, output: str | None = None, *, skip_bad: bool = False, options: dict | None = None) -> str:
    """Convert a session-json log to an AgentScope trace; returns the path written.

    Without ``output`` the trace goes to ``.agentscope/<run-id>.trace.json``
    in the current directory.  The run id is known only once the session
    has been read, so the trace is spooled first (memory up to 8 MiB, disk
    beyond), then written atomically through :func:`sessionport.io.open_output`.
    ``options`` are agentscope-trace exporter options (``trace_branch``...).
    """
    run_ids: list[str] = []
    write_opts = {k: v for k, v in (options or {}).items() if v is not None}
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
