"""A session that started subagents, moved to a format that holds one session.

Claude Code and Gemini CLI sessions bring their subagents' transcripts with
them (found beside the session file).  Codex, Gemini CLI and the provider
formats hold one session per file: the subagents are left out there, counted
and named, and the main conversation is written whole, exactly as with
``--no-subagents``.  A stream of two unrelated sessions is still refused.
"""

from __future__ import annotations

import orjson
import pytest

from conftest import FIXTURES, run_cli

CLAUDE = FIXTURES / "claude-code" / "project" / "5a1c2e3f-0000-4000-8000-000000000002.jsonl"
GEMINI = FIXTURES / "gemini-cli-subagents" / "chats" / "session-2026-12-01T20-10-5a1c9e2f.jsonl"
ONE_SESSION_FORMATS = ("codex", "gemini-cli", "openai-responses", "anthropic-messages")


@pytest.mark.parametrize("source", [CLAUDE, GEMINI], ids=["claude-code", "gemini-cli"])
@pytest.mark.parametrize("to", ONE_SESSION_FORMATS)
def test_the_main_session_is_written_as_without_its_subagents(source, to, tmp_path):
    out, bare = tmp_path / "with", tmp_path / "bare"
    result = run_cli("convert", source, "--to", to, "-o", out)
    assert result.returncode == 0, result.stderr.decode()
    err = result.stderr.decode()
    assert "1 subagent session(s) (4 message(s)) left out" in err
    assert "sessionport split" in err and "--no-subagents" in err
    plain = run_cli("convert", source, "--to", to, "--no-subagents", "-o", bare)
    assert plain.returncode == 0 and "subagent" not in plain.stderr.decode()
    assert out.read_bytes() == bare.read_bytes()


def test_the_report_counts_the_subagents_and_only_the_messages_written(tmp_path):
    report = tmp_path / "report.json"
    result = run_cli("convert", CLAUDE, "--to", "codex", "-o", tmp_path / "out.jsonl", "--json-report", report)
    assert result.returncode == 0, result.stderr.decode()
    doc = orjson.loads(report.read_bytes())
    assert "subagent sessions" in doc["cannotCarry"]
    entry = doc["inputs"][0]
    assert entry["messagesRead"] == 8 and entry["messages"] == 4
    assert entry["losses"]["subagent sessions"] == 1
    assert doc["totals"]["losses"]["subagent sessions"] == 1 and doc["totals"]["messages"] == 4
    # the note never counts the subagents' messages as written: the file holds 4
    written = [orjson.loads(line) for line in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert sum(1 for r in written if r.get("type") == "response_item" and r["payload"].get("type") == "message") <= 4


def test_a_batch_of_a_project_folder_into_a_directory_converts_every_session(tmp_path):
    result = run_cli("convert", CLAUDE.parent, "--to", "codex", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr.decode()
    assert [p.name for p in (tmp_path / "out").iterdir()] == [CLAUDE.name]
    assert "1 of 1 input(s) converted" in result.stderr.decode()


def test_a_format_that_holds_subagents_keeps_them(tmp_path):
    result = run_cli("convert", CLAUDE, "--to", "claude-code", "-o", tmp_path / "out.jsonl")
    assert result.returncode == 0 and "left out" not in result.stderr.decode()
    lines = [orjson.loads(line) for line in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    assert any(line.get("isSidechain") for line in lines)


def _stream(*sessions: dict) -> bytes:
    lines = []
    for session in sessions:
        lines.append({"type": "session", "schema": "sessionport/v1", "source": "portable", **session})
        lines.append({"type": "message", "role": "user", "text": f"hello from {session['sessionId']}"})
        lines.append({"type": "end"})
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def test_two_unrelated_sessions_are_still_refused(tmp_path):
    stream = _stream({"sessionId": "a"}, {"sessionId": "b"})
    result = run_cli("to", "codex", "-o", tmp_path / "out.jsonl", input=stream)
    assert result.returncode == 2
    assert "holds one session and this stream has several" in result.stderr.decode()
    assert not (tmp_path / "out.jsonl").exists()


def test_a_subagent_of_another_session_is_refused_and_nested_subagents_are_left_out(tmp_path):
    foreign = _stream({"sessionId": "a"}, {"sessionId": "s", "metadata": {"parentSessionId": "elsewhere"}})
    result = run_cli("to", "codex", "-o", tmp_path / "x.jsonl", input=foreign)
    assert result.returncode == 2 and not (tmp_path / "x.jsonl").exists()
    nested = _stream(
        {"sessionId": "a"},
        {"sessionId": "s1", "metadata": {"parentSessionId": "a"}},
        {"sessionId": "s2", "metadata": {"parentSessionId": "s1"}},
    )
    result = run_cli("to", "codex", "-o", tmp_path / "y.jsonl", input=nested)
    assert result.returncode == 0, result.stderr.decode()
    assert "2 subagent session(s) (2 message(s)) left out" in result.stderr.decode()
    text = (tmp_path / "y.jsonl").read_bytes()
    assert b"hello from a" in text and b"hello from s1" not in text and b"hello from s2" not in text
