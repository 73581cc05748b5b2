"""The portable-jsonl reader tests each line's depth itself, with the line reader's answer.

``jsonl.iter_lines`` refuses a line nested deeper than ``MAX_DEPTH`` by
counting its brackets and, past the bound, parsing it to know.  The
portable-jsonl reader cuts lines with ``jsonl.iter_block_lines`` (no depth
test) and tests a long line on what orjson made of it.  These tests read
each input both ways (the second the reader as it was: the line reader's
test, then ``parse_line``) and require the same events, warnings and
unreadable-record reports, or the same error, on lines built to sit on
every side of the bound.
"""

from __future__ import annotations

import io
import itertools

import orjson
import pytest

from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.formats.portable import jsonl_reader
from sessionport.formats.portable.fields import FieldCheck
from sessionport.jsonl import MAX_DEPTH, iter_lines, parse_line
from sessionport.model import message_problem
from sessionport.formats.portable.sniff import EVENT_TYPES


def _reference(stream, ctx):
    fields = FieldCheck()
    for line_no, line, complete in iter_lines(stream, ctx):
        event = parse_line(line, line_no, complete, ctx)
        if event is None:
            continue
        kind = event.get("type") if isinstance(event, dict) else None
        if type(kind) is not str or kind not in EVENT_TYPES:
            found = event.get("type") if isinstance(event, dict) else type(event).__name__
            ctx.bad_record(f"expected a sessionport/v1 event with type session, message or end, found {found!r}", line=line_no)
            continue
        if kind == "message":
            problem = message_problem(event)
            if problem:
                ctx.bad_record(problem, line=line_no)
                continue
        yield fields.clean(event, line_no)
    fields.report(ctx)


def _read(data: bytes, reader, **flags) -> dict:
    ctx = ReadContext(name="t.jsonl", on_warning=lambda message: None, **flags)
    stream = io.BufferedReader(io.BytesIO(data))
    try:
        events = list(reader(stream, ctx))
    except DataError as exc:
        return {"error": str(exc), "line": exc.line}
    return {"events": events, "warnings": ctx.warnings, "bad": (ctx.bad_count, ctx.bad_places)}


def _nest(depth: int, inner: str = "1") -> str:
    return "[" * depth + inner + "]" * depth


HEADER = '{"type":"session","schema":"sessionport/v1","source":"x","sessionId":"s"}'
# meta is the event's second level: a value nested n deep in it puts the
# line at n + 2 levels.
BODIES = {
    "short": lambda n: '{"type":"message","role":"user","text":"a","meta":{"x":%s}}' % _nest(n),
    "long": lambda n: '{"type":"message","role":"user","text":"%s","meta":{"x":%s}}' % ("y" * 3000, _nest(n)),
    "brackets in a string": lambda n: '{"type":"message","role":"user","text":"%s","meta":{"x":%s}}' % ("[{" * 200, _nest(n)),
    "objects": lambda n: '{"type":"message","role":"user","text":"t","meta":{"x":%s}}' % ('{"a":' * n + "1" + "}" * n),
    "not JSON": lambda n: '{"type":"message","role":"user","text":"t","meta":{"x":%s' % ("[" * n),
}
DEPTHS = [1, MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, 2000]


@pytest.mark.parametrize("name,depth", list(itertools.product(BODIES, DEPTHS)))
@pytest.mark.parametrize("ending", ["\n", "\r\n", ""])
def test_a_line_is_refused_for_its_depth_as_the_line_reader_refuses_it(name, depth, ending):
    lines = [HEADER, BODIES[name](depth), '{"type":"message","role":"assistant","text":"after"}']
    data = ("\n".join(lines[:2]) + ending).encode() if ending == "" else (ending.join(lines) + ending).encode()
    for flags in ({}, {"skip_bad": True}, {"strict": True}):
        assert _read(data, jsonl_reader.read, **flags) == _read(data, _reference, **flags), flags


def test_the_bound_is_where_the_line_reader_puts_it():
    # a sanity check of the cases above: at the bound read, past it refused
    inside = (HEADER + "\n" + BODIES["long"](MAX_DEPTH - 2) + "\n").encode()
    past = (HEADER + "\n" + BODIES["long"](MAX_DEPTH - 1) + "\n").encode()
    assert len(_read(inside, jsonl_reader.read)["events"]) == 2
    refused = _read(past, jsonl_reader.read)
    assert refused["line"] == 2 and "nested deeper" in refused["error"]
    assert orjson.loads(BODIES["long"](MAX_DEPTH - 1))  # valid JSON: refused for its depth alone
