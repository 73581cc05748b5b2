"""The claude-code exporter: well-formed Claude Code JSONL that reads back the
same through our importer and is accepted by an independent reader
(claude-code-log, a test dependency)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

import sessionport
from sessionport.cli import cli

from conftest import FIXTURES, corpus_files, requires_corpus, run_cli

CORPUS_FILES = corpus_files("claude-code", "*.jsonl")
CONVERSATIONS = [p for p in CORPUS_FILES if p.stat().st_size > 2000]
SAMPLE = FIXTURES / "claude-code" / "session.jsonl"
PROJECT_MAIN = FIXTURES / "claude-code" / "project" / "5a1c2e3f-0000-4000-8000-000000000002.jsonl"
GENERIC = FIXTURES / "portable-jsonl" / "session.jsonl"


def run(*args: str) -> None:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, f"{args}: exit {result.exit_code}: {result.stderr} {result.exception!r}"


def records(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def flat(events: list[dict]) -> list[tuple]:
    return [(e["role"], e["text"], e.get("toolCallId")) for e in events if e["type"] == "message"]


def kinds(events: list[dict]) -> list[str]:
    return [e.get("meta", {}).get("kind", "text") for e in events if e["type"] == "message"]


def check_transcript(path: Path) -> list[dict]:
    """The structural promises of an exported file; returns its records."""
    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.splitlines()
    seen: set[str] = set()
    out = []
    for line in lines:
        record = orjson.loads(line)
        assert orjson.dumps(record) == line, "compact JSON, no spaces after ':' or ','"
        out.append(record)
        if record["type"] == "attachment":
            # context Claude Code sends again on resume sits in the chain, as in its own files
            assert record["parentUuid"] is None or record["parentUuid"] in seen, "parentUuid names an earlier line"
            seen.add(record["uuid"])
            continue
        if record["type"] not in ("user", "assistant", "system"):
            continue
        for key in ("sessionId", "cwd", "timestamp", "version", "uuid", "userType"):
            assert isinstance(record[key], str), f"{key} missing in {line[:120]!r}"
        assert record["parentUuid"] is None or record["parentUuid"] in seen, "parentUuid names an earlier line"
        assert record["uuid"] not in seen
        seen.add(record["uuid"])
        if record["type"] == "assistant":
            assert len(record["message"]["content"]) == 1 and record["message"]["id"]
        content = record.get("message", {}).get("content")
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            assert record["type"] == "user"
    return out


def test_fixture_export_is_well_formed_and_groups_blocks_by_message_id(tmp_path):
    out = tmp_path / "out.jsonl"
    run("convert", str(SAMPLE), "--to", "claude-code", "-o", str(out))
    lines = check_transcript(out)
    assert lines[0] == {"type": "summary", "summary": "Listing a demo folder", "leafUuid": "00000000-0000-4000-8000-000000000099"}
    assistant = [r for r in lines if r["type"] == "assistant"]
    assert [r["message"]["id"] for r in assistant] == ["msg_demo_A"] * 3 + ["msg_demo_B"]
    assert [r["message"]["content"][0]["type"] for r in assistant] == ["thinking", "text", "tool_use", "text"]
    assert assistant[0]["message"]["content"][0]["signature"] == "c2lnbmF0dXJl"
    assert assistant[2]["message"]["usage"] == {"input_tokens": 10, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000, "output_tokens": 30}
    # Reading it back gives the same events (the skipped records aside).
    again = list(sessionport.read(str(out)))
    original = list(sessionport.read(str(SAMPLE)))
    assert [e for e in again if e["type"] == "message"] == [e for e in original if e["type"] == "message"]
    assert again[-1]["usage"] == original[-1]["usage"]


def test_a_stream_from_another_tool_gets_ids_models_and_pairs(tmp_path):
    out = tmp_path / "out.jsonl"
    run("convert", str(GENERIC), "--to", "claude-code", "-o", str(out))
    lines = check_transcript(out)
    calls = [r["message"]["content"][0] for r in lines if r["type"] == "assistant" and r["message"]["content"][0]["type"] == "tool_use"]
    results = [r["message"]["content"][0] for r in lines if r["type"] == "user" and isinstance(r["message"]["content"], list)]
    assert [c["id"] for c in calls] == [r["tool_use_id"] for r in results] == ["toolu_01", "toolu_02"]
    assert results[0]["is_error"] is True
    # A tool call's text is a rendering of its input, made again on import.
    calls_text = lambda evs: [(r, "" if k == "tool_use" else t, c) for (r, t, c), k in zip(flat(evs), kinds(evs))]
    assert calls_text(list(sessionport.read(str(out)))) == calls_text(list(sessionport.read(str(GENERIC))))


def test_events_without_ids_are_given_a_chain_and_tool_call_ids():
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "other", "metadata": {}},
        {"type": "message", "role": "user", "text": "run it"},
        {"type": "message", "role": "tool", "text": "", "toolName": "Bash", "toolInput": {"command": "make"}, "meta": {"kind": "tool_use"}},
        {"type": "message", "role": "tool", "text": "ok", "meta": {"kind": "tool_result"}},
        {"type": "message", "role": "system", "text": "note to self"},
        {"type": "message", "role": "assistant", "text": "done", "meta": {"kind": "text"}},
    ]
    data = sessionport.dumps(events, "claude-code")
    lines = [orjson.loads(l) for l in data.splitlines()]
    call = lines[1]["message"]["content"][0]
    assert lines[2]["message"]["content"][0]["tool_use_id"] == call["id"]
    assert [l["parentUuid"] for l in lines] == [None] + [l["uuid"] for l in lines[:-1]]
    back = sessionport.loads(data, format="claude-code")
    assert [(e["role"], e["text"]) for e in back if e["type"] == "message"] == [
        ("user", "run it"), ("tool", "Bash: make"), ("tool", "ok"), ("system", "note to self"), ("assistant", "done")]


def test_two_unrelated_sessions_are_refused_with_advice():
    events = list(sessionport.read(str(SAMPLE)))
    with pytest.raises(sessionport.errors.UsageError, match="--session"):
        sessionport.dumps(events + events, "claude-code")


def test_subagent_sessions_are_written_inline_as_sidechains(tmp_path):
    out = tmp_path / "out.jsonl"
    run("convert", str(PROJECT_MAIN), "--to", "claude-code", "-o", str(out))
    lines = check_transcript(out)
    side = [r for r in lines if r.get("isSidechain")]
    assert len(side) == 4 and {r["agentId"] for r in side} == {"abc1234"}
    assert {r["sessionId"] for r in lines} == {"5a1c2e3f-0000-4000-8000-000000000002"}
    assert flat(sessionport.read(str(out))) == flat(sessionport.read(str(PROJECT_MAIN)))


@requires_corpus
@pytest.mark.parametrize("path", CONVERSATIONS, ids=lambda p: p.name)
def test_round_trip_through_portable_keeps_role_text_and_tool_call_ids(path, tmp_path):
    first, transcript, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    run("convert", str(path), "--to", "portable-jsonl", "-o", str(first))
    run("convert", str(first), "--to", "claude-code", "-o", str(transcript))
    check_transcript(transcript)
    run("convert", str(transcript), "--to", "portable-jsonl", "-o", str(second))
    before, after = records(first), records(second)
    assert flat(after) == flat(before)
    usage = lambda evs: [sum(e["usage"]["total_tokens"] for e in evs if e["type"] == "end" and "usage" in e)]
    assert usage(after) == usage(before)


# -- an independent reader ----------------------------------------------------

PROMPT_KINDS = ("UserTextMessage", "SlashCommandMessage", "UserSlashCommandMessage", "BashInputMessage")


def rendered_counts(path: Path, tmp_path: Path) -> Counter:
    """What claude-code-log renders from a transcript, by message class."""
    converter = pytest.importorskip("claude_code_log.converter", reason="claude-code-log is not installed (test extra: pip install claude-code-log)")
    renderer = pytest.importorskip("claude_code_log.renderer")
    folder = tmp_path / f"render-{path.stem}-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    copy = folder / path.name
    shutil.copy(path, copy)  # alone: no sibling agent files are picked up
    entries = converter.load_transcript(copy, silent=True)
    _, _, ctx = renderer.generate_template_messages(entries)
    return Counter(type(m.content).__name__ for m in ctx.messages if m is not None)


@requires_corpus
@pytest.mark.parametrize("path", CONVERSATIONS, ids=lambda p: p.name)
def test_claude_code_log_renders_the_same_prompts_and_tool_calls(path, tmp_path):
    pytest.importorskip("claude_code_log", reason="claude-code-log is not installed (test extra: pip install claude-code-log)")
    out = tmp_path / path.name
    run("convert", str(path), "--to", "claude-code", "--no-subagents", "-o", str(out))
    original, exported = rendered_counts(path, tmp_path), rendered_counts(out, tmp_path)
    stream = list(sessionport.read(str(path), options={"no_subagents": True}))
    tool_uses = sum(1 for e in stream if e.get("meta", {}).get("kind") == "tool_use")
    assert exported["ToolUseMessage"] == original["ToolUseMessage"] == tool_uses
    assert exported["ToolResultMessage"] == original["ToolResultMessage"]
    assert sum(exported[k] for k in PROMPT_KINDS) == sum(original[k] for k in PROMPT_KINDS)
    assert exported["UserTextMessage"] == original["UserTextMessage"]
    assert exported["AssistantTextMessage"] == original["AssistantTextMessage"]


def test_another_apps_compaction_is_a_boundary_and_the_summary_claude_code_resumes_from(tmp_path):
    events = list(sessionport.read(str(FIXTURES / "anthropic-messages" / "mcp-connector-container-compaction.json")))
    written = sessionport.dumps(events, "claude-code")
    lines = [orjson.loads(x) for x in written.splitlines()]
    at = next(n for n, x in enumerate(lines) if x.get("subtype") == "compact_boundary")
    boundary, summary = lines[at], lines[at + 1]
    assert boundary["content"] == "Conversation compacted"
    assert summary["type"] == "user" and summary["isCompactSummary"] is True and summary["parentUuid"] == boundary["uuid"]
    assert summary["message"]["content"] == "The user listed their open GitHub issues (#12 is open) and uploaded a CSV to plot."
    assert lines[at + 2]["message"]["content"][0]["text"] == "Here is the plot."
    # read back: the boundary and the summary, as Claude Code's own compactions read
    path = tmp_path / "s.jsonl"
    path.write_bytes(written if isinstance(written, bytes) else written.encode())
    kinds = [(e["role"], (e.get("meta") or {}).get("kind")) for e in sessionport.read(str(path)) if e["type"] == "message"]
    assert kinds.index(("system", "compaction")) + 1 == kinds.index(("user", "summary"))


def test_claude_codes_own_compaction_is_written_back_as_it_was():
    boundary = {"type": "message", "role": "system", "text": "Conversation compacted", "meta": {"kind": "compaction", "subtype": "compact_boundary"}}
    events = [{"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "s1", "metadata": {}}, {"type": "message", "role": "user", "text": "hi"}, boundary, {"type": "message", "role": "user", "text": "This session is being continued.", "meta": {"kind": "summary", "injected": True}}]
    lines = [orjson.loads(x) for x in sessionport.dumps(events, "claude-code").splitlines()]
    assert [x.get("subtype") or x["type"] for x in lines if x["type"] in ("system", "user")] == ["user", "compact_boundary", "user"]
    assert sum(1 for x in lines if x.get("isCompactSummary")) == 1


def test_the_thinking_share_of_the_output_comes_back(tmp_path):
    """2.1.2xx write the thinking tokens of an answer in
    ``usage.output_tokens_details``: a session written back keeps them (the
    reasoning total of ``inspect`` is the same read back)."""
    source = FIXTURES / "claude-code" / "session-2026-09-thinking-tokens.jsonl"
    target = tmp_path / "back.jsonl"
    done = run_cli("convert", source, "--to", "claude-code", "-o", target)
    assert done.returncode == 0, done.stderr
    usage = [json.loads(run_cli("inspect", "--json", path).stdout)["sessions"][0]["usage"] for path in (source, target)]
    assert usage[0]["reasoning_output_tokens"] > 0
    assert usage[1] == usage[0]
    written = [json.loads(line) for line in target.read_text().splitlines()]
    details = [r["message"]["usage"].get("output_tokens_details") for r in written if r.get("type") == "assistant" and "usage" in r.get("message", {})]
    assert any(d and d["thinking_tokens"] > 0 for d in details)


@pytest.mark.parametrize("name, key", [
    ("session-2.1.283-api-errors.jsonl", "quotaLimits"),  # the limit a usage-limit notice is about
    ("session-2.1.222-denied-interrupted.jsonl", "interruptedMessageId"),  # the answer an interruption cut off
])
def test_what_a_notice_or_an_interruption_names_comes_back(tmp_path, name, key):
    source = FIXTURES / "claude-code" / name
    original = [json.loads(line) for line in source.read_text().splitlines() if key in line]
    target = tmp_path / "back.jsonl"
    done = run_cli("convert", source, "--to", "claude-code", "-o", target)
    assert done.returncode == 0, done.stderr
    written = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r[key] for r in written if key in r] == [r[key] for r in original]
    assert original
