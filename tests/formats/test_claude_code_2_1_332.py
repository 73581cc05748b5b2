"""Claude Code 2.1.332: the records of a session the real app wrote.

``fixtures/claude-code/session-2.1.332-scripted.jsonl`` holds the first 23
lines, one more request blob, the ``cost-state`` and the ``mode`` line of a
transcript Claude Code 2.1.332 wrote in an offline run against a scripted
model API (its own texts, long strings shortened in the middle, lists cut to
two entries).  New in it: the API request log (``api-request-shape``,
``api-request-blob``, ``api-request``), ``tools-used``, and attachments that
say what the model is sent (``rendered`` [{content}], ``renderedRole``).
Expectations are counted from the raw records with the standard ``json``
module, independently of the importer.
"""

from __future__ import annotations

import json
from collections import Counter

from conftest import FIXTURES, run_cli

SESSION = FIXTURES / "claude-code" / "session-2.1.332-scripted.jsonl"
REQUEST_LOG = ("api-request-shape", "api-request-blob", "api-request", "tools-used")


def records() -> list[dict]:
    return [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines() if line.strip()]


def convert() -> tuple[list[dict], bytes]:
    result = run_cli("convert", SESSION, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()], result.stderr


def test_request_log_records_are_counted_not_unknown():
    events, stderr = convert()
    assert b"does not know" not in stderr
    end = events[-1]
    assert end["type"] == "end"
    raw = Counter(r["type"] for r in records())
    for kind in REQUEST_LOG:
        assert raw[kind] >= 1
        assert end["skipped"][kind] == raw[kind]
    assert "unknown" not in end


def test_rendered_attachments_are_system_messages_without_the_reminder_wrapper():
    events, _ = convert()
    system = [e for e in events if e.get("type") == "message" and e["role"] == "system"]
    expected = []
    for record in records():
        if record["type"] == "attachment" and record.get("renderedRole") == "system" and record.get("rendered"):
            text = "\n".join(piece["content"] for piece in record["rendered"])
            assert text.startswith("<system-reminder>\n") and text.endswith("\n</system-reminder>")
            expected.append((record["uuid"], record["attachment"]["type"], text[len("<system-reminder>\n"):-len("\n</system-reminder>")]))
    assert len(expected) >= 5
    assert [(e["id"], e["meta"]["injectedKind"], e["text"]) for e in system] == expected
    assert all(e["meta"]["injected"] is True for e in system)


def test_attachments_without_rendering_are_still_skipped_and_counted():
    events, _ = convert()
    end = events[-1]
    unrendered = Counter(
        r["attachment"]["type"] for r in records() if r["type"] == "attachment" and "renderedRole" not in r
    )
    assert unrendered  # session_context, prompt_snapshot
    for kind, count in unrendered.items():
        assert end["skipped"][f"attachment/{kind}"] == count


def test_conversation_calls_and_usage_match_the_records():
    events, _ = convert()
    raw = records()
    messages = [e for e in events if e.get("type") == "message"]
    prompts = [r["message"]["content"] for r in raw if r["type"] == "user" and isinstance(r["message"]["content"], str)]
    assert [e["text"] for e in messages if e["role"] == "user" and not e.get("meta", {}).get("injected")] == prompts
    blocks = [b for r in raw if r["type"] == "assistant" for b in r["message"]["content"]]
    uses = [b for b in blocks if b["type"] == "tool_use"]
    results = [b for r in raw if r["type"] == "user" and isinstance(r["message"]["content"], list) for b in r["message"]["content"] if b["type"] == "tool_result"]
    assert [e["toolCallId"] for e in messages if e.get("meta", {}).get("kind") == "tool_use"] == [b["id"] for b in uses]
    assert [e["toolCallId"] for e in messages if e.get("meta", {}).get("kind") == "tool_result"] == [b["tool_use_id"] for b in results]
    thinking = [e for e in messages if e.get("meta", {}).get("kind") == "thinking"]
    assert [e["text"] for e in thinking] == [b["thinking"] for b in blocks if b["type"] == "thinking"]
    # one API message (its usage repeated on each of its lines) counts once
    by_message = {r["message"]["id"]: r["message"]["usage"] for r in raw if r["type"] == "assistant"}
    usage = events[-1]["usage"]
    assert usage["output_tokens"] == sum(u["output_tokens"] for u in by_message.values())
    assert usage["cached_input_tokens"] == sum(u["cache_read_input_tokens"] for u in by_message.values())
    assert usage["input_tokens"] == sum(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in by_message.values())


def test_session_metadata_and_cost_state():
    events, _ = convert()
    session = events[0]
    first = next(r for r in records() if r["type"] == "user")
    assert session["sessionId"] == first["sessionId"]
    assert session["metadata"]["version"] == "2.1.332"
    assert session["cwd"] == first["cwd"]
    cost = next(r for r in records() if r["type"] == "cost-state")
    assert events[-1]["skipped"]["cost-state"] == 1
    assert cost["totalCostUSD"] > 0


def test_inspect_lists_no_unknown_types():
    result = run_cli("inspect", SESSION)
    assert result.returncode == 0, result.stderr
    assert b"unknown" not in result.stdout
    assert b"api-request=1" in result.stdout
    assert b"system=" in result.stdout


# Rows of other kinds, in the shapes 2.1.332's own writer builds them (its
# bundled source: each object literal, values made up here).
STATE_ROWS = [
    {"type": "continued-in", "timestamp": "2026-12-01T19:52:12.000Z", "sessionId": "S", "continuedInSessionId": "6f0c1d2e-0000-4000-8000-000000000001"},
    {"type": "ended-by-model", "timestamp": "2026-12-01T19:52:12.000Z", "sessionId": "S"},
    {"type": "history-suppression", "sessionId": "S", "cause": "account-switch", "ts": "2026-12-01T19:52:12.000Z"},
    {"type": "memory-mode", "mode": "on", "afterUuid": "u", "timestamp": "2026-12-01T19:52:12.000Z", "sessionId": "S"},
    {"type": "file-history-delta", "messageId": "m", "snapshotMessageId": "m0", "trackingPath": "notes.txt", "backup": None, "timestamp": "2026-12-01T19:52:12.000Z"},
    {"type": "derived-from", "v": 1, "sessionId": "S", "sessions": []},
    {"type": "hybrid-organization", "organizationUuid": "o", "sessionId": "S"},
]


def test_other_state_rows_of_2_1_332_are_counted_without_a_warning():
    base = SESSION.read_bytes()
    rows = "".join(json.dumps({**row, **({"sessionId": records()[0]["sessionId"]} if "sessionId" in row else {})}) + "\n" for row in STATE_ROWS)
    result = run_cli("convert", "-", "--from", "claude-code", "--to", "portable-jsonl", input=base + rows.encode())
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr
    end = json.loads(result.stdout.splitlines()[-1])
    for row in STATE_ROWS:
        assert end["skipped"][row["type"]] == 1
    plain = convert()[0]
    assert [e for e in json.loads(b"[" + b",".join(result.stdout.splitlines()[:-1]) + b"]")] == plain[:-1]


def test_a_rendering_without_its_role_is_what_a_user_turn_sent(tmp_path):
    """Claude Code 2.1.27x-2.1.28x write ``rendered`` before they write
    ``renderedRole``: what they send in a user turn, wrapper included (a
    transcript of 2.1.270 has environment, date, session_context and six more
    such lines).  They are kept as injected user messages, not skipped."""
    lines = records()
    head = next(r for r in lines if r["type"] == "user")
    reminder = "<system-reminder>\nToday's date is 2026-09-14.\n</system-reminder>"
    attachment = {
        "parentUuid": head["uuid"], "isSidechain": False, "attachment": {"type": "date", "date": "2026-09-14"},
        "rendered": [{"content": reminder}], "type": "attachment", "uuid": "5f1b7c1e-8a2d-4c3e-9b4f-0a1b2c3d4e5f",
        "timestamp": head["timestamp"], "userType": "external", "cwd": head.get("cwd"), "sessionId": head["sessionId"], "version": "2.1.270",
    }
    source = tmp_path / "session.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in [head, attachment]), encoding="utf-8")
    result = run_cli("convert", source, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    (injected,) = [e for e in events if e.get("type") == "message" and (e.get("meta") or {}).get("injectedKind") == "date"]
    assert (injected["role"], injected["text"], injected["meta"]["injected"]) == ("user", reminder, True)
    assert "attachment/date" not in (events[-1].get("skipped") or {})


def test_a_prompt_the_user_typed_while_the_model_worked_is_the_users(tmp_path):
    """2.1.27x and later mark a queued prompt the user typed (``origin``
    human, ``humanTurn``): a user prompt of its own words, not injected
    context, whatever wrapper its rendering has; written back as the same
    attachment."""
    lines = records()
    head = next(r for r in lines if r["type"] == "user")
    typed = "also keep the default at 3"
    queued = {
        "parentUuid": head["uuid"], "isSidechain": False, "type": "attachment", "uuid": "6a2c8d2f-9b3e-4d4f-8c5a-1b2c3d4e5f60",
        "attachment": {"type": "queued_command", "prompt": typed, "source_uuid": "7b3d9e30-ac4f-4e50-9d6b-2c3d4e5f6071", "commandMode": "prompt",
                       "origin": {"kind": "human"}, "timestamp": head["timestamp"], "humanTurn": True},
        "rendered": [{"content": f"<system-reminder>\nThe user sent a new message while you were working:\n{typed}\n</system-reminder>"}],
        "timestamp": head["timestamp"], "userType": "external", "cwd": head.get("cwd"), "sessionId": head["sessionId"], "version": "2.1.277",
    }
    source = tmp_path / "session.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in [head, queued]), encoding="utf-8")

    def prompts(path):
        result = run_cli("convert", path, "--to", "portable-jsonl")
        assert result.returncode == 0, result.stderr
        events = [json.loads(line) for line in result.stdout.splitlines()]
        return [(e["role"], e["text"], bool((e.get("meta") or {}).get("injected"))) for e in events if e.get("type") == "message"]

    assert prompts(source)[-1] == ("user", typed, False)
    back = tmp_path / "back.jsonl"
    assert run_cli("convert", source, "--to", "claude-code", "-o", back).returncode == 0
    (written,) = [json.loads(line)["attachment"] for line in back.read_text().splitlines() if '"queued_command"' in line]
    assert (written["prompt"], written["humanTurn"], written["origin"]) == (typed, True, {"kind": "human"})
    assert prompts(back)[-1] == ("user", typed, False)
