"""The codex importer on small synthetic rollouts of every era and on
damaged input: torn and NUL-padded tails, garbage lines, invalid UTF-8,
multi-MB lines, unknown record types, wrong formats."""

from __future__ import annotations

import io
import json

import orjson
import pytest
from click.testing import CliRunner

import sessionport
from conftest import FIXTURES, run_cli
from sessionport.cli import cli
from sessionport.context import ReadContext, WriteContext
from sessionport.errors import DataError
from sessionport.formats.codex import reader as codex

SAMPLES = FIXTURES / "codex"
ENVELOPE = SAMPLES / "rollout-envelope.jsonl"


def read(path, **options):
    return list(sessionport.read(str(path), options=options or None))


def read_bytes(data: bytes, **fields) -> tuple[list[dict], list[str]]:
    warnings: list[str] = []
    ctx = ReadContext(name="<test>", on_warning=warnings.append, **fields)
    return list(codex.read(io.BufferedReader(io.BytesIO(data)), ctx)), warnings


def messages(events):
    return [e for e in events if e["type"] == "message"]


def kind(event):
    return (event.get("meta") or {}).get("kind", "text")


# -- detection ------------------------------------------------------------


@pytest.mark.parametrize(
    "name, era",
    [
        ("rollout-envelope.jsonl", "envelope"),
        ("rollout-ordinal.jsonl", "envelope"),
        ("rollout-forked.jsonl", "envelope"),
        ("rollout-pre-envelope.jsonl", "pre-envelope"),
        ("rollout-typescript.json", "typescript"),
    ],
)
def test_every_era_is_detected_from_its_first_bytes(name, era):
    head = (SAMPLES / name).read_bytes()[:65536]
    assert codex.sniff(head) >= 85
    events = read(SAMPLES / name)  # auto-detection
    assert events[0]["source"] == "codex"
    assert events[0]["metadata"]["codexEra"] == era


def test_typescript_document_written_on_one_line(tmp_path):
    compact = tmp_path / "rollout-2025-04-20-x.json"
    compact.write_bytes(orjson.dumps(orjson.loads((SAMPLES / "rollout-typescript.json").read_bytes())))
    assert codex.sniff(compact.read_bytes()) == 85
    assert [e["text"] for e in messages(read(compact))] == [e["text"] for e in messages(read(SAMPLES / "rollout-typescript.json"))]


def test_sniff_scores_a_first_line_longer_than_the_head():
    line = ENVELOPE.read_bytes().splitlines()[0]
    long_meta = line.replace(b"You are Codex", b"You are Codex " + b"x" * 70000)
    assert codex.sniff(long_meta[:65536]) == 90


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"\x00\x00\x00",
        b"not json at all\n",
        b'{"type":"session","schema":"sessionport/v1","source":"x"}\n',
        b'{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s"}\n',
        b'[{"role":"user","content":"hi"}]',
        b'{"messages":[{"role":"user","content":"hi"}]}',
        b'{"id":"x","timestamp":"2025"}\n{"other":1}\n',
    ],
)
def test_sniff_rejects_other_shapes(head):
    assert codex.sniff(head) == 0


# -- the envelope sample ---------------------------------------------------


def test_envelope_sample_maps_every_record_kind():
    events = read(ENVELOPE)
    session, body = events[0], messages(events)
    assert session["sessionId"] == "019a9f00-0000-7000-8000-000000000001"
    assert session["cwd"] == "/home/dev/shop"
    assert session["metadata"]["git"]["repository_url"] == "https://***@github.com/dev/shop.git"
    assert "ghp_secret" not in orjson.dumps(events).decode()

    roles = [(e["role"], kind(e)) for e in body]
    assert roles[:5] == [("system", "text"), ("user", "text"), ("user", "text"), ("assistant", "thinking"), ("assistant", "text")]
    assert body[0]["meta"]["injected"] and body[1]["meta"]["injected"]
    assert "injected" not in (body[2].get("meta") or {})
    assert body[3]["text"] == "**Planning the test run**"  # once, not again from agent_reasoning
    assert body[3]["meta"]["model"] == "gpt-5-codex"


def test_parallel_calls_pair_with_outputs_by_call_id_not_position():
    body = messages(read(ENVELOPE))
    uses = [e for e in body if kind(e) == "tool_use"]
    results = {e["toolCallId"]: e for e in body if kind(e) == "tool_result"}
    assert [u["toolCallId"] for u in uses[:2]] == ["call_tests", "call_cfg"]
    order = [e["toolCallId"] for e in body if kind(e) == "tool_result"]
    assert order[:2] == ["call_cfg", "call_tests"]  # written output, output in the other order
    assert results["call_tests"]["toolName"] == "shell" and results["call_tests"]["isError"] is True
    assert results["call_tests"]["text"] == "F....\n1 failed, 4 passed in 0.12s\n"
    assert results["call_tests"]["meta"]["exitCode"] == 1
    assert results["call_cfg"]["toolName"] == "shell_command" and results["call_cfg"]["isError"] is False
    assert uses[0]["toolInput"] == {"command": ["bash", "-lc", "pytest -q"], "workdir": "/home/dev/shop"}
    assert uses[0]["text"] == "pytest -q"


def test_custom_tool_mcp_web_search_and_invalid_arguments():
    body = messages(read(ENVELOPE))
    by_id = {e.get("toolCallId"): e for e in body if kind(e) == "tool_use"}
    assert by_id["call_patch"]["toolInput"]["input"].startswith("*** Begin Patch")
    assert by_id["call_mcp"]["toolName"] == "docs__search" and by_id["call_mcp"]["toolInput"] == {"query": "rounding money"}
    image_result = next(e for e in body if kind(e) == "tool_result" and e["toolCallId"] == "call_mcp")
    assert image_result["text"] == "Use decimal.Decimal for money.\n[image: image/png, 72 B]"
    search = next(e for e in body if e.get("toolName") == "web_search")
    assert search["toolInput"]["query"] == "python round half even" and "toolCallId" not in search
    torn = by_id["call_torn_args"]
    assert torn["toolInput"] == {"raw": '{"command":["bash","-lc","pytest -q"'}
    assert torn["meta"]["codexArguments"] == "raw"


def test_unpaired_call_stays_a_call_and_unknown_types_are_counted():
    events = read(ENVELOPE)
    body, end = messages(events), events[-1]
    assert not [e for e in body if kind(e) == "tool_result" and e.get("toolCallId") == "call_torn_args"]
    assert end["counts"]["callsWithoutOutput"] == 1
    assert end["skipped"]["future_record"] == 1
    assert end["skipped"]["event_msg/exec_command_end"] == 1
    assert end["skipped"]["event_msg/agent_message"] == 1


def test_compaction_is_one_message_and_history_is_not_replayed():
    body = messages(read(ENVELOPE))
    compactions = [e for e in body if kind(e) == "compaction"]
    assert len(compactions) == 1
    assert compactions[0]["role"] == "system" and compactions[0]["meta"]["replacedItems"] == 2
    prompts = [e["text"] for e in body if e["role"] == "user"]
    assert prompts.count("Run the tests and fix the failing one") == 1


def test_encrypted_reasoning_is_counted_and_kept_for_the_model_not_the_reader():
    # Codex sends a rollout's encrypted reasoning back to the model on every
    # resumed request: it is kept in meta (an export to Codex writes it
    # back), never in a text a reader sees
    events = read(ENVELOPE)
    messages = [e for e in events if e["type"] == "message"]
    assert not any("gAAAAAB" in e["text"] for e in messages)
    kept = [e["meta"]["encryptedContent"] for e in messages if "encryptedContent" in e.get("meta", {})]
    assert any(k.startswith("gAAAAAB") for k in kept)
    assert events[-1]["counts"]["encryptedReasoning"] == 1


def test_repeated_and_null_token_counts_give_the_last_total():
    end = read(ENVELOPE)[-1]
    assert end["usage"] == {
        "input_tokens": 9800,
        "cached_input_tokens": 8000,
        "output_tokens": 420,
        "reasoning_output_tokens": 160,
        "total_tokens": 10220,
    }


@pytest.mark.parametrize(
    "usage, expected",
    [
        (b'{"input_tokens":5,"total_tokens":7}', 7),  # the usual layout: total last
        (b'{"total_tokens":7,"input_tokens":5}', 7),
        (b'{"total_tokens": 7}', None),  # not the compact form Codex writes: parsed instead
        (b'{"nested":{"total_tokens":3},"total_tokens":7}', None),
        (b'{"total_tokens":"7"}', None),
        (b'{"input_tokens":5}', None),
    ],
)
def test_total_tokens_read_from_bytes_agree_with_the_line(usage, expected):
    from sessionport.formats.codex.rollout import _total_tokens

    line = b'{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":' + usage + b"}}}"
    assert _total_tokens(line) == expected
    if expected is not None:
        assert orjson.loads(line)["payload"]["info"]["total_token_usage"]["total_tokens"] == expected


def test_reset_totals_are_summed_per_segment_and_rollback_is_a_marker():
    events = read(SAMPLES / "rollout-ordinal.jsonl")
    end = events[-1]
    assert end["usage"]["total_tokens"] == 3100 + 2590
    assert end["skipped"] == {"world_state": 1, "token_usage_record": 1}
    body = messages(events)
    rollback = [e for e in body if kind(e) == "rollback"]
    assert len(rollback) == 1 and rollback[0]["meta"]["numTurns"] == 1
    # The rolled-back turn stays in the stream (it happened), before the marker.
    texts = [e["text"] for e in body]
    assert texts.index("There are two files: README.md and main.py.") < texts.index("[rolled back 1 turn(s)]")
    assert body[0]["meta"]["injected"]  # AGENTS.md instructions
    assert events[0]["cwd"] == "C:\\Users\\dev\\app"


def test_forked_rollout_marks_the_copied_history():
    events = read(SAMPLES / "rollout-forked.jsonl")
    session, body, end = events[0], messages(events), events[-1]
    assert session["sessionId"] == "019b1111-0000-7000-8000-000000000003"
    assert session["metadata"]["forkedFromId"] == "019b0fff-0000-7000-8000-0000000000aa"
    assert session["metadata"]["inheritsFrom"] == ["019b0fff-0000-7000-8000-0000000000aa"]
    inherited = [e["text"] for e in body if (e.get("meta") or {}).get("inherited")]
    assert inherited == ["Map the repository layout", "I'll spawn a scout to look at src/."]
    assert end["usage"]["total_tokens"] == 940  # the child's own usage
    assert end["counts"]["inheritedTotalTokens"] == 8200
    own = messages(read(SAMPLES / "rollout-forked.jsonl", skip_inherited=True))
    assert [e["text"] for e in own][0] == "Scout: list the modules under src/"
    assert len(own) == len(body) - 2


def test_skip_inherited_is_a_cli_flag(tmp_path):
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["convert", str(SAMPLES / "rollout-forked.jsonl"), "--to", "portable-jsonl", "--skip-inherited", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert b"Map the repository layout" not in out.read_bytes()


def test_pre_envelope_and_typescript_eras():
    e1 = read(SAMPLES / "rollout-pre-envelope.jsonl")
    assert e1[0]["cwd"] == "/Users/dev/tool"
    assert [(e["role"], kind(e)) for e in messages(e1)] == [
        ("user", "text"),
        ("user", "text"),
        ("assistant", "thinking"),
        ("tool", "tool_use"),
        ("tool", "tool_result"),
        ("assistant", "text"),
    ]
    assert messages(e1)[0]["meta"]["injected"] and "meta" not in messages(e1)[1]
    assert e1[-1]["skipped"] == {"record_type/state": 3}
    e0 = read(SAMPLES / "rollout-typescript.json")
    assert e0[0]["sessionId"] == "3c2b1a00-aaaa-4bbb-8ccc-ddddeeeeffff"
    assert e0[0]["metadata"]["instructions"] == "Be brief."
    assert [e["text"] for e in messages(e0)][-1] == "Added `--version` to cli.py."
    assert messages(e0)[3]["toolName"] == "shell" and messages(e0)[3]["text"] == "3:import argparse\n"


def test_user_message_event_without_its_item_still_gives_the_prompt():
    lines = ENVELOPE.read_bytes().splitlines()
    event_only = [line for line in lines if b'"text":"Thanks! Summarise' not in line]
    events, _ = read_bytes(b"\n".join(event_only) + b"\n")
    prompt = [e for e in messages(events) if e["text"] == "Thanks! Summarise the fix in one line."]
    assert len(prompt) == 1 and prompt[0]["meta"]["fromEvent"] is True


def test_event_written_before_its_item_still_marks_a_typed_prompt():
    lines = ENVELOPE.read_bytes().splitlines()
    item = next(i for i, line in enumerate(lines) if b'"text":"Run the tests' in line)
    lines[item], lines[item + 1] = lines[item + 1], lines[item]
    events, _ = read_bytes(b"\n".join(lines) + b"\n")
    prompts = [e for e in messages(events) if e["text"] == "Run the tests and fix the failing one"]
    assert len(prompts) == 1 and "meta" not in prompts[0]


# -- damaged input ---------------------------------------------------------


def test_torn_last_line_keeps_everything_before_it(tmp_path):
    result = run_cli("convert", str(SAMPLES / "rollout-torn-tail.jsonl"), "--to", "portable-jsonl")
    assert result.returncode == 0
    assert b"last line is incomplete" in result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert events[-1]["type"] == "end"
    assert messages(events)[-1]["text"].startswith("I'll run the test suite")
    strict = CliRunner().invoke(cli, ["convert", str(SAMPLES / "rollout-torn-tail.jsonl"), "--to", "portable-jsonl", "--strict", "-o", str(tmp_path / "o.jsonl")])
    assert strict.exit_code == 1 and "line 8" in strict.stderr


def test_nul_padded_tail_is_a_warning():
    data = ENVELOPE.read_bytes()
    torn = data[: data.rindex(b"\n", 0, len(data) - 1) + 40]  # cut inside the last line
    for tail in (data + b"\x00" * 4096, torn + b"\x00" * (4096 - len(torn) % 4096)):
        events, warnings = read_bytes(tail)
        assert events[0]["type"] == "session" and events[-1]["type"] == "end"
        assert any("NUL" in w for w in warnings)
        assert len(messages(events)) >= 18


def test_garbage_middle_line_stops_with_the_line_number_unless_skip_bad():
    lines = ENVELOPE.read_bytes().splitlines()
    lines.insert(10, b'{"timestamp":"2025-11-20T10:00:05.000Z","type":"response_item","payload":{"type":"mess')
    data = b"\n".join(lines) + b"\n"
    with pytest.raises(DataError) as caught:
        read_bytes(data)
    assert "line 11" in str(caught.value) and "--skip-bad" in str(caught.value)
    events, _ = read_bytes(data, skip_bad=True)
    assert len(messages(events)) == len(messages(read(ENVELOPE)))


def test_invalid_utf8_costs_one_character_not_the_record():
    data = ENVELOPE.read_bytes().replace(b"fix the failing one", b"fix the f\xffiling one", 1)
    events, warnings = read_bytes(data)
    assert any(e["text"] == "Run the tests and fix the f\ufffdiling one" for e in messages(events))
    assert any("invalid UTF-8" in w for w in warnings)


def test_lines_of_several_megabytes():
    big_output = "x" * (5 * 1024 * 1024)
    lines = ENVELOPE.read_bytes().splitlines()
    extra = [
        orjson.dumps({"timestamp": "2025-11-20T10:00:40.000Z", "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": '{"command":["cat","big.log"]}', "call_id": "call_big"}}),
        orjson.dumps({"timestamp": "2025-11-20T10:00:41.000Z", "type": "event_msg", "payload": {"type": "exec_command_end", "call_id": "call_big", "aggregated_output": big_output}}),
        orjson.dumps({"timestamp": "2025-11-20T10:00:41.000Z", "type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_big", "output": big_output}}),
    ]
    events, _ = read_bytes(b"\n".join(lines + extra) + b"\n")
    result = next(e for e in messages(events) if e.get("toolCallId") == "call_big" and kind(e) == "tool_result")
    assert len(result["text"]) == len(big_output)
    assert events[-1]["skipped"]["event_msg/exec_command_end"] == 2


def test_unexpected_shapes_of_known_records_are_counted_not_fatal():
    data = b"\n".join(
        [
            ENVELOPE.read_bytes().splitlines()[0],
            b'{"timestamp":"2025-11-20T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":"plain string content"}}',
            b'{"timestamp":"2025-11-20T10:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":"lots"}}}',
            b'{"timestamp":"2025-11-20T10:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":7,"output":{"Ok":{"content":[{"type":"text","text":"done"}]}}}}',
            b'{"timestamp":"2025-11-20T10:00:04.000Z","type":"response_item","payload":{"type":"reasoning","summary":"not a list"}}',
            b"[1, 2, 3]",
            b'"a string"',
        ]
    ) + b"\n"
    events, _ = read_bytes(data, skip_bad=True)
    body = messages(events)
    assert body[0]["text"] == "plain string content"
    assert body[1]["text"] == "done" and "toolCallId" not in body[1]
    assert events[-1]["type"] == "end"


def test_another_format_forced_through_codex_is_skipped_and_counted(tmp_path):
    out = tmp_path / "o.jsonl"
    result = CliRunner().invoke(cli, ["convert", "-", "--to", "portable-jsonl", "--from", "codex", "-o", str(out)], input=b'{"a": 1}\n{"b": 2}\n')
    assert result.exit_code == 0, result.output  # unknown lines are skipped and counted
    end = orjson.loads(out.read_bytes().splitlines()[-1])
    assert end["skipped"]["unknown line"] == 2


def test_first_event_arrives_before_a_large_rollout_is_read():
    line = ENVELOPE.read_bytes().splitlines()[11] + b"\n"
    data = ENVELOPE.read_bytes() + line * 20000

    class Counting(io.RawIOBase):
        position = 0

        def readable(self):
            return True

        def readinto(self, buffer):
            n = min(len(buffer), len(data) - self.position)
            buffer[:n] = data[self.position : self.position + n]
            self.position += n
            return n

    raw = Counting()
    stream = codex.read(io.BufferedReader(raw, buffer_size=65536), ReadContext(on_warning=lambda m: None))
    assert next(stream)["type"] == "session"
    assert raw.position < len(data) / 4


def test_reader_state_stays_bounded_however_long_the_rollout():
    from sessionport.formats.codex.rollout import RolloutReader

    head = ENVELOPE.read_bytes().splitlines()[:6]
    body = []
    for i in range(3000):
        body.append(orjson.dumps({"timestamp": "2025-11-20T10:01:00.000Z", "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": '{"command":["ls"]}', "call_id": f"c{i}"}}))
        body.append(orjson.dumps({"timestamp": "2025-11-20T10:01:00.000Z", "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": i, "output_tokens": 1, "total_tokens": i + 1}}}}))
        body.append(orjson.dumps({"timestamp": "2025-11-20T10:01:00.000Z", "type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{i}", "output": "ok"}}))
    reader = RolloutReader(ReadContext(on_warning=lambda m: None))
    largest = 0
    count = 0
    for event in reader.run(io.BufferedReader(io.BytesIO(b"\n".join(head + body) + b"\n"))):
        count += 1
        largest = max(largest, len(reader.queue) + len(reader.items.pending) + len(reader.recent_prompts))
    assert count > 6000
    assert largest <= 2  # nothing accumulates per line: only the pending call ids
    assert event["usage"]["total_tokens"] == 3000


EVENT_FIRST = FIXTURES / "codex" / "rollout-0.146-event-first-prompts.jsonl"


def test_a_prompt_known_only_from_its_event_keeps_its_place():
    """A ``user_message`` event with no message item repeating it (as in
    EDM115/codex-sessions-viewer's tests/fixtures/rollouts/modern.jsonl,
    commit 01b9e18f43da0efed719892b8a9128f1719af5d1) is the prompt; it was
    held for the item and then written after the reply it prompted."""
    raw = [json.loads(line) for line in EVENT_FIRST.read_text().splitlines()]
    events = [e for e in sessionport.read(str(EVENT_FIRST)) if e["type"] == "message"]
    stamps = [e["timestamp"] for e in events]
    assert stamps == sorted(stamps)  # the file's order: each line's time is later
    first = raw[3]["payload"]["message"]
    assert events[0]["role"] == "user" and events[0]["text"] == first and events[0]["meta"]["fromEvent"] is True


def test_an_input_item_with_a_pasted_image_is_the_prompt_its_event_repeats():
    """0.146 writes the event, then the ``phase: "input"`` item whose image
    adds a placeholder line after the typed text (shape as in
    jazzyalex/agent-sessions Resources/Fixtures/stage0/agents/codex/small.jsonl,
    commit 651e854f4dbfaaa1161ffc9015045921ed30cf12): one prompt, not two."""
    events = list(sessionport.read(str(EVENT_FIRST)))
    prompts = [e["text"] for e in events if e["type"] == "message" and e["role"] == "user"]
    assert prompts == ["Which test is failing?", "Why does it round like this?\n[image]"]
    assert events[-1]["skipped"]["event_msg/user_message (repeats an input item)"] == 1


def _codex_home(tmp_path, with_sessions: bool = True):
    """A Codex home as real ones committed to public repositories hold it
    (bumpy-croc/ai-trading-bot and Monotoba/OpenPrintKit, 0.46 and 0.34):
    ``history.jsonl`` (``{"session_id","ts","text"}`` per prompt typed) beside
    ``sessions/YYYY/MM/DD/rollout-*.jsonl``."""
    home = tmp_path / ".codex"
    home.mkdir()
    if with_sessions:
        day = home / "sessions" / "2025" / "10" / "14"
        day.mkdir(parents=True)
        (day / "rollout-2025-10-14T22-34-26-0199e4a5-5b78-78f2-b041-6b876f71fdab.jsonl").write_bytes(ENVELOPE.read_bytes())
    lines = [
        {"session_id": "0199e4a5-5b78-78f2-b041-6b876f71fdab", "ts": 1760477746, "text": "add a --verbose flag"},
        {"session_id": "0199e4a5-5b78-78f2-b041-6b876f71fdab", "ts": 1760477900, "text": "now run the tests"},
    ]
    (home / "history.jsonl").write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    (home / "auth.json").write_text('{"OPENAI_API_KEY":null,"tokens":{"id_token":"x"},"last_refresh":"2025-10-14T21:30:00Z"}')
    (home / "version.json").write_text('{"latest_version":"0.46.0","last_checked_at":"2025-10-14T21:33:31.299707Z"}')
    return home


def test_a_walk_of_a_codex_home_passes_over_its_prompt_history(tmp_path):
    """Walking a Codex home stopped on ``history.jsonl`` (each of its prompts
    is in a rollout), ``auth.json`` and ``version.json`` as unrecognised
    files (exit 1)."""
    home = _codex_home(tmp_path)
    out = tmp_path / "out"
    result = run_cli("convert", home, "--to", "markdown", "-o", f"{out}/")
    assert result.returncode == 0, result.stderr
    assert [p.name for p in out.rglob("*.md")] == ["rollout-2025-10-14T22-34-26-0199e4a5-5b78-78f2-b041-6b876f71fdab.md"]
    assert b"history.jsonl" not in result.stderr and b"auth.json" not in result.stderr and b"version.json" not in result.stderr


def test_a_prompt_history_named_or_alone_says_what_it_is(tmp_path):
    home = _codex_home(tmp_path, with_sessions=False)
    walked = run_cli("inspect", home)
    named = run_cli("inspect", home / "history.jsonl")
    for result in (walked, named):
        assert result.returncode == 1
        assert b"history.jsonl" in result.stderr and b"Codex's prompt history" in result.stderr
        assert b"Traceback" not in result.stderr


PARALLEL_EXEC = SAMPLES / "rollout-0.118-parallel-exec.jsonl"


def test_parallel_calls_keep_the_outputs_the_model_saw_and_stay_in_pairs():
    """Codex 0.118 writes the calls of one answer with the end events of the
    commands between them and the outputs after the last call (a real
    rollout of 2026-04, Xu-Wentao/dotfile): a result was taken from an end
    event at the next call, the output the model saw was skipped as its
    mirror, and the results came between the calls, so every writer that
    pairs them (Gemini CLI, Messages, Responses) broke the pairs."""
    events = messages(read(PARALLEL_EXEC))
    order = [(kind(e), e.get("toolCallId")) for e in events if e["role"] == "tool"]
    assert order == [
        ("tool_use", "call_Fix0118One"), ("tool_use", "call_Fix0118Two"), ("tool_use", "call_Fix0118Three"),
        ("tool_result", "call_Fix0118One"), ("tool_result", "call_Fix0118Two"), ("tool_result", "call_Fix0118Three"),
    ]
    results = {e["toolCallId"]: e for e in events if kind(e) == "tool_result"}
    assert all(r["text"].startswith("Command: /bin/bash -lc") for r in results.values())  # the output items' texts
    assert all(r["meta"].get("codexType") != "exec_command_end" for r in results.values())
    for fmt in ("gemini-cli", "anthropic-messages", "openai-responses"):
        warnings: list[str] = []
        sessionport.write_events(read(PARALLEL_EXEC), io.BytesIO(), format=fmt, context=WriteContext(on_warning=warnings.append))
        assert not [w for w in warnings if "without a call" in w or "no matching call" in w or "no recorded result" in w], (fmt, warnings)


APPROVAL_BETWEEN = SAMPLES / "rollout-0.121-approval-between-call-and-output.jsonl"


def test_an_approval_notice_between_a_call_and_its_output_keeps_the_pair():
    """Codex 0.121 writes the developer message "Approved command prefix
    saved" when the user approves an escalated command: after the call,
    before its output (the shape of a real rollout of 2026-04). The Gemini
    CLI writer wrote the notice at once and closed the record of the call,
    so the output became a call of its own with an empty input."""
    raw = [json.loads(line) for line in APPROVAL_BETWEEN.read_text().splitlines()]
    items = [r["payload"] for r in raw if r["type"] == "response_item"]
    kinds = [(p["type"], p.get("role")) for p in items]
    at = kinds.index(("message", "developer"))
    assert kinds[at - 1] == ("function_call", None) and kinds[at + 1] == ("function_call_output", None)
    call = items[at - 1]
    events = messages(read(APPROVAL_BETWEEN))
    assert [e["text"] for e in events if e["role"] == "system" and "Approved command prefix" in e["text"]]
    for fmt in ("gemini-cli", "claude-code", "anthropic-messages", "openai-responses"):
        warnings: list[str] = []
        out = io.BytesIO()
        sessionport.write_events(read(APPROVAL_BETWEEN), out, format=fmt, context=WriteContext(on_warning=warnings.append))
        assert not [w for w in warnings if "without a call" in w or "no matching call" in w or "no recorded result" in w], (fmt, warnings)
    out = io.BytesIO()
    sessionport.write_events(read(APPROVAL_BETWEEN), out, format="gemini-cli", context=WriteContext(options={"keep_tool_names": True}))
    records = [json.loads(line) for line in out.getvalue().splitlines()[1:-1]]
    (written,) = [c for r in records for c in r.get("toolCalls", ())]
    assert written["id"] == call["call_id"] and written["args"] == json.loads(call["arguments"])
    assert written["status"] == "success" and "result" in written
    assert [r["type"] for r in records] == ["user", "gemini", "info", "gemini"]


ERROR_EVENTS = SAMPLES / "rollout-0.121-error-events.jsonl"


def test_an_error_event_is_a_notice_the_user_saw_and_is_written_back_as_one():
    """Codex 0.121 writes ``event_msg/error`` when a turn fails (a model
    that refuses tools, the retry limit on 429): the only answer the user
    got.  It was counted as telemetry and dropped; it is a system error
    notice, and the Codex writer puts back the same event (never a
    developer message, which Codex would send to the model on resume)."""
    raw = [json.loads(line) for line in ERROR_EVENTS.read_text().splitlines()]
    sources = [r["payload"] for r in raw if r["type"] == "event_msg" and r["payload"]["type"] == "error"]
    events = read(ERROR_EVENTS)
    notices = [e for e in messages(events) if e["role"] == "system"]
    assert [e["text"] for e in notices] == [s["message"].strip() for s in sources]
    assert all(e.get("isError") is True and e["meta"]["codexEvent"] == "error" for e in notices)
    assert [e["meta"]["codexErrorInfo"] for e in notices] == [s["codex_error_info"] for s in sources]
    assert "event_msg/error" not in events[-1].get("skipped", {})
    out = io.BytesIO()
    sessionport.write_events(read(ERROR_EVENTS), out, format="codex")
    written = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["payload"] for r in written if r["type"] == "event_msg" and r["payload"]["type"] == "error"] == sources
    assert not [r for r in written if r["type"] == "response_item" and r["payload"].get("role") == "developer"]
    # and the error events of codex exec --json become the same event
    exec_error = b'{"type":"thread.started","thread_id":"00000000-0000-4000-8000-0000000000e3"}\n{"type":"turn.started"}\n{"type":"error","message":"stream disconnected before completion"}\n'
    out = io.BytesIO()
    sessionport.write_events(sessionport.loads(exec_error), out, format="codex")
    written = [json.loads(line)["payload"] for line in out.getvalue().splitlines()]
    assert {"type": "error", "message": "stream disconnected before completion"} in written


VIEW_IMAGE = SAMPLES / "rollout-0.128-view-image-output.jsonl"


def test_the_image_of_a_tool_output_is_written_back_with_keep_images():
    """A ``view_image`` call's output is a list of ``input_text`` and
    ``input_image`` items (codex-rs FunctionCallOutputContentItem).  Read
    with --keep-images, the image was carried as media but the Codex writer
    wrote only the placeholder text and counted the image as lost; it
    writes the list back, the image in its placeholder's place."""
    raw = [json.loads(line) for line in VIEW_IMAGE.read_text().splitlines()]
    (source,) = [r["payload"] for r in raw if r["payload"].get("type") == "function_call_output"]
    warnings: list[str] = []
    out = io.BytesIO()
    sessionport.write_events(read(VIEW_IMAGE, keep_images=True), out, format="codex", context=WriteContext(on_warning=warnings.append))
    (written,) = [json.loads(line)["payload"] for line in out.getvalue().splitlines() if b'"function_call_output"' in line]
    assert written["call_id"] == source["call_id"]
    assert written["output"] == source["output"]  # the image's detail with it
    assert not [w for w in warnings if "image" in w], warnings
    # without --keep-images the placeholder stays, and the loss is named
    warnings.clear()
    out = io.BytesIO()
    sessionport.write_events(read(VIEW_IMAGE), out, format="codex", context=WriteContext(on_warning=warnings.append))
    (written,) = [json.loads(line)["payload"] for line in out.getvalue().splitlines() if b'"function_call_output"' in line]
    assert written["output"] == "dot.png, 1x1\n[image: image/png, 72 B]"
