"""``qwen-code``: Qwen Code session logs (``~/.qwen/projects/*/chats/*.jsonl``), import only."""

from __future__ import annotations

import os
from typing import BinaryIO, Iterator

from sessionport.context import ReadContext
from sessionport.jsonl import iter_records
from sessionport.model import end_event, session_event
from sessionport.registry import Importer
from sessionport.formats.qwen_code.records import RecordConverter
from sessionport.formats.qwen_code.sniff import sniff

SOURCE = "qwen-code"


def _session(record: dict, ctx: ReadContext) -> dict:
    metadata = {}
    for key in ("version", "gitBranch"):
        value = record.get(key)
        if isinstance(value, str) and value:
            metadata[key] = value
    sid = record.get("sessionId")
    if not isinstance(sid, str) and ctx.path:
        sid = os.path.splitext(os.path.basename(ctx.path))[0]
    cwd = record.get("cwd")
    stamp = record.get("timestamp")
    return session_event(
        SOURCE,
        sessionId=sid if isinstance(sid, str) else None,
        cwd=cwd if isinstance(cwd, str) else None,
        createdAt=stamp if isinstance(stamp, str) else None,
        metadata=metadata,
    )


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    converter = RecordConverter(ctx)
    started = False
    messages = lines = 0
    for line_no, record in iter_records(stream, ctx):
        lines += 1
        if not isinstance(record, dict):
            ctx.bad_record(f"expected a Qwen Code record (a JSON object), found a JSON {type(record).__name__}", line=line_no)
            continue
        events = converter.events(record, line_no)
        if not started and (events or isinstance(record.get("sessionId"), str)):
            started = True
            yield _session(record, ctx)
        messages += len(events)
        yield from events
    unknown = ctx.report_unknown()
    if not started:
        ctx.warn("the file holds no Qwen Code records; no conversation in it" if not lines else "the file holds no conversation")
        return
    counts = {"messages": messages, "lines": lines, **converter.counts}
    if converter.parts.placeholders:
        converter.skipped["placeholder result"] = converter.parts.placeholders
    notes = None
    journal = converter.skipped.get("system/managed_session_event_v1", 0)
    if journal:
        # A managed session (Qwen Code's daemon runtime) journals events whose
        # content is published to its resource store and named by recordRef.
        note = (
            f"a Qwen Code managed session: {journal} journal event(s) name content kept in the session's "
            "resource store (recordRef), not in this file; that content is not read"
        )
        notes = [note]
        if not messages:
            ctx.warn(note)
    yield end_event(
        usage=converter.usage or None,
        counts=counts,
        skipped=converter.skipped or None,
        notes=notes,
        title=converter.title,
        unknown=unknown or None,
    )


IMPORTER = Importer(
    name="qwen-code",
    description="Qwen Code session logs (~/.qwen/projects/*/chats/*.jsonl)",
    read=read,
    sniff=sniff,
    patterns=("*.jsonl",),
    title_scan="sessionport.formats.qwen_code.title_scan:title_scan",
    versions=("0.5.1", "0.11.1", "0.14.1", "0.15.0", "0.22.0", "0.22.2", "0.24.7 (record shapes)", "managed sessions (h3-preview/1, from the source)"),
)
