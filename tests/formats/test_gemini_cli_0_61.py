"""Gemini CLI 0.61: a session resumed, as the real app wrote it.

``fixtures/gemini-cli/session-2026-12-01T19-59-d75a8486.jsonl`` was written
by Gemini CLI 0.61.0 in an offline run against a scripted model API (its own
texts): a turn with a thought, a shell call and a failed file read, then a
second turn after ``--resume``.  On resume 0.61 writes the header again, a
``$set.messages`` with the session context alone, and a ``$set.messages``
with the whole history in API form: model messages as parts (thought parts,
functionCall), each call answered by a ``<id>_response`` user message, the
user records that held the same results kept after it, and no ``tokens`` or
``model``.  Expectations are replayed from the raw records with the
standard library.
"""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

SESSION = FIXTURES / "gemini-cli" / "session-2026-12-01T19-59-d75a8486.jsonl"


def lines() -> list[dict]:
    return [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines() if line.strip()]


def final_list() -> list[dict]:
    messages: dict[str, dict] = {}
    for record in lines():
        if "$set" in record:
            if "messages" in record["$set"]:
                messages = {m["id"]: m for m in record["$set"]["messages"]}
        elif "id" in record:
            messages[record["id"]] = record
    return list(messages.values())


def convert() -> list[dict]:
    result = run_cli("convert", SESSION, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_the_resumed_history_is_in_api_form_with_repeated_results():
    final = final_list()
    responses = [p["functionResponse"]["id"] for m in final if m["type"] == "user" for p in m["content"] if "functionResponse" in p]
    # what the app itself keeps: every result twice
    assert len(responses) == 2 * len(set(responses)) > 0
    assert any(m["id"].endswith("_response") for m in final)


def test_each_call_has_one_result():
    events = convert()
    final = final_list()
    calls = [p["functionCall"]["id"] for m in final if m["type"] == "gemini" and isinstance(m["content"], list) for p in m["content"] if "functionCall" in p]
    uses = [e for e in events if e.get("meta", {}).get("kind") == "tool_use"]
    results = [e for e in events if e.get("meta", {}).get("kind") == "tool_result"]
    assert [e["toolCallId"] for e in uses] == calls
    assert [e["toolCallId"] for e in results] == calls
    failed = {p["functionResponse"]["id"] for m in final if m["type"] == "user" for p in m["content"] if "error" in p.get("functionResponse", {}).get("response", {})}
    assert failed
    assert {e["toolCallId"] for e in results if e.get("isError")} == failed


def test_usage_and_models_survive_the_rewrite():
    events = convert()
    tokens: dict[str, dict] = {}
    models: dict[str, str] = {}
    for record in lines():
        if record.get("type") == "gemini":
            if "tokens" in record:
                tokens[record["id"]] = record["tokens"]
            if "model" in record:
                models[record["id"]] = record["model"]
    kept = [m["id"] for m in final_list() if m["type"] == "gemini"]
    assert set(kept) == set(tokens)  # every model message of the file is in the final list
    usage = events[-1]["usage"]
    assert usage["total_tokens"] == sum(tokens[i]["total"] for i in kept)
    assert usage["output_tokens"] == sum(tokens[i]["output"] + tokens[i]["thoughts"] for i in kept)
    assert usage["cached_input_tokens"] == sum(tokens[i]["cached"] for i in kept)
    with_model = {e["id"].split("#")[0] for e in events if e.get("type") == "message" and e.get("meta", {}).get("model")}
    assert with_model == set(models)


def test_texts_and_thoughts_follow_the_final_list():
    events = convert()
    final = final_list()
    messages = [e for e in events if e.get("type") == "message"]
    users = ["".join(p.get("text", "") for p in m["content"]) for m in final if m["type"] == "user" and any("text" in p for p in m["content"])]
    assert [e["text"] for e in messages if e["role"] == "user"] == users
    answers = [m["content"] if isinstance(m["content"], str) else "".join(p["text"] for p in m["content"] if "text" in p and not p.get("thought")) for m in final if m["type"] == "gemini"]
    assert [e["text"] for e in messages if e["role"] == "assistant" and e["meta"]["kind"] == "text" and e["text"]] == [a for a in answers if a]
    assert len([e for e in messages if e["meta"].get("kind") == "thinking"]) == 2


def test_written_back_as_gemini_cli_the_usage_of_answers_made_of_calls_is_kept(tmp_path):
    out = tmp_path / "session-back.jsonl"
    result = run_cli("convert", SESSION, "--to", "gemini-cli", "-o", out)
    assert result.returncode == 0, result.stderr
    again = run_cli("convert", out, "--to", "portable-jsonl")
    assert again.returncode == 0, again.stderr
    back = [json.loads(line) for line in again.stdout.splitlines()]
    first = convert()
    assert back[-1]["usage"] == first[-1]["usage"]
    kinds = lambda events: [(e["role"], e.get("meta", {}).get("kind"), e.get("toolCallId")) for e in events if e.get("type") == "message"]
    assert kinds(back) == kinds(first)


def test_timestamps_are_those_of_the_records_the_rewrite_replaced():
    events = [e for e in convert() if e.get("type") == "message"]
    first_seen: dict[str, str] = {}
    for record in lines():
        if "id" in record and "$set" not in record:
            first_seen.setdefault(record["id"], record["timestamp"])
    for record in lines():
        for message in record.get("$set", {}).get("messages", []):
            first_seen.setdefault(message["id"], message["timestamp"])
    rewritten = {m["id"] for r in lines() for m in r.get("$set", {}).get("messages", [])}
    checked = 0
    for event in events:
        base = event["id"].split("#")[0]
        if base in rewritten and not base.endswith("_response"):
            assert event["timestamp"] == first_seen[base], event["id"]
            checked += 1
        elif base.endswith("_response"):
            assert event["timestamp"] == first_seen[base[: -len("_response")]]
            checked += 1
    assert checked >= 6
    stamps = [e["timestamp"] for e in events]
    assert stamps == sorted(stamps)
