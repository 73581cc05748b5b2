"""Claude Code 2.1.17x and later: files that open with session-state records,
what the app itself puts before the model (attachments, queued prompts),
web-session JSON, and record types of versions not seen yet.

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
from sessionport.errors import DataError

from conftest import FIXTURES, run_cli

HEAD_RECORDS = FIXTURES / "claude-code" / "session-2.1.280-head-records.jsonl"
WEB_SESSION = FIXTURES / "claude-code" / "web-session.json"
HOOKS_SEEN = ("SessionStart", "UserPromptSubmit")


def raw_facts(records: list[dict]) -> dict:
    prompts, answers, uses, results, injected = [], [], [], [], []
    delivered = set()
    for r in records:
        t = r.get("type")
        content = (r.get("message") or {}).get("content")
        if t == "user":
            if isinstance(content, str):
                prompts.append(content)
                delivered.add(content)
            for b in content if isinstance(content, list) else ():
                if b["type"] == "tool_result":
                    results.append(b["tool_use_id"])
        elif t == "assistant":
            for b in content:
                if b["type"] == "text":
                    answers.append(b["text"])
                elif b["type"] == "tool_use":
                    uses.append(b["id"])
        elif t == "attachment":
            a = r["attachment"]
            if a["type"] == "hook_success" and (not a.get("content") or a.get("hookEvent") not in HOOKS_SEEN):
                continue  # the model is not shown it
            injected.append(a["type"])
            if a["type"] == "queued_command":
                delivered.add(a["prompt"])
    for r in records:
        if r.get("type") == "queue-operation" and r.get("operation") == "enqueue" and r.get("content") not in delivered:
            injected.append("queue-operation")
    return {"prompts": prompts, "answers": answers, "uses": uses, "results": results, "injected": Counter(injected)}


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def check_against_raw(events: list[dict], records: list[dict]) -> None:
    facts = raw_facts(records)
    body = [e for e in events if e["type"] == "message"]
    meta = lambda e: e.get("meta", {})
    assert [e["text"] for e in body if e["role"] == "user" and not meta(e).get("injected")] == facts["prompts"]
    assert [e["text"] for e in body if e["role"] == "assistant" and meta(e).get("kind") == "text"] == facts["answers"]
    assert [e["toolCallId"] for e in body if meta(e).get("kind") == "tool_use"] == facts["uses"]
    assert [e["toolCallId"] for e in body if meta(e).get("kind") == "tool_result"] == facts["results"]
    assert Counter(meta(e)["injectedKind"] for e in body if meta(e).get("injectedKind")) == facts["injected"]


def portable(result) -> list[dict]:
    return [orjson.loads(line) for line in result.stdout.splitlines()]


def test_a_file_opening_with_mode_records_converts_auto_detected():
    result = run_cli("convert", HEAD_RECORDS, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = portable(result)
    assert events[0]["source"] == "claude-code" and events[0]["title"] == "Fix the retry cap"
    check_against_raw(events, lines_of(HEAD_RECORDS))
    assert events[-1]["skipped"]["mode"] == 2 and "unknown" not in events[-1]
    assert b"does not know" not in result.stderr


def test_a_web_session_converts_auto_detected():
    result = run_cli("convert", WEB_SESSION, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = portable(result)
    assert events[0]["source"] == "claude-code" and events[0]["sessionId"] == "7d3e9b21-4c5a-4f0e-9a6b-2e8f1c3d5a70"
    check_against_raw(events, json.loads(WEB_SESSION.read_text())["loglines"])


def test_injected_messages_are_leaves_beside_the_chain():
    events = list(sessionport.read(str(HEAD_RECORDS)))
    body = [e for e in events if e["type"] == "message"]
    prompt = next(e for e in body if e["text"].startswith("The retry helper"))
    assert "parentId" not in prompt  # a root: every line before it is skipped or a leaf
    reply = next(e for e in body if e["text"].startswith("The loop compares"))
    result = next(e for e in body if e.get("meta", {}).get("kind") == "tool_result")
    assert reply["parentId"] == result["id"]  # past the queued-command and task-reminder leaves
    delivered = next(e for e in body if e.get("meta", {}).get("injectedKind") == "queued_command")
    assert delivered["text"] == "also keep the default at 3" and delivered["parentId"] == result["id"]
    assert sum(e["text"] == "also keep the default at 3" for e in body) == 1  # the queue receipt is not a second copy
    assert events[-1]["skipped"]["queue-operation/enqueue (delivered)"] == 1


def test_filter_can_leave_out_what_claude_code_injected(tmp_path):
    result = run_cli("convert", HEAD_RECORDS, "--to", "portable-jsonl")
    injected = [e for e in portable(result) if e.get("meta", {}).get("injected")]
    assert len(injected) == sum(raw_facts(lines_of(HEAD_RECORDS))["injected"].values()) == 6


def test_records_of_types_never_seen_first_are_still_detected_and_reported():
    sid = "7d3e9b21-4c5a-4f0e-9a6b-2e8f1c3d5a70"
    new = [
        {"type": "hologram-state", "sessionId": sid, "hologram": {"on": True}, "uuid": "h1", "timestamp": "2026-09-28T13:39:59.000Z", "version": "2.9.0"},
        {"type": "hologram-anchor", "sessionId": sid, "anchorId": "b-1"},
    ]
    data = b"".join(orjson.dumps(r) + b"\n" for r in new) + HEAD_RECORDS.read_bytes()
    result = run_cli("convert", "-", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    events = portable(result)
    assert events[0]["source"] == "claude-code"
    assert events[-1]["unknown"] == {"record": {"hologram-state": 1, "hologram-anchor": 1}}
    assert b"1 record of a type this version of sessionport does not know: `hologram-state`" in result.stderr
    check_against_raw(events, lines_of(HEAD_RECORDS))
    strict = run_cli("convert", "-", "--to", "portable-jsonl", "--strict", input=data)
    assert strict.returncode == 1 and b"hologram-state" in strict.stderr and b"Traceback" not in strict.stderr


def test_unknown_content_blocks_are_placeholders_and_reported(tmp_path):
    lines = HEAD_RECORDS.read_bytes().splitlines()
    assistant = next(orjson.loads(l) for l in lines if b'"text":"The loop compares' in l)
    assistant["message"]["content"] = [{"type": "hologram", "frames": 3}]
    user = {"type": "user", "uuid": "u9", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "sticker", "id": "x"}]}}
    data = b"\n".join(lines + [orjson.dumps(assistant), orjson.dumps(user)]) + b"\n"
    events = sessionport.loads(data)
    body = [e for e in events if e["type"] == "message"]
    assert any(e["text"] == "look\n\n[sticker]" for e in body)
    assert any(e["text"] == "[hologram]" and e["meta"]["blockType"] == "hologram" for e in body)
    assert events[-1]["unknown"] == {"content block": {"hologram": 1, "sticker": 1}}
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    with pytest.raises(DataError, match="hologram"):
        list(sessionport.read(str(path), strict=True))


def test_inspect_lists_unknown_record_types():
    data = orjson.dumps({"type": "hologram-state", "sessionId": "s", "uuid": "h1", "timestamp": "2026-09-28T13:39:59.000Z"}) + b"\n" + HEAD_RECORDS.read_bytes()
    result = run_cli("inspect", "-", "--json", input=data)
    assert result.returncode == 0, result.stderr
    summary = orjson.loads(result.stdout)
    session = summary["sessions"][0] if isinstance(summary, dict) and "sessions" in summary else summary[0]
    assert session["unknown"] == {"record": {"hologram-state": 1}}
    human = run_cli("inspect", "-", input=data)
    assert b"hologram-state" in human.stdout


def test_a_background_task_notice_delivered_as_a_user_line_is_injected():
    line = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-09-28T13:41:00.000Z",
            "message": {"role": "user", "content": "<task-notification>\n<task-id>b7x2</task-id>\n<status>completed</status>\n</task-notification>"}}
    prompt = {**line, "uuid": "u2", "message": {"role": "user", "content": "thanks, go on"}}
    events = sessionport.loads(orjson.dumps(line) + b"\n" + orjson.dumps(prompt) + b"\n")
    notice, typed = [e for e in events if e["type"] == "message"]
    assert notice["meta"] == {"injected": True, "injectedKind": "task-notification"}
    assert "meta" not in typed
