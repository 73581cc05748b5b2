"""The census of an importer gives exactly what summarizing its full read gives.

``inspect`` asks an importer with a census for its summaries instead of
reading every message (see ``sessionport/formats/codex/census.py``).  The
census follows the reader's rules by running most of the reader's own
code, but it has a fast path of its own; these tests are what catches the
two drifting apart.  Each test compares, for one input and one set of
options, everything ``inspect --json`` prints (every field of every
session summary, the warnings, the unreadable-record report, or the error
raised) between the census and ``summarize(read(...))``.

When a reader changes (a new record type, a new rule for an unknown one),
a failure here names the input and shows both results: change the census
to follow the reader, never the other way round.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, corpus_files, requires_corpus, run_cli
from sessionport import api
from sessionport.context import ReadContext
from sessionport.summary import summarize, totals
from sessionport.pipeline.run import summarize_input

ROOT = Path(__file__).resolve().parents[2]
CODEX_FIXTURES = sorted(p for p in (FIXTURES / "codex").iterdir() if p.is_file())
ENVELOPE = FIXTURES / "codex" / "rollout-envelope.jsonl"
OPTION_SETS = {
    "defaults": {},
    "skip-inherited": {"options": {"skip_inherited": True}},
    "skip-bad": {"skip_bad": True},
    "strict": {"strict": True},
    "as-codex": {"format": "codex"},
}


@pytest.fixture(autouse=True)
def census_at_any_size(monkeypatch):
    """``inspect`` reads a small file in full (the census's start is not
    worth it there); these inputs are small, and the census is what is
    compared, so it runs at any size here."""
    monkeypatch.setattr("sessionport.summary.CENSUS_FROM", 0)


def outcome(summaries, path: Path, kwargs: dict) -> str:
    """What ``inspect --json`` would print, and what it would warn, as JSON
    text: compared as text, so the order of keys (counters list their keys
    in first-seen order) counts too.  The input's name in a warning is
    written ``<input>``, so that a variant compares with its original."""
    return json.dumps(_outcome(summaries, path, kwargs), indent=1).replace(str(path), "<input>")


def _outcome(summaries, path: Path, kwargs: dict) -> dict:
    ctx = ReadContext(on_warning=lambda message: None)
    reported: list[str] = []
    ctx.on_warning = reported.append
    try:
        sessions = summaries(str(path), ctx, kwargs)
    except Exception as exc:  # the same error, or the test fails
        return {"error": type(exc).__name__, "message": str(exc)}
    return {
        "sessions": [s.as_dict() for s in sessions],
        "totals": totals(sessions),
        "warnings": ctx.warnings,
        "reported": reported,
        "bad": (ctx.bad_count, ctx.bad_places),
    }


def full(path, ctx, kwargs):
    return summarize(api.read(path, context=ctx, **kwargs))


def census(path, ctx, kwargs):
    return summarize_input(path, context=ctx, **kwargs)


def assert_same(path: Path, kwargs: dict) -> dict:
    expected = outcome(full, path, kwargs)
    got = outcome(census, path, kwargs)
    assert got == expected, f"census and full read differ on {path} with {kwargs}"
    return json.loads(got)


def counting_census(monkeypatch) -> list:
    """Record every RolloutCensus run, to tell how much its fast path took."""
    from sessionport.formats.codex import census as module

    runs: list = []
    original = module.RolloutCensus.summarize

    def summarize_and_keep(self, stream):
        runs.append(self)
        return original(self, stream)

    monkeypatch.setattr(module.RolloutCensus, "summarize", summarize_and_keep)
    return runs


@requires_corpus
@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("path", corpus_files("codex"), ids=lambda p: p.name)
def test_census_equals_full_read_on_codex_corpus(path, options):
    assert_same(path, OPTION_SETS[options])


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("path", CODEX_FIXTURES, ids=lambda p: p.name)
def test_census_equals_full_read_on_codex_fixtures(path, options):
    assert_same(path, OPTION_SETS[options])


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> list[Path]:
    """Rollouts from the benchmarks' seeded generator (the shapes the
    performance figures are measured on), a few seeds."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import generate
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("generated")
    paths = []
    for seed in (1, 2, 3):
        path = folder / f"codex-{seed}.jsonl"
        generate("codex", 600_000, str(path), seed=seed)
        paths.append(path)
    return paths


def test_census_equals_full_read_on_generated_rollouts(generated, monkeypatch):
    runs = counting_census(monkeypatch)
    for path in generated:
        for kwargs in ({}, {"options": {"skip_inherited": True}}):
            got = assert_same(path, kwargs)
            assert got["sessions"][0]["messages"] > 100
    # The fast path took most response items: the equality above is about it.
    for run, path in zip(runs[::2], generated):
        items = sum(1 for line in path.read_bytes().splitlines() if b'"type":"response_item"' in line[:60])
        assert run.decoded > 0.8 * items, (run.decoded, items)


# -- adversarial rollouts, each a real fixture with one thing changed ------

def envelope_lines() -> list[bytes]:
    return ENVELOPE.read_bytes().splitlines(keepends=True)


def variant(tmp_path: Path, name: str, lines: list[bytes]) -> Path:
    path = tmp_path / f"rollout-{name}.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def _index(lines: list[bytes], needle: bytes) -> int:
    return next(i for i, line in enumerate(lines) if needle in line)


def _invalid_utf8(lines):
    i = _index(lines, b'"type":"function_call_output"')
    lines[i] = lines[i].replace(b"Exit code: 0", b"Exit code: 0 \xff\xfe", 1)
    return lines


def _repeated_type_key(lines):
    i = _index(lines, b'"type":"function_call_output"')
    lines[i] = lines[i].rstrip(b"}\n") + b',"type":"message","role":"assistant"}}\n'
    return lines


def _torn_mid_file(lines):
    i = _index(lines, b'"type":"function_call_output"')
    lines[i] = lines[i][: len(lines[i]) // 2] + b"\n"
    return lines


def _crlf(lines):
    return [line.replace(b"\n", b"\r\n") for line in lines]


def _bom_and_nul_tail(lines):
    return [b"\xef\xbb\xbf" + lines[0], *lines[1:], b"\x00" * 64]


def _trailing_blanks(lines):
    return [line.replace(b"}\n", b"}  \n") if i % 3 == 0 else line for i, line in enumerate(lines)] + [b"\n", b"   \n"]


def _prompt_waits(lines):
    # A user message item whose prompt event comes only after the answer:
    # the assistant lines in between are queued by the reader.
    i = _index(lines, b'"type":"user_message","message":"Run the tests')
    event = lines.pop(i)
    j = _index(lines, b'"type":"function_call_output"')
    lines.insert(j + 1, event)
    return lines


def _prompt_never_paired(lines):
    i = _index(lines, b'"type":"message","role":"user","content":[{"type":"input_text","text":"Run t')
    del lines[i]
    return lines


def _tools_before_assistant(lines):
    # Counters list their keys in first-seen order: here tools come first.
    later = (b'"type":"message","role":"assistant"', b'"type":"reasoning"')
    moved = [line for line in lines if any(k in line for k in later)]
    return [line for line in lines if line not in moved] + moved


def _reasoning_without_text(lines):
    i = _index(lines, b'"type":"reasoning"')
    head = lines[i].split(b'"summary":', 1)[0]
    lines[i] = head + b'"summary":[],"content":null,"encrypted_content":null}}\n'
    return lines


def _reasoning_encrypted_only(lines):
    # no text, but the reasoning the model reads: a thinking message still
    i = _index(lines, b'"type":"reasoning"')
    head = lines[i].split(b'"summary":', 1)[0]
    lines[i] = head + b'"summary":[],"content":null,"encrypted_content":"gAAAAB"}}\n'
    return lines


def _other_layouts(lines):
    out = []
    for n, line in enumerate(lines):
        if n % 4 == 1:  # a timestamp of another length
            line = line.replace(b'.000Z"', b'Z"', 1)
        elif n % 4 == 2:  # key order Codex does not write
            line = line.replace(b'{"timestamp":', b'{ "timestamp":', 1)
        out.append(line)
    return out


def _unknown_kinds(lines):
    i = _index(lines, b'"type":"function_call_output"')
    extra = [
        b'{"timestamp":"2025-11-20T10:00:06.500Z","type":"response_item","payload":{"type":"tool_future_call","name":"x"}}\n',
        b'{"timestamp":"2025-11-20T10:00:06.600Z","type":"event_msg","payload":{"type":"Weird-Kind","x":1}}\n',
        b'{"timestamp":"2025-11-20T10:00:06.700Z","type":"response_item","payload":{"type":"message","role":["odd"],"content":"hi"}}\n',
        b'{"timestamp":"2025-11-20T10:00:06.800Z","type":"response_item","payload":{"type":"function_call","name":null,"arguments":"not json"}}\n',
        b'{"timestamp":12345,"type":"response_item","payload":{"type":"function_call_output","call_id":"zz","output":{"Ok":"x"}}}\n',
        b'{"timestamp":"2025-11-20T10:00:06.900Z","type":"response_item","payload":"not an object"}\n',
        b'{"timestamp":"2025-11-20T10:00:07.000Z","type":"response_item","payload":{"type":"function_call_output","output":' + b"[" * 1100 + b"]" * 1100 + b"}}\n",
    ]
    return lines[: i + 1] + extra + lines[i + 1 :]


def _model_changes(lines):
    i = _index(lines, b'"type":"turn_context"')
    later = lines[i].replace(b'"model":"', b'"model":"other-', 1)
    j = _index(lines, b'"type":"custom_tool_call"')
    return lines[:j] + [later] + lines[j:]


def _copied_history(lines):
    # A resumed rollout: a second session_meta of another session, then
    # history written in one burst (marked inherited), then new lines.
    meta = lines[0].replace(b"019a9f00-0000-7000-8000-000000000001", b"019a9f00-0000-7000-8000-00000000abcd", 1)
    copied = [line.replace(b'"2025-11-20T10:00:', b'"2025-11-20T09:59:', 1) for line in lines[1:12]]
    return [lines[0], meta, *copied, *lines[1:]]


# -- variants of a Codex 0.146 rollout, where events are the only trace of
# some calls: the census's own counting must keep the reader's call state.

EVENT_ONLY = FIXTURES / "codex" / "rollout-0.146-event-only.jsonl"


def event_only_lines() -> list[bytes]:
    return EVENT_ONLY.read_bytes().splitlines(keepends=True)


def _mcp_call_recorded(lines):
    # The MCP call also written as a function_call item (counted by the
    # census itself): its mcp_tool_call_end is then a mirror.
    i = _index(lines, b'"type":"mcp_tool_call_begin"')
    call = b'{"timestamp":"2026-09-14T08:00:20.000Z","type":"response_item","payload":{"type":"function_call","name":"mcp__docs__search","arguments":"{\\"query\\":\\"rounding\\"}","call_id":"call_mcp04"}}\n'
    return lines[:i] + [call] + lines[i:]


def _exec_answered_by_item(lines):
    # The shell call whose result exists only as exec_command_end gets an
    # output item after all: the held event was its mirror.
    i = _index(lines, b'"type":"exec_command_end","call_id":"call_grep01"')
    output = b'{"timestamp":"2026-09-14T08:00:13.200Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_grep01","output":"src/price.py:1"}}\n'
    return lines[: i + 1] + [output] + lines[i + 1 :]


def _output_before_exec_end(lines):
    # An output item, then the exec_command_end of the same call: the
    # call is no longer waiting, the event is skipped unparsed.
    i = _index(lines, b'"type":"exec_command_end","call_id":"call_grep01"')
    output = b'{"timestamp":"2026-09-14T08:00:12.900Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_grep01","output":"src/price.py:1"}}\n'
    return lines[:i] + [output] + lines[i:]


def _too_many_open_calls(lines):
    # More calls waiting for an output than the reader remembers: the
    # oldest are forgotten, with a warning.
    i = _index(lines, b'"type":"exec_command_end","call_id":"call_grep01"')
    calls = [
        b'{"timestamp":"2026-09-14T08:00:12.500Z","type":"response_item","payload":{"type":"function_call","name":"noop","arguments":"{}","call_id":"call_open%d"}}\n' % n
        for n in range(16400)
    ]
    return lines[:i] + calls + lines[i:]


EVENT_ONLY_VARIANTS = {
    "mcp-call-recorded": _mcp_call_recorded,
    "exec-answered-by-item": _exec_answered_by_item,
    "output-before-exec-end": _output_before_exec_end,
    "too-many-open-calls": _too_many_open_calls,
}


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("name", EVENT_ONLY_VARIANTS)
def test_census_equals_full_read_on_event_only_variants(tmp_path, name, options):
    path = variant(tmp_path, name, EVENT_ONLY_VARIANTS[name](event_only_lines()))
    assert_same(path, OPTION_SETS[options])


def test_the_event_only_variants_change_what_is_counted(tmp_path):
    base = outcome(full, EVENT_ONLY, {})
    for name, change in EVENT_ONLY_VARIANTS.items():
        assert outcome(full, variant(tmp_path, name, change(event_only_lines())), {}) != base, name


@pytest.mark.xfail(strict=True, reason="known difference: the census never renders a call's input, so input nested deeper than orjson writes back (255 levels) is counted, where the reader reports the item as malformed")
def test_known_difference_deep_call_arguments(tmp_path):
    lines = envelope_lines()
    i = _index(lines, b'"type":"function_call_output"')
    arguments = json.dumps({"a": json.loads("[" * 300 + "]" * 300)})
    record = {"timestamp": "2025-11-20T10:00:06.500Z", "type": "response_item", "payload": {"type": "function_call", "name": "deep", "arguments": arguments, "call_id": "call_deep"}}
    deep = json.dumps(record, separators=(",", ":")).encode() + b"\n"
    assert_same(variant(tmp_path, "deep-arguments", lines[: i + 1] + [deep] + lines[i + 1 :]), {})


# -- the byte path: lines counted from their bytes while the reader is idle
# (calls, outputs, reasoning, token counts, mirror events), each variant a
# set of such lines in layouts and with values the byte path must not take
# for what they are not.

_AT = b'{"timestamp":"2025-11-20T10:00:06.%03dZ","type":"%s","payload":'


def _at(n: int, kind: bytes = b"response_item") -> bytes:
    return _AT % (n, kind)


def _idle_insert(lines, new):
    # Right after the first output: nothing waits in the reader there.
    i = _index(lines, b'"type":"function_call_output"')
    return lines[: i + 1] + new + lines[i + 1 :]


def _b_field_orders(lines):
    return _idle_insert(lines, [
        _at(101) + b'{"type":"function_call_output","output":"ok","call_id":"call_tests"}}\n',
        _at(102) + b'{"call_id":"call_x","type":"function_call","name":"grep","arguments":"{}"}}\n',
        _at(103) + b'{"type":"function_call","call_id":"call_y","arguments":"{}","name":"find"}}\n',
        _at(104) + b'{"type":"reasoning","encrypted_content":"gAAA","summary":[{"type":"summary_text","text":"t"}],"content":null}}\n',
        b'{"type":"response_item","timestamp":"2025-11-20T10:00:06.105Z","payload":{"type":"function_call","name":"ls","arguments":"{}","call_id":"call_z"}}\n',
        b'{"timestamp":"2025-11-20T10:00:06.106Z","payload":{"type":"function_call","name":"ls","arguments":"{}","call_id":"call_w"},"type":"response_item"}\n',
        b'{"timestamp":"2025-11-20T10:00:06.107Z","ordinal":7,"type":"response_item","payload":{"type":"function_call","name":"cat","arguments":"{}","call_id":"call_o"}}\n',
        _at(108) + b'{"type":"function_call_output","call_id":"call_y","output":"a","status":"done"}}\n',
        _at(109) + b'{"type":"function_call","name":"ls","arguments":{"path":"."},"call_id":"call_v"}}\n',
        _at(110) + b'{"type":"function_call","name":"ls","arguments":"{}","call_id":"call_u","name":"rm"}}\n',
        _at(111, b"event_msg") + b'{"text":"x","type":"agent_reasoning"}}\n',
        _at(112, b"event_msg") + b'{"info":{"total_token_usage":{"total_tokens":6000}},"type":"token_count"}}\n',
    ])


def _b_escaped_quotes(lines):
    return _idle_insert(lines, [
        _at(201) + b'{"type":"function_call_output","call_id":"call_q","output":"say \\"hi\\"}}"}}\n',
        _at(202) + b'{"type":"function_call_output","call_id":"call_b","output":"C:\\\\"}}\n',
        _at(203) + b'{"type":"function_call","name":"sh","arguments":"{\\"cmd\\":\\"echo \\\\\\"x\\\\\\"\\"}","call_id":"call_e"}}\n',
        _at(204) + b'{"type":"reasoning","summary":[{"type":"summary_text","text":"a \\"quoted\\" plan"}],"content":null,"encrypted_content":"gAAA=="}}\n',
        _at(205) + b'{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gA\\"AA"}}\n',
        _at(206) + b'{"type":"function_call_output","call_id":"call_s","output":"x\\",\\"output\\":\\"y"}}\n',
        _at(207) + b'{"type":"function_call","name":"sh\\"ell","arguments":"{}","call_id":"call_\\"q"}}\n',
        _at(208) + b'{"type":"function_call_output","call_id":"call_u","output":"\\u00e9t\\u00e9 \\ud83d\\ude00"}}\n',
    ])


def _b_types_inside_strings(lines):
    fake = b'{\\"timestamp\\":\\"x\\",\\"type\\":\\"event_msg\\",\\"payload\\":{\\"type\\":\\"token_count\\",\\"info\\":{\\"total_token_usage\\":{\\"total_tokens\\":999999}}}}'
    return _idle_insert(lines, [
        _at(301) + b'{"type":"function_call_output","call_id":"call_t","output":"' + fake + b'"}}\n',
        _at(302) + b'{"type":"function_call","name":"echo","arguments":"' + fake + b'","call_id":"call_t2"}}\n',
        _at(303, b"event_msg") + b'{"type":"agent_message","message":"' + fake + b'"}}\n',
        _at(304) + b'{"type":"reasoning","summary":[{"type":"summary_text","text":"' + fake + b'"}],"content":null,"encrypted_content":"gAAA"}}\n',
        _at(305, b"event_msg") + b'{"type":"token_count","info":{"total_token_usage":{"total_tokens":6100},"note":"\\"total_tokens\\":1"},"rate_limits":null}}\n',
    ])


def _b_repeated_keys(lines):
    # What orjson keeps of a repeated key (the last) is what counts.
    return _idle_insert(lines, [
        _at(801) + b'{"type":"function_call","name":"ls","arguments":"{}","call_id":"call_r1","type":"function_call_output"}}\n',
        _at(802) + b'{"type":"function_call_output","call_id":"call_cfg","output":"x","type":"reasoning","summary":[{"type":"summary_text","text":"t"}]}}\n',
        _at(803) + b'{"type":"function_call","name":"ls","arguments":"{}","call_id":"call_r2"},"type":"event_msg"}\n',
        _at(804) + b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"content":null,"encrypted_content":"gAAA","summary":[]}}\n',
        _at(805) + b'{"type":"function_call_output","call_id":"call_r3","output":"x","call_id":"call_cfg"}}\n',
        _at(806) + b'{"type":"function_call_output","call_id":"call_r4","output":"x"},"timestamp":"2030-01-01T00:00:00.000Z"}\n',
        _at(807) + b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t"}],"content":null,"encrypted_content":"gAAA","type":"function_call"}}\n',
    ])


def _b_unknown_types(lines):
    return _idle_insert(lines, [
        _at(401) + b'{"type":"function_call_output_v2","call_id":"call_cfg","output":"x"}}\n',
        _at(402, b"event_msg") + b'{"type":"agent_reasoning_v9","text":"x"}}\n',
        _at(403, b"event_msg_v2") + b'{"type":"agent_reasoning","text":"x"}}\n',
        _at(404) + b'{"type":"reasoning","summary":[{"type":"summary_future","text":"t"}],"content":[{"type":"reasoning_text","text":"r"}],"encrypted_content":"gAAA"}}\n',
        _at(405) + b'{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gAAA","metadata":{"turn_id":"t1"}}}\n',
        _at(406) + b'{"type":"function_call_output","call_id":"call_n","output":{"Ok":"x"}}}\n',
        _at(407) + b'{"type":"function_call_output","call_id":"call_n","output":null}}\n',
        _at(408) + b'{"type":"custom_tool_call","status":"completed","call_id":"call_c","name":"apply_patch","input":"*** Begin Patch"}}\n',
        _at(409) + b'{"type":"custom_tool_call_output","call_id":"call_c","output":"done"}}\n',
    ])


def _b_torn_output_at_eof(lines):
    i = _index(lines, b'"call_id":"call_tests","output"')
    return lines[:i] + [lines[i][: len(lines[i]) - 40]]


def _b_torn_reasoning_at_eof(lines):
    i = _index(lines, b'"type":"reasoning"')
    return lines[:i] + [lines[i].rstrip(b"\n")[:-2]]


def _b_complete_last_line_without_newline(lines):
    return lines[:-1] + [lines[-1].rstrip(b"\n")]


def _b_mixed_line_ends(lines):
    return [line.replace(b"\n", b"\r\n") if i % 2 else line.replace(b"}\n", b"} \t\n") if i % 3 == 0 else line for i, line in enumerate(lines)]


def _b_control_bytes(lines):
    return _idle_insert(lines, [
        _at(501) + b'{"type":"function_call_output","call_id":"call_tab","output":"a\tb"}}\n',
        _at(502) + b'{"type":"reasoning","summary":[],"content":null,"encrypted_content":"gA\x01AA"}}\n',
        _at(503, b"event_msg") + b'{"type":"agent_reasoning","text":"nul \x00 inside"}}\n',
        _at(504) + b'{"type":"function_call","name":"ls","arguments":"{}","call_id":"call_\xff"}}\n',
        _at(505) + b'{"type":"reasoning","summary":[{"type":"summary_text","text":"\xe9t\xe9"}],"content":null,"encrypted_content":"gAAA"}}\n',
    ])


def _b_deep(where: bytes):
    deep = b"[" * 200 + b"]" * 200

    def change(lines):
        line = {
            b"mirror": _at(601, b"event_msg") + b'{"type":"agent_reasoning","text":"x","extra":' + deep + b"}}\n",
            b"token": _at(602, b"event_msg") + b'{"type":"token_count","info":{"total_token_usage":{"total_tokens":6000},"x":' + deep + b"}}}\n",
            b"output": _at(603) + b'{"type":"function_call_output","call_id":"call_d","output":' + deep + b',"output":"ok"}}\n',
            b"later-output": _at(607) + b'{"type":"function_call_output","call_id":"call_d","output":"ok","output":' + deep + b"}}\n",
            b"summary": _at(604) + b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t","x":' + deep + b'}],"content":null,"encrypted_content":"gAAA"}}\n',
            b"content": _at(605) + b'{"type":"reasoning","summary":[],"content":' + b"{\"a\":" * 130 + b"1" + b"}" * 130 + b',"encrypted_content":"gAAA"}}\n',
            b"shallow": _at(606) + b'{"type":"reasoning","summary":[{"type":"summary_text","text":"t","x":' + b"[" * 120 + b"]" * 120 + b'}],"content":null,"encrypted_content":"gAAA"}}\n',
        }[where]
        return _idle_insert(lines, [line])

    return change


def _b_long_lines(lines):
    # Lines longer than a block, so that one is carried from block to block.
    big = b"x" * (1 << 20) + b"\\n" * 1000
    return _idle_insert(lines, [
        _at(701) + b'{"type":"function_call_output","call_id":"call_tests","output":"' + big + b'"}}\n',
        _at(702) + b'{"type":"reasoning","summary":[],"content":null,"encrypted_content":"' + b"gAAA" * 400000 + b'"}}\n',
        _at(703, b"event_msg") + b'{"type":"agent_message","message":"' + big + b'"}}\n',
    ])


BYTE_PATH_VARIANTS = {
    "field-orders": _b_field_orders,
    "escaped-quotes": _b_escaped_quotes,
    "types-inside-strings": _b_types_inside_strings,
    "unknown-types": _b_unknown_types,
    "torn-output-at-eof": _b_torn_output_at_eof,
    "torn-reasoning-at-eof": _b_torn_reasoning_at_eof,
    "last-line-without-newline": _b_complete_last_line_without_newline,
    "mixed-line-ends": _b_mixed_line_ends,
    "control-bytes": _b_control_bytes,
    "deep-mirror": _b_deep(b"mirror"),
    "deep-token-count": _b_deep(b"token"),
    "deep-repeated-output": _b_deep(b"output"),
    "deep-later-output": _b_deep(b"later-output"),
    "repeated-keys": _b_repeated_keys,
    "deep-summary": _b_deep(b"summary"),
    "deep-content": _b_deep(b"content"),
    "nested-below-the-bound": _b_deep(b"shallow"),
    "long-lines": _b_long_lines,
}


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("name", BYTE_PATH_VARIANTS)
def test_census_equals_full_read_on_byte_path_variants(tmp_path, name, options):
    path = variant(tmp_path, name, BYTE_PATH_VARIANTS[name](envelope_lines()))
    assert_same(path, OPTION_SETS[options])


def test_the_byte_path_variants_change_what_is_counted(tmp_path):
    base = outcome(full, ENVELOPE, {"skip_bad": True})
    for name, change in BYTE_PATH_VARIANTS.items():
        got = outcome(full, variant(tmp_path, name, change(envelope_lines())), {"skip_bad": True})
        if name == "mixed-line-ends":
            assert got == base, name  # the same records in another layout
        else:  # (a last line without its newline is parsed, not skipped unparsed)
            assert got != base, name


def _b_nul_runs(lines):
    # A run of NUL bytes mid-file (a line longer than a block), and a NUL
    # tail without a newline.
    return _idle_insert(lines, [b"\x00" * (3 << 19) + b"\n"]) + [b"\x00" * (3 << 19)]


@pytest.mark.parametrize("limit", ["1k", "300k", "1M"])
@pytest.mark.parametrize("change", [_b_long_lines, _b_nul_runs], ids=["long-lines", "nul-runs"])
def test_census_equals_full_read_with_a_line_size_limit(tmp_path, limit, change):
    # Lines over the limit in a block and carried over blocks, refused the
    # same way (an error, or skipped and counted with --skip-bad).
    path = variant(tmp_path, "long", change(envelope_lines()))
    for kwargs in ({}, {"skip_bad": True}):
        got = assert_same(path, {**kwargs, "options": {"max_line_size": limit}})
        assert "error" in got if not kwargs else got["bad"][0] > 0
    assert_same(path, {})


def test_the_byte_path_takes_the_lines_it_knows(tmp_path, monkeypatch):
    runs = counting_census(monkeypatch)
    path = variant(tmp_path, "escaped-quotes", _b_escaped_quotes(envelope_lines()))
    assert_same(path, {})
    # The outputs, calls and reasoning items in Codex's layout, escaped
    # quotes and all (not the ones after a prompt, which the reader takes).
    assert runs[0].from_bytes >= 8
    # CRLF line ends too.
    assert_same(variant(tmp_path, "crlf", _crlf(envelope_lines())), {})
    assert_same(ENVELOPE, {})
    assert runs[1].from_bytes == runs[2].from_bytes > 0


VARIANTS = {
    "invalid-utf8": _invalid_utf8,
    "repeated-type-key": _repeated_type_key,
    "torn-mid-file": _torn_mid_file,
    "crlf": _crlf,
    "bom-and-nul-tail": _bom_and_nul_tail,
    "trailing-blanks": _trailing_blanks,
    "prompt-waits": _prompt_waits,
    "prompt-never-paired": _prompt_never_paired,
    "tools-before-assistant": _tools_before_assistant,
    "reasoning-without-text": _reasoning_without_text,
    "reasoning-encrypted-only": _reasoning_encrypted_only,
    "other-layouts": _other_layouts,
    "unknown-kinds": _unknown_kinds,
    "model-changes": _model_changes,
    "copied-history": _copied_history,
}


@pytest.mark.parametrize("options", OPTION_SETS, ids=list(OPTION_SETS))
@pytest.mark.parametrize("name", VARIANTS)
def test_census_equals_full_read_on_adversarial_rollouts(tmp_path, name, options):
    path = variant(tmp_path, name, VARIANTS[name](envelope_lines()))
    assert_same(path, OPTION_SETS[options])


def test_the_variants_change_what_is_counted(tmp_path):
    """Each variant above must matter: its summary differs from the
    fixture's, or it warns, or it fails (else it tests nothing)."""
    base = outcome(full, ENVELOPE, {"skip_bad": True})
    for name, change in VARIANTS.items():
        got = outcome(full, variant(tmp_path, name, change(envelope_lines())), {"skip_bad": True})
        if name in ("crlf", "trailing-blanks", "prompt-never-paired", "reasoning-encrypted-only"):
            # Same content in another layout (none of it may take the fast
            # path's fixed offsets), a prompt known only from its event, or
            # reasoning kept only encrypted (a thinking message all the
            # same): the same summary by another path.
            assert got == base, name
        else:
            assert got != base, name


def test_layouts_the_fast_path_does_not_take_are_still_counted(tmp_path, monkeypatch):
    runs = counting_census(monkeypatch)
    for name in ("crlf", "other-layouts"):
        assert_same(variant(tmp_path, name, VARIANTS[name](envelope_lines())), {})
    assert len(runs) == 2


def test_inspect_uses_the_census_and_prints_what_the_full_read_gives(tmp_path):
    path = variant(tmp_path, "prompt-waits", _prompt_waits(envelope_lines()))
    result = run_cli("inspect", "--json", str(path))
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    ctx = ReadContext(on_warning=lambda message: None)
    sessions = summarize(api.read(str(path), context=ctx))
    expected = {**totals(sessions), "sessions": [s.as_dict() for s in sessions], "sessionCount": len(sessions)}
    if ctx.warnings:
        expected["warnings"] = ctx.warnings
    assert printed == json.loads(json.dumps(expected))
    assert printed["byRole"]["tool"] > 0 and printed["usage"]["total_tokens"] > 0


def test_inspect_of_a_bad_line_fails_the_same_way(tmp_path):
    path = variant(tmp_path, "torn", _torn_mid_file(envelope_lines()))
    result = run_cli("inspect", "--json", str(path))
    assert result.returncode == 1
    assert b"line 15" in result.stderr and b"Traceback" not in result.stderr
    skipped = run_cli("inspect", "--json", "--skip-bad", str(path))
    assert skipped.returncode == 0
    assert b"skipped 1 unreadable record(s): " in skipped.stderr and skipped.stderr.rstrip().endswith(b"rollout-torn.jsonl, line 15")


def test_importers_without_a_census_are_summarized_from_their_events():
    from sessionport.registry import get_registry

    without = [imp.name for imp in get_registry().importers() if imp.census is None]
    assert "gemini-cli" in without
    path = FIXTURES / "gemini-cli" / next(p.name for p in (FIXTURES / "gemini-cli").iterdir() if p.suffix == ".json")
    assert_same(path, {})


# -- Claude Code ------------------------------------------------------------

# The session files and the web session ({"loglines": [...]}); not the
# subagent sidecars, which are read with their session.
CLAUDE_FIXTURES = sorted([*(FIXTURES / "claude-code").rglob("*.jsonl"), FIXTURES / "claude-code" / "web-session.json"])
CLAUDE_SESSION = FIXTURES / "claude-code" / "session.jsonl"
CLAUDE_OPTIONS = {
    "defaults": {},
    "no-subagents": {"options": {"no_subagents": True}},
    "skip-bad": {"skip_bad": True},
    "strict": {"strict": True},
    "as-claude-code": {"format": "claude-code"},
}


def counting_claude_census(monkeypatch) -> list:
    from sessionport.formats.claude_code import census as module

    runs: list = []
    original = module.TranscriptCensus.run

    def run_and_keep(self, stream, source=None):
        runs.append(self)
        return original(self, stream, source)

    monkeypatch.setattr(module.TranscriptCensus, "run", run_and_keep)
    return runs


@requires_corpus
@pytest.mark.parametrize("options", CLAUDE_OPTIONS, ids=list(CLAUDE_OPTIONS))
@pytest.mark.parametrize("path", corpus_files("claude-code", "*.jsonl"), ids=lambda p: p.name)
def test_census_equals_full_read_on_claude_code_corpus(path, options):
    assert_same(path, CLAUDE_OPTIONS[options])


@pytest.mark.parametrize("options", CLAUDE_OPTIONS, ids=list(CLAUDE_OPTIONS))
@pytest.mark.parametrize("path", CLAUDE_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_census_equals_full_read_on_claude_code_fixtures(path, options):
    assert_same(path, CLAUDE_OPTIONS[options])


@pytest.fixture(scope="module")
def generated_claude(tmp_path_factory) -> list[Path]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from generate import generate
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("generated-claude")
    paths = []
    for seed in (1, 2, 3):
        path = folder / f"claude-{seed}.jsonl"
        generate("claude-code", 900_000, str(path), seed=seed)
        paths.append(path)
    return paths


def test_census_equals_full_read_on_generated_claude_code_logs(generated_claude, monkeypatch):
    runs = counting_claude_census(monkeypatch)
    for path in generated_claude:
        got = assert_same(path, {})
        assert got["sessions"][0]["messages"] > 100 and got["totals"]["usage"]["output_tokens"] > 0
    for run, path in zip(runs, generated_claude):
        common = sum(1 for line in path.read_bytes().splitlines() if b'"type":"assistant"' in line or b'"type":"tool_result"' in line)
        assert run.decoded > 0.8 * common, (run.decoded, common)


def claude_lines() -> list[bytes]:
    return CLAUDE_SESSION.read_bytes().splitlines(keepends=True)


def _c_index(lines, needle: bytes, start: int = 0) -> int:
    return next(i for i, line in enumerate(lines) if i >= start and needle in line)


def _c_after_start(lines):
    """Where lines go to be read once the session has started."""
    return _c_index(lines, b'"type":"tool_result"') + 1


def _c_insert(lines, new):
    at = _c_after_start(lines)
    return lines[:at] + new + lines[at:]


def _assistant(lines, content: bytes, msg_id: bytes = b"msg_demo_B", extra: bytes = b"") -> bytes:
    line = lines[_c_index(lines, b'"id":"msg_demo_B"')]
    head, rest = line.split(b'"content":', 1)
    tail = rest.split(b',"stop_reason"', 1)[1]
    return (head + b'"content":' + content + b',"stop_reason"' + tail).replace(b"msg_demo_B", msg_id).replace(b'"uuid":"', extra + b'"uuid":"', 1)


def _c_invalid_utf8(lines):
    i = _c_index(lines, b'"type":"tool_result"')
    lines[i] = lines[i].replace(b"README.md", b"READ\xffME.md", 1)
    return lines


def _c_blocks(lines):
    many = b'[{"type":"text","text":"a"},{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{"query":"q"}},{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[]},{"type":"redacted_thinking","data":"eA=="},{"type":"image","source":{}},{"type":"tool_use","name":"","input":null}]'
    return _c_insert(lines, [_assistant(lines, many, b"msg_many"), _assistant(lines, b'"just text"', b"msg_str"), _assistant(lines, b"null", b"msg_none"), _assistant(lines, b'["not a block", 3]', b"msg_odd"), _assistant(lines, b'{"type":"text"}', b"msg_obj")])


def _c_odd_envelopes(lines):
    line = lines[_c_index(lines, b'"id":"msg_demo_B"')]
    no_message = line.split(b'"message":', 1)[0] + b'"uuid":"00000000-0000-4000-8000-0000000000aa","timestamp":"2026-04-01T10:00:09.000Z"}\n'
    string_message = line.split(b'"message":', 1)[0] + b'"message":"hello","uuid":"00000000-0000-4000-8000-0000000000ab","timestamp":""}\n'
    no_stamp = line.replace(b'"timestamp":"', b'"timestampX":"', 1).replace(b"msg_demo_B", b"msg_nostamp")
    odd_model = line.replace(b'"model":"claude-sonnet-4-5"', b'"model":["x"]', 1).replace(b"msg_demo_B", b"msg_oddmodel")
    deep = line.replace(b'"stop_reason":null', b'"stop_reason":' + b"[" * 1100 + b"]" * 1100, 1).replace(b"msg_demo_B", b"msg_deep")
    return _c_insert(lines, [no_message, string_message, no_stamp, odd_model, deep])


def _c_user_shapes(lines):
    i = _c_index(lines, b'"type":"tool_result"')
    result = lines[i]
    two = result.replace(b'"content":[{"tool_use_id"', b'"content":[{"type":"text","text":"also"},{"tool_use_id"', 1)
    meta = result.replace(b'"content":[{"tool_use_id":"toolu_demo_1","type":"tool_result"', b'"content":[{"tool_use_id":"toolu_demo_1","type":"tool_resultX"', 1)
    empty = result.split(b'"content":', 1)[0] + b'"content":[]},"uuid":"00000000-0000-4000-8000-0000000000ac","timestamp":"2026-04-01T10:00:03.000Z"}\n'
    return _c_insert(lines, [two, meta, empty])


def _c_interleaved_ids(lines):
    # Two API responses whose lines alternate: usage counts the last value
    # of each message id once.
    a1 = _assistant(lines, b'[{"type":"text","text":"a1"}]', b"msg_X")
    b1 = _assistant(lines, b'[{"type":"text","text":"b1"}]', b"msg_Y")
    a2 = _assistant(lines, b'[{"type":"tool_use","id":"t9","name":"Read","input":{}}]', b"msg_X").replace(b'"output_tokens":7', b'"output_tokens":70', 1)
    return _c_insert(lines, [a1, b1, a2])


def _c_torn(lines):
    at = _c_after_start(lines)
    lines[at] = lines[at][: len(lines[at]) // 2] + b"\n"
    return lines


def _c_crlf(lines):
    return [line.replace(b"\n", b"\r\n") for line in lines]


def _c_bom_nul(lines):
    return [b"\xef\xbb\xbf" + lines[0], *lines[1:], b"\x00" * 32]


def _c_assistant_first(lines):
    # The session starts with the messages the grouper releases: assistant
    # lines first hold their messages back until the first prompt.
    first_user = _c_index(lines, b'"type":"user"')
    assistants = [line for line in lines if b'"type":"assistant"' in line]
    rest = [line for line in lines if line not in assistants]
    return rest[:first_user] + assistants + rest[first_user:]


def _c_prompt_after_start(lines):
    user = lines[_c_index(lines, b'"content":"List the files')]
    later = user.replace(b"List the files here, please.", b"And the hidden ones?").replace(b"000000000001\",\"timestamp", b"0000000000ff\",\"timestamp")
    return _c_insert(lines, [later])


def _c_new_blocks(lines):
    # Blocks the census does not count itself: an MCP call, and a tool
    # result whose content holds a part of a type the reader reports.
    mcp = _assistant(lines, b'[{"type":"mcp_tool_use","id":"mcp_1","name":"search","server_name":"docs","input":{"q":"x"}}]', b"msg_mcp")
    i = _c_index(lines, b'"type":"tool_result"')
    odd = lines[i].replace(b'"content":"README.md\\nsrc\\n"', b'"content":[{"type":"text","text":"ok"},{"type":"future_part","x":1}]', 1)
    assert odd != lines[i]
    return _c_insert(lines, [mcp, odd])


CLAUDE_VARIANTS = {
    "invalid-utf8": _c_invalid_utf8,
    "blocks": _c_blocks,
    "odd-envelopes": _c_odd_envelopes,
    "user-shapes": _c_user_shapes,
    "interleaved-ids": _c_interleaved_ids,
    "torn-mid-file": _c_torn,
    "crlf": _c_crlf,
    "bom-and-nul-tail": _c_bom_nul,
    "assistant-first": _c_assistant_first,
    "prompt-after-start": _c_prompt_after_start,
    "new-blocks": _c_new_blocks,
}


@pytest.mark.parametrize("options", CLAUDE_OPTIONS, ids=list(CLAUDE_OPTIONS))
@pytest.mark.parametrize("name", CLAUDE_VARIANTS)
def test_census_equals_full_read_on_adversarial_claude_code_logs(tmp_path, name, options):
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(b"".join(CLAUDE_VARIANTS[name](claude_lines())))
    assert_same(path, CLAUDE_OPTIONS[options])


def test_the_claude_code_variants_change_what_is_counted(tmp_path):
    base = outcome(full, CLAUDE_SESSION, {"skip_bad": True})
    for name, change in CLAUDE_VARIANTS.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(b"".join(change(claude_lines())))
        got = outcome(full, path, {"skip_bad": True})
        if name == "crlf":
            assert got == base, name
        else:
            assert got != base, name


def test_inspect_of_a_claude_code_project_with_subagents(monkeypatch):
    path = FIXTURES / "claude-code" / "project" / "5a1c2e3f-0000-4000-8000-000000000002.jsonl"
    runs = counting_claude_census(monkeypatch)
    got = assert_same(path, {})
    assert len(got["sessions"]) == 2 and got["sessions"][1].get("parentSessionId")
    assert len(runs) == 2  # the subagent transcript went through the census too
    result = run_cli("inspect", "--json", str(path))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sessionCount"] == 2
