"""Gemini CLI JSONL as the a2a server writes it (the whole message list in
``$set`` updates) and record types of versions not seen yet.  Expectations
are replayed from the raw records with the standard library."""

from __future__ import annotations

import json

import orjson

from conftest import FIXTURES, run_cli

REPLAY = FIXTURES / "gemini-cli" / "session-2026-04-30T09-00-replay01.jsonl"


def replay(lines: list[dict]) -> list[dict]:
    """The final message list, applying upserts, $set.messages and $rewindTo."""
    messages: dict[str, dict] = {}
    for record in lines:
        if "$set" in record:
            if "messages" in record["$set"]:
                messages = {m["id"]: m for m in record["$set"]["messages"]}
        elif "$rewindTo" in record:
            keys = list(messages)
            messages = {k: messages[k] for k in keys[: keys.index(record["$rewindTo"])]} if record["$rewindTo"] in messages else {}
        elif "id" in record:
            messages[record["id"]] = record
    return list(messages.values())


def a2a_lines() -> list[dict]:
    head = [json.loads(line) for line in REPLAY.read_text().splitlines()[:2]]
    history = [
        {"id": "u1", "timestamp": "2026-04-30T09:00:01.000Z", "type": "user", "content": [{"text": "How many tests are there?"}]},
        {"id": "g1", "timestamp": "2026-04-30T09:00:05.000Z", "type": "gemini", "content": "", "model": "gemini-3-flash-preview",
         "tokens": {"input": 900, "output": 20, "cached": 0, "thoughts": 15, "tool": 0, "total": 935},
         "toolCalls": [{"id": "shell-1", "name": "run_shell_command", "args": {"command": "pytest --collect-only -q"}, "status": "success",
                        "timestamp": "2026-04-30T09:00:06.000Z",
                        "result": [{"functionResponse": {"id": "shell-1", "name": "run_shell_command", "response": {"output": "41 tests collected"}}}]}]},
        {"id": "g2", "timestamp": "2026-04-30T09:00:08.000Z", "type": "gemini", "content": "There are 41 tests.", "model": "gemini-3-flash-preview"},
    ]
    return head + [
        {"$set": {"messages": history[:2], "lastUpdated": "2026-04-30T09:00:06.000Z"}},
        {"$set": {"messages": history, "lastUpdated": "2026-04-30T09:00:08.000Z"}},
        {"id": "u2", "timestamp": "2026-04-30T09:00:20.000Z", "type": "user", "content": [{"text": "Thanks"}]},
    ]


def test_bulk_set_updates_replay_to_the_last_list():
    lines = a2a_lines()
    data = b"".join(orjson.dumps(r) + b"\n" for r in lines)
    result = run_cli("convert", "-", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["source"] == "gemini-cli"
    body = [e for e in events if e["type"] == "message"]
    final = replay(lines)
    assert [e["text"] for e in body if e["role"] == "user"] == ["".join(p["text"] for p in m["content"]) for m in final if m["type"] == "user"]
    assert [e["text"] for e in body if e["role"] == "assistant" and e["text"]] == [m["content"] for m in final if m["type"] == "gemini" and m["content"]]
    calls = [c["id"] for m in final for c in m.get("toolCalls", [])]
    assert [e["toolCallId"] for e in body if e["meta"]["kind"] == "tool_use"] == calls
    assert [e["toolCallId"] for e in body if e["meta"]["kind"] == "tool_result"] == calls
    assert events[-1]["metadata"]["lastUpdated"] == "2026-04-30T09:00:08.000Z"


def test_a_message_type_not_known_is_kept_and_reported():
    lines = a2a_lines() + [{"id": "h1", "timestamp": "2026-04-30T09:00:21.000Z", "type": "hologram", "content": "a new kind of notice"}]
    data = b"".join(orjson.dumps(r) + b"\n" for r in lines)
    result = run_cli("convert", "-", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    notice = next(e for e in events if e["type"] == "message" and e["text"] == "a new kind of notice")
    assert notice["meta"]["notice"] == "hologram"
    assert events[-1]["unknown"] == {"record": {"hologram": 1}}
    assert b"`hologram`; please report" in result.stderr
