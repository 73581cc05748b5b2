"""The common Claude Code lines read in one call give what the general methods give.

``MessageBuilder.common_assistant`` (an assistant line of one text,
thinking or tool_use block) and ``common_tool_result`` (a user line of one
tool result) are the reader's path for most lines of a log; the grouper
takes their one event through ``assistant_event`` and ``other_event``.
Each input here is read twice, once as the reader reads it and once with
both shortcuts turned off (every line through ``assistant_events`` and
``user_events`` and the grouper's list methods), and the two reads must
give the same events (fields, order and values), warnings, unreadable
records, skip counts and subagent links: on the corpus, the fixtures and
lines of every common shape with each field altered, left out or given
another type.
"""

from __future__ import annotations

import copy
import io
import itertools
import json
from pathlib import Path

import pytest

from conftest import FIXTURES, corpus_files, requires_corpus
from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.formats.claude_code.records import FileResult, _Transcript, read_transcript
from sessionport.formats.claude_code.usage import UsageGrouper

CLAUDE_FILES = sorted(p for p in (FIXTURES / "claude-code").rglob("*.jsonl") if p.is_file())


class _ListGrouper(UsageGrouper):
    """The grouper with its one-event methods going through the list ones."""

    def assistant_event(self, message_id, raw_usage, event):
        return self.assistant(message_id, raw_usage, [event])

    def other_event(self, event):
        return self.other([event])


class _General(_Transcript):
    """The reader with both shortcuts off: every line the general way."""

    def __init__(self, ctx, link, result):
        super().__init__(ctx, link, result)
        self.grouper = _ListGrouper()

    def common_assistant(self, record, uid):
        return None

    def common_tool_result(self, record, uid):
        return None


def _read(data: bytes, transcript_type, **flags) -> dict:
    ctx = ReadContext(name="t.jsonl", on_warning=lambda message: None, options={"keep_images": flags.pop("keep_images", False)}, **flags)
    result = FileResult()
    try:
        events = list(read_transcript(io.BufferedReader(io.BytesIO(data)), ctx, result=result, transcript_type=transcript_type))
    except DataError as exc:
        return {"error": str(exc), "line": exc.line}
    return {
        # The dumps keep the key order, which == on dicts does not see.
        "events": [json.dumps(e) for e in events],
        "warnings": ctx.warnings,
        "bad": (ctx.bad_count, ctx.bad_places),
        "agent_calls": result.agent_calls,
    }


def _same_both_ways(data: bytes, flag_sets=({}, {"skip_bad": True}, {"keep_images": True, "skip_bad": True})) -> None:
    for flags in flag_sets:
        assert _read(data, None, **flags) == _read(data, _General, **flags), flags


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("claude-code", "*.jsonl"), ids=lambda p: p.name)
def test_corpus_files_read_the_same_both_ways(path: Path):
    _same_both_ways(path.read_bytes())


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: p.name)
def test_fixtures_read_the_same_both_ways(path: Path):
    _same_both_ways(path.read_bytes())


def _envelope(kind: str, uid: str, parent: str | None, **fields) -> dict:
    record = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/p",
        "sessionId": "s1",
        "version": "2.0.55",
        "gitBranch": "main",
        "type": kind,
    }
    record.update(fields)
    record.setdefault("uuid", uid)
    record.setdefault("timestamp", "2026-01-01T00:00:01.000Z")
    return record


def _assistant(uid: str, parent: str, block, msg_id: str = "msg_1") -> dict:
    message = {
        "model": "claude-sonnet-4-5",
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "content": [block],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 3, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 7},
    }
    return _envelope("assistant", uid, parent, message=message, requestId="req_1")


def _result(uid: str, parent: str, content, **fields) -> dict:
    block = {"tool_use_id": "toolu_1", "type": "tool_result", "content": content, "is_error": False}
    return _envelope("user", uid, parent, message={"role": "user", "content": [block]}, **fields)


PROMPT = _envelope("user", "u0", None, message={"role": "user", "content": "hello"})
TEXT = _assistant("a1", "u0", {"type": "text", "text": "I will look."})
THINKING = _assistant("a2", "a1", {"type": "thinking", "thinking": "hmm", "signature": "c2ln"})
TOOL_USE = _assistant("a3", "a2", {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls -la\nls", "description": "list"}})
RESULT = _result("r1", "a3", "file a\nfile b", toolUseResult={"stdout": "file a\nfile b", "stderr": "", "interrupted": False, "isImage": False})
AGENT_RESULT = _result("r2", "a3", "done. agentId: a1b2c3d4 (for resuming)", toolUseResult={"status": "completed"})
NEXT = _assistant("a4", "r1", {"type": "text", "text": "Done."}, msg_id="msg_2")
COMMON = [TEXT, THINKING, TOOL_USE, RESULT, AGENT_RESULT]

# What a field may be found holding instead of what Claude Code writes.
ODD_VALUES = [None, "", "x", 0, 2.5, True, [], ["a"], {"agentId": "ab12cd34"}, "I agentId: zz99zz99"]
_MISSING = object()


def _paths(value, prefix=()):
    """Every place in a record, as a key path."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*prefix, key)
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield (*prefix, index)
            yield from _paths(child, (*prefix, index))


def _altered(record: dict, path: tuple, value) -> dict:
    record = copy.deepcopy(record)
    node = record
    for step in path[:-1]:
        node = node[step]
    if value is _MISSING:
        if isinstance(node, dict):
            del node[path[-1]]
        else:
            del node[path[-1] :]
    else:
        node[path[-1]] = copy.deepcopy(value)
    return record


def _alterations():
    for record in COMMON:
        for path in _paths(record):
            for value in [_MISSING, *ODD_VALUES]:
                yield record, path, value
        # a second block, or none
        content = record["message"]["content"]
        for blocks in ([], [content[0], content[0]], [content[0], {"type": "text", "text": "more"}]):
            yield record, ("message", "content"), blocks
        yield record, ("isSidechain",), True
        yield record, ("agentId",), "a-side"


ALTERATIONS = list(_alterations())


def _file(records: list[dict]) -> bytes:
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in records)


@pytest.mark.parametrize("start", range(0, len(ALTERATIONS), 40))
def test_altered_common_lines_read_the_same_both_ways(start: int):
    for record, path, value in ALTERATIONS[start : start + 40]:
        odd = _altered(record, path, value)
        # After the session has started, between lines of the same API
        # message, and as the first line of the file.
        # (Valid JSON objects all: --skip-bad changes nothing here.)
        _same_both_ways(_file([PROMPT, TEXT, odd, RESULT, NEXT]), ({}, {"keep_images": True}))
        _same_both_ways(_file([odd, PROMPT, TOOL_USE, odd, NEXT]), ({}, {"keep_images": True}))


def test_sidechain_and_resume_lines_read_the_same_both_ways():
    side = [_altered(r, ("isSidechain",), True) for r in COMMON]
    resumed = [_altered(r, ("sessionId",), "s2") for r in COMMON]
    _same_both_ways(_file([PROMPT, *side, NEXT]))
    _same_both_ways(_file([PROMPT, *itertools.chain.from_iterable(zip(COMMON, resumed)), NEXT]))
    agent_file = [_altered(_altered(r, ("isSidechain",), True), ("agentId",), "abc") for r in [PROMPT, *COMMON]]
    _same_both_ways(_file(agent_file))


def test_a_long_run_of_one_message_is_released_at_the_bound_both_ways():
    from sessionport.formats.claude_code.usage import MAX_HELD_EVENTS

    lines = [PROMPT]
    for n in range(MAX_HELD_EVENTS + 20):
        lines.append(_altered(TOOL_USE, ("uuid",), f"t{n}"))
        lines.append(_altered(RESULT, ("uuid",), f"r{n}"))
    lines.append(NEXT)
    _same_both_ways(_file(lines))


def _ordered_tool_label(name, tool_input):
    """tool_label's definition: the first label key holding a non-empty text."""
    from sessionport.formats.claude_code.content import _LABEL_KEYS, _LABEL_MAX

    if isinstance(tool_input, dict):
        for key in _LABEL_KEYS:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                line = value.strip().replace("\n", " ")
                if len(line) > _LABEL_MAX:
                    line = line[: _LABEL_MAX - 1] + "…"
                return f"{name}: {line}"
    return name


def test_tool_labels_are_the_first_label_key_holding_text():
    import random

    from sessionport.formats.claude_code.content import _LABEL_KEYS, tool_label

    rng = random.Random(5)
    keys = [*_LABEL_KEYS, "todos", "old_string", "x"]
    values = [None, "", "ls", "  two\nlines ", 3, [], {}, "y" * 300, True]
    for _ in range(20000):
        tool_input = {key: rng.choice(values) for key in rng.sample(keys, rng.randint(0, 6))}
        assert tool_label("T", tool_input) == _ordered_tool_label("T", tool_input), tool_input
    for other in (None, 5, "text", [], ["command"]):
        assert tool_label("T", other) == _ordered_tool_label("T", other)
