"""``portable-jsonl``: the wire format, one ``sessionport/v1`` event per line."""

from __future__ import annotations

from typing import BinaryIO, Iterator

from sessionport.context import ReadContext
from sessionport.formats.portable.fields import FieldCheck
from sessionport.jsonl import iter_lines, parse_line
from sessionport.model import message_problem
from sessionport.registry import Importer
from sessionport.formats.portable.sniff import EVENT_TYPES
from sessionport.formats.portable.sniff import sniff_jsonl as sniff


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    fields = FieldCheck()
    for line_no, line, complete in iter_lines(stream, ctx):
        event = parse_line(line, line_no, complete, ctx)
        del line  # a big line is freed before its event is written
        if event is None:
            continue
        kind = event.get("type") if isinstance(event, dict) else None
        if type(kind) is not str or kind not in EVENT_TYPES:
            found = event.get("type") if isinstance(event, dict) else type(event).__name__
            ctx.bad_record(
                f"expected a sessionport/v1 event with type session, message or end, found {found!r}",
                line=line_no,
            )
            continue
        if kind == "message":
            problem = message_problem(event)
            if problem:
                ctx.bad_record(problem, line=line_no)
                continue
        yield fields.clean(event, line_no)
    fields.report(ctx)


IMPORTER = Importer(
    name="portable-jsonl",
    description="sessionport/v1 events, one compact JSON object per line (the wire format)",
    read=read,
    sniff=sniff,
    patterns=("*.jsonl", "*.ndjson"),
)
