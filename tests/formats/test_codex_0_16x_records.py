"""Codex CLI 0.15x-0.16x: the rollout records beside ``response_item``.

codex-rs 0.159+ (``codex-rs/history/src/rollout_payload.rs``, openai/codex
commit 5ef96ab2785f3ecddf279639eff7b1b42c906fa4) writes these envelope types
besides the usual ones: ``inter_agent_communication`` (a message another agent
of the run delivered into a thread of the legacy history mode; Codex persists
only this record, not a response item, and rebuilds the model's input from it
on resume: ``record_inter_agent_communication``), ``realtime_item`` (a voice
session: start, ``transcript_segment`` of what the person said and the voice
model answered, ``bem_item_promoted``, close), ``retained_context`` (host
evidence of a ``request_user_input`` answer) and ``security_risk_score``.
0.160-0.161 ``session_meta`` lines add ``agent_path``, ``runtime_workspace_roots``
and, for a rollout continuing another (a reverted thread, a fork),
``history_base: {thread_id, end_ordinal_exclusive, end_byte_offset}``.

The fixtures are written for these tests, modelled on lines quoted by other
projects' readers (0.159.0, 0.160.0 and 0.161.0 ``session_meta`` lines with
``runtime_workspace_roots``, ``agent_path`` and ``history_base``;
``inter_agent_communication`` with ``other_recipients``, ``trigger_turn`` and a
passthrough; ``realtime_item`` transcript segments, flat and under ``data`` as
codex-rs serializes ``RealtimeItemContent``; ``retained_context`` of type
``verified_answer``; ``security_risk_score``):
``fixtures/codex/rollout-0.16x-inter-agent-realtime.jsonl`` and
``fixtures/codex/rollout-0.161-history-base.jsonl``.
"""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

ROLLOUT = FIXTURES / "codex" / "rollout-0.16x-inter-agent-realtime.jsonl"
BASED = FIXTURES / "codex" / "rollout-0.161-history-base.jsonl"


def records(path=ROLLOUT) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def convert(path=ROLLOUT, *args: str) -> tuple[list[dict], bytes]:
    result = run_cli("convert", path, "--to", "portable-jsonl", *args)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()], result.stderr


def messages(events: list[dict]) -> list[dict]:
    return [{**e, "meta": e.get("meta") or {}} for e in events if e.get("type") == "message"]


def test_no_record_type_is_unknown():
    events, stderr = convert()
    assert b"does not know" not in stderr
    end = events[-1]
    assert "unknown" not in end
    for kind in ("retained_context", "security_risk_score", "inter_agent_communication_metadata"):
        assert end["skipped"][kind] == sum(r["type"] == kind for r in records())
    for kind in ("realtime_session_started", "bem_item_promoted", "realtime_session_closed"):
        assert end["skipped"][f"realtime_item/{kind}"] == 1


def test_inter_agent_communication_is_the_delivered_message():
    record = next(r["payload"] for r in records() if r["type"] == "inter_agent_communication")
    found = [m for m in messages(convert()[0]) if m["meta"].get("codexType") == "inter_agent_communication"]
    assert len(found) == 1
    message = found[0]
    assert message["role"] == "user"
    assert message["text"] == record["content"]
    assert message["meta"]["injected"] is True
    assert message["meta"]["injectedKind"] == "agent_message"
    assert message["meta"]["author"] == record["author"]
    assert message["meta"]["recipient"] == record["recipient"]
    assert message["meta"]["triggerTurn"] is True
    assert message["meta"]["codexPassthrough"] == record["internal_chat_message_metadata_passthrough"]
    # in the file's order: after the commentary, before the final answer
    texts = [m["text"] for m in messages(convert()[0]) if m["role"] != "tool"]
    assert texts.index(record["content"]) == texts.index("Started a tester agent; waiting for its report.") + 1


def test_voice_transcript_segments_are_messages():
    segments = [r["payload"] for r in records() if r["type"] == "realtime_item" and r["payload"]["type"] == "transcript_segment"]
    voiced = [m for m in messages(convert()[0]) if m["meta"].get("voice")]
    assert [(m["role"], m["text"]) for m in voiced] == [
        ((s.get("data") or s)["role"], (s.get("data") or s)["text"]) for s in segments
    ]
    assert all(m["meta"]["realtimeSessionId"] == "voice_1" and "model" not in m["meta"] for m in voiced)


def test_a_realtime_item_of_a_new_type_is_reported():
    line = json.dumps({"timestamp": "2026-10-08T07:02:00.000Z", "ordinal": 20, "type": "realtime_item", "payload": {"id": "rt_9", "realtime_session_id": "voice_1", "type": "hologram_cue"}})
    data = ROLLOUT.read_bytes() + line.encode() + b"\n"
    result = run_cli("convert", "-", "--from", "codex", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    end = json.loads(result.stdout.splitlines()[-1])
    assert end["unknown"]["record"] == {"realtime_item/hologram_cue": 1}
    assert b"realtime_item/hologram_cue" in result.stderr


def test_round_trip_to_codex_keeps_the_records(tmp_path):
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", ROLLOUT, "--to", "codex", "-o", out)
    assert result.returncode == 0, result.stderr
    written = records(out)
    original = records()
    # the inter-agent message is written back as its record, not as an item
    ours = [r["payload"] for r in written if r["type"] == "inter_agent_communication"]
    theirs = [r["payload"] for r in original if r["type"] == "inter_agent_communication"]
    assert ours == theirs
    assert not [r for r in written if r["type"] == "response_item" and r["payload"]["type"] == "agent_message"]
    assert [r["payload"] for r in written if r["type"] == "realtime_item"] == [
        r["payload"] for r in original if r["type"] == "realtime_item" and r["payload"]["type"] == "transcript_segment"
    ]
    # a team thread stays one: Codex resumes it with the team's instructions
    assert written[0]["type"] == "session_meta" and written[0]["payload"]["multi_agent_version"] == "v2"
    # no voice text reaches the model's history
    items = json.dumps([r["payload"] for r in written if r["type"] == "response_item"])
    assert "Can you fix the rounding?" not in items
    again, stderr = convert(out)
    assert b"does not know" not in stderr
    def key(m):
        return (m["role"], m["text"], m["meta"].get("codexType"))
    assert [key(m) for m in messages(again)] == [key(m) for m in messages(convert()[0])]


def test_markdown_shows_the_agent_message_and_the_voice():
    result = run_cli("convert", ROLLOUT, "--to", "markdown")
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert "1 test fails: src/cart.test.ts" in text
    assert "Can you fix the rounding?" in text
    assert "Sure, I will ask Codex to fix it." in text


def test_session_meta_of_0_161_continuing_another_rollout():
    events, stderr = convert(BASED)
    assert b"does not know" not in stderr
    meta = records(BASED)[0]["payload"]
    session = events[0]
    assert session["metadata"]["agentPath"] == meta["agent_path"]
    assert session["metadata"]["historyBase"] == meta["history_base"]
    end = events[-1]
    assert any(meta["history_base"]["thread_id"] in note and "not in this file" in note for note in end["notes"])
    # and a warning: the history before this file's records is not read
    warned = [line for line in stderr.decode().splitlines() if "history_base" in line]
    assert len(warned) == 1 and meta["history_base"]["thread_id"] in warned[0] and "not read" in warned[0]
    # nothing of its own is marked as copied history
    assert not any(m["meta"].get("inherited") for m in messages(events))


def test_base_instructions_as_a_string():
    line = records()[0]
    line["payload"]["base_instructions"] = "You are Codex."
    data = (json.dumps(line) + "\n").encode() + b"\n".join(ROLLOUT.read_bytes().splitlines()[1:]) + b"\n"
    result = run_cli("convert", "-", "--from", "codex", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.splitlines()[0])["metadata"]["baseInstructions"] == "You are Codex."


def test_copies_without_their_items_are_not_lost_silently():
    """A paginated rollout (0.151+) writes an ``event_msg/item_completed``
    copy beside each response item; lines modelled on a 0.153.4 excerpt
    quoted by another reader, with the response items left out."""
    lines = [
        {"timestamp": "2026-09-05T16:50:06.216Z", "ordinal": 0, "type": "session_meta", "payload": {"id": "01a07276-a69c-7282-8e89-6bab77f2da3b", "timestamp": "2026-09-05T16:46:13.683Z", "cwd": "/work/scratch", "originator": "codex-tui", "cli_version": "0.153.4", "source": "cli", "history_mode": "paginated"}},
        {"timestamp": "2026-09-05T16:50:06.518Z", "ordinal": 7, "type": "event_msg", "payload": {"type": "item_completed", "turn_id": "t1", "item": {"type": "UserMessage", "id": "u1", "content": [{"type": "text", "text": "what time is it?", "text_elements": []}]}}},
        {"timestamp": "2026-09-05T16:50:09.573Z", "ordinal": 10, "type": "event_msg", "payload": {"type": "item_completed", "turn_id": "t1", "item": {"type": "AgentMessage", "id": "m1", "content": [{"type": "Text", "text": "Checking the time."}], "phase": "commentary"}}},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    result = run_cli("convert", "-", "--from", "codex", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    assert b"2 event_msg/item_completed record(s)" in result.stderr
    # a rollout with its items says nothing
    result = run_cli("convert", FIXTURES / "codex" / "rollout-0.171-scripted.jsonl", "--to", "portable-jsonl")
    assert b"item_completed" not in result.stderr


def test_a_rollout_reference_is_noted_not_reported_unknown():
    """``rollout_reference`` (codex-rs ``RolloutReferenceItem``: ``rollout_path``,
    ``thread_id``, ``segment_id``, ``max_depth``, ``nth_user_message``…; the
    2026 form of a fork or continued segment that ``history_base`` later
    replaced): Codex materializes the named rollout's history in its place,
    so it is counted and a note says where that history is.  Shape from
    codex-rs tests quoted by other projects."""
    meta = records(BASED)[0]
    del meta["payload"]["history_base"]
    reference = {"timestamp": "2026-10-08T09:10:00.250Z", "ordinal": 7, "type": "rollout_reference", "payload": {
        "rollout_path": "/home/dev/.codex/sessions/2026/10/08/rollout-2026-10-08T07-00-01-01a11a40-0c11-7d20-9a3e-5b1f0c2d4e61.jsonl",
        "thread_id": "01a11a40-0c11-7d20-9a3e-5b1f0c2d4e61", "rollout_timestamp": None,
        "segment_id": "01a11ab0-5e02-7000-8000-000000000001", "max_depth": 8, "nth_user_message": 2,
        "compacted_replacement_history_filter_texts": None}}
    rest = records(BASED)[1:]
    # after the turn has started (where the reader skips most records unparsed)
    data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in [meta, *rest[:2], reference, *rest[2:]]).encode()
    result = run_cli("convert", "-", "--from", "codex", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr
    end = json.loads(result.stdout.splitlines()[-1])
    assert end["skipped"]["rollout_reference"] == 1
    assert "unknown" not in end
    assert any("thread 01a11a40-0c11-7d20-9a3e-5b1f0c2d4e61" in n and "before its user message 2" in n for n in end["notes"])
    warned = [line for line in result.stderr.decode().splitlines() if "rollout_reference" in line]
    assert len(warned) == 1 and "01a11a40-0c11-7d20-9a3e-5b1f0c2d4e61" in warned[0] and "not read" in warned[0]
    assert [m["text"] for m in messages([json.loads(l) for l in result.stdout.splitlines()])] == [
        "Fix the rounding in src/cart.ts.", "Fixed: the total now rounds half up."]


def test_a_realtime_item_whose_type_is_not_a_string_is_reported_not_a_crash():
    line = json.dumps({"timestamp": "2026-10-08T07:02:00.000Z", "ordinal": 20, "type": "realtime_item", "payload": {"id": "rt_9", "type": ["x"]}})
    data = ROLLOUT.read_bytes() + line.encode() + b"\n"
    result = run_cli("convert", "-", "--from", "codex", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["unknown"]["record"] == {"realtime_item/None": 1}


FAILED_TURN = FIXTURES / "codex" / "rollout-0.160-failed-turn.jsonl"


def test_a_turn_that_failed_is_an_error_notice_where_it_ended(tmp_path):
    """Codex 0.159+ paginated rollouts write no ``error`` event when a turn
    fails: the error is only in the turn's ``task_complete``.  It is the same
    notice an ``error`` event gives, in its place, and a Codex export writes
    it back as that event."""
    events, stderr = convert(FAILED_TURN)
    assert b"does not know" not in stderr
    said = [(e["role"], e.get("isError"), e["text"].split(":")[0]) for e in messages(events)]
    assert said == [("user", None, "Create sample.txt containing the word alpha, then print it."), ("system", True, "unexpected status 401 Unauthorized"),
                    ("user", None, "Signed in again"), ("assistant", None, "sample.txt now holds")]
    error = messages(events)[1]
    assert error["timestamp"] == "2026-10-08T05:06:10.615Z"
    assert error["meta"]["codexErrorInfo"] == {"http_connection_failed": {"http_status_code": 401}}
    assert events[-1]["skipped"]["event_msg/task_complete"] == 2  # both turns' ends still counted
    target = tmp_path / "rollout-2026-10-08T05-05-52-01a1b7c2-3d4e-7f50-8a61-92b3c4d5e6f7.jsonl"
    done = run_cli("convert", FAILED_TURN, "--to", "codex", "-o", target)
    assert done.returncode == 0, done.stderr
    written = [json.loads(line) for line in target.read_text().splitlines()]
    errors = [r["payload"] for r in written if r["type"] == "event_msg" and r["payload"]["type"] == "error"]
    assert [e["message"] for e in errors] == [error["text"]]
    back, _ = convert(target)
    assert [(e["role"], e.get("isError")) for e in messages(back)] == [(r, i) for r, i, _ in said]


def test_a_code_mode_script_that_failed_is_an_error_result(tmp_path):
    """Codex 0.160's code mode runs a script through one ``exec`` custom
    tool; its output opens with the script's status line, ``Script failed``
    when it threw (the calls inside it are only UI events, counted)."""
    lines = [json.loads(line) for line in FAILED_TURN.read_text().splitlines()[:3]]
    call = {"type": "custom_tool_call", "id": "ctc_1", "status": "completed", "call_id": "call_1", "name": "exec",
            "input": 'text(await tools.apply_patch("*** Begin Patch\\n*** Update File: a.txt\\n@@\\n-gamma\\n+delta\\n*** End Patch"));\n'}
    outputs = {
        "failed": [{"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
                   {"type": "input_text", "text": "Script error:\napply_patch verification failed: Failed to find expected lines in a.txt:\ngamma"}],
        "completed": [{"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"}, {"type": "input_text", "text": "{}"}],
    }
    for n, (status, output) in enumerate(outputs.items()):
        stamp = f"2026-10-08T05:06:0{n}.000Z"
        lines.append({"timestamp": stamp, "type": "response_item", "payload": {**call, "call_id": f"call_{status}"}})
        lines.append({"timestamp": stamp, "type": "response_item", "payload": {"type": "custom_tool_call_output", "call_id": f"call_{status}", "output": output}})
    source = tmp_path / "rollout-2026-10-08T05-05-52-01a1b7c2-3d4e-7f50-8a61-92b3c4d5e6f7.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    events, _ = convert(source)
    results = {e["toolCallId"]: e for e in messages(events) if e["meta"].get("kind") == "tool_result"}
    assert results["call_failed"]["isError"] is True and results["call_failed"]["text"].startswith("Script failed")
    assert "isError" not in results["call_completed"]
