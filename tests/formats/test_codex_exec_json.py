"""codex: the event stream of ``codex exec --json``, as Codex 0.171.0 printed
it offline against a scripted Responses API (``fixtures/codex-exec/
exec-json-0.171-scripted.jsonl``, apart from the rollouts; the item types are those of
``codex-rs/exec/src/exec_events.rs``): detected, each completed item read
as the messages it holds, the earlier states counted, nothing unknown."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, detected_format, run_cli

SAMPLE = FIXTURES / "codex-exec" / "exec-json-0.171-scripted.jsonl"


def _events(path=SAMPLE) -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append)))
    assert warnings == []
    return events


def test_the_stream_is_detected_as_codex():
    assert detected_format(SAMPLE) == "codex"


def test_items_become_messages_and_calls_pair_with_their_results():
    events = _events()
    assert events[0]["sessionId"] == "01a233c6-68bc-7771-a6e4-44b997509f22"
    messages = [e for e in events if e["type"] == "message"]
    tools = [(m["meta"]["kind"], m.get("toolName"), m["toolCallId"]) for m in messages if m["role"] == "tool"]
    assert tools == [
        ("tool_use", "shell", "item_3"), ("tool_result", "shell", "item_3"),
        ("tool_use", "shell", "item_5"), ("tool_result", "shell", "item_5"),
        ("tool_use", "apply_patch", "item_6"), ("tool_result", "apply_patch", "item_6"),
        ("tool_use", "shell", "item_7"), ("tool_result", "shell", "item_7"),
        ("tool_use", "spawn_agent", "item_9"), ("tool_result", "spawn_agent", "item_9"),
        ("tool_use", "web_search", "ws_script_6"),
    ]
    failed = next(m for m in messages if m.get("toolCallId") == "item_7" and m["meta"]["kind"] == "tool_result")
    assert failed["isError"] is True and failed["meta"]["exitCode"] == 3 and failed["text"] == "failing\n"
    assert messages[0]["role"] == "system" and messages[0]["isError"] is True
    assert [m["text"] for m in messages if m["role"] == "assistant" and m["meta"]["kind"] == "text"] == ["Running a command first.", "All steps done."]


def test_the_end_sums_the_turn_usage_and_counts_the_earlier_states():
    end = _events()[-1]
    assert end["usage"] == {
        "input_tokens": 6015, "cached_input_tokens": 1200, "output_tokens": 300,
        "reasoning_output_tokens": 72, "total_tokens": 6315,
    }
    assert end["metadata"] == {"cacheWriteInputTokens": 0}
    assert end["skipped"] == {"turn.started": 1, "item.started": 6}
    assert "unknown" not in end


def test_mcp_calls_todo_lists_and_failed_turns(tmp_path):
    path = tmp_path / "run.jsonl"
    lines = [
        {"type": "thread.started", "thread_id": "t-1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "mcp_tool_call", "server": "docs", "tool": "search", "arguments": {"q": "x"},
                                            "result": {"content": [{"type": "text", "text": "found"}], "structured_content": None}, "error": None, "status": "completed"}},
        {"type": "item.completed", "item": {"id": "item_1", "type": "todo_list", "items": [{"text": "read", "completed": True}, {"text": "fix", "completed": False}]}},
        {"type": "turn.failed", "error": {"message": "stream disconnected"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    messages = [e for e in _events(path) if e["type"] == "message"]
    assert [(m["role"], m["text"]) for m in messages] == [
        ("tool", '{"q":"x"}'), ("tool", "found"), ("assistant", "- [x] read\n- [ ] fix"), ("system", "stream disconnected"),
    ]
    assert messages[0]["meta"]["mcpServer"] == "docs" and messages[1]["toolCallId"] == "item_0"


def test_the_cli_converts_it_without_warnings(tmp_path):
    out = tmp_path / "run.md"
    done = run_cli("convert", str(SAMPLE), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert "All steps done." in out.read_text()


def test_the_stream_is_never_read_in_pieces():
    from sessionport.formats.codex import split

    with open(SAMPLE, "rb") as handle:
        assert "codex exec --json" in split.refusal(handle)


def test_turn_usage_is_the_threads_running_total(tmp_path):
    """``turn.completed.usage`` is the thread's running total (codex-rs exec
    ``usage_from_last_total`` reads ``ThreadTokenUsage.total``, restored when
    ``codex exec resume`` goes on with a thread; openai/codex#17539): three
    runs of one thread reporting 1200, 2400 and 3600 input tokens used 3600,
    not 7200.  Another thread's total adds to it; a total below the one
    before (not restored) starts a new segment.  Shapes from the 0.159.0
    stream quoted by another project (three exec processes on one thread)."""
    def turn(inp, out, cached=0):
        return {"type": "turn.completed", "usage": {"input_tokens": inp, "cached_input_tokens": cached, "cache_write_input_tokens": 0, "output_tokens": out, "reasoning_output_tokens": 0}}
    one, two = "01a0edb0-b845-7982-bf2a-ace833e9dc14", "01a0edb1-0000-7000-8000-000000000002"
    records = [
        {"type": "thread.started", "thread_id": one}, {"type": "turn.started"}, turn(1200, 50, 200),
        {"type": "thread.started", "thread_id": one}, {"type": "turn.started"}, turn(2400, 100, 400),
        {"type": "thread.started", "thread_id": one}, {"type": "turn.started"}, turn(3600, 150, 600),
        {"type": "thread.started", "thread_id": two}, {"type": "turn.started"}, turn(1000, 10),
        {"type": "thread.started", "thread_id": two}, {"type": "turn.started"}, turn(500, 5),
    ]
    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    end = _events(path)[-1]
    assert end["usage"] == {
        "input_tokens": 3600 + 1000 + 500, "cached_input_tokens": 600, "output_tokens": 150 + 10 + 5,
        "reasoning_output_tokens": 0, "total_tokens": 3600 + 1000 + 500 + 150 + 10 + 5,
    }
    assert end["metadata"]["cacheWriteInputTokens"] == 0


def test_retry_notices_and_the_repeated_failure_are_counted(tmp_path):
    """A request that fails five times: ``codex exec --json`` prints an
    ``error`` per retry (``Reconnecting... 1/5 (…)``, the rollout's
    ``stream_error`` notices), then the error that ended the turn and a
    ``turn.failed`` repeating it (the 0.159.0 stream of an HTTP 401, quoted by
    another project).  One error message is written; the rest are counted.
    A failure of its own (another text) is still written."""
    fatal = "unexpected status 401 Unauthorized: Incorrect API key provided."
    lines = [{"type": "thread.started", "thread_id": "01a0edab-1cc6-78a2-8504-35669b2da72e"}, {"type": "turn.started"}]
    lines += [{"type": "error", "message": f"Reconnecting... {n}/5 ({fatal})"} for n in range(1, 6)]
    lines += [{"type": "error", "message": fatal}, {"type": "turn.failed", "error": {"message": fatal}}]
    lines += [{"type": "turn.started"}, {"type": "error", "message": "first"}, {"type": "turn.failed", "error": {"message": "second"}}]
    path = tmp_path / "failed.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    events = _events(path)
    messages = [e for e in events if e["type"] == "message"]
    assert [(m["text"], m["meta"]["codexEvent"]) for m in messages] == [(fatal, "error"), ("first", "error"), ("second", "turn.failed")]
    assert all(m["isError"] for m in messages)
    skipped = events[-1]["skipped"]
    assert skipped["error (retry notice)"] == 5 and skipped["turn.failed (repeats the error)"] == 1
