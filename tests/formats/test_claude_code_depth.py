"""The Claude Code reader tests each line's depth itself, with the line reader's answer.

``jsonl.iter_lines`` refuses a line nested deeper than ``MAX_DEPTH`` by
counting its brackets (a pass over every byte) and, past the bound,
parsing it to know.  The Claude Code reader turns that off and tests a
line on what orjson made of it (``records._Transcript.run``).  These
tests read each input both ways, the second through the line reader's own
test (the reader takes ready lines as it does for a web session), and
require the same events, warnings and unreadable-record reports, or the
same error: on the corpus, the fixtures and lines built to sit on every
side of the bound, in every kind of record.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import orjson
import pytest

from conftest import FIXTURES, corpus_files, requires_corpus
from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.jsonl import MAX_DEPTH, iter_lines, line_too_deep, opening_brackets, value_too_deep
from sessionport.formats.claude_code.records import _WALK_FROM, read_transcript

CLAUDE_FIXTURES = sorted(p for p in (FIXTURES / "claude-code").rglob("*.jsonl") if p.is_file())


def _read(data: bytes, *, through_line_reader: bool, **flags) -> dict:
    warnings: list[str] = []
    ctx = ReadContext(name="t.jsonl", on_warning=lambda message: None, **flags)
    stream = io.BufferedReader(io.BytesIO(data))
    lines = iter_lines(stream, ctx) if through_line_reader else None
    try:
        events = list(read_transcript(stream, ctx, lines=lines))
    except DataError as exc:
        return {"error": str(exc), "line": exc.line}
    return {"events": events, "warnings": ctx.warnings + warnings, "bad": (ctx.bad_count, ctx.bad_places)}


def _same_both_ways(data: bytes) -> None:
    for flags in ({}, {"skip_bad": True}, {"strict": True}):
        own = _read(data, through_line_reader=False, **flags)
        theirs = _read(data, through_line_reader=True, **flags)
        assert own == theirs, flags


def _envelope(kind: str, uid: str, parent: str | None, **fields) -> dict:
    record = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/p",
        "sessionId": "s1",
        "version": "2.0.55",
        "type": kind,
    }
    record.update(fields)
    record.setdefault("uuid", uid)
    record.setdefault("timestamp", "2026-01-01T00:00:01Z")
    return record


HEAD = [
    _envelope("user", "u1", None, message={"role": "user", "content": "hi"}),
    _envelope("assistant", "a1", "u1", message={"id": "m1", "model": "x", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}], "usage": {"input_tokens": 1, "output_tokens": 2}}),
]
PLACE = "<<VALUE>>"
RESULT = _envelope(
    "user", "r1", "a1",
    message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "PAD"}]},
    toolUseResult={"stdout": PLACE},
)
ASSISTANT = _envelope("assistant", "a2", "r1", message={"id": "m2", "model": "x", "role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "X", "input": {"v": PLACE}}]})
SNAPSHOT = {"type": "file-history-snapshot", "messageId": "m", "snapshot": PLACE}
PROGRESS = _envelope("progress", "p1", "r1", data={"v": PLACE})
# in the exact shape the reader skips unparsed (its uuid last)
PROGRESS_AS_WRITTEN = _envelope("progress", "p2", "r1", data={"v": PLACE}, timestamp="2026-01-01T00:00:02Z", uuid="p2")


def _line(template: dict, value: bytes, pad: int) -> bytes:
    line = json.dumps(template, separators=(",", ":")).encode()
    line = line.replace(json.dumps(PLACE).encode(), value)
    return line.replace(b'"PAD"', json.dumps("p" * pad).encode())


def _nest(depth: int, opener: bytes = b"[") -> bytes:
    closer = b"]" if opener == b"[" else b"}"
    inner = b"[" if opener == b"[" else b'{"k":'
    return inner * depth + (b"" if opener == b"[" else b"1") + closer * depth


# Depths of the value around the bound: the record adds a level or more.
VALUES = {f"list-{d}": _nest(d) for d in (MAX_DEPTH - 3, MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, 600)}
VALUES.update({f"dict-{d}": _nest(d, b"{") for d in (MAX_DEPTH - 2, MAX_DEPTH - 1)})
VALUES["brackets-in-a-string"] = json.dumps("{[" * 400).encode()
VALUES["beyond-orjson"] = _nest(1100)
VALUES["deep-and-bad-utf8"] = b'["\xff",' + _nest(MAX_DEPTH + 5) + b"]"
VALUES["deep-and-lone-surrogate"] = b'["\\ud83d",' + _nest(MAX_DEPTH + 5) + b"]"
VALUES["deep-and-broken"] = _nest(MAX_DEPTH + 5)[:-3]

CASES = [
    (f"{where}-{name}-{'long' if pad else 'short'}", template, value, pad)
    for where, template in (("result", RESULT), ("assistant", ASSISTANT), ("snapshot", SNAPSHOT), ("progress", PROGRESS), ("progress-as-written", PROGRESS_AS_WRITTEN))
    for name, value in VALUES.items()
    for pad in (0, _WALK_FROM * 2)
]


@pytest.mark.parametrize("name,template,value,pad", CASES, ids=[c[0] for c in CASES])
def test_adversarial_depths_are_judged_as_the_line_reader_judges_them(name, template, value, pad):
    body = [json.dumps(r, separators=(",", ":")).encode() for r in HEAD]
    bad = _line(template, value, pad)
    after = _line(RESULT, b'"ok"', 0)
    _same_both_ways(b"\n".join([*body, bad, after]) + b"\n")
    # the same line first in the file, before the session has started
    _same_both_ways(b"\n".join([bad, *body, after]) + b"\n")


@pytest.mark.parametrize("name,value", sorted(VALUES.items()))
def test_the_value_test_answers_as_the_byte_test(name, value):
    for pad in (0, _WALK_FROM * 2):
        line = _line(RESULT, value, pad)
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # such a line is tested on its bytes
        assert value_too_deep(record) == line_too_deep(line)
        assert opening_brackets(line) >= (MAX_DEPTH + 1 if value_too_deep(record) else 0)


def test_progress_as_written_is_skipped_unparsed():
    from sessionport.formats.claude_code.records import _PROGRESS_TYPE, _progress_link

    line = _line(PROGRESS_AS_WRITTEN, b"1", 0)
    at = line.find(b"{", 1) + 1 - len(_PROGRESS_TYPE)
    assert _progress_link(line, at) == ("p2", "r1")


def test_scalars_and_empty_containers_are_shallow():
    for value in (None, 1, "x", [], {}, [[]], {"a": {}}):
        assert value_too_deep(value) is False
    assert value_too_deep(orjson.loads(_nest(MAX_DEPTH))) is False
    assert value_too_deep(orjson.loads(_nest(MAX_DEPTH + 1))) is True


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("claude-code", "*.jsonl"), ids=lambda p: p.name)
def test_corpus_files_read_the_same(path: Path):
    _same_both_ways(path.read_bytes())


@pytest.mark.parametrize("path", CLAUDE_FIXTURES, ids=lambda p: p.name)
def test_fixtures_read_the_same(path: Path):
    _same_both_ways(path.read_bytes())
