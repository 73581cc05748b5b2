"""``filter --role`` over the wire format: the messages of other roles are
read only as far as needed to drop them (formats/portable/jsonl_reader.py),
and the run says and writes exactly what the full read of every line does.

Each case reads the same bytes twice, with and without the first stage's
wanted roles (``context.WANTED_ROLES``), through the filter stage, and
compares the events that come out and every warning and refusal."""

from __future__ import annotations

import io

import orjson
import pytest

from sessionport.context import WANTED_ROLES, ReadContext
from sessionport.errors import SessionportError
from sessionport.formats.portable.jsonl_reader import read
from sessionport.jsonl import MAX_DEPTH
from sessionport.pipeline.batch import stage_factory, wanted_roles
from sessionport.registry import get_registry
from sessionport.stages.filter import build

from conftest import FIXTURES, corpus_files, requires_corpus, run_cli

FILTER = get_registry().stages["filter"]


def _line(event: dict) -> bytes:
    return orjson.dumps(event)


SESSION = _line({"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "s1"})
END = _line({"type": "end", "usage": {"inputTokens": 3}})


def _message(role: str, text: str = "out", **fields) -> dict:
    return {"type": "message", "role": role, "text": text, **fields}


def _tool(text: str = "result", **fields) -> bytes:
    return _line(_message("tool", text, toolName="Bash", toolCallId="c1", meta={"kind": "tool_result"}, **fields))


def _outcome(data: bytes, options: dict, wanted: bool, skip_bad: bool = False):
    """(events out of the filter, warnings, error) of ``data`` read with or
    without the wanted roles."""
    warnings: list[str] = []
    read_options = {WANTED_ROLES: wanted_roles([stage_factory(build, **options)])} if wanted else {}
    ctx = ReadContext(on_warning=warnings.append, skip_bad=skip_bad, options=read_options)
    try:
        out = list(build(**options)(read(io.BytesIO(data), ctx)))
        ctx.report_bad()
    except SessionportError as exc:
        return None, warnings, str(exc)
    return out, warnings, None


def assert_same(data: bytes, **options) -> list[dict]:
    for skip_bad in (False, True):
        full = _outcome(data, options, wanted=False, skip_bad=skip_bad)
        unbuilt = _outcome(data, options, wanted=True, skip_bad=skip_bad)
        assert unbuilt == full
    return full[0]


def test_only_a_role_selection_lets_the_reader_leave_messages_unbuilt():
    assert FILTER.wanted_roles({"role": ("user",)}) == {"user"}
    assert FILTER.wanted_roles({"role": ("tool",), "invert": True}) == {"system", "user", "assistant"}
    assert FILTER.wanted_roles({"role": ("user",), "head": 3, "session": ("s",), "drop_empty": True}) == {"user"}
    assert FILTER.wanted_roles({"role": ()}) is None
    # every other selection reads more of a message than its role
    for more in ({"kind": ("text",)}, {"grep": ("x",)}, {"tool": ("Bash",)}, {"with_results": True},
                 {"no_thinking": True}, {"no_injected": True}, {"since": "1d"}, {"until": "1d"}):
        assert FILTER.wanted_roles({"role": ("user",), **more}) is None
    assert wanted_roles([]) is None
    assert wanted_roles([lambda: (lambda events: events)]) is None  # not a registered stage


def test_messages_of_other_roles_come_out_as_the_full_read_drops_them():
    data = b"\n".join([SESSION, _line(_message("user", "hi")), _tool(), _tool(), _line(_message("assistant", "done")), END]) + b"\n"
    out = assert_same(data, role=("user", "assistant"))
    assert [e.get("role") for e in out if e["type"] == "message"] == ["user", "assistant"]
    assert out[-1]["filtered"] == {"messages": 2, "dropped": 2}  # the unbuilt ones are counted as dropped
    warnings: list[str] = []
    ctx = ReadContext(on_warning=warnings.append, options={WANTED_ROLES: frozenset({"user"})})
    unbuilt = [e for e in read(io.BytesIO(data), ctx) if e["type"] == "message" and len(e) == 2]
    assert [e["role"] for e in unbuilt] == ["tool", "tool", "assistant"]  # what the reader left unbuilt
    assert_same(data, role=("tool",), invert=True)
    assert_same(data, role=("assistant",), head=1)
    assert_same(data, role=("user",), tail=1)
    assert_same(data, role=("system",), drop_empty=True)


def _nested(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels):
        value = {"a": value}
    return value


# Lines the full read warns about, refuses, repairs or reads otherwise: the
# reader must not take them for messages it can leave unbuilt.
ODD_LINES = {
    "a field of the wrong type": _tool(timestamp=5),
    "a null field": _tool(parentId=None),
    "a meta field of the wrong type": _line(_message("tool", meta={"kind": 7})),
    "usage that is no object": _line(_message("tool", meta={"kind": "tool_result", "usage": [1]})),
    "meta that is no object": _line(_message("tool", meta=["x"])),
    "tool input that is no object": _line(_message("tool", toolInput=["ls"])),
    "isError that is no bool": _tool(isError=1),
    "text that is no string": _line({"type": "message", "role": "tool", "text": ["a"]}),
    "no text": _line({"type": "message", "role": "tool"}),
    "a role no event has": _line(_message("robot")),
    "a second role the full read keeps": _tool()[:-1] + b',"role":"user"}',
    "a second role of another kind": _tool()[:-1] + b',"role":null}',
    "a field of its own": _tool(extension={"x": 1}),
    "invalid UTF-8 in the text": _tool()[:-1].replace(b"result", b"res\xffult") + b"}",
    "a lone surrogate escape": _tool()[:-1].replace(b"result", b"res\\ud800ult") + b"}",
    "bad JSON": _tool()[:-2],
    "JSON after the object": _tool() + b" 1",
    "a number orjson refuses": _tool()[:-1] + b',"isError":1e999}',
    "spaces and another key order": b'{"role": "tool", "type": "message", "text": "x"}',
    "a CRLF end": _tool() + b"\r",
    "tool input nested past the bound": _line(_message("tool", toolInput=_nested(MAX_DEPTH))),
    "meta nested past the bound": _line(_message("tool", meta={"kind": "tool_result", "extra": _nested(MAX_DEPTH)})),
    "nested just within the bound": _line(_message("tool", toolInput=_nested(MAX_DEPTH - 2))),
    "brackets in strings": _line(_message("tool", text="[" * (2 * MAX_DEPTH), meta={"kind": "tool_result", "note": "{" * MAX_DEPTH})),
}


@pytest.mark.parametrize("name", sorted(ODD_LINES))
def test_an_odd_line_is_read_as_the_full_read_reads_it(name):
    data = b"\n".join([SESSION, _line(_message("user", "hi")), ODD_LINES[name], _tool(), END]) + b"\n"
    assert_same(data, role=("user",))
    assert_same(data, role=("user", "assistant"), invert=True)


def test_the_unbuilt_read_is_used_only_where_the_wire_format_is_written():
    """Markdown and HTML headings may take a title from any message: a run
    that writes them reads every message whole."""
    from sessionport.pipeline.run import Reading, _told_the_wanted_roles
    from sessionport.pipeline.stream import HEADING_TITLE

    stages = [stage_factory(build, role=("user",))]
    assert _told_the_wanted_roles(Reading(), stages).options[WANTED_ROLES] == {"user"}
    assert WANTED_ROLES not in _told_the_wanted_roles(Reading(options={HEADING_TITLE: True}), stages).options
    assert WANTED_ROLES not in _told_the_wanted_roles(Reading(), [stage_factory(build, role=("user",), grep=("x",))]).options


def test_a_filter_process_on_the_wire_format_writes_what_a_chain_writes(tmp_path):
    source = FIXTURES / "filter" / "two-sessions.jsonl"
    piped = run_cli("filter", "--role", "assistant", "-i", str(source))
    assert piped.returncode == 0, piped.stderr
    wire = run_cli("convert", str(source), "--to", "portable-jsonl")
    assert wire.returncode == 0, wire.stderr
    again = run_cli("filter", "--role", "assistant", input=wire.stdout)
    assert again.returncode == 0, again.stderr
    assert again.stdout == piped.stdout
    assert {e.get("role") for e in map(orjson.loads, again.stdout.splitlines()) if e["type"] == "message"} == {"assistant"}


@requires_corpus
@pytest.mark.parametrize("path", [p for kind in ("claude-code", "codex", "gemini", "chatgpt", "openai") for p in corpus_files(kind, "*.json*")], ids=lambda p: p.name)
def test_every_corpus_file_filters_the_same_either_way(path):
    wire = run_cli("convert", str(path), "--to", "portable-jsonl", "--keep-images")
    if wire.returncode != 0 or not wire.stdout:
        pytest.skip(f"{path.name} does not convert alone")
    for roles in (("user",), ("assistant",), ("tool",), ("user", "assistant")):
        assert_same(wire.stdout, role=roles)
