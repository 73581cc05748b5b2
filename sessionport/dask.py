"""sessionport on Dask: the same importers, stages and exporters, spread over
the cores of one machine or the machines of a ``distributed`` cluster.

Install with ``pip install 'sessionport[dask]'`` (and ``[remote]`` for
``s3://``, ``gs://`` ... inputs).  Two shapes of work:

- :func:`convert` turns each input file into output files inside one task,
  streaming: a worker holds one line (or one conversation, for formats that
  need it) at a time, never the file.  It is the same code as
  ``sessionport convert --jobs``.
- :func:`read_sessions` gives a bag with one element per *session* (its
  session event, messages and end event), for analysis with the rest of
  Dask; an element holds a whole session, so a worker needs memory for the
  largest session, not the file.

Both run unchanged on the local scheduler and on a cluster: tasks receive
only paths and option dicts, and every worker reads its inputs itself.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import dask.bag as db

from sessionport.pipeline import batch, inputs, stream
from sessionport.pipeline.run import directory_jobs

__all__ = ["convert", "read_sessions", "messages", "map_stages", "sources"]


def sources(paths: str | Sequence[str], globs: Sequence[str] = ()) -> list[inputs.Source]:
    """Paths, directories, URL patterns or ``@`` references, resolved as the CLI does."""
    return list(inputs.resolve([paths] if isinstance(paths, str) else list(paths), globs).sources)


def convert(
    paths: str | Sequence[str],
    directory: str,
    format: str,
    *,
    stages: Sequence[batch.StageFactory] = (),
    from_: str | None = None,
    read_options: dict[str, Any] | None = None,
    write_options: dict[str, Any] | None = None,
    strict: bool = False,
    skip_bad: bool = False,
    globs: Sequence[str] = (),
) -> db.Bag:
    """A lazy bag of outcomes, one per input: ``{"source", "target", "ok", "error", "empty"}``
    (an input without messages writes nothing: ``empty`` is true, ``target`` None).

    Each input becomes one output under ``directory``, mirroring the
    inputs' layout, exactly as ``sessionport convert INPUTS -o DIRECTORY``
    writes it.  ``stages`` are picklable stage factories, e.g.
    ``batch.stage_factory(get_registry().stage("redact").build)``.
    """
    # the Markdown/HTML heading carries a title recorded late, as convert's does
    options = stream.heading_options(format, read_options)
    template = batch.Job("", None, format, from_, strict, skip_bad, options, dict(write_options or {}), tuple(stages))
    jobs = directory_jobs(sources(paths, globs), directory, template)
    return db.from_sequence(jobs, npartitions=max(1, len(jobs))).map(_run)


def _run(job: batch.Job) -> dict:
    outcome = batch.run_job(job)
    return {"source": outcome.source, "target": outcome.target, "ok": outcome.ok, "error": outcome.error, "empty": outcome.empty}


def _sessions_of(source: inputs.Source, format: str | None, options: dict, strict: bool, skip_bad: bool) -> list[dict]:
    records: list[dict] = []
    for event in stream.read(source.spec, format=format, options=dict(options), strict=strict, skip_bad=skip_bad):
        kind = event.get("type")
        if kind == "session" or not records:
            records.append({"path": source.spec, "session": event if kind == "session" else None, "messages": [], "end": None})
            if kind == "session":
                continue
        if kind == "message":
            records[-1]["messages"].append(event)
        elif kind == "end":
            records[-1]["end"] = event
    return records


def read_sessions(
    paths: str | Sequence[str],
    *,
    format: str | None = None,
    options: dict[str, Any] | None = None,
    strict: bool = False,
    skip_bad: bool = False,
    globs: Sequence[str] = (),
) -> db.Bag:
    """A bag of sessions: ``{"path", "session", "messages", "end"}`` per session,
    one partition per input file, in input order."""
    found = sources(paths, globs)
    return db.from_sequence(found, npartitions=max(1, len(found))).map(_sessions_of, format, dict(options or {}), strict, skip_bad).flatten()


def events_of(record: dict) -> list[dict]:
    """A session record back as the events of the stream."""
    events = [record["session"]] if record.get("session") else []
    events.extend(record["messages"])
    if record.get("end"):
        events.append(record["end"])
    return events


def _apply(record: dict, factories: tuple) -> dict:
    events: Iterable[dict] = events_of(record)
    for factory in factories:
        events = factory()(events)
    out = {"path": record["path"], "session": None, "messages": [], "end": None}
    for event in events:
        kind = event.get("type")
        if kind == "session":
            out["session"] = event
        elif kind == "message":
            out["messages"].append(event)
        elif kind == "end":
            out["end"] = event
    return out


def map_stages(bag: db.Bag, *factories: batch.StageFactory) -> db.Bag:
    """Run stages (filter, redact, ...) over every session of a bag."""
    return bag.map(_apply, tuple(factories))


def _flat_messages(record: dict) -> list[dict]:
    session = record.get("session") or {}
    return [
        {"path": record["path"], "source": session.get("source"), "sessionId": session.get("sessionId"), "index": i, **message}
        for i, message in enumerate(record["messages"])
    ]


def messages(bag: db.Bag) -> db.Bag:
    """One element per message, with its session's path, source and id:
    ready for ``.to_dataframe()`` (which needs pandas)."""
    return bag.map(_flat_messages).flatten()
