"""AgentScope's compatibility shortcut as a library call: a loose log in, a trace file out.

>>> from sessionport.agentscope import import_session
>>> import_session("examples/agent-session.json")        # doctest: +SKIP
'.agentscope/run-session-2026-06-04-184100.trace.json'
"""

from __future__ import annotations

import contextlib
import os
import shutil
from typing import Iterable, Iterator

from sessionport.context import WriteContext
from sessionport.pipeline import stream
from sessionport.io import check_folder, open_output, spool_file
from sessionport.pipeline.targets import file_identity

TRACE_DIR = ".agentscope"
SPOOL_MEMORY = 8 << 20


def import_session(source: str, output: str | None = None, *, skip_bad: bool = False, options: dict | None = None) -> str:
    """Convert a session-json log to an AgentScope trace; returns the path written.

    Without ``output`` the trace goes to ``.agentscope/<run-id>.trace.json``
    in the current directory, or ``<run-id>-2.trace.json``, ``-3`` ... when
    that name is taken (as AgentScope does): an earlier trace is never
    overwritten.  The run id is known only once the session
    has been read, so the trace is spooled first (memory up to 8 MiB, disk
    beyond), then written atomically through :func:`sessionport.io.open_output`.
    ``options`` are agentscope-trace exporter options (``trace_branch``...).
    """
    return write_trace(stream.read(source, format="session-json", skip_bad=skip_bad), source, output, options=options)


def write_trace(events: Iterable[dict], source: str, output: str | None = None, *, options: dict | None = None, context: WriteContext | None = None,
                placed: list[str] | None = None) -> str:
    """The events of ``source`` written as :func:`import_session` writes
    them; ``context`` gets what the trace had no place for (``losses``).

    ``placed`` gets the trace's path before the trace can appear there, and
    loses it again if the run ends before the trace replaced what was there:
    a signal landing just after the rename leaves a trace the caller can
    still name."""
    if output is not None and output != "-":
        check_folder(os.path.dirname(output) or ".", output)  # before the log is read
    run_ids: list[str] = []
    write_opts = {k: v for k, v in (options or {}).items() if v is not None}
    write_opts["_run_ids"] = run_ids
    with spool_file(SPOOL_MEMORY) as spool:
        stream.write_events(events, spool, format="agentscope-trace", options=write_opts, context=context)
        spool.seek(0)
        if output is not None:
            with _placing(output, placed), open_output(output, [source]) as out:
                shutil.copyfileobj(spool, out)
            return output
        os.makedirs(TRACE_DIR, exist_ok=True)
        with _new_file(TRACE_DIR, run_ids[0], ".trace.json") as path, _placing(path, placed), open_output(path, [source]) as out:
            shutil.copyfileobj(spool, out)
    return path


@contextlib.contextmanager
def _placing(path: str, placed: list[str] | None) -> Iterator[None]:
    """``path`` in ``placed`` while its file is written, and after unless
    the file there is still the one there before."""
    if placed is None or path == "-":
        yield
        return
    before = file_identity(path)
    placed.append(path)
    try:
        yield
    except BaseException:
        if file_identity(path) == before:
            placed.remove(path)
        raise


@contextlib.contextmanager
def _new_file(directory: str, stem: str, suffix: str) -> Iterator[str]:
    """A path that names no file yet: ``stem``, then ``stem-2``, ``stem-3`` ...
    The name is taken at once (an empty file, created exclusively), so two
    imports at the same time cannot pick the same one; it is given back if
    the trace is not written."""
    number = 1
    while True:
        path = os.path.join(directory, f"{stem}{suffix}" if number == 1 else f"{stem}-{number}{suffix}")
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            break
        except FileExistsError:
            number += 1
    try:
        yield path
    except BaseException:
        with contextlib.suppress(OSError):
            if os.path.getsize(path) == 0:
                os.unlink(path)
        raise
