"""The typed decode of common Claude Code lines reads exactly what the full parse reads.

Once a session has started, the reader decodes its commonest ``user`` and
``assistant`` lines with msgspec into typed records
(``sessionport/formats/claude_code/typed.py``) and hands every other line to
orjson and the dict handlers.  These tests read each input twice, once with
the typed decode from the first line and once with it switched off, and
compare everything a read gives: the events (as written, so key order
counts), the warnings, the unreadable-record report, or the error.  The
inputs are the corpus, the Claude Code fixtures, a generated log and lines
made to sit on every edge of the typed shapes (wrong field types, missing
fields, new fields, other block and part types, repeated keys, escapes,
invalid UTF-8, numbers orjson refuses or reads as floats, deep nesting).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from conftest import FIXTURES, corpus_files, requires_corpus, typed_read_outcome
from sessionport import api
from sessionport.formats.claude_code import records, typed
from sessionport.formats.claude_code.records import _Transcript

ROOT = Path(__file__).resolve().parents[2]
CLAUDE_FIXTURES = sorted(p for p in (FIXTURES / "claude-code").rglob("*.jsonl") if p.is_file())
OPTION_SETS = {
    "defaults": {},
    "skip-bad": {"skip_bad": True},
    "strict": {"strict": True},
    "keep-images": {"options": {"keep_images": True}},
    "latest-branch": {"options": {"branch": "latest"}},
    "no-subagents": {"options": {"no_subagents": True}},
}

ENVELOPE = (
    b'"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.0.55","gitBranch":"main",'
)
# The first line starts the session (read in full, as every first line is).
HEAD = (
    b'{"parentUuid":null,' + ENVELOPE + b'"type":"user","message":{"role":"user","content":"start"},'
    b'"uuid":"u0","timestamp":"2025-11-01T10:00:00.000Z"}\n'
)
USAGE = b'{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":20,"output_tokens":5,"service_tier":"standard"}'


def assistant(block: bytes, n: int, usage: bytes = USAGE, extra: bytes = b"", message_extra: bytes = b"", mid: bytes = b"msg_1") -> bytes:
    return (
        b'{"parentUuid":"u%d",' % (n - 1) + ENVELOPE + b'"message":{"id":"' + mid + b'","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[' + block + b'],"stop_reason":null,"stop_sequence":null,"usage":' + usage
        + message_extra + b'},"requestId":"req_1","type":"assistant","uuid":"u%d","timestamp":"2025-11-01T10:00:%02d.000Z"' % (n, n % 60)
        + extra + b"}"
    )


def user(content: bytes, n: int, extra: bytes = b"") -> bytes:
    return (
        b'{"parentUuid":"u%d",' % (n - 1) + ENVELOPE + b'"type":"user","message":{"role":"user","content":' + content
        + b'},"uuid":"u%d","timestamp":"2025-11-01T10:00:%02d.000Z"' % (n, n % 60) + extra + b"}"
    )


def result(content: bytes, n: int, block_extra: bytes = b',"is_error":false', tur: bytes = b'{"stdout":"ok","stderr":"","interrupted":false}', extra: bytes = b"") -> bytes:
    tail = (b',"toolUseResult":' + tur if tur else b"") + extra
    return user(b'[{"tool_use_id":"toolu_1","type":"tool_result","content":' + content + block_extra + b"}]", n, tail)


TOOL_USE = b'{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -la","description":"list"}}'
TEXT = b'{"type":"text","text":"hello\\nworld"}'
DEEP = b"[" * 130 + b"]" * 130

# Lines on the edges of the typed shapes: (line, whether the typed decode takes it).
EDGES: dict[str, tuple[bytes, bool]] = {
    "text": (assistant(TEXT, 1), True),
    "thinking": (assistant(b'{"type":"thinking","thinking":"hmm","signature":"sig"}', 1), True),
    "thinking without signature": (assistant(b'{"type":"thinking","thinking":"hmm"}', 1), True),
    "thinking, signature empty": (assistant(b'{"type":"thinking","thinking":"hmm","signature":""}', 1), True),
    "tool use": (assistant(TOOL_USE, 1), True),
    "tool use with caller": (assistant(b'{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"},"caller":{"type":"direct"}}', 1), True),
    "tool use, input a list": (assistant(b'{"type":"tool_use","id":"toolu_1","name":"X","input":[1,2]}', 1), True),
    "tool use, input a string": (assistant(b'{"type":"tool_use","id":"toolu_1","name":"X","input":"raw"}', 1), True),
    "tool use, input null": (assistant(b'{"type":"tool_use","id":"toolu_1","name":"X","input":null}', 1), True),
    "tool use, no input": (assistant(b'{"type":"tool_use","id":"toolu_1","name":"X"}', 1), True),
    "tool use, no name": (assistant(b'{"type":"tool_use","id":"toolu_1","input":{}}', 1), True),
    "tool use, name empty": (assistant(b'{"type":"tool_use","id":"","name":"","input":{}}', 1), True),
    "tool use, input repeated keys": (assistant(b'{"type":"tool_use","id":"t","name":"X","input":{"a":1,"b":2,"a":3}}', 1), True),
    "tool use, input floats": (assistant(b'{"type":"tool_use","id":"t","name":"X","input":{"a":1.5e10,"b":-0.0,"c":1e-400,"d":18446744073709551615}}', 1), True),
    "tool use, input an int orjson reads as a float": (assistant(b'{"type":"tool_use","id":"t","name":"X","input":{"a":18446744073709551616}}', 1), False),
    "tool use, input a negative int orjson reads as a float": (assistant(b'{"type":"tool_use","id":"t","name":"X","input":{"a":-9223372036854775809}}', 1), False),
    "tool use, input a number orjson refuses": (assistant(b'{"type":"tool_use","id":"t","name":"X","input":{"a":1e999}}', 1), False),
    "tool use, input nested deeper than the bound": (assistant(b'{"type":"tool_use","id":"t","name":"X","input":{"a":' + DEEP + b"}}", 1), False),
    "tool use, name a number": (assistant(b'{"type":"tool_use","id":"t","name":5,"input":{}}', 1), False),
    "server tool use": (assistant(b'{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"q"}}', 1), False),
    "two blocks": (assistant(TEXT + b"," + TOOL_USE, 1), True),
    "no blocks": (assistant(b"", 1), True),
    "text a number": (assistant(b'{"type":"text","text":5}', 1), False),
    "text missing": (assistant(b'{"type":"text"}', 1), False),
    "block with a new field": (assistant(b'{"type":"text","text":"x","citations":[]}', 1), False),
    "block type repeated": (assistant(b'{"type":"text","type":"tool_use","id":"t","name":"X"}', 1), False),
    "new block type": (assistant(b'{"type":"hologram","text":"x"}', 1), False),
    "redacted thinking": (assistant(b'{"type":"redacted_thinking","data":"abc"}', 1), False),
    "message id empty": (assistant(TEXT, 1, mid=b""), True),
    "message id a number": (assistant(TEXT, 1).replace(b'"id":"msg_1"', b'"id":5'), False),
    "usage null": (assistant(TEXT, 1, usage=b"null"), True),
    "usage a list": (assistant(TEXT, 1, usage=b"[]"), False),
    "usage with details": (assistant(TEXT, 1, usage=b'{"input_tokens":1,"output_tokens":9,"output_tokens_details":{"thinking_tokens":4}}'), True),
    "usage details thinking a float": (assistant(TEXT, 1, usage=b'{"input_tokens":1,"output_tokens":9,"output_tokens_details":{"thinking_tokens":4.5}}'), True),
    "usage details thinking an int orjson reads as a float": (assistant(TEXT, 1, usage=b'{"output_tokens":9,"output_tokens_details":{"thinking_tokens":123456789012345678901234}}'), False),
    "usage with cache and server tools": (assistant(TEXT, 1, usage=b'{"input_tokens":1,"output_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":4},"server_tool_use":{"web_search_requests":1,"web_fetch_requests":0},"inference_geo":"us","speed":"fast","iterations":[{"input_tokens":1}]}'), True),
    "usage negative": (assistant(TEXT, 1, usage=b'{"input_tokens":-4,"output_tokens":2}'), True),
    "usage a float count": (assistant(TEXT, 1, usage=b'{"input_tokens":4.0,"output_tokens":2}'), False),
    "usage a count orjson reads as a float": (assistant(TEXT, 1, usage=b'{"input_tokens":99999999999999999999999,"output_tokens":2}'), False),
    "usage a number orjson refuses": (assistant(TEXT, 1, usage=b'{"input_tokens":1e999,"output_tokens":2}'), False),
    "usage a new field": (assistant(TEXT, 1, usage=b'{"input_tokens":1,"output_tokens":2,"zzz":1e999}'), False),
    "usage cache a new field": (assistant(TEXT, 1, usage=b'{"input_tokens":1,"cache_creation":{"ephemeral_9m_input_tokens":3}}'), False),
    "message a new field": (assistant(TEXT, 1, message_extra=b',"container":null'), False),
    "message context management": (assistant(TEXT, 1, message_extra=b',"context_management":{"applied_edits":[]}'), True),
    "message stop details": (assistant(TEXT, 1, message_extra=b',"stop_details":{"a":[1,{"b":2}]}'), True),
    "message stop reason a number": (assistant(TEXT, 1, message_extra=b',"stop_reason":5'), False),
    "api error": (assistant(TEXT, 1, extra=b',"isApiErrorMessage":true'), True),
    "inline sidechain": (assistant(TEXT, 1, extra=b',"isSidechain":true,"agentId":"a1"'), True),
    "slug and entrypoint": (assistant(TEXT, 1, extra=b',"slug":"s","entrypoint":"cli"'), True),
    "envelope a new field": (assistant(TEXT, 1, extra=b',"zzz":1'), False),
    "envelope a new field, a number orjson refuses": (assistant(TEXT, 1, extra=b',"zzz":1e999'), False),
    "uuid a number": (assistant(TEXT, 1, extra=b',"uuid":5'), False),
    "uuid repeated": (assistant(TEXT, 1, extra=b',"uuid":"u9"'), True),
    "timestamp empty": (assistant(TEXT, 1, extra=b',"timestamp":""'), True),
    "timestamp a number": (assistant(TEXT, 1, extra=b',"timestamp":5'), False),
    "parent null": (assistant(TEXT, 1, extra=b',"parentUuid":null'), True),
    "parent empty": (assistant(TEXT, 1, extra=b',"parentUuid":""'), True),
    "sidechain a string": (assistant(TEXT, 1, extra=b',"isSidechain":"yes"'), False),
    "type repeated, user last": (assistant(TEXT, 1, extra=b',"type":"user"'), True),
    "type repeated, another": (assistant(TEXT, 1, extra=b',"type":"system"'), False),
    "escapes": (assistant(b'{"type":"text","text":"tab\\t quote\\" slash\\/ \\u00e9 \\ud83d\\ude00 nul\\u0000"}', 1), True),
    "UTF-8": (assistant('{"type":"text","text":"caf\u00e9 \U0001f600"}'.encode(), 1), True),
    "lone surrogate": (assistant(b'{"type":"text","text":"cut \\ud83d"}', 1), False),
    "lone surrogate in the tool result copy": (result(b'"ok"', 1, tur=b'{"stdout":"cut \\ud83d"}'), False),
    "invalid UTF-8": (assistant(b'{"type":"text","text":"bad \xff byte"}', 1), False),
    "invalid UTF-8 in the tool result copy": (result(b'"ok"', 1, tur=b'{"stdout":"bad \xc3\x28"}'), False),
    "control character": (assistant(b'{"type":"text","text":"a\x01b"}', 1), False),
    "trailing comma": (assistant(TEXT + b",", 1), False),
    "tool result": (result(b'"output\\nlines"', 1), True),
    "tool result, error": (result(b'"boom"', 1, block_extra=b',"is_error":true'), True),
    "tool result, no is_error": (result(b'"x"', 1, block_extra=b""), True),
    "tool result, is_error a string": (result(b'"x"', 1, block_extra=b',"is_error":"yes"'), False),
    "tool result, no call id": (result(b'"x"', 1, block_extra=b',"tool_use_id":null'), True),
    "tool result, text parts": (result(b'[{"type":"text","text":"a"},{"type":"text","text":"b"}]', 1), True),
    "tool result, one text part": (result(b'[{"type":"text","text":"a"}]', 1), True),
    "tool result, tool references": (result(b'[{"type":"tool_reference","tool_name":"Bash"},{"type":"tool_reference"}]', 1), True),
    "tool result, image part": (result(b'[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]', 1), False),
    "tool result, empty parts": (result(b"[]", 1), True),
    "tool result, content null": (result(b"null", 1), True),
    "tool result, content null, output string": (result(b"null", 1, tur=b'"Error: exit 1"'), True),
    "tool result, content missing": (user(b'[{"type":"tool_result","tool_use_id":"toolu_1"}]', 1, b',"toolUseResult":"plain"'), True),
    "tool result, content a number": (result(b"5", 1), False),
    "tool result, a new field": (result(b'"x"', 1, block_extra=b',"cache_control":{"type":"ephemeral"}'), False),
    "tool result, no copy": (result(b'"x"', 1, tur=b""), True),
    "tool result, agent spawned": (result(b'"done"', 1, tur=b'{"status":"completed","agentId":"a7","totalTokens":5}'), True),
    "tool result, agent id in the text": (result(b'"done\\nagentId: abc123 (for resuming)"', 1, tur=b'{"status":"completed"}'), True),
    "tool result, workflow run": (result(b'"started"', 1, tur=b'{"runId":"wf_1"}'), True),
    "tool result, agent id a number": (result(b'"done"', 1, tur=b'{"agentId":7}'), True),
    "tool result, copy a list": (result(b'"x"', 1, tur=b'[{"type":"text","text":"x"}]'), True),
    "tool result, copy holds an int orjson reads as a float": (result(b'"x"', 1, tur=b'{"n":123456789012345678901234567890}'), False),
    "tool result, copy holds the largest int orjson reads as one": (result(b'"x"', 1, tur=b'{"n":[18446744073709551615,-9223372036854775808]}'), True),
    "tool result, copy holds an int orjson refuses": (result(b'"x"', 1, tur=b'{"n":1' + b"0" * 400 + b"}"), False),
    "tool result, copy holds a number orjson refuses": (result(b'"x"', 1, tur=b'{"n":1e999}'), False),
    "tool result, copy nested deeper than the bound": (result(b'"x"', 1, tur=b'{"a":' + DEEP + b"}"), False),
    "tool result, copy nested to the bound": (result(b'"x"', 1, tur=b'{"a":' + b"[" * 126 + b"]" * 126 + b"}"), True),
    "tool result, copy nested one past the bound": (result(b'"x"', 1, tur=b'{"a":' + b"[" * 127 + b"]" * 127 + b"}"), False),
    "tool result, long line nested deeper than the bound": (result(b'"' + b"x" * 5000 + b'"', 1, tur=b'{"a":' + DEEP + b"}"), False),
    "tool result, brackets in a string": (result(b'"' + b"[{" * 200 + b'"', 1), True),
    "tool result, todos": (result(b'"x"', 1, extra=b',"todos":[{"content":"a","status":"pending"}]'), True),
    "tool result in a sidechain": (result(b'"x"', 1, extra=b',"isSidechain":true'), True),
    "tool result and text": (user(b'[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"},{"type":"text","text":"and"}]', 1), True),
    "two tool results": (user(b'[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"tool_result","tool_use_id":"b","content":"y"}]', 1), True),
    "prompt": (user(b'"do the thing"', 1), True),
    "prompt with thinking metadata": (user(b'"do it"', 1, b',"thinkingMetadata":{"level":"high","disabled":false,"triggers":[]},"permissionMode":"default"'), True),
    "meta prompt": (user(b'"<local-command-caveat>x"', 1, b',"isMeta":true'), True),
    "compact summary": (user(b'"This session is being continued"', 1, b',"isCompactSummary":true,"isVisibleInTranscriptOnly":true'), True),
    "task notification": (user(b'"<task-notification>done</task-notification>"', 1), True),
    "prompt as text blocks": (user(b'[{"type":"text","text":"a"},{"type":"text","text":"b"}]', 1), True),
    "prompt with an image": (user(b'[{"type":"text","text":"see"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]', 1), False),
    "prompt with a tool use block": (user(b'[{"type":"tool_use","id":"t","name":"X","input":{}}]', 1), True),
    "prompt content null": (user(b"null", 1), True),
    "prompt content an object": (user(b'{"a":1}', 1), False),
    "prompt promptId": (user(b'"hi"', 1, b',"promptId":"p1","sourceToolAssistantUUID":"u0"'), True),
    "message null": (b'{"parentUuid":"u0",' + ENVELOPE + b'"type":"user","message":null,"uuid":"u1","timestamp":"2025-11-01T10:00:01.000Z"}', False),
    "message missing": (b'{"parentUuid":"u0",' + ENVELOPE + b'"type":"user","uuid":"u1","timestamp":"2025-11-01T10:00:01.000Z"}', False),
    "system line": (b'{"parentUuid":"u0",' + ENVELOPE + b'"type":"system","subtype":"informational","content":"note","uuid":"u1","timestamp":"2025-11-01T10:00:01.000Z"}', False),
}


def edge_logs(folder: Path) -> list[Path]:
    """A log per edge (after the session's first line; some end the read in
    --strict), a log of every edge at once, and a log that resumes its
    last line under another session."""
    paths = []
    for index, (name, (line, _)) in enumerate(EDGES.items()):
        path = folder / f"edge-{index:03d}.jsonl"
        path.write_bytes(HEAD + line + b"\n" + assistant(TEXT, 40) + b"\n" + result(b'"after"', 41) + b"\n")
        paths.append(path)
    body = HEAD + b"".join(line + b"\n" for line, _ in EDGES.values())
    (folder / "all-edges.jsonl").write_bytes(body)
    paths.append(folder / "all-edges.jsonl")
    # A subagent transcript (its first line a sidechain with an agent id):
    # its sidechain lines are no inline sidechain.
    agent = (HEAD + b"".join(line + b"\n" for line, _ in EDGES.values())).replace(b'"isSidechain":false', b'"isSidechain":true,"agentId":"a1"')
    (folder / "agent-a1.jsonl").write_bytes(agent)
    paths.append(folder / "agent-a1.jsonl")
    line = assistant(TEXT, 1)
    resumed = line.replace(b'"sessionId":"s1"', b'"sessionId":"s2"')
    (folder / "resumed.jsonl").write_bytes(HEAD + line + b"\n" + resumed + b"\n" + result(b'"x"', 2) + b"\n")
    paths.append(folder / "resumed.jsonl")
    return paths


def outcome(path: Path, kwargs: dict, typed_lines: bool) -> str:
    return typed_read_outcome(path, "claude-code", _Transcript, typed_lines, kwargs)


def assert_same(path: Path, kwargs: dict) -> None:
    expected = outcome(path, kwargs, typed_lines=False)
    got = outcome(path, kwargs, typed_lines=True)
    assert got == expected, f"the typed decode and the full parse differ on {path} with {kwargs}"


@requires_corpus
@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("path", corpus_files("claude-code"), ids=lambda p: p.name)
def test_typed_equals_full_parse_on_claude_code_corpus(path, options):
    assert_same(path, OPTION_SETS[options])


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("path", CLAUDE_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_typed_equals_full_parse_on_claude_code_fixtures(path, options):
    assert_same(path, OPTION_SETS[options])


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
def test_typed_equals_full_parse_on_edges(tmp_path, options):
    paths = edge_logs(tmp_path)
    differ = [p.name for p in paths if outcome(p, OPTION_SETS[options], True) != outcome(p, OPTION_SETS[options], False)]
    assert not differ, f"the typed decode and the full parse differ on {differ}"


def test_typed_equals_full_parse_on_generated(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import generate
    finally:
        sys.path.pop(0)
    path = tmp_path / "generated.jsonl"
    generate("claude-code", 2_000_000, str(path))
    for options in ({}, {"skip_bad": True}, {"options": {"keep_images": True}}):
        assert_same(path, options)


def test_the_typed_decode_takes_the_common_lines_and_refuses_the_rest(tmp_path, monkeypatch):
    """The comparisons above prove nothing if every line fell back: the
    common shapes are decoded, each edge outside them is refused."""
    wrong = [name for name, (line, taken) in EDGES.items() if (typed.decode_line(line) is not None) != taken]
    assert not wrong, f"taken or refused against the expectation: {wrong}"
    # A read of a log of common lines takes all of them this way but the
    # first, parsed in full, which starts the session.
    calls = []
    original = typed.decode_line
    monkeypatch.setattr(typed, "decode_line", lambda line: calls.append(original(line)) or calls[-1])
    monkeypatch.setattr(_Transcript, "typed_after", 0)
    path = tmp_path / "common.jsonl"
    lines = [assistant(TEXT, 1), assistant(TOOL_USE, 2), result(b'"x"', 3), user(b'"next"', 4), assistant(b'{"type":"thinking","thinking":"t","signature":"s"}', 5)]
    path.write_bytes(HEAD + b"".join(line + b"\n" for line in lines))
    events = list(api.read(str(path), format="claude-code"))
    assert len(calls) == len(lines) and all(record is not None for record in calls)
    assert [e.get("role") for e in events if e["type"] == "message"] == ["user", "assistant", "tool", "tool", "user", "assistant"]


def test_a_small_log_is_read_without_msgspec_and_a_long_one_with_it(tmp_path, monkeypatch):
    """The typed decode starts after ``typed_after`` lines parsed in full (or
    from the first in a file of TYPED_SIZE or more); a log shorter than that
    never imports the typed module."""
    code = (
        "import sys; from sessionport import api; "
        f"list(api.read({str(CLAUDE_FIXTURES[0])!r}, format='claude-code')); "
        "print('sessionport.formats.claude_code.typed' in sys.modules, 'msgspec' in sys.modules)"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert found.stdout.strip() == "False False", found.stderr
    calls = []
    original = typed.decode_line
    monkeypatch.setattr(typed, "decode_line", lambda line: calls.append(original(line)) or calls[-1])
    monkeypatch.setattr(_Transcript, "typed_after", 20)
    path = tmp_path / "long.jsonl"
    path.write_bytes(HEAD + b"".join(result(b'"x"', n) + b"\n" for n in range(1, 31)))
    events = list(api.read(str(path), format="claude-code"))
    assert len(events) == 33  # session, prompt, results, end
    assert len(calls) == 10 and all(record is not None for record in calls)
    # A file of TYPED_SIZE or more: from the first line after the session's.
    monkeypatch.setattr(records, "TYPED_SIZE", path.stat().st_size)
    calls.clear()
    list(api.read(str(path), format="claude-code"))
    assert len(calls) == 30


def test_a_newer_version_full_of_unknown_fields_stops_trying(tmp_path, monkeypatch):
    """Lines the typed decode declines cost it a try each: past
    TYPED_MISSES of them, in a log where they are most lines, it stops."""
    calls = []
    original = typed.decode_line
    monkeypatch.setattr(typed, "decode_line", lambda line: calls.append(original(line)) or calls[-1])
    monkeypatch.setattr(_Transcript, "typed_after", 0)
    path = tmp_path / "newer.jsonl"
    count = records.TYPED_MISSES * 3
    path.write_bytes(HEAD + b"".join(result(b'"x"', n, extra=b',"newField":1') + b"\n" for n in range(1, count + 1)))
    both = [outcome(path, {}, True), outcome(path, {}, False)]
    assert both[0] == both[1]
    calls.clear()
    list(api.read(str(path), format="claude-code"))
    assert len(calls) == records.TYPED_MISSES + 1 and not any(calls)
