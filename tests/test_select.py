"""Choosing sessions: select_sessions, --session/--title on convert and to,
and the one-session guard of exporters."""

from __future__ import annotations

import orjson
import pytest
from click.testing import CliRunner

from sessionport.api import one_session_only
from sessionport.cli import cli
from sessionport.errors import UsageError
from sessionport.model import message_event, session_event
from sessionport.registry import Exporter, get_registry
from sessionport.pipeline.select import select_sessions

from conftest import FIXTURES, run_cli

EXPORT = FIXTURES / "chatgpt-export" / "conversations.json"


def stream() -> list[dict]:
    return [
        message_event("user", "before any session"),
        session_event("test", sessionId="abc-1", title="Tax return 2024"),
        message_event("user", "one"),
        {"type": "end", "counts": {"messages": 1}},
        session_event("test", sessionId="abd-2", title="Trip to Lisbon"),
        message_event("user", "two"),
        session_event("test", title="No id here"),
        message_event("user", "three"),
        session_event("test", sessionId="xyz-3"),
        message_event("user", "four"),
    ]


def texts(events) -> list[str]:
    return [e["text"] for e in events if e["type"] == "message"]


def test_nothing_selected_passes_everything():
    assert list(select_sessions(stream())) == stream()


def test_id_prefix_keeps_the_whole_session_with_its_end_event():
    events = list(select_sessions(stream(), session_prefixes=["abc"]))
    assert [e["type"] for e in events] == ["session", "message", "end"]
    assert texts(events) == ["one"]
    assert texts(select_sessions(stream(), session_prefixes=["ab"])) == ["one", "two"]
    assert texts(select_sessions(stream(), session_prefixes=["abc-1", "xyz"])) == ["one", "four"]


def test_title_regex_searches_and_needs_a_title():
    assert texts(select_sessions(stream(), title_patterns=["Lisbon"])) == ["two"]
    assert texts(select_sessions(stream(), title_patterns=["^T"])) == ["one", "two"]
    assert texts(select_sessions(stream(), title_patterns=["(?i)tax"])) == ["one"]
    assert texts(select_sessions(stream(), title_patterns=["tax"])) == []
    assert texts(select_sessions(stream(), title_patterns=[".*"])) == ["one", "two", "three"]


def test_id_and_title_must_both_match():
    assert texts(select_sessions(stream(), session_prefixes=["ab"], title_patterns=["Trip"])) == ["two"]


def test_bad_regex_fails_before_reading():
    def never():
        raise AssertionError("the stream must not be read")
        yield

    with pytest.raises(UsageError, match="not a valid regular expression"):
        select_sessions(never(), title_patterns=["("])


def test_require_match_names_the_selection():
    with pytest.raises(UsageError, match="no session matches --session 'nope'.*4 session"):
        list(select_sessions(stream(), session_prefixes=["nope"], require_match=True))
    assert list(select_sessions(stream(), session_prefixes=["nope"])) == []


def test_selection_is_lazy():
    pulled = []

    def source():
        for event in stream():
            pulled.append(event)
            yield event

    events = select_sessions(source(), session_prefixes=["abc"])
    assert next(events)["sessionId"] == "abc-1"
    assert len(pulled) == 2


def test_one_session_formats_refuse_a_second_session_with_a_helpful_message():
    exporter = Exporter(name="single", description="one session", write=lambda events, out, ctx: None)
    events = one_session_only(stream()[1:], exporter)
    assert next(events)["type"] == "session"
    with pytest.raises(UsageError) as info:
        list(events)
    message = str(info.value)
    assert "single" in message and "several" in message
    assert "--session" in message and "sessionport split" in message


def test_convert_session_option_picks_one_conversation(tmp_path):
    out = tmp_path / "one.jsonl"
    result = CliRunner().invoke(cli, ["convert", str(EXPORT), "--to", "portable-jsonl", "--session", "c0ffee00-0000-4000-8000-000000000002", "-o", str(out)])
    assert result.exit_code == 0, result.output
    events = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert [e["title"] for e in events if e["type"] == "session"] == ["World Cup"]
    assert events[-1]["type"] == "end"


def test_to_title_option_and_no_match(tmp_path):
    out = tmp_path / "two.json"
    result = CliRunner().invoke(cli, ["to", "portable", str(EXPORT), "--title", "^Sales", "-o", str(out)])
    assert result.exit_code == 0, result.output
    documents = orjson.loads(out.read_bytes())
    assert [d["sessionId"][-1] for d in documents] == ["1", "3"]
    result = run_cli("convert", str(EXPORT), "--to", "portable-jsonl", "--session", "nope")
    assert result.returncode == 2
    assert b"no session matches --session 'nope'" in result.stderr and b"3 session" in result.stderr
    assert result.stdout == b""
    result = CliRunner().invoke(cli, ["convert", str(EXPORT), "--to", "portable-jsonl", "--title", "["])
    assert result.exit_code == 2 and "--title '['" in result.stderr


def _one_session_format() -> str | None:
    registry = get_registry()
    for name in ("openai-chat", "claude-code", "codex", "anthropic-messages"):
        info = registry.formats.get(name)
        if info and info.exporter and not info.exporter.multi_session:
            return name
    return None


def test_cli_one_session_format_given_an_export_suggests_session_or_split(tmp_path):
    name = _one_session_format()
    if name is None:
        pytest.skip("no one-session exporter (openai-chat, claude-code, codex, anthropic-messages) is registered yet")
    out = tmp_path / "out"
    result = run_cli("convert", str(EXPORT), "--to", name, "-o", str(out))
    assert result.returncode == 2
    assert b"--session" in result.stderr and b"split" in result.stderr
    assert not out.exists(), "a refused conversion must not leave a file"
    result = CliRunner().invoke(cli, ["convert", str(EXPORT), "--to", name, "--session", "c0ffee00-0000-4000-8000-000000000003", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0


def test_session_in_one_of_several_inputs_is_not_an_error(tmp_path):
    conversations = orjson.loads(EXPORT.read_bytes())
    first, second = tmp_path / "conversations-000.json", tmp_path / "conversations-001.json"
    first.write_bytes(orjson.dumps(conversations[:1]))
    second.write_bytes(orjson.dumps(conversations[1:]))
    result = run_cli("convert", str(first), str(second), "--to", "portable-jsonl", "--session", "c0ffee00-0000-4000-8000-000000000002")
    assert result.returncode == 0, result.stderr
    sessions = [orjson.loads(line) for line in result.stdout.splitlines() if b'"type":"session"' in line]
    assert [s["title"] for s in sessions] == ["World Cup"]
