"""Claude Code 2.1.33x: fields and records of the newest releases, read
into ``meta`` and written back (their shapes from the app's own bundle,
claude-code 2.1.332)."""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

FORKED = FIXTURES / "claude-code" / "session-2.1.332-forked.jsonl"


def raw(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def convert(path, to="portable-jsonl", *extra) -> list[dict]:
    result = run_cli("convert", path, "--to", to, *extra)
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_a_forked_sessions_copied_lines_say_where_they_came_from():
    # /branch and --fork-session copy the lines into a new session with
    # forkedFrom {sessionId, messageUuid}; an answer also names the session
    # its request was made in (requestSessionId)
    events = convert(FORKED)
    lines = raw(FORKED)
    origin = lines[0]["forkedFrom"]["sessionId"]
    assert events[0]["metadata"]["forkedFrom"] == origin
    messages = [e for e in events if e["type"] == "message"]
    assert [m.get("meta", {}).get("forkedFrom") for m in messages] == [line.get("forkedFrom") for line in lines]
    assert [m.get("meta", {}).get("requestSessionId") for m in messages] == [line.get("requestSessionId") for line in lines]


def test_a_forked_session_is_written_back_with_its_fork_fields(tmp_path):
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", FORKED, "--to", "claude-code", "-o", out)
    assert result.returncode == 0, result.stderr
    written = [r for r in raw(out) if r.get("type") in ("user", "assistant")]
    lines = raw(FORKED)
    assert [(r["uuid"], r.get("forkedFrom"), r.get("requestSessionId")) for r in written] == [
        (line["uuid"], line.get("forkedFrom"), line.get("requestSessionId")) for line in lines
    ]
    assert convert(out)[1:] == convert(FORKED)[1:]


PEER = FIXTURES / "claude-code" / "session-2.1.332-peer-message.jsonl"


def test_a_message_from_another_session_is_injected_with_its_origin():
    # 2.1.3xx writes who wrote a user line in origin: the user ("human"),
    # another of the user's sessions ("peer", SendMessage across sessions,
    # wrapped in <cross-session-message>), a channel... Claude Code frames
    # the others as not the user's; the user's own prompt stays a prompt.
    events = convert(PEER)
    users = [e for e in events if e["type"] == "message" and e["role"] == "user"]
    lines = [r for r in raw(PEER) if r["type"] == "user"]
    assert users[0].get("meta") is None
    assert users[1]["meta"] == {"injected": True, "origin": lines[1]["origin"], "isMeta": True, "injectedKind": "peer"}
    assert users[2]["meta"] == {"injected": True, "origin": lines[2]["origin"], "isMeta": True, "injectedKind": "channel"}


def test_a_message_from_another_session_is_written_back_with_its_origin(tmp_path):
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", PEER, "--to", "claude-code", "-o", out)
    assert result.returncode == 0, result.stderr
    written = [r for r in raw(out) if r["type"] == "user"]
    lines = [r for r in raw(PEER) if r["type"] == "user"]
    assert [(r["message"]["content"], r.get("origin"), r.get("isMeta")) for r in written] == [
        (r["message"]["content"], r["origin"] if r["origin"]["kind"] != "human" else None, r.get("isMeta")) for r in lines
    ]
    assert convert(out)[1:] == convert(PEER)[1:]



SCHEDULED = FIXTURES / "claude-code" / "session-2.1.332-scheduled-task.jsonl"


def test_a_scheduled_task_firing_is_a_notice_with_the_tasks_fields():
    # scheduled_task_fire (2.1.3xx): "Running scheduled task (...)" or
    # "Claude resuming /loop wakeup (...)", with the task's id, cron and
    # prompt; the prompt it sends follows as an isMeta line naming the task
    events = convert(SCHEDULED)
    end = events[-1]
    assert "system/scheduled_task_fire" not in (end.get("skipped") or {})
    lines = raw(SCHEDULED)
    fires = [e for e in events if e["type"] == "message" and e["role"] == "system"]
    assert [f["text"] for f in fires] == [r["content"] for r in lines if r["type"] == "system"]
    assert fires[0]["meta"] == {
        "subtype": "scheduled_task_fire", "notice": "scheduled_task_fire",
        "scheduledTask": {"taskId": "7c1e9a2b", "cron": "0 * * * *", "prompt": "Check the queue depth; report if it passes 1000."},
    }
    assert fires[1]["meta"]["scheduledTask"]["taskKind"] == "loop"
    prompt = next(e for e in events if e.get("id") == "u4000002-0000-4000-8000-000000000002")
    assert prompt["meta"] == {"injected": True, "scheduledTaskId": "7c1e9a2b"}
    assert prompt["parentId"] == fires[0]["id"]


def test_a_scheduled_task_firing_is_written_back_as_it_was(tmp_path):
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", SCHEDULED, "--to", "claude-code", "-o", out)
    assert result.returncode == 0, result.stderr
    keep = ("type", "subtype", "content", "isMeta", "uuid", "parentUuid", "taskId", "cron", "prompt", "taskKind", "cronKind", "scheduledTaskId")
    def shape(records):
        return [{k: r[k] for k in keep if k in r} for r in records if r["type"] in ("system", "user")]
    original = shape(raw(SCHEDULED))
    for record in original:
        if record["type"] == "user":
            record.setdefault("isMeta", None)
    written = shape(raw(out))
    for record in written:
        if record["type"] == "user":
            record.setdefault("isMeta", None)
    assert written == original
    assert convert(out)[1:] == convert(SCHEDULED)[1:]


STREAM_CUT = FIXTURES / "claude-code" / "session-2.1.332-stream-cut.jsonl"


def test_a_response_stream_cut_off_keeps_why_and_that_part_of_it_came():
    # 2.1.3xx's notice of a stream cut off: apiError (why), streamCutCause,
    # truncatedAfterOutput (the answer above it is incomplete)
    events = convert(STREAM_CUT)
    notice = [e for e in events if e["type"] == "message"][-1]
    assert notice["meta"]["apiError"] is True and notice["meta"]["apiErrorKind"] == "server_error"
    assert notice["meta"]["apiErrorReason"] == "connection_failed"
    assert notice["meta"]["streamCutCause"] == "server_error"
    assert notice["meta"]["truncatedAfterOutput"] is True


def test_a_response_stream_cut_off_is_written_back_with_its_flags(tmp_path):
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", STREAM_CUT, "--to", "claude-code", "-o", out)
    assert result.returncode == 0, result.stderr
    keep = ("apiError", "error", "truncatedAfterOutput", "isApiErrorMessage", "streamCutCause")
    written = raw(out)[-1]
    original = raw(STREAM_CUT)[-1]
    assert [(k, written[k]) for k in written if k in keep] == [(k, original[k]) for k in original if k in keep]
    assert convert(out)[1:] == convert(STREAM_CUT)[1:]
