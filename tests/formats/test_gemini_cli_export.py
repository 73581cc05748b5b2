"""The gemini-cli exporter: the session file Gemini CLI writes (JSONL log, or
the legacy JSON document), read back by the gemini-cli importer.  That Gemini
CLI itself resumes these files is proven in tests/conformance."""

from __future__ import annotations

import io
import json
import uuid

import orjson
import sessionport
from sessionport.context import WriteContext
from conftest import FIXTURES, corpus_path, run_cli
from helpers_streams import sessions_of


def convo(events):
    out = []
    for e in events:
        if e["type"] != "message":
            continue
        kind = (e.get("meta") or {}).get("kind", "text")
        if kind == "tool_use":
            out.append(("C", e.get("toolCallId"), e.get("toolName"), json.dumps(e.get("toolInput"), sort_keys=True)))
        elif kind == "tool_result" or e["role"] == "tool":
            out.append(("R", e.get("toolCallId"), e["text"], bool(e.get("isError"))))
        elif e["role"] in ("user", "assistant") and kind == "text" and e["text"]:
            out.append((e["role"], e["text"]))
    return out


def test_a_gemini_cli_session_round_trips_through_the_jsonl_log():
    events = list(sessionport.read(str(corpus_path("gemini", "vct_session.jsonl"))))
    data = sessionport.dumps(events, "gemini-cli")
    lines = [orjson.loads(x) for x in data.splitlines()]
    assert set(lines[0]) == {"sessionId", "projectHash", "startTime", "lastUpdated", "kind"}
    assert lines[0]["sessionId"] == "0ab84937-9fe7-4284-986a-33c832af0b6a"
    assert "$set" in lines[-1] and lines[-1]["$set"]["lastUpdated"] >= lines[0]["startTime"]
    assert {x.get("type") for x in lines[1:-1]} <= {"user", "gemini", "info"}
    back = sessionport.loads(data, format="gemini-cli")
    assert convo(back) == convo(events)


def test_the_legacy_json_document_reads_back_the_same():
    events = list(sessionport.read(str(corpus_path("gemini", "vct_legacy_session.json"))))
    data = sessionport.dumps(events, "gemini-cli", gemini_cli_legacy_json=True)
    document = json.loads(data)
    assert document["sessionId"] == "8a20078e-2d5e-4f81-a640-9b879bbb7e6d" and document["kind"] == "main"
    assert [m["type"] for m in document["messages"]][:1] == ["user"]
    back = sessionport.loads(data, format="gemini-cli")
    assert convo(back) == convo(events)


def test_a_claude_code_session_becomes_gemini_records_with_gemini_tools():
    events = list(sessionport.read(str(FIXTURES / "claude-code" / "session.jsonl")))
    lines = [orjson.loads(x) for x in sessionport.dumps(events, "gemini-cli").splitlines()]
    answers = [x for x in lines if x.get("type") == "gemini"]
    calls = [c for a in answers for c in a.get("toolCalls", [])]
    assert calls and calls[0]["name"] == "run_shell_command" and calls[0]["args"]["command"] == "ls"
    assert calls[0]["status"] == "success"
    assert calls[0]["result"][0]["functionResponse"]["response"] == {"output": "README.md\nsrc\n"}
    # thinking goes into the answer's thoughts, which Gemini CLI keeps but does not replay
    assert answers[0]["thoughts"][0]["description"] == "The user wants a listing."
    assert str(uuid.UUID(lines[0]["sessionId"])) == lines[0]["sessionId"]


def test_errors_and_results_without_a_call():
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "chatgpt-export", "sessionId": "conv-1", "createdAt": "2025-05-01T10:00:00Z", "metadata": {}},
        {"type": "message", "role": "user", "text": "draw a cat", "timestamp": "2025-05-01T10:00:01Z"},
        {"type": "message", "role": "tool", "text": "[image: 1024x1024]", "toolName": "image_gen", "meta": {"kind": "tool_result"}},
        {"type": "message", "role": "tool", "text": "run", "toolName": "Bash", "toolCallId": "c1", "toolInput": {"command": "false"}, "meta": {"kind": "tool_use"}},
        {"type": "message", "role": "tool", "text": "exit 1", "toolCallId": "c1", "isError": True, "meta": {"kind": "tool_result"}},
        {"type": "message", "role": "assistant", "text": "Here it is."},
    ]
    warnings = []
    out = io.BytesIO()
    sessionport.write_events(events, out, format="gemini-cli", context=WriteContext(on_warning=warnings.append))
    lines = [orjson.loads(x) for x in out.getvalue().splitlines()]
    # `claude --resume`-like: Gemini CLI takes a UUID
    assert str(uuid.UUID(lines[0]["sessionId"])) == lines[0]["sessionId"]
    calls = [c for x in lines if x.get("type") == "gemini" for c in x.get("toolCalls", [])]
    assert [c["name"] for c in calls] == ["image_gen", "run_shell_command"]
    assert calls[0]["args"] == {} and calls[0]["result"][0]["functionResponse"]["response"] == {"output": "[image: 1024x1024]"}
    assert calls[1]["status"] == "error" and calls[1]["result"][0]["functionResponse"]["response"] == {"error": "exit 1"}
    assert any("without a call" in w for w in warnings)
    back = sessionport.loads(out.getvalue(), format="gemini-cli")
    results = [e for e in back if (e.get("meta") or {}).get("kind") == "tool_result"]
    assert [r["text"] for r in results] == ["[image: 1024x1024]", "exit 1"] and results[1]["isError"] is True


def test_the_cli_writes_it_and_refuses_two_sessions(tmp_path):
    out = tmp_path / "session-x.jsonl"
    done = run_cli("convert", FIXTURES / "gemini-cli" / "session-2026-04-30T09-00-replay01.jsonl", "--to", "gemini-cli", "-o", out)
    assert done.returncode == 0, done.stderr
    assert sessions_of(sessionport.read(str(out)))
    two = run_cli("convert", FIXTURES / "chatgpt-export" / "conversations.json", "--to", "gemini-cli")
    assert two.returncode == 2 and b"--session" in two.stderr


def test_thoughts_and_call_descriptions_are_written_back_as_gemini_cli_wrote_them():
    source = FIXTURES / "gemini-cli" / "session-2026-03-01T10-00-legacy01.json"
    original = json.loads(source.read_text())
    thoughts = [t for m in original["messages"] for t in m.get("thoughts") or []]
    descriptions = {c["id"]: c["description"] for m in original["messages"] for c in m.get("toolCalls") or [] if c.get("description")}
    assert thoughts and descriptions
    events = list(sessionport.read(str(source)))
    for legacy in (False, True):
        data = sessionport.dumps(events, "gemini-cli", gemini_cli_legacy_json=legacy)
        records = json.loads(data)["messages"] if legacy else [orjson.loads(x) for x in data.splitlines()]
        written = [t for r in records for t in r.get("thoughts") or []]
        assert [(t["subject"], t["description"]) for t in written] == [(t["subject"], t["description"]) for t in thoughts]
        calls = {c["id"]: c for r in records for c in r.get("toolCalls") or []}
        assert {i: calls[i].get("description") for i in descriptions} == descriptions
        back = sessionport.loads(data, format="gemini-cli")
        texts = lambda evs: [(e["role"], (e.get("meta") or {}).get("kind"), e["text"]) for e in evs if e["type"] == "message"]
        assert texts(back) == texts(events)


def test_labels_of_other_formats_are_not_written_as_call_descriptions():
    events = list(sessionport.read(str(FIXTURES / "claude-code" / "session.jsonl")))
    lines = [orjson.loads(x) for x in sessionport.dumps(events, "gemini-cli").splitlines()]
    assert all("description" not in c for x in lines for c in x.get("toolCalls") or [])


def test_a_result_after_the_users_words_still_goes_with_its_call():
    """Cline puts the user's feedback on a denied command before the result
    text in one message (a real task of 2026-04/05, mike4567/MRA04242026):
    the result used to get a call of its own with an empty input, its call
    left executing without a result."""
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "anthropic-messages", "sessionId": "1777073160794", "createdAt": "2026-04-24T23:26:00Z", "metadata": {"client": "cline"}},
        {"type": "message", "role": "user", "text": "<task>\nstart the proxy\n</task>", "timestamp": "2026-04-28T23:50:00Z"},
        {"type": "message", "role": "assistant", "text": "Starting it.", "timestamp": "2026-04-28T23:54:27Z"},
        {"type": "message", "role": "tool", "text": "proxy --port=5432", "toolName": "execute_command", "toolCallId": "tooluse_Cmd01", "toolInput": {"command": "proxy --port=5432"}, "timestamp": "2026-04-28T23:54:27Z", "meta": {"kind": "tool_use"}},
        {"type": "message", "role": "user", "text": "The user provided the following feedback:\n<feedback>\nI am on the VPN now, try again.\n</feedback>", "timestamp": "2026-04-29T00:01:13Z"},
        {"type": "message", "role": "tool", "text": "[execute_command for 'proxy --port=5432'] Result:\nThe user denied this operation.", "toolCallId": "tooluse_Cmd01", "timestamp": "2026-04-29T00:01:13Z", "meta": {"kind": "tool_result"}},
        {"type": "message", "role": "user", "text": "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>", "timestamp": "2026-04-29T00:01:13Z", "meta": {"kind": "text", "injected": True, "injectedKind": "environment_details"}},
        {"type": "message", "role": "assistant", "text": "Trying again.", "timestamp": "2026-04-29T00:01:26Z"},
    ]
    warnings = []
    out = io.BytesIO()
    sessionport.write_events(events, out, format="gemini-cli", context=WriteContext(on_warning=warnings.append))
    lines = [orjson.loads(x) for x in out.getvalue().splitlines()][1:-1]
    assert not warnings
    calls = [c for x in lines if x.get("type") == "gemini" for c in x.get("toolCalls", [])]
    assert [(c["id"], c["status"], c["args"]) for c in calls] == [("tooluse_Cmd01", "success", {"command": "proxy --port=5432"})]
    assert calls[0]["resultDisplay"].endswith("The user denied this operation.")
    # the user's words come after the answer that holds the call, then the next answer
    kinds = [(x["type"], (x["content"][0]["text"] if x["type"] == "user" else x["content"]).split("\n")[0]) for x in lines]
    assert kinds == [
        ("user", "<task>"),
        ("gemini", "Starting it."),
        ("user", "The user provided the following feedback:"),
        ("user", "<environment_details>"),
        ("gemini", "Trying again."),
    ]
