"""Codex CLI 0.171: the records of a rollout the real app wrote.

``fixtures/codex/rollout-0.171-scripted.jsonl`` holds lines 1-18 and 39-47
of a rollout Codex CLI 0.171.0 wrote (``codex exec``) in an offline run
against a scripted Responses API (its own texts, long strings shortened in
the middle, lists cut to two entries): the session meta, the developer and
context messages, ``world_state``, ``thread_settings_applied``, reasoning
items with summaries and encrypted content, ``exec_command`` with its
output, a ``web_search_call``, the UI's ``item_completed`` copies,
``token_usage_record`` and ``token_count``; every response item carries
``internal_chat_message_metadata_passthrough``.  Expectations are counted
from the raw records with the standard ``json`` module.
"""

from __future__ import annotations

import json
from collections import Counter

from conftest import FIXTURES, convert_to_portable, run_cli

ROLLOUT = FIXTURES / "codex" / "rollout-0.171-scripted.jsonl"


def records() -> list[dict]:
    return [json.loads(line) for line in ROLLOUT.read_text(encoding="utf-8").splitlines() if line.strip()]


def items(kind: str) -> list[dict]:
    return [r["payload"] for r in records() if r["type"] == "response_item" and r["payload"]["type"] == kind]


def convert() -> list[dict]:
    result = run_cli("convert", ROLLOUT, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_nothing_unknown_and_the_state_lines_are_counted():
    end = convert()[-1]
    assert "unknown" not in end
    raw = Counter(r["type"] if r["type"] != "event_msg" else "event_msg/" + r["payload"]["type"] for r in records())
    for key in ("world_state", "token_usage_record", "event_msg/item_completed", "event_msg/thread_settings_applied"):
        assert raw[key] >= 1
        assert end["skipped"][key] == raw[key]


def test_session_meta():
    session = convert()[0]
    meta = records()[0]["payload"]
    assert session["sessionId"] == meta["id"]
    assert session["cwd"] == meta["cwd"]
    assert session["metadata"]["cliVersion"] == "0.171.0"
    assert session["metadata"]["threadSource"] == meta["thread_source"]


def test_messages_reasoning_calls_and_outputs():
    events = [{**e, "meta": e.get("meta") or {}} for e in convert() if e.get("type") == "message"]
    users = [p["content"][0]["text"] for p in items("message") if p["role"] == "user"]
    assert [e["text"] for e in events if e["role"] == "user"] == users
    answers = [p["content"][0]["text"] for p in items("message") if p["role"] == "assistant"]
    assert [e["text"] for e in events if e["role"] == "assistant" and e["meta"].get("kind") != "thinking"] == answers
    assert [e["meta"]["phase"] for e in events if e["role"] == "assistant" and "phase" in e["meta"]] == [p["phase"] for p in items("message") if p["role"] == "assistant"]
    developer = ["\n".join(c["text"] for c in p["content"]) for p in items("message") if p["role"] == "developer"]
    assert [e["text"] for e in events if e["role"] == "system"] == developer
    summaries = [p["summary"][0]["text"] for p in items("reasoning")]
    thinking = [e for e in events if e["meta"].get("kind") == "thinking"]
    assert [e["text"] for e in thinking] == summaries
    calls = items("function_call")
    uses = [e for e in events if e["meta"].get("kind") == "tool_use"]
    assert [e["toolName"] for e in uses] == [c["name"] for c in calls] + ["web_search"]
    assert uses[0]["toolInput"] == json.loads(calls[0]["arguments"])
    assert uses[-1]["toolInput"] == items("web_search_call")[0]["action"]
    results = [e for e in events if e["meta"].get("kind") == "tool_result"]
    assert [e["toolCallId"] for e in results] == [o["call_id"] for o in items("function_call_output")] == [c["call_id"] for c in calls]


def test_usage_is_the_last_token_count():
    usage = convert()[-1]["usage"]
    last = [r["payload"]["info"]["total_token_usage"] for r in records() if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"][-1]
    for key in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"):
        assert usage[key] == last[key]


# Event types Codex's rollout policy names beside those it always writes
# (codex-rs/rollout/src/policy.rs); only their type tag is known here, so the
# lines carry nothing else.
POLICY_EVENTS = (
    "safety_buffering", "model_verification", "turn_moderation_metadata", "guardian_warning",
    "hook_started", "hook_completed", "request_permissions", "patch_apply_updated",
    "realtime_conversation_sdp", "realtime_conversation_realtime", "realtime_conversation_list_voices_response",
)


def test_the_other_policy_events_are_counted_without_a_warning():
    stamp = records()[-1]["timestamp"]
    extra = "".join(json.dumps({"timestamp": stamp, "type": "event_msg", "payload": {"type": name}}) + "\n" for name in POLICY_EVENTS)
    result = run_cli("convert", "-", "--from", "codex", "--to", "portable-jsonl", input=ROLLOUT.read_bytes() + extra.encode())
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for name in POLICY_EVENTS:
        assert events[-1]["skipped"][f"event_msg/{name}"] == 1
    assert [e for e in events if e["type"] == "message"] == [e for e in convert() if e["type"] == "message"]


def test_the_tokens_written_to_the_cache_are_kept_beside_the_usage(tmp_path):
    # 0.153+ token counts carry cache_write_input_tokens, which the usage
    # has no key for: the end's metadata keeps the session's total (as the
    # codex exec --json reader does), summed over a reset like the usage
    lines = records()
    counts = [r for r in lines if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"]
    assert all("cache_write_input_tokens" in r["payload"]["info"]["total_token_usage"] for r in counts)
    assert convert()[-1]["metadata"]["cacheWriteInputTokens"] == counts[-1]["payload"]["info"]["total_token_usage"]["cache_write_input_tokens"]
    first, last = counts[0], counts[-1]
    first["payload"]["info"]["total_token_usage"]["cache_write_input_tokens"] = 300
    last["payload"]["info"]["total_token_usage"] = {**first["payload"]["info"]["total_token_usage"], "total_tokens": 10, "cache_write_input_tokens": 40}
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    end = convert_to_portable(path)[0][-1]
    assert end["metadata"]["cacheWriteInputTokens"] == 340  # the two segments
    assert "cache_write_input_tokens" not in end["usage"] and "cache_write_input_tokens" not in end["lastRequestUsage"]


def test_a_codex_export_writes_the_cache_writes_back_in_the_total():
    import sessionport
    out = [json.loads(x) for x in sessionport.dumps(sessionport.read(str(ROLLOUT)), "codex").splitlines()]
    (count,) = [r for r in out if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"]
    last = [r for r in records() if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"][-1]
    assert count["payload"]["info"]["total_token_usage"] == last["payload"]["info"]["total_token_usage"]
    assert list(count["payload"]["info"]["total_token_usage"]) == list(last["payload"]["info"]["total_token_usage"])
