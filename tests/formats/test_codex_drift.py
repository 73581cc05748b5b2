"""Codex 0.14x rollouts: calls that exist only as events, prompts written
twice, and the record types of the newest versions.

Expectations are counted from the raw records with the standard ``json``
module, independently of the importer.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import orjson
import pytest

import sessionport
from sessionport.context import ReadContext
from sessionport.errors import DataError

from conftest import FIXTURES, run_cli

ROLLOUT = FIXTURES / "codex" / "rollout-0.146-event-only.jsonl"
CALL_ITEMS = ("function_call", "custom_tool_call", "tool_search_call", "local_shell_call")
OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output", "tool_search_output", "local_shell_call_output")


def raw_facts(path: Path) -> dict:
    """Prompts, answers, and the ids of every call and result, from the raw lines."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    items = [r["payload"] for r in records if r["type"] == "response_item"]
    events = [r["payload"] for r in records if r["type"] == "event_msg"]
    call_ids = {i["call_id"] for i in items if i["type"] in CALL_ITEMS}
    output_ids = {i["call_id"] for i in items if i["type"] in OUTPUT_ITEMS}
    image_items = {i.get("id") for i in items if i["type"] == "image_generation_call"}
    calls, results = set(call_ids), set(output_ids)
    for event in events:
        kind, cid = event["type"], event.get("call_id")
        if kind == "exec_command_end" and cid in call_ids:
            results.add(cid)  # the result, whether or not an output item repeats it
        elif kind == "web_search_end" or (kind == "mcp_tool_call_end" and cid not in call_ids) or (kind == "image_generation_end" and cid not in image_items):
            calls.add(cid)
            results.add(cid)
    prompts = {e["message"] for e in events if e["type"] == "user_message"}
    prompts |= {i["content"][0]["text"] for i in items if i["type"] == "message" and i.get("phase") == "input"}
    answers = [i["content"][0]["text"] for i in items if i["type"] == "message" and i["role"] == "assistant"]
    return {"prompts": prompts, "answers": answers, "calls": calls, "results": results}


def messages(events):
    return [e for e in events if e["type"] == "message"]


def kind(event):
    return event.get("meta", {}).get("kind", "text")


def test_every_prompt_answer_call_and_result_of_a_0_146_rollout_is_in_the_stream():
    facts = raw_facts(ROLLOUT)
    body = messages(sessionport.read(str(ROLLOUT)))
    typed = [e["text"] for e in body if e["role"] == "user" and not e.get("meta", {}).get("injected")]
    assert sorted(typed) == sorted(facts["prompts"])  # each once: the input item and its event are one prompt
    assert [e["text"] for e in body if e["role"] == "assistant" and kind(e) == "text"] == facts["answers"]
    uses = Counter(e["toolCallId"] for e in body if kind(e) == "tool_use")
    results = Counter(e["toolCallId"] for e in body if kind(e) == "tool_result")
    assert set(uses) == facts["calls"] and all(n == 1 for n in uses.values())
    assert set(results) == facts["results"] and all(n == 1 for n in results.values())


def test_a_shell_result_seen_only_as_an_event_follows_its_call():
    body = messages(sessionport.read(str(ROLLOUT)))
    at = {(kind(e), e.get("toolCallId")): n for n, e in enumerate(body)}
    result = body[at[("tool_result", "call_grep01")]]
    assert at[("tool_result", "call_grep01")] == at[("tool_use", "call_grep01")] + 1  # before the model's next step
    assert result["text"] == "src/price.py:12:    return round(value, 2)\n"
    assert result["isError"] is False and result["meta"]["exitCode"] == 0 and result["meta"]["durationSeconds"] == 0.041
    # the call that also has an output item keeps that item, once
    failed = [e for e in body if e.get("toolCallId") == "call_test02" and kind(e) == "tool_result"]
    assert len(failed) == 1 and failed[0]["meta"]["codexType"] == "function_call_output"


def test_event_only_search_mcp_and_image_calls():
    body = messages(sessionport.read(str(ROLLOUT)))
    search = [e for e in body if e.get("toolName") == "web_search"]
    assert [kind(e) for e in search] == ["tool_use", "tool_result"] * 2
    assert search[0]["toolInput"]["query"] == "price rounding half even retail"
    assert search[2]["toolInput"] == {"type": "open_page", "url": "https://docs.python.org/3/library/decimal.html"}
    mcp = [e for e in body if e.get("toolCallId") == "call_mcp04"]
    assert mcp[0]["toolName"] == "mcp__docs__search" and mcp[0]["toolInput"] == {"query": "rounding"}
    assert mcp[1]["text"] == "Prices use ROUND_HALF_EVEN."
    image = [e for e in body if e.get("toolName") == "image_generation"]
    assert image[1]["text"].startswith("[image: generated, 72 B, /home/dev/.codex/generated_images/")


def test_review_agents_title_and_goal():
    events = list(sessionport.read(str(ROLLOUT)))
    body, end = messages(events), events[-1]
    review = [e for e in body if e.get("meta", {}).get("codexType", "").endswith("review_mode")]
    assert review[0]["text"] == "[review started: current changes]"
    assert "- round() is banker's rounding only for floats (/home/dev/shop/src/price.py:12): Use Decimal.quantize for money." in review[1]["text"]
    agent = next(e for e in body if e.get("meta", {}).get("injectedKind") == "agent_message")
    assert agent["role"] == "user" and agent["meta"]["author"] == "/root/dewey"
    assert end["title"] == "Price rounding" and end["metadata"]["goal"]["objective"] == "Round prices correctly"
    assert any("Dewey (explorer)" in n for n in end["notes"])
    for mirror in ("event_msg/guardian_assessment", "event_msg/item_completed", "event_msg/sub_agent_activity",
                   "inter_agent_communication_metadata", "world_state", "event_msg/collab_waiting_end"):
        assert end["skipped"][mirror] == 1
    assert "unknown" not in end


def test_a_search_recorded_as_item_and_event_is_one_call():
    lines = ROLLOUT.read_bytes().splitlines()[:3]
    item = b'{"timestamp":"2026-09-14T08:01:00.100Z","type":"response_item","payload":{"type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}}'
    end = b'{"timestamp":"2026-09-14T08:01:01.100Z","type":"event_msg","payload":{"type":"web_search_end","call_id":"ws_9","query":"q","action":{"type":"search","query":"q"}}}'
    for order in ([item, end], [end, item]):
        events = sessionport.loads(b"\n".join(lines + order) + b"\n", format="codex")
        calls = [e for e in messages(events) if e.get("toolName") == "web_search" and kind(e) == "tool_use"]
        assert len(calls) == 1


def test_unknown_event_and_item_types_are_counted_warned_once_and_strict_fails():
    lines = ROLLOUT.read_bytes().splitlines()
    new = [
        b'{"timestamp":"2026-09-14T08:01:00.100Z","type":"event_msg","payload":{"type":"hologram_update","x":1}}',
        b'{"timestamp":"2026-09-14T08:01:00.200Z","type":"event_msg","payload":{"type":"hologram_update","x":2}}',
        b'{"timestamp":"2026-09-14T08:01:00.300Z","type":"response_item","payload":{"type":"hologram_call","call_id":"h1"}}',
        b'{"timestamp":"2026-09-14T08:01:00.400Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"see"},{"type":"output_hologram","data":"x"}]}}',
    ]
    data = b"\n".join(lines[:5] + new + lines[5:]) + b"\n"
    ctx = ReadContext()
    warnings = []
    ctx.on_warning = warnings.append
    events = sessionport.loads(data, format="codex") if False else list(_read(data, ctx))
    end = events[-1]
    assert end["skipped"]["event_msg/hologram_update"] == 2 and end["skipped"]["response_item/hologram_call"] == 1
    assert end["unknown"] == {"record": {"event_msg/hologram_update": 2, "response_item/hologram_call": 1}, "content part": {"output_hologram": 1}}
    assert sum("hologram_update" in w for w in warnings) == 1
    assert any("2 records of a type this version of sessionport does not know: `event_msg/hologram_update`" in w for w in warnings)
    assert any(e["text"] == "see\n[output_hologram]" for e in messages(events))  # a placeholder, not lost
    with pytest.raises(DataError, match="hologram_update"):
        list(_read(data, ReadContext(strict=True)))


def _read(data: bytes, ctx: ReadContext):
    import io
    from sessionport.formats.codex.reader import read

    ctx.name = "rollout.jsonl"
    return read(io.BufferedReader(io.BytesIO(data)), ctx)


def test_many_session_meta_lines_of_resumes_and_forks(tmp_path):
    head = [
        orjson.dumps({"timestamp": "2026-09-14T08:00:00.000Z", "type": "session_meta", "payload": {"id": f"019f0000-0000-7000-8000-{n:012d}", "timestamp": "2026-09-14T08:00:00.000Z", "cwd": "/w", "originator": "codex-tui", "cli_version": "0.146.0"}})
        for n in range(20)
    ]
    rest = ROLLOUT.read_bytes().splitlines()[1:]
    events = sessionport.loads(b"\n".join(head + rest) + b"\n", format="codex")
    assert events[0]["sessionId"] == "019f0000-0000-7000-8000-000000000000"
    assert len(events[0]["metadata"]["inheritsFrom"]) == 19
    assert len(messages(events)) == len(messages(sessionport.read(str(ROLLOUT))))


def test_a_million_open_calls_keep_memory_flat_and_are_counted(tmp_path):
    from sessionport.formats.codex.items import PENDING_LIMIT

    head = ROLLOUT.read_bytes().splitlines()[0]
    calls = [b'{"timestamp":"2026-09-14T08:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"call_%d"}}' % i for i in range(PENDING_LIMIT + 10)]
    path = tmp_path / "rollout-open.jsonl"
    path.write_bytes(b"\n".join([head, *calls]) + b"\n")
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0
    end = orjson.loads(result.stdout.splitlines()[-1])
    assert end["counts"]["callsWithoutOutput"] == PENDING_LIMIT + 10
    assert b"10 call(s) were still waiting for their output" in result.stderr


def test_a_format_forced_on_another_ones_file_says_what_detection_finds():
    claude = FIXTURES / "claude-code" / "session.jsonl"
    result = run_cli("convert", claude, "--from", "codex", "--to", "portable-jsonl")
    assert result.returncode == 0
    assert b"--from codex found nothing it recognises in this input; it looks like claude-code" in result.stderr
    assert b"does not know" not in result.stderr  # Claude Code's types are not new Codex types
    plain = run_cli("convert", claude, "--to", "portable-jsonl")
    assert b"found nothing" not in plain.stderr


def test_the_typescript_document_reports_item_types_not_known(tmp_path):
    document = json.loads((FIXTURES / "codex" / "rollout-typescript.json").read_text())
    document["items"].insert(0, {"type": "hologram_call", "id": "h1"})
    path = tmp_path / "rollout-2025-04-20.json"
    path.write_text(json.dumps(document, indent=2))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    end = orjson.loads(result.stdout.splitlines()[-1])
    assert end["unknown"] == {"record": {"response_item/hologram_call": 1}}
    assert b"`response_item/hologram_call`; please report" in result.stderr


@pytest.mark.parametrize("gap", [0, 3, 12])
def test_an_input_item_and_its_event_are_one_prompt_whatever_comes_first(gap):
    lines = ROLLOUT.read_bytes().splitlines()
    head, rest = lines[:4], lines[6:]
    item, event = lines[4], lines[5]
    filler = [b'{"timestamp":"2026-09-14T08:00:05.100Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}'] * gap
    for order in ([item, *filler, event], [event, *filler, item]):
        events = sessionport.loads(b"\n".join(head + order + rest) + b"\n", format="codex")
        prompts = [e for e in messages(events) if e["role"] == "user" and e["text"].startswith("Find how other shops")]
        assert len(prompts) == 1 and not prompts[0].get("meta", {}).get("injected")


AGENT_MESSAGE = FIXTURES / "codex" / "rollout-0.149-agent-message-encrypted.jsonl"


def test_an_encrypted_part_of_another_agents_message_is_a_placeholder_not_unknown():
    records = [json.loads(line) for line in AGENT_MESSAGE.read_text().splitlines() if line.strip()]
    (item,) = [r["payload"] for r in records if r["payload"].get("type") == "agent_message"]
    text, secret = (part for part in item["content"])
    result = run_cli("convert", AGENT_MESSAGE, "--to", "portable-jsonl", "--strict")
    assert result.returncode == 0, result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    (message,) = [e for e in messages(events) if e.get("meta", {}).get("injectedKind") == "agent_message"]
    assert message["text"] == f"{text['text']}\n[encrypted content, 2.0 KB]"
    assert len(secret["encrypted_content"]) == 2048  # the size in the placeholder, never the bytes
    assert secret["encrypted_content"] not in message["text"]
    # kept for the model alone: a Codex export writes the part back
    assert message["meta"]["encryptedParts"] == [{"part": 1, "encryptedContent": secret["encrypted_content"]}]
    assert message["meta"]["author"] == item["author"]
    assert "unknown" not in events[-1] and b"does not know" not in result.stderr
