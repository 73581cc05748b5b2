"""What ``claude --resume`` needs of a transcript sessionport wrote: a UUID
session id, and a call before every tool result."""

from __future__ import annotations

import uuid

import orjson

import sessionport
from conftest import corpus_path


def lines_of(events, **options):
    return [orjson.loads(x) for x in sessionport.dumps(events, "claude-code", **options).splitlines()]


def test_the_session_id_is_always_a_uuid():
    events = list(sessionport.read(str(corpus_path("openai", "pydanticai_chat_multiple_agent_tool_calls.json"))))
    ids = {x["sessionId"] for x in lines_of(events) if "sessionId" in x}
    assert len(ids) == 1 and str(uuid.UUID(ids.pop())) is not None
    # a UUID of the source is kept as it is
    kept = list(sessionport.read(str(corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl"))))
    assert {x["sessionId"] for x in lines_of(kept) if "sessionId" in x} == {"9cd28a74-da7e-4458-a91a-fffec2be9d7a"}


def test_a_result_without_a_call_gets_one():
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "chatgpt-export", "sessionId": "c1", "metadata": {}},
        {"type": "message", "role": "user", "text": "draw", "id": "u1"},
        {"type": "message", "role": "tool", "text": "[image: 10x10]", "id": "r1", "parentId": "u1", "toolName": "image_gen", "meta": {"kind": "tool_result"}},
    ]
    lines = lines_of(events)
    use, result = lines[-2], lines[-1]
    block = use["message"]["content"][0]
    assert block["type"] == "tool_use" and block["name"] == "image_gen" and block["input"] == {}
    assert result["message"]["content"][0]["tool_use_id"] == block["id"]
    assert result["parentUuid"] == use["uuid"] and use["parentUuid"] == "u1"


def test_calls_of_other_apps_use_claude_code_tools_unless_asked_not_to():
    events = list(sessionport.read(str(corpus_path("gemini", "vct_session.jsonl"))))
    names = [x["message"]["content"][0]["name"] for x in lines_of(events) if x["type"] == "assistant" and x["message"]["content"][0]["type"] == "tool_use"]
    assert "Read" in names and "read_file" not in names
    kept = [x["message"]["content"][0]["name"] for x in lines_of(events, keep_tool_names=True) if x["type"] == "assistant" and x["message"]["content"][0]["type"] == "tool_use"]
    assert "read_file" in kept and "Read" not in kept
