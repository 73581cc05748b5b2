"""Claude Code records first seen in real files of 1.0.95 and 2.1.2xx.

The fixtures copy the record shapes (keys, key order, nesting) of real
transcripts with synthetic texts: a 1.0.95 session resumed in the same file
(the last record written again under the new ``sessionId``), and the
session-state records, ``fallback`` block and TodoWrite reminder of 2.1.239,
and the ``cost-state`` record of 2.1.251 (its shape as a real 2.1.251 capture
is quoted, identifiers scrubbed, in ClaudeBuddy's C# tests
``TranscriptHandoffWindowTests``: ``{"type":"cost-state","sessionId",
"totalCostUSD","totalDuration","modelUsage":{model:{inputTokens,
outputTokens,costUSD}},"hasUnknownModelCost"}``, written at each exit),
and the ``usage`` of a 2026-09 transcript that reports the thinking share of
the output (``output_tokens_details.thinking_tokens``, the same object
repeated on the three lines of one API message, as records 29-31 of a real
transcript are quoted, content elided, in another project's usage tests).
Expectations are counted from the raw records with the standard ``json``
module, independently of the importer.
"""

from __future__ import annotations

import json
from collections import Counter

import orjson

from conftest import FIXTURES, run_cli, convert_to_portable as convert, jsonl_records as records

RESUMED = FIXTURES / "claude-code" / "session-1.0.95-resumed.jsonl"
RECORDS_239 = FIXTURES / "claude-code" / "session-2.1.239-records.jsonl"
COST_251 = FIXTURES / "claude-code" / "session-2.1.251-cost-state.jsonl"
THINKING = FIXTURES / "claude-code" / "session-2026-09-thinking-tokens.jsonl"
# A session brought from Claude Code on the web: its first line is a
# ``teleported-from`` record (no sessionId, uuid or timestamp), the shape of
# real 2.1.8x files; the messages after it are synthetic.
# An assistant line whose ``message`` is the raw response stream spread into
# an object, one key per character (``{"0": "e", "1": "v", …, "content": []}``),
# as real 2.1.81 files run through the Agent SDK hold; the stream is synthetic.
SPREAD = FIXTURES / "claude-code" / "session-2.1.81-spread-response-stream.jsonl"
TELEPORTED = FIXTURES / "claude-code" / "session-2.1.87-teleported.jsonl"


def test_a_record_repeated_by_a_resume_is_one_message():
    raw = records(RESUMED)
    uuids = Counter(r["uuid"] for r in raw)
    (repeated,) = [u for u, n in uuids.items() if n == 2]
    pair = [r for r in raw if r["uuid"] == repeated]
    assert pair[0]["sessionId"] != pair[1]["sessionId"] and pair[0]["message"] == pair[1]["message"]
    calls = [b["id"] for r in raw if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "tool_use"]

    events, stderr = convert(RESUMED)
    body = [e for e in events if e["type"] == "message"]
    results = [e["toolCallId"] for e in body if e.get("meta", {}).get("kind") == "tool_result"]
    assert results == calls  # each call answered once, in order
    assert len({e["id"] for e in body}) == len(body) == len(raw) - 1
    assert events[-1]["skipped"] == {"user (repeated on resume)": 1}
    assert events[-1]["counts"]["lines"] == len(raw)
    # what the resumed session said next hangs off the record it repeated
    answer = next(e for e in body if e["text"].startswith("The loader reads"))
    assert answer["parentId"] == repeated
    assert b"without a call" not in stderr


def test_the_repeat_is_left_out_of_every_format_and_of_inspect():
    inspect = run_cli("inspect", RESUMED, "--json")
    assert inspect.returncode == 0, inspect.stderr
    summary = json.loads(inspect.stdout)["sessions"][0]
    assert summary["byKind"]["tool_result"] == 2 and summary["byKind"]["tool_use"] == 2
    for target in ("claude-code", "codex", "gemini-cli"):
        result = run_cli("convert", RESUMED, "--to", target)
        assert result.returncode == 0, result.stderr
        assert b"without a call" not in result.stderr, target
    latest, _ = convert(RESUMED, "--branch", "latest")
    assert [e["toolCallId"] for e in latest if e.get("meta", {}).get("kind") == "tool_result"] == ["toolu_01TodoA", "toolu_01TodoB"]


def test_the_same_uuid_twice_in_one_session_is_not_taken_for_a_resume(tmp_path):
    # Only a new sessionId makes a repeat (a file whose uuids were blanked
    # out, or a hostile one, keeps every line).
    raw = records(RESUMED)
    for r in raw:
        r["sessionId"] = raw[0]["sessionId"]
    path = tmp_path / "one-session.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in raw))
    events, _ = convert(path)
    assert sum(e.get("meta", {}).get("kind") == "tool_result" for e in events) == 3
    assert "user (repeated on resume)" not in events[-1]["skipped"]


def test_state_records_of_2_1_239_are_counted_not_warned_about():
    raw = records(RECORDS_239)
    state = Counter(r["type"] for r in raw if r["type"] not in ("user", "assistant", "attachment", "system"))
    assert set(state) == {"bridge-session", "atis-latch", "frame-link", "relocated"}
    events, stderr = convert(RECORDS_239)
    end = events[-1]
    assert end["skipped"] == dict(state)
    assert "unknown" not in end and b"does not know" not in stderr
    strict = run_cli("convert", RECORDS_239, "--to", "portable-jsonl", "--strict")
    assert strict.returncode == 0, strict.stderr


def test_a_fallback_block_is_a_notice_naming_both_models():
    raw = records(RECORDS_239)
    (block,) = [b for r in raw if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "fallback"]
    answers = [b["text"] for r in raw if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "text"]
    events, _ = convert(RECORDS_239)
    body = [e for e in events if e["type"] == "message"]
    (notice,) = [e for e in body if e.get("meta", {}).get("notice") == "fallback"]
    assert notice["role"] == "system"
    assert notice["meta"]["fallbackFrom"] == block["from"]["model"] and notice["meta"]["fallbackTo"] == block["to"]["model"]
    assert block["from"]["model"] in notice["text"] and block["to"]["model"] in notice["text"]
    assert [e["text"] for e in body if e["role"] == "assistant"] == answers  # no "[fallback]" answer
    # Claude Code shows it as a notice of its own, not as words of the model
    written = run_cli("convert", RECORDS_239, "--to", "claude-code")
    assert written.returncode == 0, written.stderr
    lines = [json.loads(line) for line in written.stdout.splitlines()]
    (system,) = [r for r in lines if r["type"] == "system" and r["content"] == notice["text"]]
    assert system["subtype"] == "informational"
    assert all(b["type"] != "text" or "fallback" not in b["text"].lower() for r in lines if r["type"] == "assistant" for b in r["message"]["content"])


def test_a_todo_reminder_lists_its_items():
    raw = records(RECORDS_239)
    (attachment,) = [r["attachment"] for r in raw if r["type"] == "attachment"]
    events, _ = convert(RECORDS_239)
    (reminder,) = [e for e in events if e.get("meta", {}).get("injectedKind") == "todo_reminder"]
    assert reminder["text"].splitlines() == [f"- [{t['status']}] {t['content']}" for t in attachment["content"]]


def test_a_refusal_fallback_is_a_notice_and_keeps_what_it_names():
    raw = records(RECORDS_239)
    (record,) = [r for r in raw if r.get("subtype") == "model_refusal_fallback"]
    events, stderr = convert(RECORDS_239)
    (notice,) = [e for e in events if e.get("meta", {}).get("subtype") == "model_refusal_fallback"]
    assert notice["role"] == "system" and notice["text"] == record["content"]
    assert notice["meta"]["originalModel"] == record["originalModel"] and notice["meta"]["fallbackModel"] == record["fallbackModel"]
    assert notice["meta"]["retractedMessageIds"] == record["retractedMessageUuids"]
    assert notice["id"] == record["uuid"] and notice["parentId"] == record["parentUuid"]
    answer = next(e for e in events if e.get("text") == "Committed.")
    assert answer["parentId"] == record["uuid"]
    assert "system/model_refusal_fallback" not in events[-1]["skipped"]


def test_the_last_cost_state_is_kept_in_the_end_event_not_warned_about():
    raw = records(COST_251)
    costs = [r for r in raw if r["type"] == "cost-state"]
    assert len(costs) == 2
    events, stderr = convert(COST_251, "--strict")
    end = events[-1]
    last = {k: v for k, v in costs[-1].items() if k not in ("type", "sessionId")}
    assert end["metadata"]["costState"] == last
    assert end["skipped"] == {"cost-state": 2}
    assert "unknown" not in end and b"does not know" not in stderr
    body = [e for e in events if e["type"] == "message"]
    assert [e["text"] for e in body if e["role"] == "user"] == ["keep the retry cap at 3", "actually, keep going here"]


def test_cost_state_is_written_back_and_reads_back_the_same():
    raw = records(COST_251)
    written = run_cli("convert", COST_251, "--to", "claude-code")
    assert written.returncode == 0, written.stderr
    lines = [json.loads(line) for line in written.stdout.splitlines()]
    (cost,) = [r for r in lines if r["type"] == "cost-state"]
    assert lines[-1] is cost  # after the conversation, as Claude Code writes it on exit
    assert cost == {**raw[-1], "sessionId": lines[0]["sessionId"]}
    again = run_cli("convert", "-", "--from", "claude-code", "--to", "portable-jsonl", input=written.stdout)
    assert again.returncode == 0, again.stderr
    end = json.loads(again.stdout.splitlines()[-1])
    assert end["metadata"]["costState"]["totalCostUSD"] == raw[-1]["totalCostUSD"]


def test_thinking_tokens_reported_by_a_line_are_reasoning_output_once_per_api_message():
    raw = records(THINKING)
    last = {}
    for r in raw:
        if r["type"] == "assistant":
            last[r["message"]["id"]] = r["message"]["usage"]
    thinking = sum(u["output_tokens_details"]["thinking_tokens"] for u in last.values() if "output_tokens_details" in u)
    output = sum(u["output_tokens"] for u in last.values())
    events, _ = convert(THINKING)
    end = events[-1]
    assert end["usage"]["reasoning_output_tokens"] == thinking  # counted once, not once per line
    assert end["usage"]["output_tokens"] == output  # thinking stays inside the output
    per_message = [e["meta"]["usage"] for e in events if "usage" in (e.get("meta") or {})]
    assert len(per_message) == len(last)
    assert sum(u.get("reasoning_output_tokens", 0) for u in per_message) == thinking
    # a message whose usage has no breakdown keeps the shape it always had
    (plain,) = [u for u in per_message if "reasoning_output_tokens" not in u]
    assert plain["output_tokens"] == last["msg_011CevncNoThinking"]["output_tokens"]
    inspect = run_cli("inspect", THINKING, "--json")
    assert inspect.returncode == 0, inspect.stderr
    assert json.loads(inspect.stdout)["usage"]["reasoning_output_tokens"] == thinking


def test_without_a_breakdown_no_reasoning_count_appears():
    events, _ = convert(FIXTURES / "claude-code" / "session.jsonl")
    assert events[-1]["usage"]["output_tokens"] > 0
    for event in events:
        assert "reasoning_output_tokens" not in (event.get("usage") or {})
        assert "reasoning_output_tokens" not in ((event.get("meta") or {}).get("usage") or {})


LATE_TITLES = FIXTURES / "claude-code" / "session-2.1.243-late-titles.jsonl"


def test_a_rename_after_the_first_message_names_the_session_over_generated_titles():
    """Claude Code appends ``ai-title`` (generated) and ``custom-title`` (the
    user's /rename) records after the conversation has started, as real
    2.1.2xx files do (``{"type":"ai-title","sessionId","aiTitle"}``, quoted
    by several session viewers, which rank a custom title over the
    generated one); a later ``ai-title`` must not replace the rename."""
    raw = records(LATE_TITLES)
    late = [r for r in raw if r["type"] in ("ai-title", "custom-title")]
    (rename,) = [r["customTitle"] for r in late if r["type"] == "custom-title"]
    events, stderr = convert(LATE_TITLES, "--strict")
    assert events[0].get("title") is None  # nothing named it before the first message
    end = events[-1]
    assert end["title"] == rename
    assert end["metadata"]["summaries"] == [
        {"summary": r.get("aiTitle") or r.get("customTitle"), "type": r["type"]} for r in late
    ]
    assert b"does not know" not in stderr


def test_late_titles_are_written_back_and_read_back_the_same():
    late = [r for r in records(LATE_TITLES) if r["type"] in ("ai-title", "custom-title")]
    written = run_cli("convert", LATE_TITLES, "--to", "claude-code")
    assert written.returncode == 0, written.stderr
    lines = [json.loads(line) for line in written.stdout.splitlines()]
    back = [{k: v for k, v in r.items() if k != "sessionId"} for r in lines if r["type"] in ("ai-title", "custom-title")]
    assert back == [{k: v for k, v in r.items() if k != "sessionId"} for r in late]
    assert all(r["sessionId"] == lines[0]["sessionId"] for r in lines if r["type"] in ("ai-title", "custom-title"))
    again = run_cli("convert", "-", "--from", "claude-code", "--to", "portable-jsonl", input=written.stdout)
    assert json.loads(again.stdout.splitlines()[-1])["title"] == convert(LATE_TITLES)[0][-1]["title"]


def test_before_the_first_message_a_custom_title_outranks_a_later_generated_one():
    raw = records(LATE_TITLES)
    titles = [r for r in raw if r["type"] in ("ai-title", "custom-title")]
    body = [r for r in raw if r not in titles]
    reordered = "".join(json.dumps(r) + "\n" for r in titles + body)
    result = run_cli("convert", "-", "--from", "claude-code", "--to", "portable-jsonl", input=reordered.encode())
    assert result.returncode == 0, result.stderr
    session = json.loads(result.stdout.splitlines()[0])
    assert session["title"] == next(r["customTitle"] for r in titles if r["type"] == "custom-title")
    assert [s["type"] for s in session["metadata"]["summaries"]] == [r["type"] for r in titles]


def test_a_session_opening_with_teleported_from_is_read_as_claude_code():
    raw = records(TELEPORTED)
    assert raw[0]["type"] == "teleported-from" and "sessionId" not in raw[0]
    detected = run_cli("inspect", TELEPORTED, "--json")
    assert detected.returncode == 0, detected.stderr
    events, stderr = convert(TELEPORTED)
    body = [e for e in events if e["type"] == "message"]
    chain = [r for r in raw if r["type"] in ("user", "assistant")]
    assert [e["role"] for e in body] == [r["message"]["role"] for r in chain]
    assert events[0]["source"] == "claude-code" and events[0]["sessionId"] == chain[0]["sessionId"]
    assert events[-1]["skipped"] == {"teleported-from": 1}
    assert "unknown" not in events[-1] and b"does not know" not in stderr
    latest, _ = convert(TELEPORTED, "--branch", "latest")
    assert [e["role"] for e in latest if e["type"] == "message"] == ["user", "assistant"]


def test_a_teleported_from_record_alone_is_an_empty_session_not_an_unknown_format(tmp_path):
    path = tmp_path / "teleported-only.jsonl"
    path.write_bytes(TELEPORTED.read_bytes().splitlines(keepends=True)[0])
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert b"could not be recognised" not in result.stderr
    assert b"teleported-from" in result.stderr and b"Traceback" not in result.stderr


def _stream_events(record: dict) -> list[dict]:
    message = record["message"]
    text = "".join(message[str(i)] for i in range(len(message) - 1))
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]


def test_an_answer_saved_as_a_spread_response_stream_is_read_from_its_events():
    raw = records(SPREAD)
    (spread,) = [r for r in raw if r["type"] == "assistant"]
    assert spread["message"]["content"] == [] and "role" not in spread["message"]
    stream = _stream_events(spread)
    texts = "".join(e["delta"].get("text", "") for e in stream if e["type"] == "content_block_delta")
    thinking = "".join(e["delta"].get("thinking", "") for e in stream if e["type"] == "content_block_delta")
    (call,) = [e["content_block"] for e in stream if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"]
    arguments = json.loads("".join(e["delta"].get("partial_json", "") for e in stream if e["type"] == "content_block_delta"))
    events, stderr = convert(SPREAD)
    answer = [e for e in events if e["type"] == "message" and e["role"] in ("assistant", "tool")]
    assert [(e["meta"]["kind"], e["text"]) for e in answer[:2]] == [("thinking", thinking), ("text", texts)]
    (use,) = [e for e in answer if e["meta"]["kind"] == "tool_use"]
    assert (use["toolCallId"], use["toolName"], use["toolInput"]) == (call["id"], call["name"], arguments)
    assert all(e["meta"]["model"] == "claude-sonnet-4-6" for e in answer)
    end = events[-1]
    assert end["counts"]["responseStreamsRebuilt"] == 1
    assert end["usage"]["output_tokens"] == [e for e in stream if e["type"] == "message_delta"][0]["usage"]["output_tokens"]
    ids = {e["id"] for e in events if e["type"] == "message"}
    assert all(e.get("parentId") in ids for e in events if e["type"] == "message" and e.get("parentId"))
    latest, _ = convert(SPREAD, "--branch", "latest")
    assert len([e for e in latest if e["type"] == "message"]) == len([e for e in events if e["type"] == "message"])
