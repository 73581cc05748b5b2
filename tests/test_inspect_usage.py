"""``inspect --json`` token usage, checked against counts made independently
from the raw files."""

from __future__ import annotations

import json

import orjson
import pytest
from click.testing import CliRunner

from conftest import corpus_files, requires_corpus
from sessionport.cli import cli

CODEX = [p for p in corpus_files("codex") if p.suffix == ".jsonl"]
CLAUDE = [p for p in corpus_files("claude-code", "*.jsonl") if "subagents" not in p.parts and not p.name.startswith("agent-")]


def inspect_json(*args) -> dict:
    result = CliRunner().invoke(cli, ["inspect", "--json", *map(str, args)])
    assert result.exit_code == 0, result.output
    return orjson.loads(result.stdout)


def codex_totals(path) -> list[int]:
    totals = []
    for line in path.read_bytes().splitlines():
        record = json.loads(line)
        payload = record.get("payload") if isinstance(record.get("payload"), dict) else record
        if payload.get("type") == "token_count" and isinstance(payload.get("info"), dict):
            total = payload["info"].get("total_token_usage") or {}
            if isinstance(total.get("total_tokens"), int):
                totals.append(total["total_tokens"])
    return totals


@requires_corpus
@pytest.mark.parametrize("path", CODEX, ids=[p.name for p in CODEX])
def test_codex_usage_is_the_last_cumulative_total(path):
    totals = codex_totals(path)
    report = inspect_json(path)
    assert set(report["usage"]) >= {"input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"}
    if not totals:
        assert report["usage"]["total_tokens"] == 0
        return
    if any(b < a for a, b in zip(totals, totals[1:])):
        pytest.skip("this rollout's totals reset; the simple rule does not apply")
    if "resumed" in path.name:
        pytest.skip("a resumed rollout's copied history is counted separately (counts.inheritedTotalTokens)")
    assert report["usage"]["total_tokens"] == totals[-1]
    assert report["sessions"][0]["usage"]["total_tokens"] == totals[-1]


def claude_usage(path) -> int:
    """input + cache creation + cache read + output, the last value per message.id."""
    last: dict[str, dict] = {}
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        if record.get("type") == "assistant" and isinstance(message, dict) and message.get("id") and isinstance(message.get("usage"), dict):
            last[message["id"]] = message["usage"]
    return sum(u.get("input_tokens", 0) + u.get("cache_creation_input_tokens", 0) + u.get("cache_read_input_tokens", 0) + u.get("output_tokens", 0) for u in last.values())


@requires_corpus
@pytest.mark.parametrize("path", CLAUDE, ids=[p.name for p in CLAUDE])
def test_claude_code_usage_counts_each_message_once(path):
    expected = claude_usage(path)
    report = inspect_json(path, "--no-subagents")
    sessions = report["sessions"]
    if not sessions:
        assert expected == 0
        return
    assert sessions[0]["usage"]["total_tokens"] == expected
    assert report["usage"]["total_tokens"] == expected


@requires_corpus
def test_subagent_usage_is_reported_separately():
    path = next(p for p in CLAUDE if "2.1.114" in str(p))
    report = inspect_json(path)
    main, sub = report["sessions"][0], report["sessions"][1]
    assert sub.get("parentSessionId") == main["sessionId"]
    assert main["usage"]["total_tokens"] == claude_usage(path)
    agent = next(path.with_suffix("").joinpath("subagents").glob("agent-*.jsonl"))
    assert sub["usage"]["total_tokens"] == claude_usage(agent)
    assert report["usage"]["total_tokens"] == main["usage"]["total_tokens"] + sub["usage"]["total_tokens"]
