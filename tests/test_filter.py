"""The ``filter`` stage: each selection, their combination, and streaming."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone

import orjson
import pytest

import sessionport
from sessionport.errors import UsageError
from sessionport.registry import get_registry
from sessionport.stages.filter import build, keep_with_results, select_messages
from sessionport.timeparse import parse_event_time, parse_user_time

from conftest import FIXTURES, ROOT, corpus_files, requires_corpus, run_cli

SAMPLE = FIXTURES / "filter" / "two-sessions.jsonl"


def events():
    return list(sessionport.read(str(SAMPLE)))


def run(**options):
    return list(build(**options)(iter(events())))


def ids(out):
    return [e.get("id") or e.get("toolCallId") or e["type"] for e in out if e["type"] == "message"]


def types(out):
    return [e["type"] for e in out]


def test_no_options_keeps_everything():
    assert run() == events()


def test_role_is_or_within_and_across_options():
    out = run(role=("user", "assistant"))
    assert ids(out) == ["m1", "m2", "m7", "n1", "n4"]
    out = run(role=("user", "assistant"), grep=("tests",))
    assert ids(out) == ["n1", "n4"]


def test_kind_and_no_thinking():
    assert ids(run(kind=("thinking",))) == ["m2"]
    assert "m2" not in ids(run(no_thinking=True))


def test_no_injected():
    assert "m0" not in ids(run(no_injected=True))
    assert "m0" in ids(run())


def test_tool_glob_keeps_calls_and_their_results_without_names():
    out = run(tool=("ba*",))
    assert [(e.get("toolName"), e.get("toolCallId")) for e in out if e["type"] == "message"] == [
        ("Bash", "toolu_01"),
        (None, "toolu_01"),
    ]
    assert ids(run(tool=("shell", "read"))) == ["m5", "m6", "call_9", "call_9"]


def test_grep_regex_case_and_tool_input():
    assert ids(run(grep=("todo",))) == []
    assert ids(run(grep=("todo",), ignore_case=True)) == ["m1", "m3", "m4"]
    # tool calls are found by their arguments even when the text is empty
    assert ids(run(grep=(r"parser\.py",))) == ["m1", "m3", "m5"]


def test_bad_grep_is_a_usage_error():
    with pytest.raises(UsageError):
        build(grep=("(",))


def test_since_until_iso_and_missing_timestamps():
    out = run(since="2026-02-01T00:00:00Z")
    assert ids(out) == ["n1", "call_9", "call_9", "n4"]
    out = run(until="2026-01-05T10:00:01Z")
    assert ids(out) == ["m0", "m1"]
    # a message whose time is unknown cannot be shown to be in range
    stream = [{"type": "session", "schema": "sessionport/v1", "source": "x", "metadata": {}}, {"type": "message", "role": "user", "text": "no time"}]
    assert ids(build(since="2000-01-01Z")(iter(stream))) == []


def test_relative_times():
    now = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    assert parse_user_time("2h", now=now) == now - timedelta(hours=2)
    assert parse_user_time("3d", now=now) == now - timedelta(days=3)
    assert parse_user_time("90m ago", now=now) == now - timedelta(minutes=90)
    assert parse_user_time("2026-01-05T10:00:00+02:00") == datetime(2026, 1, 5, 8, tzinfo=timezone.utc)
    with pytest.raises(ValueError):
        parse_user_time("yesterday-ish")
    with pytest.raises(UsageError):
        build(since="soon")


def test_event_time_forms():
    assert parse_event_time("2026-01-05T10:00:00.123456789Z") == datetime(2026, 1, 5, 10, 0, 0, 123456, tzinfo=timezone.utc)
    assert parse_event_time(1767607200) == datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    assert parse_event_time(1767607200000) == datetime(2026, 1, 5, 10, tzinfo=timezone.utc)
    assert parse_event_time("not a time") is None
    assert parse_event_time(None) is None


def test_session_prefix_keeps_whole_sessions():
    out = run(session=("bbbb",))
    assert types(out) == ["session", "message", "message", "message", "message", "end"]
    assert out[0]["sessionId"].startswith("bbbb")
    assert run(session=("zzzz",)) == []


def test_empty_sessions_kept_unless_drop_empty():
    out = run(grep=("CRLF",))
    assert types(out) == ["session", "message", "message", "end", "session", "end"]
    out = run(grep=("CRLF",), drop_empty=True)
    assert types(out) == ["session", "message", "message", "end"]


def test_invert():
    everything = ids(run())
    kept = ids(run(role=("tool",)))
    dropped = ids(run(role=("tool",), invert=True))
    assert sorted(kept + dropped) == sorted(everything)
    assert not set(kept) & set(dropped) - {"toolu_01", "toolu_02", "call_9"}


def test_head_and_tail():
    out = run(head=3)
    assert ids(out) == ["m0", "m1", "m2"]
    assert types(out) == ["session", "message", "message", "message"]
    out = run(tail=2)
    assert ids(out) == ["call_9", "n4"]
    assert types(out) == ["session", "message", "message", "end"]
    out = run(tail=8)  # spans both sessions, each with its session and end
    assert types(out).count("session") == 2 and types(out).count("end") == 2
    assert run(head=0) == []
    with pytest.raises(UsageError):
        build(head=1, tail=1)


def test_with_results_keeps_pairs_in_order():
    # the result matches, the call does not: the call is brought back, before it
    out = run(grep=("passed",), with_results=True)
    assert [(e.get("meta") or {}).get("kind") for e in out if e["type"] == "message"] == ["tool_use", "tool_result"]
    # the call matches: its result comes along
    out = run(grep=("grep -n",), with_results=True)
    assert [e["id"] for e in out if e["type"] == "message"] == ["m3", "m4"]
    # without the flag only the matching half is kept
    assert len(ids(run(grep=("passed",)))) == 1


def test_with_results_holds_order_across_parallel_calls():
    def call(i):
        return {"type": "message", "role": "tool", "text": f"call {i}", "toolName": "X", "toolCallId": f"c{i}", "meta": {"kind": "tool_use"}}

    def result(i, text):
        return {"type": "message", "role": "tool", "text": text, "toolCallId": f"c{i}", "meta": {"kind": "tool_result"}}

    stream = [call(1), call(2), {"type": "message", "role": "assistant", "text": "keep me"}, result(2, "keep me too"), result(1, "no")]
    out = list(keep_with_results(iter(stream), lambda e: "keep" in e["text"]))
    assert [e["text"] for e in out] == ["call 2", "keep me", "keep me too"]


def test_with_results_pending_is_bounded():
    stream = [{"type": "message", "role": "tool", "text": "", "toolCallId": f"c{i}", "meta": {"kind": "tool_use"}} for i in range(50)]
    stream.append({"type": "message", "role": "user", "text": "keep"})
    out = list(keep_with_results(iter(stream), lambda e: e["text"] == "keep", max_pending=5))
    assert [e["text"] for e in out] == ["keep"]


def test_select_messages_is_still_usable_directly():
    out = list(select_messages(iter(events()), lambda e: e.get("role") == "user", drop_empty=True))
    assert ids(out) == ["m1", "n1"]


def test_cli_standalone_and_chain_give_identical_bytes(tmp_path):
    # real processes: an in-process CliRunner call leaves click's help
    # option cached on the commands, which changes the generated CLI reference
    a_path, b_path = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a = run_cli("filter", str(SAMPLE), "--role", "tool", "--tool", "bash", "--drop-empty", "-o", str(a_path))
    b = run_cli("chain", "-i", str(SAMPLE), "filter", "--role", "tool", "--tool", "bash", "--drop-empty", "to", "-o", str(b_path), "portable-jsonl")
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    assert a_path.read_bytes() == b_path.read_bytes()
    lines = [orjson.loads(x) for x in a_path.read_bytes().splitlines()]
    assert [e["type"] for e in lines] == ["session", "message", "message", "end"]


def test_cli_usage_errors_exit_2():
    proc = run_cli("filter", str(SAMPLE), "--since", "whenever")
    assert proc.returncode == 2
    assert b"--since" in proc.stderr
    proc = run_cli("filter", str(SAMPLE), "--head", "1", "--tail", "1")
    assert proc.returncode == 2


def test_cli_to_format_writes_directly():
    proc = run_cli("filter", str(SAMPLE), "--role", "user", "--to", "portable")
    assert proc.returncode == 0, proc.stderr
    doc = orjson.loads(proc.stdout)
    assert [[m["text"] for m in session["messages"]] for session in doc] == [
        ["Please fix the TODO in parser.py"],
        ["run the tests"],
    ]


def _endless_wire_writer(pipe, limit: int, counter: dict) -> None:
    session = orjson.dumps({"type": "session", "schema": "sessionport/v1", "source": "bench", "sessionId": "s", "metadata": {}}) + b"\n"
    line = orjson.dumps({"type": "message", "role": "user", "text": "x" * 200}) + b"\n"
    chunk = line * 500
    try:
        pipe.write(session)
        counter["bytes"] += len(session)
        while counter["bytes"] < limit:
            pipe.write(chunk)
            counter["bytes"] += len(chunk)
        counter["finished"] = True
        pipe.close()
    except (BrokenPipeError, OSError):
        counter["broken"] = True


def test_head_stops_reading_a_huge_stdin():
    limit = 1 << 30  # 1 GiB offered; a reader that read it all would never get there in time
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessionport", "filter", "--head", "10"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    counter = {"bytes": 0, "finished": False, "broken": False}
    writer = threading.Thread(target=_endless_wire_writer, args=(proc.stdin, limit, counter), daemon=True)
    writer.start()
    out = proc.stdout.read()
    proc.wait(timeout=60)
    writer.join(timeout=60)
    assert proc.returncode == 0, proc.stderr.read()
    lines = out.splitlines()
    assert len(lines) == 11  # the session and 10 messages
    assert counter["broken"] and not counter["finished"]
    assert counter["bytes"] < 64 << 20  # stopped within a few buffers, far from 1 GiB


def _has_importer(name: str) -> bool:
    return name in get_registry().importer_names()


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("claude-code", "0[1-4]_*.jsonl"), ids=lambda p: p.name)
def test_selections_on_real_claude_code_sessions(path):
    if not _has_importer("claude-code"):
        pytest.skip("the claude-code importer is not installed")
    everything = list(sessionport.read(str(path)))
    messages = [e for e in everything if e["type"] == "message"]

    def kept(**options):
        return [e for e in build(**options)(iter(everything)) if e["type"] == "message"]

    assert kept(role=("tool",)) == [m for m in messages if m["role"] == "tool"]
    names = {m.get("toolName") for m in messages if m.get("toolName")}
    for name in sorted(names)[:3]:
        calls = [m for m in kept(tool=(name,)) if (m.get("meta") or {}).get("kind") == "tool_use"]
        assert calls == [m for m in messages if m.get("toolName") == name and (m.get("meta") or {}).get("kind") == "tool_use"]
    import re

    pattern = re.compile("error", re.I)
    expected = [m for m in messages if pattern.search(m.get("text") or "") or (m.get("toolInput") is not None and pattern.search(orjson.dumps(m["toolInput"]).decode()))]
    assert kept(grep=("error",), ignore_case=True) == expected
