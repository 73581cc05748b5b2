"""The typed decode of common Codex items reads exactly what the full parse reads.

The rollout reader decodes the commonest ``response_item`` lines with
msgspec into typed records (``sessionport/formats/codex/typed.py``) and
hands every other line to orjson and the dict handlers.  These tests read
each input twice, once as shipped and once with the typed decode switched
off, and compare everything a read gives: the events (as written, so key
order counts), the warnings, the unreadable-record report, or the error.
The inputs are the corpus, the Codex fixtures, generated rollouts and
records made to sit on every edge of the typed shapes (wrong field types,
missing fields, new fields, other part types, escapes, invalid UTF-8,
numbers orjson refuses, deep nesting).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import orjson
import pytest

from conftest import FIXTURES, corpus_files, requires_corpus, typed_read_outcome
from sessionport import api
from sessionport.formats.codex import rollout, typed
from sessionport.formats.codex.rollout import RolloutReader

ROOT = Path(__file__).resolve().parents[2]
CODEX_FIXTURES = sorted(p for p in (FIXTURES / "codex").iterdir() if p.is_file())
OPTION_SETS = {
    "defaults": {},
    "skip-inherited": {"options": {"skip_inherited": True}},
    "skip-bad": {"skip_bad": True},
    "strict": {"strict": True},
}

HEAD = (
    b'{"timestamp":"2025-10-01T09:00:00.000Z","type":"session_meta","payload":{"id":"11111111-2222-3333-4444-555555555555",'
    b'"timestamp":"2025-10-01T09:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.46.0"}}\n'
    b'{"timestamp":"2025-10-01T09:00:01.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5"}}\n'
)
CALL = b'{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}'
DONE = b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}'


def item(payload: bytes, extra: bytes = b"") -> bytes:
    return b'{"timestamp":"2025-10-01T09:00:02.000Z","type":"response_item","payload":' + payload + extra + b"}\n"


def event(payload: bytes) -> bytes:
    return b'{"timestamp":"2025-10-01T09:00:02.000Z","type":"event_msg","payload":' + payload + b"}\n"


# Payloads on the edges of the typed shapes: each is read in a rollout of
# its own (some are errors that end the read) after a call it may answer.
EDGES = {
    "message": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}',
    "message parts": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"},{"type":"output_text"},{"type":"text","text":"b"}]}',
    "message part without text": b'{"type":"message","role":"assistant","content":[{"type":"output_text"}]}',
    "message text null": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":null}]}',
    "message text number": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":5}]}',
    "message role number": b'{"type":"message","role":5,"content":[{"type":"input_text","text":"x"}]}',
    "message without role": b'{"type":"message","content":[{"type":"input_text","text":"x"}]}',
    "developer message": b'{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>x"}]}',
    "injected user message": b'{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>x</environment_context>"}]}',
    "typed prompt": b'{"type":"message","role":"user","phase":"input","content":[{"type":"input_text","text":"typed"}]}',
    "user message": b'{"type":"message","role":"user","content":[{"type":"input_text","text":"by hand"}]}',
    "content string": b'{"type":"message","role":"assistant","content":"plain"}',
    "content empty": b'{"type":"message","role":"assistant","content":[]}',
    "content null": b'{"type":"message","role":"assistant","content":null}',
    "content object": b'{"type":"message","role":"assistant","content":{"a":1}}',
    "part string": b'{"type":"message","role":"assistant","content":["loose"]}',
    "image part": b'{"type":"message","role":"user","content":[{"type":"input_text","text":"see"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}',
    "new part type": b'{"type":"message","role":"assistant","content":[{"type":"hologram","text":"x"}]}',
    "part with a new field": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x","annotations":[]}]}',
    "new field, a number orjson refuses": b'{"type":"message","role":"assistant","zzz":1e999,"content":[]}',
    "new field": b'{"type":"message","role":"assistant","zzz":1,"content":[]}',
    "phase and id": b'{"type":"message","role":"assistant","phase":"final_answer","id":"msg_1","end_turn":true,"content":[]}',
    "phase number": b'{"type":"message","role":"assistant","phase":3,"content":[]}',
    "id number": b'{"type":"message","role":"assistant","id":7,"content":[]}',
    "id empty": b'{"type":"message","role":"assistant","id":"","content":[]}',
    "type repeated": b'{"type":"message","type":"message","role":"assistant","content":[]}',
    "type repeated, another": b'{"type":"message","role":"assistant","type":"reasoning","summary":[]}',
    "role repeated": b'{"type":"message","role":"user","role":"assistant","content":[]}',
    "escapes": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"t\\t n\\n q\\" \\u00e9 \\ud83d\\ude00 \\/"}]}',
    "lone surrogate": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"cut \\ud83d here"}]}',
    "invalid UTF-8": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"bad \xff byte"}]}',
    "UTF-8": '{"type":"message","role":"assistant","content":[{"type":"output_text","text":"caf\u00e9 \u4e2d \U0001F600"}]}'.encode(),
    "control character": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a\x01b"}]}',
    "trailing comma": b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"},]}',
    "brackets in a string": b'{"type":"message","role":"assistant","content":"' + b"[" * 200 + b'"}',
    "nested deeper than the bound": b'{"type":"message","role":"assistant","content":[],"z":' + b"[" * 200 + b"]" * 200 + b"}",
    "reasoning": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"content":null,"encrypted_content":"gAAAA"}',
    "reasoning without text": b'{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAAA"}',
    "encrypted empty": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":""}',
    "encrypted null": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":null}',
    "encrypted two characters": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"ab"}',
    "encrypted number orjson refuses": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":1e999}',
    "encrypted number": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":12}',
    "encrypted object": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":{"a":[1,2]}}',
    "encrypted invalid UTF-8": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t\xc3\xa9"}],"encrypted_content":"ab\xffcd"}',
    "encrypted invalid UTF-8, ASCII line": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"ab\xffcd"}',
    "encrypted lone surrogate": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"ab\\udc00cd"}',
    "encrypted escapes": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"encrypted_content":"a\\u0041\\"b"}',
    "reasoning content": b'{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"raw"}],"encrypted_content":"x"}',
    "summary string": b'{"type":"reasoning","summary":"s","encrypted_content":"x"}',
    "summary number": b'{"type":"reasoning","summary":4}',
    "reasoning metadata": b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"metadata":{"a":1}}',
    "summaries": b'{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"t"},{"type":"summary_text","text":"u"}]}',
    "call": b'{"type":"function_call","name":"shell","arguments":"{\\"command\\":[\\"bash\\",\\"-lc\\",\\"ls\\"]}","call_id":"c2"}',
    "arguments not JSON": b'{"type":"function_call","name":"shell","arguments":"{not json","call_id":"c2"}',
    "arguments a list": b'{"type":"function_call","name":"shell","arguments":"[1,2]","call_id":"c2"}',
    "arguments an object": b'{"type":"function_call","name":"shell","arguments":{"command":"ls"},"call_id":"c2"}',
    "arguments missing": b'{"type":"function_call","name":"shell","call_id":"c2"}',
    "arguments with a big integer": b'{"type":"function_call","name":"f","arguments":"{\\"n\\":123456789012345678901234567890}","call_id":"c2"}',
    "arguments nested too deep to write": b'{"type":"function_call","name":"f","arguments":"' + b"[" * 300 + b"]" * 300 + b'","call_id":"c2"}',
    "call without name": b'{"type":"function_call","arguments":"{}","call_id":"c2"}',
    "call name number": b'{"type":"function_call","name":3,"arguments":"{}","call_id":"c2"}',
    "call id number": b'{"type":"function_call","name":"f","arguments":"{}","call_id":3}',
    "call id empty": b'{"type":"function_call","name":"f","arguments":"{}","call_id":""}',
    "call namespace and status": b'{"type":"function_call","name":"f","namespace":"mcp","arguments":"[]","call_id":"c2","status":"in_progress","id":"fc_1"}',
    "long command": b'{"type":"function_call","name":"shell","arguments":"{\\"cmd\\":\\"' + b"a" * 500 + b'\\"}","call_id":"c2"}',
    "patch": b'{"type":"custom_tool_call","status":"completed","call_id":"c2","name":"apply_patch","input":"*** Begin Patch\\n*** End Patch"}',
    "patch input null": b'{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":null}',
    "patch input object": b'{"type":"custom_tool_call","call_id":"c2","name":"apply_patch","input":{"a":1}}',
    "patch without input": b'{"type":"custom_tool_call","call_id":"c2","name":"apply_patch"}',
    "output JSON in a string": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"hi\\\\n\\",\\"metadata\\":{\\"exit_code\\":1,\\"duration_seconds\\":0.5}}"}',
    "output JSON with more keys": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"hi\\",\\"metadata\\":{},\\"x\\":1}"}',
    "output exit code": b'{"type":"function_call_output","call_id":"c1","output":"Exit code: 2\\nWall time: 1s\\nOutput:\\nboom"}',
    "output content list in a string": b'{"type":"function_call_output","call_id":"c1","output":"[{\\"type\\":\\"input_text\\",\\"text\\":\\"a\\"}]"}',
    "output list": b'{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"a"}]}',
    "output object": b'{"type":"function_call_output","call_id":"c1","output":{"content":"x","success":false}}',
    "output null": b'{"type":"function_call_output","call_id":"c1","output":null}',
    "output missing": b'{"type":"function_call_output","call_id":"c1"}',
    "output unpaired": b'{"type":"function_call_output","call_id":"nope","output":"x"}',
    "output without call id": b'{"type":"function_call_output","output":"x","name":"shell"}',
    "patch output named": b'{"type":"custom_tool_call_output","call_id":"nope","output":"x","name":"apply_patch","id":"o1"}',
    "output status": b'{"type":"function_call_output","call_id":"c1","output":"x","status":"completed"}',
    "output JSON, metadata first": b'{"type":"function_call_output","call_id":"c1","output":"{\\"metadata\\":{\\"exit_code\\":0,\\"duration_seconds\\":1.5},\\"output\\":\\"y\\"}"}',
    "output JSON, output repeated": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"output\\":\\"b\\",\\"metadata\\":{\\"exit_code\\":0}}"}',
    "output JSON, metadata repeated": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"exit_code\\":0},\\"metadata\\":{\\"exit_code\\":2}}"}',
    "output JSON, exit code repeated": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"exit_code\\":0,\\"exit_code\\":3}}"}',
    "output JSON, exit code true": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"exit_code\\":true,\\"duration_seconds\\":false}}"}',
    "output JSON, exit code null": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"exit_code\\":null,\\"duration_seconds\\":null}}"}',
    "output JSON, exit code a string": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"exit_code\\":\\"0\\"}}"}',
    "output JSON, exit code a float": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"exit_code\\":1.0,\\"duration_seconds\\":12}}"}',
    "output JSON, exit code orjson refuses": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"exit_code\\":99999999999999999999}}"}',
    "output JSON, duration orjson refuses": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":{\\"duration_seconds\\":1e400}}"}',
    "output JSON, metadata null": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":null}"}',
    "output JSON, metadata a list": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\",\\"metadata\\":[]}"}',
    "output JSON, output alone": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"a\\"}"}',
    "output JSON, output a number": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":1,\\"metadata\\":{}}"}',
    "output JSON, spaces": b'{"type":"function_call_output","call_id":"c1","output":"{ \\"output\\" : \\"x\\" , \\"metadata\\" : { \\"exit_code\\" : 0 } }"}',
    "output JSON, escapes": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"caf\\\\u00e9 \\\\ud83d\\\\ude00 \\\\/ \\\\n\\\\t\\"}"}',
    "output JSON, lone surrogate": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"lone \\\\ud800\\"}"}',
    "output JSON, trailing garbage": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"x\\"} junk"}',
    "output JSON, cut": b'{"type":"function_call_output","call_id":"c1","output":"{\\"output\\":\\"x\\""}',
    "output JSON, empty object": b'{"type":"function_call_output","call_id":"c1","output":"{}"}',
    "output JSON after a space": b'{"type":"function_call_output","call_id":"c1","output":" {\\"output\\":\\"x\\"}"}',
    "new item type": b'{"type":"hologram","data":1}',
}
# The same, with the envelope around them changed.
ENVELOPES = {
    "payload repeated": (CALL, b',"payload":"str"'),
    "envelope field refused by orjson": (DONE, b',"extra":1e999'),
    "envelope field": (DONE, b',"extra":1'),
    "type repeated": (DONE, b',"type":"event_msg"'),
    "timestamp repeated": (DONE, b',"timestamp":5'),
    "trailing garbage": (DONE, b"} x"),
}


def edge_rollouts(folder: Path) -> list[Path]:
    paths = []
    for index, (name, payload) in enumerate(EDGES.items()):
        path = folder / f"edge-{index:02d}.jsonl"
        path.write_bytes(HEAD + item(CALL) + item(payload) + item(DONE))
        paths.append(path)
    for index, (name, (payload, extra)) in enumerate(ENVELOPES.items()):
        path = folder / f"envelope-{index:02d}.jsonl"
        path.write_bytes(HEAD + item(payload, extra) + item(DONE))
        paths.append(path)
    ordinal = b'{"timestamp":"2025-10-01T09:00:02.000Z","ordinal":5,"type":"response_item","payload":' + DONE + b"}\n"
    (folder / "ordinal.jsonl").write_bytes(HEAD + ordinal + item(DONE))
    paths.append(folder / "ordinal.jsonl")
    # Everything that does not end the read, in one rollout, among the
    # events that pair with items (prompts, shell results held for their
    # output), so the reader's waiting state is exercised too.
    fatal = {"lone surrogate", "invalid UTF-8", "control character", "trailing comma", "nested deeper than the bound",
             "encrypted invalid UTF-8", "encrypted invalid UTF-8, ASCII line", "encrypted lone surrogate",
             "encrypted number orjson refuses", "new field, a number orjson refuses"}
    body = HEAD
    body += item(b'{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}')
    body += event(b'{"type":"user_message","message":"hello","kind":"plain"}')
    body += event(b'{"type":"user_message","message":"event first","images":[]}')
    body += item(b'{"type":"message","role":"user","content":[{"type":"input_text","text":"event first"}]}')
    body += item(b'{"type":"function_call","name":"shell","arguments":"{\\"cmd\\":\\"ls\\"}","call_id":"x1"}')
    body += event(b'{"type":"exec_command_end","call_id":"x1","stdout":"a","stderr":"","exit_code":0,"aggregated_output":"a"}')
    body += item(b'{"type":"function_call_output","call_id":"x1","output":"a"}')
    body += item(b'{"type":"function_call","name":"shell","arguments":"{\\"cmd\\":\\"ls\\"}","call_id":"x2"}')
    body += event(b'{"type":"exec_command_end","call_id":"x2","stdout":"b","stderr":"","exit_code":1}')
    body += item(b'{"type":"reasoning","summary":[{"type":"summary_text","text":"next"}],"encrypted_content":"q"}')
    body += item(b'{"type":"function_call_output","call_id":"x2","output":"b late"}')
    body += b"".join(item(payload) for name, payload in EDGES.items() if name not in fatal)
    body += event(b'{"type":"user_message","message":"only an event"}') + item(DONE) * 8
    (folder / "all-edges.jsonl").write_bytes(body)
    paths.append(folder / "all-edges.jsonl")
    return paths


def outcome(path: Path, kwargs: dict, typed_items: bool) -> str:
    return typed_read_outcome(path, "codex", RolloutReader, typed_items, kwargs)


def assert_same(path: Path, kwargs: dict) -> None:
    expected = outcome(path, kwargs, typed_items=False)
    got = outcome(path, kwargs, typed_items=True)
    assert got == expected, f"the typed decode and the full parse differ on {path} with {kwargs}"


@requires_corpus
@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("path", corpus_files("codex"), ids=lambda p: p.name)
def test_typed_equals_full_parse_on_codex_corpus(path, options):
    assert_same(path, OPTION_SETS[options])


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("path", CODEX_FIXTURES, ids=lambda p: p.name)
def test_typed_equals_full_parse_on_codex_fixtures(path, options):
    assert_same(path, OPTION_SETS[options])


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
def test_typed_equals_full_parse_on_edges(tmp_path, options):
    paths = edge_rollouts(tmp_path)
    differ = [p.name for p in paths if outcome(p, OPTION_SETS[options], True) != outcome(p, OPTION_SETS[options], False)]
    assert not differ, f"the typed decode and the full parse differ on {differ}"


def test_typed_equals_full_parse_on_generated(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import generate
    finally:
        sys.path.pop(0)
    path = tmp_path / "generated.jsonl"
    generate("codex", 2_000_000, str(path))
    for options in OPTION_SETS.values():
        assert_same(path, options)


def test_the_reader_knows_the_types_the_typed_decode_reads():
    assert rollout.TYPED_KINDS == typed.TYPED_KINDS == {cls.__struct_config__.tag.encode() for cls in typed.CONVERTERS}


def test_a_small_rollout_is_read_without_msgspec_and_a_long_one_with_it(tmp_path, monkeypatch):
    """The typed decode starts after ``typed_after`` items parsed in full;
    both parts read the same (the tests above), and a rollout shorter than
    that never imports the typed module."""
    code = (
        "import sys; from sessionport import api; "
        f"list(api.read({str(CODEX_FIXTURES[0])!r}, format='codex')); "
        "print('sessionport.formats.codex.typed' in sys.modules)"
    )
    import subprocess

    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert found.stdout.strip() == "False", found.stderr
    calls = []
    original = typed.decode_item
    monkeypatch.setattr(typed, "decode_item", lambda line: calls.append(original(line)) or calls[-1])
    path = tmp_path / "long.jsonl"
    path.write_bytes(HEAD + item(DONE) * (RolloutReader.typed_after + 10))
    events = list(api.read(str(path), format="codex"))
    assert len(events) == RolloutReader.typed_after + 12  # session, messages, end
    # The first item starts the session; the next typed_after are parsed in full.
    assert len(calls) == 9 and all(record is not None for record in calls)


def test_the_typed_decode_takes_the_common_items_and_refuses_the_rest(tmp_path, monkeypatch):
    """The comparisons above prove nothing if every line fell back: the
    common shapes are decoded, each edge outside them is refused."""
    taken = {name for name, payload in EDGES.items() if typed.decode_item(item(payload).strip()) is not None}
    for name in ("message", "message parts", "content string", "content null", "phase and id", "escapes", "UTF-8",
                 "brackets in a string", "reasoning", "encrypted null", "encrypted escapes", "summaries", "call",
                 "arguments not JSON", "arguments missing", "arguments nested too deep to write", "call id empty", "patch",
                 "patch input null", "output JSON in a string", "output null", "output without call id"):
        assert name in taken, name
    for name in ("message text number", "message role number", "content object", "part string",
                 "image part", "new part type", "part with a new field", "new field", "new field, a number orjson refuses",
                 "phase number", "id number", "type repeated, another", "lone surrogate", "invalid UTF-8",
                 "control character", "trailing comma", "nested deeper than the bound", "encrypted number",
                 "encrypted number orjson refuses", "encrypted object", "encrypted invalid UTF-8",
                 "encrypted invalid UTF-8, ASCII line", "encrypted lone surrogate", "summary number", "reasoning metadata",
                 "arguments an object", "call name number", "call id number", "patch input object", "output list",
                 "output object", "new item type"):
        assert name not in taken, name
    for payload, extra in ENVELOPES.values():
        assert typed.decode_item(item(payload, extra).strip()) is None
    # And a read of a rollout of common items takes them all this way, but
    # the first line parsed in full, which writes the session event.
    calls = []
    original = typed.decode_item
    monkeypatch.setattr(typed, "decode_item", lambda line: calls.append(original(line)) or calls[-1])
    monkeypatch.setattr(RolloutReader, "typed_after", 0)
    path = tmp_path / "common.jsonl"
    path.write_bytes(HEAD + item(CALL) + item(EDGES["output JSON in a string"]) + item(EDGES["reasoning"]) + item(DONE))
    list(api.read(str(path), format="codex"))
    assert len(calls) == 3 and all(record is not None for record in calls)


def test_a_quote_in_the_timestamp_reads_as_the_full_parse(tmp_path):
    """An item line whose head sits where the usual one does, with a quote
    in what would be its timestamp (the key repeated, the last one a date
    the copy clock reads), reads as the full parse reads it: in a rollout
    and in the history a resumed rollout copied, where that date ends the copy."""
    crafted = b'{"timestamp":"A","timestamp":"20251001","type":"response_item","payload":' + DONE + b"}\n"
    assert crafted.startswith(rollout._ITEM_HEAD, 38)
    parent = (
        b'{"timestamp":"2025-10-01T09:00:01.500Z","type":"session_meta","payload":{"id":"99999999-2222-3333-4444-555555555555",'
        b'"timestamp":"2025-09-30T09:00:00.000Z","cwd":"/w"}}\n'
    )
    copied = item(b'{"type":"message","role":"assistant","content":[{"type":"output_text","text":"copied"}]}')
    paths = [tmp_path / "plain.jsonl", tmp_path / "resumed.jsonl"]
    paths[0].write_bytes(HEAD + crafted + item(DONE))
    paths[1].write_bytes(HEAD + parent + copied + crafted + copied + item(DONE))
    for path in paths:
        for options in OPTION_SETS.values():
            assert_same(path, options)
    events = json.loads(outcome(paths[1], {}, True))["events"]
    assert [bool(e.get("meta", {}).get("inherited")) for e in events if e.get("type") == "message"] == [True, False, False, False]
