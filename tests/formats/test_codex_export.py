"""The codex exporter: the rollout layout it writes, and an independent
reader (cc2md, from PyPI) that finds the same prompts and tool calls in it."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import orjson
import pytest

import sessionport
from conftest import FIXTURES, corpus_files, requires_corpus
from sessionport.formats.codex.writer import CLI_VERSION, codex_timestamp

SAMPLES = FIXTURES / "codex"
STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")


def export(events) -> list[dict]:
    return [orjson.loads(line) for line in sessionport.dumps(events, "codex").splitlines()]


def messages(events):
    return [e for e in events if e["type"] == "message"]


def kind(event):
    return (event.get("meta") or {}).get("kind", "text")


def test_layout_session_meta_first_then_items_and_their_events():
    events = list(sessionport.read(str(SAMPLES / "rollout-envelope.jsonl")))
    lines = export(events)
    assert all(list(line) == ["timestamp", "type", "payload"] and STAMP.match(line["timestamp"]) for line in lines)
    meta = lines[0]
    assert meta["type"] == "session_meta"
    assert meta["payload"]["id"] == "019a9f00-0000-7000-8000-000000000001"
    assert meta["payload"]["cli_version"] == CLI_VERSION
    assert meta["payload"]["cwd"] == "/home/dev/shop"
    assert meta["payload"]["base_instructions"] == {"text": "You are Codex, a coding agent."}
    assert [line["type"] for line in lines].count("session_meta") == 1

    kinds = [(line["type"], line["payload"].get("type")) for line in lines]
    # a typed prompt is followed by its user_message event; injected context is not
    prompts = [i for i, line in enumerate(lines) if line["payload"].get("type") == "user_message"]
    assert [lines[i]["payload"]["message"] for i in prompts] == ["Run the tests and fix the failing one", "Thanks! Summarise the fix in one line."]
    for i in prompts:
        assert kinds[i - 1] == ("response_item", "message") and lines[i - 1]["payload"]["role"] == "user"
    # agent_message right before each assistant message
    for i, line in enumerate(lines):
        if line["payload"].get("type") == "message" and line["payload"]["role"] == "assistant":
            assert lines[i - 1]["payload"] == {"type": "agent_message", "message": line["payload"]["content"][0]["text"]}
    assert kinds[-1] == ("event_msg", "token_count")
    assert lines[-1]["payload"]["info"]["total_token_usage"]["total_tokens"] == 10220
    assert ("turn_context", None) in kinds and ("compacted", None) in kinds


def test_outputs_take_the_item_type_of_their_call():
    lines = export(sessionport.read(str(SAMPLES / "rollout-envelope.jsonl")))
    items = {}
    for line in lines:
        payload = line["payload"]
        if payload.get("type", "").endswith("_output"):
            items[payload["call_id"]] = payload
    assert items["call_patch"]["type"] == "custom_tool_call_output"
    assert items["call_tests"]["type"] == "function_call_output"
    assert orjson.loads(items["call_tests"]["output"]) == {"output": "F....\n1 failed, 4 passed in 0.12s\n", "metadata": {"exit_code": 1, "duration_seconds": 0.4}}
    raw_args = next(line["payload"] for line in lines if line["payload"].get("call_id") == "call_torn_args")
    assert raw_args["arguments"] == '{"command":["bash","-lc","pytest -q"'


def test_a_call_and_result_without_ids_stay_one_pair():
    """A generated image (its call has no id), or another app's id-less
    pair: the result answers the call written just before it, so Codex
    sees no call left without an output and no call made up for it."""
    session = {"type": "session", "schema": "sessionport/v1", "source": "codex", "metadata": {}}
    call = {"type": "message", "role": "tool", "text": "a cat", "toolName": "image_generation", "toolInput": {"revised_prompt": "a cat"}, "meta": {"kind": "tool_use"}}
    result = {"type": "message", "role": "tool", "text": "[image: generated, 9 B]", "toolName": "image_generation", "meta": {"kind": "tool_result"}}
    other = {"type": "message", "role": "tool", "text": "ok", "toolName": "shell", "meta": {"kind": "tool_result"}}
    lines = export([session, call, result, dict(call), dict(result), other])
    items = [line["payload"] for line in lines if line["type"] == "response_item"]
    calls = [item["call_id"] for item in items if item["type"] == "function_call"]
    outputs = [item["call_id"] for item in items if item["type"] == "function_call_output"]
    # two image calls each answered by its own result; the shell result had
    # no call before it, so it alone gets one of its own
    assert len(calls) == 3 and outputs == calls
    assert [item["name"] for item in items if item["type"] == "function_call"] == ["image_generation", "image_generation", "shell"]
    assert items[1] == {"type": "function_call_output", "call_id": calls[0], "output": "[image: generated, 9 B]"}


def test_a_generated_image_of_a_rollout_keeps_its_result_on_its_call(tmp_path):
    # Codex writes an image_generation_call item without a call id; its
    # result (a placeholder for the image) goes back as that call's output.
    head = {"timestamp": "2025-10-01T09:00:00.000Z", "type": "session_meta", "payload": {"id": "0199a000-0000-7000-8000-000000000001", "timestamp": "2025-10-01T09:00:00.000Z", "cwd": "/tmp/x", "originator": "codex_cli_rs", "cli_version": "0.171.0"}}
    image = {"type": "image_generation_call", "id": "ig_1", "status": "completed", "revised_prompt": "a cat", "result": "iVBORw0KGgo="}
    rollout = tmp_path / "rollout-2025-10-01T09-00-00-0199a000-0000-7000-8000-000000000001.jsonl"
    rollout.write_bytes(b"\n".join(orjson.dumps(line) for line in (head, {"timestamp": "2025-10-01T09:00:02.000Z", "type": "response_item", "payload": image})) + b"\n")
    items = [line["payload"] for line in export(sessionport.read(str(rollout))) if line["type"] == "response_item"]
    assert [item["type"] for item in items] == ["function_call", "function_call_output"]
    assert items[0]["name"] == "image_generation" and orjson.loads(items[0]["arguments"]) == {"revised_prompt": "a cat"}
    assert items[1]["call_id"] == items[0]["call_id"] and items[1]["output"].startswith("[image: generated")


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.iterdir()))
def test_round_trip_of_every_sample(sample):
    events = list(sessionport.read(str(SAMPLES / sample)))
    back = sessionport.loads(sessionport.dumps(events, "codex"))
    key = lambda e: (e["role"], e["text"], e.get("toolCallId"), e.get("toolName"), kind(e))
    assert [key(e) for e in messages(back)] == [key(e) for e in messages(events)]
    assert back[-1].get("usage") == events[-1].get("usage")


def test_a_stream_from_another_format_gets_a_uuid_and_codex_timestamps():
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "not-a-uuid", "createdAt": "2025-01-02T03:04:05+00:00", "metadata": {}},
        {"type": "message", "role": "user", "text": "hello", "timestamp": "2025-01-02T03:04:06.5+00:00"},
        {"type": "message", "role": "tool", "text": "ls", "toolName": "Bash", "toolInput": {"command": "ls"}, "meta": {"kind": "tool_use"}},
        {"type": "message", "role": "tool", "text": "a.txt", "toolCallId": "orphan", "meta": {"kind": "tool_result"}},
        {"type": "message", "role": "system", "text": "be nice"},
        {"type": "end", "usage": {"input_tokens": 10, "output_tokens": 5}},
    ]
    lines = export(events)
    assert str(uuid.UUID(lines[0]["payload"]["id"])) == lines[0]["payload"]["id"]
    assert lines[0]["payload"]["timestamp"] == "2025-01-02T03:04:05.000Z"
    assert lines[1]["timestamp"] == "2025-01-02T03:04:06.500Z"
    call = next(line["payload"] for line in lines if line["payload"].get("type") == "function_call")
    # Claude Code's Bash becomes the shell tool Codex offers
    assert call["call_id"].startswith("call_") and call["name"] == "exec_command" and orjson.loads(call["arguments"]) == {"cmd": "ls"}
    assert next(line["payload"] for line in lines if line["payload"].get("role") == "developer")["content"][0]["text"] == "be nice"
    assert lines[-1]["payload"]["info"]["total_token_usage"] == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    assert export(events) == lines  # byte-stable: the same stream, the same file


def test_codex_timestamp_forms():
    assert codex_timestamp("2025-09-16T04:47:58.370Z") == "2025-09-16T04:47:58.370Z"
    assert codex_timestamp("2025-09-16T06:47:58+02:00") == "2025-09-16T04:47:58.000Z"
    assert codex_timestamp(1758000000) == "2025-09-16T05:20:00.000Z"
    assert codex_timestamp(1758000000123) == "2025-09-16T05:20:00.123Z"
    assert codex_timestamp("yesterday") is None and codex_timestamp(None) is None


# -- an independent reader --------------------------------------------------


def _cc2md():
    try:
        from cc2md.models import TextBlock, ToolUseBlock
        from cc2md.sources.codex import CodexSource
    except ImportError:
        pytest.skip("cc2md is not installed (test dependency: pip install 'cc2md>=1.0'); it is the independent Codex rollout reader")
    return CodexSource, TextBlock, ToolUseBlock


def _read_with_cc2md(events, tmp_path: Path):
    CodexSource, TextBlock, ToolUseBlock = _cc2md()
    folder = tmp_path / "sessions"
    folder.mkdir()
    sid = events[0]["sessionId"]
    path = folder / f"rollout-2025-01-01T00-00-00-{sid}.jsonl"
    sessionport.write(iter(events), str(path), format="codex")
    session = CodexSource(scan_dir=folder).load_file(path)
    prompts = [b.text for m in session.messages if m.role == "user" for b in m.blocks if isinstance(b, TextBlock)]
    calls = [(b.id, b.name) for m in session.messages for b in m.blocks if isinstance(b, ToolUseBlock)]
    return session, prompts, calls


def _ours(events):
    prompts = [e["text"].strip() for e in messages(events) if e["role"] == "user" and not (e.get("meta") or {}).get("injected")]
    calls = [(e.get("toolCallId"), e["toolName"]) for e in messages(events) if kind(e) == "tool_use" and e.get("toolCallId")]
    return prompts, calls


def test_cc2md_reads_the_same_prompts_and_tool_calls(tmp_path):
    events = list(sessionport.read(str(SAMPLES / "rollout-envelope.jsonl")))
    session, prompts, calls = _read_with_cc2md(events, tmp_path)
    assert (prompts, calls) == _ours(events)
    assert session.session_id == events[0]["sessionId"]
    assert session.metadata["total_tokens"] == 10220
    assert session.metadata["model"] == "gpt-5-codex"


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("codex", "*.jsonl"), ids=lambda p: p.name)
def test_cc2md_reads_every_exported_corpus_rollout(path, tmp_path):
    events = list(sessionport.read(str(path)))
    _, prompts, calls = _read_with_cc2md(events, tmp_path)
    ours_prompts, ours_calls = _ours(events)
    assert prompts == ours_prompts
    assert calls == ours_calls
