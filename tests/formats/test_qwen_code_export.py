"""The qwen-code exporter: records Qwen Code 0.24.4 resumes.

What Qwen Code needs to resume a file (read from its 0.24.4 bundle,
``SessionService`` and ``SessionApiHistoryAccumulator``; the app itself
judges every corpus file's export in ``tests/conformance``): a session id
that is a UUID of version 1 to 5, a first record whose ``cwd`` is the
project's directory, one ``parentUuid`` chain, and each record's
``message`` a Gemini ``Content``.  These tests hold the writer to that and
to what sessionport reads back."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from sessionport import api

from conftest import CORPUS, FIXTURES, requires_corpus, run_cli

QWEN_FIXTURES = sorted([*(FIXTURES / "qwen-code").glob("*.jsonl"), *(FIXTURES / "qwen-code-0.24").glob("*.jsonl"), *(FIXTURES / "qwen-code-0.14").glob("*.jsonl")])
CLAUDE = FIXTURES / "claude-code" / "session-2.1.332-scripted.jsonl"
# Qwen Code 0.24.4's own test of a session id it resumes (session-id.ts)
QWEN_SESSION_ID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.I)


def export(path, tmp_path, *extra: str) -> tuple[list[dict], str]:
    out = tmp_path / "out.jsonl"
    result = run_cli("convert", path, "--to", "qwen-code", "-o", out, *extra)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()], result.stderr.decode()


def _kind(event: dict) -> str:
    kind = (event.get("meta") or {}).get("kind")
    return kind if kind in ("tool_use", "tool_result", "thinking") else "text"


def messages(path) -> list[tuple]:
    return [
        (e["role"], e.get("text"), e.get("toolCallId"), e.get("toolName"), e.get("isError"), _kind(e))
        for e in api.read(str(path))
        if e["type"] == "message" and not (e.get("meta") or {}).get("notice") and e["role"] != "system"
    ]


def assert_resumable_shape(records: list[dict]) -> None:
    assert records
    sid = records[0]["sessionId"]
    assert QWEN_SESSION_ID.match(sid), sid
    parent = None
    for record in records:
        assert record["sessionId"] == sid
        assert record["parentUuid"] == parent  # one chain, in file order
        parent = record["uuid"]
        assert record["type"] in ("user", "assistant", "tool_result")
        message = record["message"]
        assert message["role"] == ("model" if record["type"] == "assistant" else "user")
        assert message["parts"]
        if record["type"] == "tool_result":
            (part,) = message["parts"]  # one result per record, as Qwen Code records them
            response = part["functionResponse"]["response"]
            assert list(response) in (["output"], ["error"])
            assert record["toolCallResult"]["callId"] == part["functionResponse"]["id"]
            assert record["toolCallResult"]["status"] in (("error", "cancelled") if "error" in response else ("success",))
    assert len({r["uuid"] for r in records}) == len(records)


@pytest.mark.parametrize("path", QWEN_FIXTURES, ids=lambda p: p.parent.name + "/" + p.name)
def test_a_qwen_code_session_written_back_reads_the_same(path, tmp_path):
    records, _ = export(path, tmp_path)
    assert_resumable_shape(records)
    assert messages(tmp_path / "out.jsonl") == messages(path)


def _results(path) -> dict:
    out = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") == "tool_result":
            result = record["toolCallResult"]
            out[result["callId"]] = (result["status"], result.get("resultDisplay"))
    return out


@pytest.mark.parametrize("path", QWEN_FIXTURES, ids=lambda p: p.parent.name + "/" + p.name)
def test_each_result_keeps_what_the_ui_showed_and_its_status(path, tmp_path):
    export(path, tmp_path)
    assert _results(tmp_path / "out.jsonl") == _results(path)


def test_a_todo_list_shown_and_a_cancelled_call_come_back(tmp_path):
    """Qwen Code shows a result apart from what the model got (a summary
    line, the todo list object): written back as it was, with a cancelled
    call's status."""
    source = FIXTURES / "qwen-code" / "9ac9a7c3-51d2-4e0b-8f3a-2ce24fc677d6.jsonl"
    records = [json.loads(line) for line in source.read_text().splitlines()]
    results = [r for r in records if r.get("type") == "tool_result"]
    todos = {"type": "todo_list", "todos": [{"id": "1", "content": "read hello.txt", "status": "completed"}]}
    results[0]["toolCallResult"]["resultDisplay"] = todos
    results[1]["toolCallResult"]["status"] = "cancelled"
    changed = tmp_path / "9ac9a7c3-51d2-4e0b-8f3a-2ce24fc677d6.jsonl"
    changed.write_text("".join(json.dumps(r) + "\n" for r in records))
    export(changed, tmp_path)
    back = _results(tmp_path / "out.jsonl")
    assert back[results[0]["toolCallResult"]["callId"]] == ("success", todos)
    assert back[results[1]["toolCallResult"]["callId"]] == ("cancelled", "File not found")


def test_calls_take_qwen_codes_tool_names_and_results_follow_their_calls(tmp_path):
    records, stderr = export(CLAUDE, tmp_path)
    assert_resumable_shape(records)
    assert "Bash -> run_shell_command" in stderr
    open_calls: set[str] = set()
    for record in records:
        for part in record["message"]["parts"]:
            if "functionCall" in part:
                assert part["functionCall"]["name"] not in ("Bash", "Read", "Edit", "Write")
                open_calls.add(part["functionCall"]["id"])
            if "functionResponse" in part:
                open_calls.remove(part["functionResponse"]["id"])  # raises when the call did not come first
    source = [m for m in messages(CLAUDE) if m[5] in ("tool_use", "tool_result")]
    back = [m for m in messages(tmp_path / "out.jsonl") if m[5] in ("tool_use", "tool_result")]
    assert [m[2] for m in back] == [m[2] for m in source]
    assert [m[1] for m in back if m[5] == "tool_result"] == [m[1] for m in source if m[5] == "tool_result"]


def test_keep_tool_names(tmp_path):
    records, stderr = export(CLAUDE, tmp_path, "--keep-tool-names")
    names = {p["functionCall"]["name"] for r in records for p in r["message"]["parts"] if "functionCall" in p}
    assert "Bash" in names and "renamed" not in stderr


def test_the_project_directory_is_written_as_the_cwd(tmp_path):
    records, _ = export(CLAUDE, tmp_path, "--qwen-code-cwd", "/home/me/src/app")
    assert {r["cwd"] for r in records} == {"/home/me/src/app"}
    default, _ = export(CLAUDE, tmp_path)
    source_cwd = next(e for e in api.read(str(CLAUDE)) if e["type"] == "session")["cwd"]
    assert {r["cwd"] for r in default} == {source_cwd}


def test_the_same_input_writes_the_same_bytes(tmp_path):
    first = (export(CLAUDE, tmp_path)[0], (tmp_path / "out.jsonl").read_bytes())
    second = (export(CLAUDE, tmp_path)[0], (tmp_path / "out.jsonl").read_bytes())
    assert first[1] == second[1]


def test_usage_and_model_of_an_answer(tmp_path):
    path = tmp_path / "in.jsonl"
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "codex", "sessionId": "0199f41d-9079-7662-ba8d-eff8c75f8a7a", "cwd": "/w", "createdAt": "2026-01-02T03:04:05Z"},
        {"type": "message", "role": "user", "text": "hi", "timestamp": "2026-01-02T03:04:06Z"},
        {"type": "message", "role": "assistant", "text": "hello", "timestamp": "2026-01-02T03:04:07Z",
         "meta": {"kind": "text", "model": "gpt-5", "usage": {"input_tokens": 100, "cached_input_tokens": 40, "output_tokens": 30, "reasoning_output_tokens": 10, "total_tokens": 130}}},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    records, _ = export(path, tmp_path, "--from", "portable-jsonl")
    # a Codex thread id is a version 7 UUID, which Qwen Code does not take: a stable one is derived
    assert records[0]["sessionId"] != events[0]["sessionId"] and uuid.UUID(records[0]["sessionId"]).version == 5
    answer = records[1]
    assert answer["model"] == "gpt-5" and answer["timestamp"] == "2026-01-02T03:04:07.000Z"
    assert answer["usageMetadata"] == {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 130, "cachedContentTokenCount": 40, "thoughtsTokenCount": 10}
    back = [e for e in api.read(str(tmp_path / "out.jsonl")) if e["type"] == "end"][0]
    assert back["usage"]["input_tokens"] == 100 and back["usage"]["output_tokens"] == 30


def test_results_without_a_call_and_system_messages_are_counted(tmp_path):
    path = tmp_path / "in.jsonl"
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "chatgpt-export", "sessionId": "c1"},
        {"type": "message", "role": "system", "text": "be brief"},
        {"type": "message", "role": "user", "text": "draw"},
        {"type": "message", "role": "tool", "text": "[image: 10x10]", "toolName": "internal_tool", "meta": {"kind": "tool_result"}},
        {"type": "message", "role": "tool", "text": "{\"a\": 1}", "toolName": "f", "toolCallId": "x1", "meta": {"kind": "tool_result", "responseJson": True}},
        {"type": "message", "role": "assistant", "text": "done"},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    records, stderr = export(path, tmp_path, "--from", "portable-jsonl")
    assert_resumable_shape(records)
    assert [r["type"] for r in records] == ["user", "assistant", "tool_result", "assistant", "tool_result", "assistant"]
    assert "2 tool result(s) without a call given a call of their own" in stderr
    assert "1 system message(s)" in stderr
    texts = [m[1] for m in messages(tmp_path / "out.jsonl") if m[5] == "tool_result"]
    assert texts == ["[image: 10x10]", "{\"a\": 1}"]


@requires_corpus
def test_a_codex_rollout_moves_with_every_call_and_result(tmp_path):
    path = CORPUS / "codex" / "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl"
    records, stderr = export(path, tmp_path)
    assert_resumable_shape(records)
    source = [m for m in messages(path) if m[5] in ("tool_use", "tool_result")]
    back = [m for m in messages(tmp_path / "out.jsonl") if m[5] in ("tool_use", "tool_result")]
    assert len(back) == len(source) and [m[2] for m in back] == [m[2] for m in source]
