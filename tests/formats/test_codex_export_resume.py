"""What Codex reads when it resumes a rollout sessionport wrote: the size of
the context (``token_count.last_token_usage``) and the provider the thread is
pinned to (``session_meta.model_provider``)."""

from __future__ import annotations

import orjson

import sessionport
from conftest import FIXTURES, corpus_path


def export(path, **options) -> list[dict]:
    events = list(sessionport.read(str(path), **options))
    return [orjson.loads(line) for line in sessionport.dumps(events, "codex").splitlines()]


def last_count(lines: list[dict]) -> dict:
    return [x for x in lines if x["payload"].get("type") == "token_count"][-1]["payload"]["info"]


def test_last_token_usage_is_the_last_request_of_a_codex_rollout():
    # The original's last request used 62,523 tokens of its 272k window, the
    # session 2,306,201 in all: written as "last", the total made Codex
    # compact the whole history away before the first resumed turn.
    info = last_count(export(corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl")))
    assert info["total_token_usage"]["total_tokens"] == 2306201
    assert info["last_token_usage"] == {"input_tokens": 59925, "cached_input_tokens": 4096, "output_tokens": 2598, "reasoning_output_tokens": 1408, "total_tokens": 62523}


def test_last_token_usage_of_a_claude_code_session_is_its_last_api_message():
    path = corpus_path("claude-code", "04_cc-2.0.24_pomodoro_file-history-snapshot.jsonl")
    events = list(sessionport.read(str(path)))
    last_usage = [e["meta"]["usage"] for e in events if e["type"] == "message" and "usage" in e.get("meta", {})][-1]
    info = last_count(export(path))
    assert info["last_token_usage"] == last_usage
    assert info["total_token_usage"]["total_tokens"] > info["last_token_usage"]["total_tokens"]


def test_last_token_usage_is_zero_when_only_the_total_is_known(capsys):
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "openai-chat", "sessionId": "s1", "metadata": {}},
        {"type": "message", "role": "user", "text": "hi"},
        {"type": "message", "role": "assistant", "text": "hello"},
        {"type": "end", "usage": {"input_tokens": 900000, "output_tokens": 10}},
    ]
    lines = [orjson.loads(x) for x in sessionport.dumps(events, "codex").splitlines()]
    info = last_count(lines)
    assert info["total_token_usage"] == {"input_tokens": 900000, "output_tokens": 10, "total_tokens": 900010}
    assert info["last_token_usage"]["total_tokens"] == 0
    assert "last request is unknown" in capsys.readouterr().err


def test_no_provider_is_pinned_for_a_session_from_elsewhere():
    # Codex refuses to resume a thread under another provider than the one
    # its session_meta names ("Cannot change this thread's model provider").
    for path in (FIXTURES / "claude-code" / "session.jsonl", FIXTURES / "openai-chat" / "conversation.json", FIXTURES / "gemini-cli" / "session-2026-04-30T09-00-replay01.jsonl"):
        meta = export(path)[0]
        assert meta["type"] == "session_meta"
        assert "model_provider" not in meta["payload"], path.name


def test_a_codex_rollout_keeps_its_own_provider_or_none():
    assert export(FIXTURES / "codex" / "rollout-envelope.jsonl")[0]["payload"]["model_provider"] == "openai"
    # 0.36 rollouts name no provider: the export does not add one
    assert "model_provider" not in export(corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl"))[0]["payload"]


def test_a_compaction_leaves_codex_its_summary_and_the_prompts_before():
    # With an empty replacement_history, Codex resumes the thread with no
    # history at all, its summary included; without one it rebuilds the
    # context from the user messages before the compaction and its summary.
    lines = export(FIXTURES / "anthropic-messages" / "mcp-connector-container-compaction.json")
    compacted = [x for x in lines if x["type"] == "compacted"]
    assert [c["payload"] for c in compacted] == [{"message": "The user listed their open GitHub issues (#12 is open) and uploaded a CSV to plot."}]
