"""Roo Code's versioned task history: since its move to AI SDK messages (2026)
Roo Code saves ``api_conversation_history.json`` as ``{"version": 2,
"messages": [...]}`` with ``tool-call`` parts, ``role: "tool"`` messages of
``tool-result`` parts, ``reasoning``, ``image`` and ``file`` parts, and its
condense / truncation flags on the messages.  The fixture is modelled on
RooCodeInc/Roo-Code ``src/core/task-persistence/rooMessage.ts`` and
``apiMessages.ts`` (commit 286c4658c9f471986d290b205b4349b41a872138) and
``converters/anthropicToRoo.ts`` (26899bf6015e685c2529b94248920aadc6539bba);
see fixtures/roo-code-tasks/README.md."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, detected_format, run_cli

TASK = "019a8f3e-5c21-7d40-9b6e-2f1c0a7e4d93"
FOLDER = FIXTURES / "roo-code-tasks"
SAMPLE = FOLDER / TASK / "api_conversation_history.json"


def _read(path=SAMPLE, **options) -> tuple[list[dict], list[str]]:
    warnings: list[str] = []
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append, options=options)))
    return events, warnings


def _messages(path=SAMPLE, **options) -> list[dict]:
    events, warnings = _read(path, **options)
    assert warnings == []
    return [e for e in events if e["type"] == "message"]


def test_the_versioned_history_is_detected_as_anthropic_messages():
    assert detected_format(SAMPLE) == "anthropic-messages"


def test_session_is_the_task_folder_and_roo_code():
    session = _read()[0][0]
    assert session["sessionId"] == TASK
    assert session["metadata"] == {"client": "roo-code", "historyVersion": 2}


def test_tool_calls_and_tool_messages_are_paired_calls_and_results():
    messages = _messages()
    calls = [m for m in messages if m["meta"]["kind"] == "tool_use"]
    results = [m for m in messages if m["meta"]["kind"] == "tool_result"]
    assert [(c["toolName"], c["toolCallId"]) for c in calls] == [
        ("read_file", "toolu_01A"),
        ("apply_diff", "toolu_01B"),
        ("execute_command", "toolu_01C"),
        ("attempt_completion", "toolu_01D"),
    ]
    assert calls[0]["toolInput"] == {"path": "src/main.ts"}
    assert [r["toolCallId"] for r in results] == ["toolu_01A", "toolu_01B", "toolu_01C", "toolu_01D"]
    assert results[0]["text"] == 'File: src/main.ts\n1 | const n: number = "1"\n'
    assert json.loads(results[1]["text"])["operation"] == "modified"  # a json output
    assert results[2]["isError"] is True and "exit code 2" in results[2]["text"]  # error-text
    assert "isError" not in results[0]
    assert results[3]["text"] == "The user has provided feedback:\n[image: image/png, 70 B]"  # content output


def test_parts_are_read_without_their_payloads():
    messages = _messages()
    assert not any("iVBOR" in json.dumps(m) for m in messages)
    image = next(m for m in messages if m["text"] == "[image: image/png, 70 B]" and m["role"] == "user")
    assert image["meta"]["attachment"] == "image"
    log = next(m for m in messages if m["text"].startswith("[file:"))
    assert log["text"] == "[file: text/plain, 13 B, build.log]\nerror TS2304\n" and log["meta"]["fileName"] == "build.log"


def test_reasoning_keeps_its_signature_and_the_encrypted_item_its_time():
    thinking = [m for m in _messages() if m["meta"]["kind"] == "thinking"]
    assert thinking[0]["meta"]["signature"] == "EqQBCkYIBxgCKkBsig=="
    assert thinking[1]["text"] == "Look at the log." and thinking[1]["timestamp"] == "2026-09-28T12:53:42.000Z"
    assert thinking[1]["meta"]["encryptedContent"] == "gAAAAABpZ2VuY3J5cHRlZA=="


def test_condense_summary_and_truncation_marker_are_marked():
    messages = _messages()
    summary = next(m for m in messages if m["text"].startswith("## Conversation Summary"))
    assert (summary["role"], summary["meta"]["kind"], summary["meta"]["injected"]) == ("user", "summary", True)
    marker = next(m for m in messages if m["text"].startswith("[Sliding window truncation"))
    assert marker["meta"]["injected"] is True and marker["meta"]["injectedKind"] == "truncation_marker"
    # the messages the summary replaced are kept, their flag with them
    assert messages[0]["meta"]["message"]["condenseParent"] == "c0ffee00-1111-4222-8333-444455556666"
    env = next(m for m in messages if m["text"].startswith("<environment_details>"))
    assert env["meta"]["injectedKind"] == "environment_details"


def test_keep_images_carries_the_images_of_parts_and_tool_outputs():
    messages = _messages(keep_images=True)
    with_media = [m for m in messages if m.get("media")]
    assert [m["role"] for m in with_media] == ["user", "tool"]
    assert all(m["media"][0]["mediaType"] == "image/png" for m in with_media)


def test_round_trip_through_portable_writes_the_versioned_history_again(tmp_path):
    portable = tmp_path / "x.jsonl"
    done = run_cli("convert", str(SAMPLE), "--to", "portable-jsonl", "-o", str(portable), "--keep-images")
    assert done.returncode == 0, done.stderr
    back = tmp_path / TASK / "api_conversation_history.json"
    back.parent.mkdir()
    done = run_cli("convert", str(portable), "--to", "anthropic-messages", "-o", str(back))
    assert done.returncode == 0, done.stderr
    source = json.loads(SAMPLE.read_text())
    document = json.loads(back.read_text())
    # the envelope Roo Code reads (any other object it takes for an empty history)
    assert set(document) == {"version", "messages"} and document["version"] == 2
    written, original = document["messages"], source["messages"]
    assert [m.get("role", m.get("type")) for m in written] == [m.get("role", m.get("type")) for m in original]
    flags = ("ts", "condenseId", "condenseParent", "isSummary", "truncationId", "isTruncationMarker", "providerOptions")
    assert [{k: m.get(k) for k in flags} for m in written] == [{k: m.get(k) for k in flags} for m in original]
    parts = [p for m in written if isinstance(m.get("content"), list) for p in m["content"]]
    assert [p["toolCallId"] for p in parts if p["type"] == "tool-call"] == ["toolu_01A", "toolu_01B", "toolu_01C", "toolu_01D"]
    assert [p["toolCallId"] for p in parts if p["type"] == "tool-result"] == ["toolu_01A", "toolu_01B", "toolu_01C", "toolu_01D"]
    outputs = [p["output"] for p in parts if p["type"] == "tool-result"]
    assert [o["type"] for o in outputs] == ["text", "json", "error-text", "text"]
    assert outputs[1] == original[5]["content"][0]["output"]  # a json output keeps its value
    # the content output held an image's bytes, which are not kept: its text, placeholder included
    reasoning = next(p for p in parts if p["type"] == "reasoning")
    assert reasoning["providerOptions"] == {"anthropic": {"signature": "EqQBCkYIBxgCKkBsig=="}}
    assert written[8] == original[8]  # the standalone encrypted reasoning item
    assert next(p for p in parts if p["type"] == "image")["image"] == original[0]["content"][1]["image"]
    # and it reads back as the same conversation
    again = [e for e in sessionport.read(str(back)) if e["type"] == "message"]
    first = _messages(keep_images=True)
    assert [(m["role"], m["meta"]["kind"], m.get("toolCallId")) for m in again] == [
        (m["role"], m["meta"]["kind"], m.get("toolCallId")) for m in first]


def test_a_session_from_elsewhere_is_still_a_request_document(tmp_path):
    portable = tmp_path / "x.jsonl"
    done = run_cli("convert", str(SAMPLE), "--to", "portable-jsonl", "-o", str(portable))
    assert done.returncode == 0, done.stderr
    lines = portable.read_text().splitlines()
    session = json.loads(lines[0])
    session["metadata"] = {}
    portable.write_text("\n".join([json.dumps(session), *lines[1:]]) + "\n")
    back = tmp_path / "back.json"
    done = run_cli("convert", str(portable), "--to", "anthropic-messages", "-o", str(back))
    assert done.returncode == 0, done.stderr
    document = json.loads(back.read_text())
    blocks = [b for m in document["messages"] for b in m["content"] if isinstance(b, dict)]
    assert [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"] == ["toolu_01A", "toolu_01B", "toolu_01C", "toolu_01D"]
    assert next(b for b in blocks if b["type"] == "thinking")["signature"] == "EqQBCkYIBxgCKkBsig=="


def test_a_walk_of_the_tasks_folder_converts_the_history(tmp_path):
    out = tmp_path / "out"
    done = run_cli("convert", str(FOLDER), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert b"1 of 1 input(s) converted" in done.stderr


def test_a_legacy_roo_history_marks_its_summary_too(tmp_path):
    task = tmp_path / "tasks" / "1790000000000"
    task.mkdir(parents=True)
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "<task>go</task>"}], "ts": 1790000000000, "condenseParent": "c1"},
        {"role": "assistant", "content": [{"type": "text", "text": "Summary of the work so far."}], "ts": 1790000001000, "isSummary": True, "condenseId": "c1"},
    ]))
    messages = _messages(path)
    assert messages[1]["meta"]["kind"] == "summary"
    assert messages[0]["meta"]["kind"] == "text"


def test_an_envelope_of_another_version_is_not_taken_for_roo(tmp_path):
    path = tmp_path / "history.json"
    path.write_text(json.dumps({"version": 3, "messages": [{"role": "user", "content": "hi"}]}))
    found = detected_format(path)
    events, _ = _read(path) if found == "anthropic-messages" else ([{"metadata": {}}], [])
    assert events[0].get("metadata", {}).get("client") != "roo-code"


def test_a_tool_message_that_is_not_a_list_is_a_bad_record(tmp_path):
    task = tmp_path / "019a0000-0000-7000-8000-000000000000"
    task.mkdir()
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps({"version": 2, "messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}]}))
    done = run_cli("convert", str(path), "--to", "markdown")
    assert done.returncode != 0 and b"Traceback" not in done.stderr
    done = run_cli("convert", str(path), "--to", "markdown", "--skip-bad")
    assert done.returncode == 0, done.stderr


def test_a_short_versioned_history_is_not_taken_for_openai_chat(tmp_path):
    # a role "tool" message once made it read as OpenAI chat, its calls unknown blocks
    task = tmp_path / "019a0000-0000-7000-8000-000000000001"
    task.mkdir()
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps({"version": 2, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nrun it\n</task>"}], "ts": 1790000000000},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "execute_command", "input": {"command": "ls"}}], "ts": 1790000001000},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "execute_command", "output": {"type": "text", "value": "a.txt"}}], "ts": 1790000002000},
    ]}))
    assert detected_format(path) == "anthropic-messages"
    events, warnings = _read(path)
    assert warnings == [] and "unknown" not in events[-1]
    assert [(e["role"], e["meta"]["kind"]) for e in events if e["type"] == "message"] == [("user", "text"), ("tool", "tool_use"), ("tool", "tool_result")]


def test_a_plain_text_task_history_is_read_as_a_task_by_its_name(tmp_path):
    # Roo Code's plain arrays carry no modelInfo: only the name tells them apart
    task = tmp_path / "tasks" / "1790000000000"
    task.mkdir(parents=True)
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "<task>hi</task>"}, {"type": "text", "text": "<environment_details>\nx\n</environment_details>"}], "ts": 1790000000000},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello."}], "ts": 1790000001000},
    ]))
    events, warnings = _read(path)
    assert warnings == []
    assert events[0]["source"] == "anthropic-messages" and events[0]["sessionId"] == "1790000000000"
    assert events[0]["metadata"]["client"] == "cline"
    assert events[2]["meta"]["injectedKind"] == "environment_details"
    other = tmp_path / "messages.json"
    other.write_text(path.read_text())
    assert _read(other)[0][0]["source"] == "openai-chat"  # elsewhere the shape decides, as before


def test_the_reasoning_content_of_a_message_is_its_thinking(tmp_path):
    # Roo Code's LegacyApiMessage.reasoning_content (DeepSeek / Z.ai interleaved thinking)
    task = tmp_path / "tasks" / "1790000000000"
    task.mkdir(parents=True)
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "<task>list files</task>"}], "ts": 1790000000000},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_0", "name": "list_files", "input": {"path": "."}}],
         "reasoning_content": "I should list the files first.", "ts": 1790000001000},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_0", "content": "a.txt"}], "ts": 1790000002000},
    ]))
    messages = _messages(path)
    assert [(m["role"], m["meta"]["kind"]) for m in messages] == [("user", "text"), ("assistant", "thinking"), ("tool", "tool_use"), ("tool", "tool_result")]
    assert messages[1]["text"] == "I should list the files first." and messages[1]["timestamp"] == "2026-09-21T14:13:21.000Z"
    assert "reasoning_content" not in json.dumps(messages[1]["meta"].get("message", {}))



def test_a_condense_that_failed_is_a_notice_placed_by_its_time(tmp_path):
    """Roo Code shows a failed condense in ui_messages.json only
    (``say: "condense_context_error"``), with no ``conversationHistoryIndex``:
    a real task of 2026-08 (Extremity/scratchspace, ui_messages.json, commit
    7573c059bf651b63b52b1df24d58f512d5b369d4) ends with two of them."""
    task = tmp_path / "019a8f3e-0000-7000-8000-0000000000ce"
    task.mkdir()
    (task / "api_conversation_history.json").write_text(json.dumps({"version": 2, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "<task>plan it</task>"}], "ts": 1787447300000},
        {"role": "assistant", "content": "Planned.", "ts": 1787447371994},
        {"role": "user", "content": [{"type": "text", "text": "<user_message>go on</user_message>"}], "ts": 1787447500000},
    ]}))
    failed = "Condensing API call failed: OpenAI completion error: 400 request (281671 tokens) exceeds the available context size (200192 tokens), try increasing it"
    (task / "ui_messages.json").write_text(json.dumps([
        {"ts": 1787447300000, "type": "say", "say": "text", "text": "plan it", "images": []},
        {"ts": 1787447363403, "type": "say", "say": "api_req_started", "text": "{\"apiProtocol\":\"openai\",\"tokensIn\":105597,\"tokensOut\":945,\"cacheWrites\":0,\"cacheReads\":0,\"cost\":0.0958}"},
        {"ts": 1787447371994, "type": "say", "say": "text", "text": "Planned.", "partial": False},
        {"ts": 1787447396429, "type": "say", "say": "condense_context_error", "text": failed},
        {"ts": 1787448979394, "type": "say", "say": "condense_context_error", "text": failed},
    ]))
    messages = _messages(task / "api_conversation_history.json")
    assert [(m["role"], m.get("isError")) for m in messages] == [("user", None), ("assistant", None), ("system", True), ("user", None), ("system", True)]
    notice = messages[2]
    assert notice["text"] == failed and notice["timestamp"] == "2026-08-23T01:09:56.429Z"
    assert notice["meta"]["notice"] == "error" and notice["meta"]["uiMessage"] == {"type": "say", "say": "condense_context_error"}


def test_the_reasoning_only_ui_messages_holds_comes_before_its_answer(tmp_path):
    """A local OpenAI-compatible model's reasoning is in Roo Code's
    ui_messages.json alone (``say: "reasoning"``, real task of 2026-08,
    Extremity/scratchspace); where the history holds the message's own
    reasoning, the UI copy is left out (and counted)."""
    task = tmp_path / "019a8f3e-0000-7000-8000-0000000000re"
    task.mkdir()
    (task / "api_conversation_history.json").write_text(json.dumps({"version": 2, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "<task>should I update first?</task>"}], "ts": 1787446800000},
        {"role": "assistant", "content": [{"type": "text", "text": "Short answer: Option A."}], "ts": 1787446895914},
        {"role": "user", "content": [{"type": "text", "text": "<user_message>ok</user_message>"}], "ts": 1787447000000},
        {"role": "assistant", "content": [{"type": "reasoning", "text": "Ask which option."}, {"type": "text", "text": "Which one?"}], "ts": 1787447077330},
    ]}))
    (task / "ui_messages.json").write_text(json.dumps([
        {"ts": 1787446800000, "type": "say", "say": "text", "text": "should I update first?"},
        {"ts": 1787446830000, "type": "say", "say": "reasoning", "text": "The user asks about the order.", "partial": False},
        {"ts": 1787446895914, "type": "say", "say": "text", "text": "Short answer: Option A.", "partial": False},
        {"ts": 1787447071075, "type": "say", "say": "reasoning", "text": "Ask which option.", "partial": False},
        {"ts": 1787447072000, "type": "say", "say": "reasoning", "text": "half", "partial": True},
    ]))
    events, warnings = _read(task / "api_conversation_history.json")
    assert warnings == []
    messages = [e for e in events if e["type"] == "message"]
    assert [(m["role"], m["meta"]["kind"], m["text"]) for m in messages] == [
        ("user", "text", "<task>should I update first?</task>"),
        ("assistant", "thinking", "The user asks about the order."),
        ("assistant", "text", "Short answer: Option A."),
        ("user", "text", "<user_message>ok</user_message>"),
        ("assistant", "thinking", "Ask which option."),
        ("assistant", "text", "Which one?"),
    ]
    assert messages[1]["meta"]["sourceFile"] == "ui_messages.json" and "sourceFile" not in messages[4]["meta"]
    assert any("1 reasoning text(s) of ui_messages.json left out" in n for n in events[-1]["notes"])


def test_a_tool_message_of_other_parts_is_a_bad_record(tmp_path):
    task = tmp_path / "019a0000-0000-7000-8000-0000000000b2"
    task.mkdir()
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps({"version": 2, "messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": [{"type": "text", "text": "x"}]}]}))
    done = run_cli("convert", str(path), "--to", "markdown")
    assert done.returncode != 0 and b"tool message of tool-result parts" in done.stderr and b"Traceback" not in done.stderr


def test_an_image_named_by_its_url_is_written_back_as_that_part(tmp_path):
    raw = json.loads(SAMPLE.read_text())
    part = {"type": "image", "image": "https://example.com/screen.png", "mediaType": "image/png"}
    raw["messages"][0]["content"][1] = part
    task = tmp_path / TASK
    task.mkdir()
    (task / "api_conversation_history.json").write_text(json.dumps(raw))
    events = list(sessionport.read(str(task / "api_conversation_history.json")))
    document = json.loads(sessionport.dumps(events, format="anthropic-messages"))
    assert document["messages"][0]["content"][1] == part
    # the same link, sent to the Messages API, is a URL image
    session = dict(events[0], metadata={})
    request = json.loads(sessionport.dumps([session, *events[1:]], format="anthropic-messages"))
    assert request["messages"][0]["content"][1] == {"type": "image", "source": {"type": "url", "url": part["image"]}}
