"""``portable-jsonl``: the wire format, one ``sessionport/v1`` event per line."""

from __future__ import annotations

from typing import BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.formats.portable.fields import FieldCheck
from sessionport.jsonl import MAX_DEPTH, NOT_OPENERS, iter_block_lines, line_too_deep, parse_line, refuse_deep_line, value_too_deep
from sessionport.model import message_problem
from sessionport.registry import Importer
from sessionport.formats.portable.sniff import EVENT_TYPES
from sessionport.formats.portable.sniff import sniff_jsonl as sniff


# A line longer than this has its depth tested on what orjson made of it
# (a look per value), a shorter one on its bytes (its brackets counted):
# events of the wire format are a few big strings in a shallow object.
_WALK_FROM = 2048


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    fields = FieldCheck()
    loads = orjson.loads
    # The depth of a line (see jsonl.iter_lines) is tested here, after the
    # parse, which spares a pass over a long line's bytes; the lines are
    # cut out of one buffer (jsonl.iter_block_lines), one copy each.
    for line_no, line, complete in iter_block_lines(stream, ctx):
        try:
            event = loads(line)
        except orjson.JSONDecodeError:
            if line_too_deep(line):
                refuse_deep_line(line_no, ctx)
                continue
            event = parse_line(line, line_no, complete, ctx)
        else:
            if (len(line) > _WALK_FROM or len(line.translate(None, NOT_OPENERS)) > MAX_DEPTH) and value_too_deep(event):
                refuse_deep_line(line_no, ctx)
                continue
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
