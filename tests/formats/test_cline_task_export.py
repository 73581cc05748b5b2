"""A session exported to Cline as a task it can open.

Cline keeps a task's conversation in ``api_conversation_history.json`` as
``JSON.stringify`` of its ``ClineStorageMessage[]`` and reads it back with
``JSON.parse`` (cline/cline ``src/core/storage/disk.ts``,
``getSavedApiConversationHistory`` / ``saveApiConversationHistory``): a
plain array of ``{role: "user" | "assistant", content}`` messages with the
keys Cline adds (``ts``, ``modelInfo``, ``metrics``, ``id``;
``src/shared/messages/content.ts``), and on blocks ``call_id`` and
``reasoning_details``.  A session read from such a task is written so
again; ``--anthropic-shape cline-task`` writes any session so, ``request``
the Messages API request document."""

from __future__ import annotations

import io
import json

import orjson

import sessionport
from sessionport.context import WriteContext

from conftest import FIXTURES, run_cli

CLINE = FIXTURES / "anthropic-messages" / "api_conversation_history.json"
REQUEST = FIXTURES / "anthropic-messages" / "request.json"
ROO = FIXTURES / "roo-code-tasks" / "019a8f3e-5c21-7d40-9b6e-2f1c0a7e4d93" / "api_conversation_history.json"
MESSAGE_KEYS = {"role", "content", "ts", "modelInfo", "metrics", "id"}


def _export(source, **options) -> tuple[object, list[str]]:
    warnings: list[str] = []
    out = io.BytesIO()
    sessionport.write_events(sessionport.read(str(source)), out, format="anthropic-messages", options=options,
                             context=WriteContext(on_warning=warnings.append))
    return orjson.loads(out.getvalue()), warnings


def _conversation(events) -> list[tuple]:
    """Roles, texts, calls and results of the message events."""
    found = []
    for e in events:
        if e["type"] != "message":
            continue
        kind = (e.get("meta") or {}).get("kind")
        if kind == "tool_use":
            found.append(("call", e.get("toolCallId"), e.get("toolName"), json.dumps(e.get("toolInput"), sort_keys=True)))
        elif kind == "tool_result":
            found.append(("result", e.get("toolCallId"), e["text"], e.get("isError")))
        else:
            found.append((e["role"], kind, e["text"]))
    return found


def _is_cline_history(written) -> None:
    assert isinstance(written, list) and written
    for message in written:
        assert isinstance(message, dict) and set(message) <= MESSAGE_KEYS
        assert message["role"] in ("user", "assistant")
        assert isinstance(message["content"], list) and all(isinstance(b, dict) and isinstance(b.get("type"), str) for b in message["content"])


def test_a_cline_task_is_written_back_as_the_plain_array_cline_reads():
    written, warnings = _export(CLINE)
    _is_cline_history(written)
    source = json.loads(CLINE.read_text())
    assert [m["role"] for m in written] == [m["role"] for m in source]
    for key in ("ts", "modelInfo", "metrics"):
        assert [m.get(key) for m in written] == [m.get(key) for m in source]
    # the keys Cline puts on blocks come back on them
    assert written[1]["content"] == source[1]["content"]
    assert written[3]["content"] == source[3]["content"]
    # nothing is lost: the times and metrics are on the messages
    assert warnings == []


def test_the_written_task_reads_back_as_the_same_conversation(tmp_path):
    written, _ = _export(CLINE)
    task = tmp_path / "1769053680585" / "api_conversation_history.json"
    task.parent.mkdir()
    task.write_bytes(orjson.dumps(written))
    back = list(sessionport.read(str(task)))
    assert back[0]["metadata"]["client"] == "cline"
    assert _conversation(back) == _conversation(sessionport.read(str(CLINE)))
    # and writing it again gives the same file
    again, _ = _export(task)
    assert again == written


def test_a_request_document_becomes_a_cline_task_on_request_and_its_system_prompt_is_counted(tmp_path):
    out = tmp_path / "1769053680585" / "api_conversation_history.json"
    out.parent.mkdir()
    done = run_cli("convert", REQUEST, "--to", "anthropic-messages", "--anthropic-shape", "cline-task", "-o", out)
    assert done.returncode == 0, done.stderr
    written = json.loads(out.read_text())
    _is_cline_history(written)
    stderr = done.stderr.decode()
    assert "system prompt(s) or message(s) left out" in stderr and "Cline builds its own system prompt" in stderr
    # the conversation without its system prompt
    source = [c for c in _conversation(sessionport.read(str(REQUEST))) if c[0] != "system"]
    assert _conversation(sessionport.read(str(out))) == source


def test_without_the_option_another_source_is_still_a_request_and_request_is_kept_for_a_cline_task():
    document, _ = _export(REQUEST)
    assert isinstance(document, dict) and "system" in document and isinstance(document["messages"], list)
    document, _ = _export(CLINE, anthropic_shape="request")
    assert isinstance(document, dict) and [m["role"] for m in document["messages"]] == [m["role"] for m in json.loads(CLINE.read_text())]
    assert "ts" not in document["messages"][0]


def test_a_roo_code_history_becomes_a_cline_task_on_request(tmp_path):
    written, warnings = _export(ROO, anthropic_shape="cline-task")
    _is_cline_history(written)
    blocks = [b for m in written for b in m["content"]]
    calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
    assert calls == [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"] == ["toolu_01A", "toolu_01B", "toolu_01C", "toolu_01D"]
    assert all(type(m.get("ts")) is int for m in written)


def test_a_session_from_elsewhere_gets_ts_from_its_times():
    events = [
        {"type": "session", "id": "s1", "source": "claude-code", "metadata": {}},
        {"type": "message", "role": "system", "text": "You are a coding agent.", "timestamp": "2026-01-22T10:47:59Z", "meta": {"kind": "text"}},
        {"type": "message", "role": "user", "text": "hi", "timestamp": "2026-01-22T10:48:00Z", "meta": {"kind": "text"}},
        {"type": "message", "role": "assistant", "text": "hello", "timestamp": "2026-01-22T10:48:01.500Z",
         "meta": {"kind": "text", "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}},
        {"type": "message", "role": "system", "text": "A later instruction.", "meta": {"kind": "text"}},
        {"type": "end"},
    ]
    warnings: list[str] = []
    out = io.BytesIO()
    sessionport.write_events(events, out, format="anthropic-messages", options={"anthropic_shape": "cline-task"},
                             context=WriteContext(on_warning=warnings.append))
    written = orjson.loads(out.getvalue())
    assert written == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}], "ts": 1769078880000},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}], "ts": 1769078881500},
    ]
    assert any(w.startswith("2 system prompt(s) or message(s) left out") for w in warnings)
    # the times are there (each message's ts), the usage is not (Cline's metrics are kept only as read)
    assert any("the token usage of 1 message(s)" in w and "timestamps" not in w for w in warnings)


def test_an_empty_stream_is_an_empty_array():
    assert orjson.loads(sessionport.dumps([], format="anthropic-messages", anthropic_shape="cline-task")) == []


def test_the_array_is_written_as_the_turns_complete():
    """One turn in memory: the first messages are out before the stream ends."""
    out = io.BytesIO()
    seen: list[bytes] = []

    def events():
        for event in sessionport.read(str(CLINE)):
            if event["type"] == "end":
                seen.append(out.getvalue())
            yield event

    sessionport.write_events(events(), out, format="anthropic-messages", options={"anthropic_shape": "cline-task"})
    assert seen and seen[0].startswith(b"[") and seen[0].count(b'"role"') >= 3
