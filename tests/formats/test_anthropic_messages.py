"""anthropic-messages: Anthropic message lists, request bodies and Cline histories."""

from __future__ import annotations

import io
import json

import orjson
import pytest

import sessionport
from sessionport.context import ReadContext, WriteContext
from sessionport.errors import DataError
from sessionport.formats.providers import anthropic_reader as anthropic_messages
from sessionport.formats.providers.content import MISSING_RESULT_TEXT

from conftest import FIXTURES, run_cli

CLINE = FIXTURES / "anthropic-messages" / "api_conversation_history.json"
REQUEST = FIXTURES / "anthropic-messages" / "request.json"


def read_bytes(data: bytes, **ctx_fields) -> list[dict]:
    warnings: list[str] = []
    ctx = ReadContext(name="<test>", on_warning=warnings.append, **ctx_fields)
    events = list(anthropic_messages.read(io.BufferedReader(io.BytesIO(data)), ctx))
    return events


def messages(events):
    return [e for e in events if e["type"] == "message"]


def kind(event):
    return (event.get("meta") or {}).get("kind")


def test_cline_history_keeps_extras_in_meta_and_converts_ts():
    events = list(sessionport.read(str(CLINE)))
    session = events[0]
    assert session["source"] == "anthropic-messages"
    assert session["metadata"]["client"] == "cline"
    first = messages(events)[0]
    assert first["timestamp"] == "2026-01-22T03:48:00.585Z"
    assert first["text"].startswith("<task>")
    answer = messages(events)[2]
    assert answer["role"] == "assistant"
    assert answer["meta"]["model"] == "claude-sonnet-4-5"
    assert answer["meta"]["message"]["metrics"] == {"tokens": {"prompt": 1830, "completion": 64, "cached": 0}, "cost": 0.0064}
    assert answer["meta"]["extra"] == {"call_id": ""}
    call = messages(events)[3]
    assert call["toolName"] == "read_file" and call["toolInput"] == {"path": "src/cli.py"}
    assert call["meta"]["extra"]["reasoning_details"][0]["signature"] == "sig-r1"
    tokens = [m["metrics"]["tokens"] for m in json.loads(CLINE.read_text()) if "metrics" in m]
    inputs, outputs = sum(t["prompt"] + t["cached"] for t in tokens), sum(t["completion"] for t in tokens)
    assert events[-1] == {
        "type": "end",
        "usage": {"input_tokens": inputs, "output_tokens": outputs, "total_tokens": inputs + outputs},
        "counts": {"messages": 10},
        "notes": [
            "1 tool result(s) read from Cline's `[tool] Result:` texts "
            "(each answers the open call of that tool in the assistant message before it)"
        ],
    }


def test_cline_tool_use_answered_by_a_result_text_is_paired_with_it():
    """Cline answers a native tool call with a text block that names the
    tool (``[read_file for 'src/cli.py'] Result:``): in a real 2026-01 task
    (gmfstu/Online-Card-Architecture, exported_conversation_1769053680585,
    commit 0c3f68ab987b911c118cbfb4b36efc796c5f8fd4) 46 of its 47 calls were
    answered only so, and were read as user prose with every call unpaired."""
    raw = json.loads(CLINE.read_text())
    answer_text = raw[2]["content"][0]["text"]
    events = messages(sessionport.read(str(CLINE)))
    results = {e["toolCallId"]: e for e in events if kind(e) == "tool_result"}
    assert set(results) == {"toolu_01ReadCli", "toolu_02EditCli"}
    read = results["toolu_01ReadCli"]
    assert read["role"] == "tool" and read["text"] == answer_text  # kept whole, the label included
    assert not any(e["role"] == "user" and "Result:" in e["text"] for e in events)
    # the environment details after it stay the user's
    assert [e["text"].split("\n")[0] for e in events if e["role"] == "user"][1:] == ["<environment_details>"] * 2


def _history_variant(tmp_path, messages_: list) -> str:
    folder = tmp_path / "1769053680585"
    folder.mkdir()
    path = folder / "api_conversation_history.json"
    path.write_text(json.dumps(messages_))
    return str(path)


def test_a_result_text_answers_only_an_open_call_of_the_tool_it_names(tmp_path):
    raw = json.loads(CLINE.read_text())
    # the same text after a message whose call is another tool's: user text
    raw[1]["content"][1]["name"] = "list_files"
    events = messages(sessionport.read(_history_variant(tmp_path, raw)))
    assert not any(kind(e) == "tool_result" and e["toolCallId"] == "toolu_01ReadCli" for e in events)
    assert any(e["role"] == "user" and e["text"].startswith("[read_file for 'src/cli.py'] Result:") for e in events)


def test_a_cline_result_text_exports_as_the_calls_tool_result():
    warnings: list[str] = []
    out = io.BytesIO()
    sessionport.write_events(sessionport.read(str(CLINE)), out, format="anthropic-messages", options={"anthropic_shape": "request"},
                             context=WriteContext(on_warning=warnings.append))
    document = orjson.loads(out.getvalue())
    answer = document["messages"][2]["content"]
    assert answer[0]["type"] == "tool_result" and answer[0]["tool_use_id"] == "toolu_01ReadCli"
    assert answer[0]["content"].startswith("[read_file for 'src/cli.py'] Result:\nimport argparse")
    assert not any("no recorded result" in w for w in warnings)
    back = sessionport.loads(out.getvalue())
    assert [e["text"] for e in messages(back) if kind(e) == "tool_result"] == [
        e["text"] for e in messages(sessionport.read(str(CLINE))) if kind(e) == "tool_result"
    ]


def test_a_cline_call_left_unanswered_exports_a_placeholder_that_reads_back_as_unpaired(tmp_path):
    """As a real task ends: ``attempt_completion`` is never answered."""
    raw = json.loads(CLINE.read_text())
    raw[-1] = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_09Done", "name": "attempt_completion", "input": {"result": "The CLI now accepts --verbose."}}]}
    warnings: list[str] = []
    out = io.BytesIO()
    source = _history_variant(tmp_path, raw)
    sessionport.write_events(sessionport.read(source), out, format="anthropic-messages", options={"anthropic_shape": "request"},
                             context=WriteContext(on_warning=warnings.append))
    document = orjson.loads(out.getvalue())
    assert document["messages"][-1]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_09Done", "content": MISSING_RESULT_TEXT}
    assert any("no recorded result" in w for w in warnings)
    back = sessionport.loads(out.getvalue())
    assert not any(kind(e) == "tool_result" and e["toolCallId"] == "toolu_09Done" for e in messages(back))
    assert back[-1]["skipped"] == {"placeholder tool_result": 1}


def test_request_body_system_thinking_images_and_errors():
    events = list(sessionport.read(str(REQUEST)))
    assert events[0]["metadata"] == {"model": "claude-sonnet-4-5"}
    body = messages(events)
    assert body[0]["role"] == "system" and body[0]["text"] == "You are a careful coding assistant."
    assert body[2]["text"] == "[image: image/png, 70 B]"
    assert "iVBOR" not in orjson.dumps(events).decode()
    thinking = [e for e in body if kind(e) == "thinking"]
    assert thinking[0]["meta"]["signature"] == "EuYBCkQYAiJAc2lnbmF0dXJlLWZpeHR1cmU="
    assert thinking[1]["meta"]["redactedThinking"].startswith("EmwKAhgB")
    results = [e for e in body if kind(e) == "tool_result"]
    assert [(r["toolCallId"], r.get("isError")) for r in results] == [("toolu_01Build", True), ("toolu_02Lock", None)]
    assert results[1]["text"] == '{"lockfileVersion": 3}'


def test_request_body_round_trips_signed_and_redacted_thinking():
    data = sessionport.dumps(list(sessionport.read(str(REQUEST))), format="anthropic-messages")
    document = orjson.loads(data)
    original = orjson.loads(REQUEST.read_bytes())
    assert document["system"] == "You are a careful coding assistant."
    # Assistant turns come back block for block, signatures included; a
    # tool_result's list of text blocks comes back as its text.
    assert document["messages"][1] == original["messages"][1]
    assert document["messages"][3] == original["messages"][3]
    assert document["messages"][2]["content"][1] == {"type": "tool_result", "tool_use_id": "toolu_02Lock", "content": '{"lockfileVersion": 3}'}


def test_roo_reasoning_items_and_unknown_blocks_are_kept():
    data = orjson.dumps([
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "encrypted_content": "gAAAA-opaque", "summary": [{"type": "summary_text", "text": "Plan."}]},
        {"role": "assistant", "content": [{"type": "thoughtSignature", "thoughtSignature": "c2ln"}, {"type": "mystery", "x": 1}, {"type": "text", "text": "Hello."}]},
    ])
    body = messages(read_bytes(data))
    assert body[1]["meta"] == {"kind": "thinking", "encryptedContent": "gAAAA-opaque"} and body[1]["text"] == "Plan."
    assert body[2]["meta"]["thoughtSignature"] == "c2ln"
    assert body[3]["text"] == "[mystery]" and body[3]["meta"]["block"] == {"type": "mystery", "x": 1}
    assert body[4]["text"] == "Hello."


def test_system_after_messages_and_role_system_messages_are_read():
    data = b'{"messages":[{"role":"user","content":"a"},{"role":"system","content":"mid"}],"model":"claude-x","system":"late"}'
    body = messages(read_bytes(data))
    assert [(e["role"], e["text"]) for e in body] == [("user", "a"), ("system", "mid"), ("system", "late")]


def test_unknown_role_is_a_data_error_naming_the_place_unless_skipped():
    data = b'[{"role":"user","content":"a"},{"role":"robot","content":"b"},{"role":"assistant","content":"c"}]'
    with pytest.raises(DataError) as info:
        read_bytes(data)
    assert "messages[1].role" in str(info.value) and "'robot'" in str(info.value)
    events = read_bytes(data, skip_bad=True)
    assert [e["text"] for e in messages(events)] == ["a", "c"]


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.9])
def test_truncated_history_yields_what_was_read_and_warns(cut):
    data = CLINE.read_bytes()
    data = data[: int(len(data) * cut)]
    warnings: list[str] = []
    ctx = ReadContext(name="<cut>", on_warning=warnings.append)
    events = list(anthropic_messages.read(io.BufferedReader(io.BytesIO(data)), ctx))
    assert warnings and "ends early" in warnings[0]
    assert all(e["type"] in ("session", "message", "end") for e in events)
    with pytest.raises(DataError):
        list(anthropic_messages.read(io.BufferedReader(io.BytesIO(data)), ReadContext(name="<cut>", strict=True, on_warning=lambda m: None)))


def test_nul_padding_and_invalid_utf8_do_not_escape_as_other_errors():
    data = CLINE.read_bytes().replace(b"Add a --verbose", b"Add a \xff--verbose")
    events = read_bytes(data)
    assert "\ufffd--verbose" in messages(events)[0]["text"]
    padded = CLINE.read_bytes() + b"\x00" * 1024
    try:
        read_bytes(padded)
    except DataError as exc:
        assert "<test>" in str(exc)


def test_detection_tells_the_provider_shapes_apart():
    s = anthropic_messages.sniff
    assert s(CLINE.read_bytes()) > 50
    assert s(REQUEST.read_bytes()) > 50
    assert s(b'{"contents":[{"role":"model","parts":[{"text":"x"}]}]}') == 0  # gemini
    assert s(b'[{"id":"c","mapping":{"a":{"message":null}}}]') == 0  # chatgpt export
    assert s(b'{"schema":"sessionport/v1","source":"x","messages":[]}') == 0  # portable
    assert s(b'{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u","parentUuid":null}\n{"type":"assistant"}\n') == 0
    assert s(b'\x00\xff garbage') == 0
    assert s(b"") == 0


def test_cli_converts_the_cline_history_with_detection():
    result = run_cli("convert", str(CLINE), "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    lines = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["source"] == "anthropic-messages"
    assert sum(1 for e in lines if e["type"] == "message") == 10


def test_export_merges_same_role_turns_and_keeps_tool_results_first():
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "x", "metadata": {}},
        {"type": "message", "role": "user", "text": "one"},
        {"type": "message", "role": "user", "text": "two"},
        {"type": "message", "role": "assistant", "text": "calling"},
        {"type": "message", "role": "tool", "text": "", "toolName": "ls", "toolCallId": "t1", "toolInput": {}, "meta": {"kind": "tool_use"}},
        {"type": "message", "role": "user", "text": "wait"},
        {"type": "message", "role": "tool", "text": "a b", "toolCallId": "t1", "meta": {"kind": "tool_result"}},
        {"type": "message", "role": "assistant", "text": "   "},
        {"type": "message", "role": "assistant", "text": "done"},
    ]
    document = orjson.loads(sessionport.dumps(events, format="anthropic-messages"))
    assert document["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "calling"}, {"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a b"}, {"type": "text", "text": "wait"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
    ]


CLINE_TASK_2026_04 = FIXTURES / "cline-tasks" / "1777000000000" / "api_conversation_history.json"


def test_cline_result_texts_of_a_subagent_run_and_a_multiline_question_answer_their_calls():
    """A real task of 2026-04/05 (mike4567/MRA04242026, api_conversation_history.json,
    commit 764491384379e43f9b25ab332f4d000b7727788b): ``use_subagents`` is answered by
    ``[subagents] Result:``, and ``ask_followup_question`` by ``[ask_followup_question
    for '<question>'] Result:`` where the question runs over several lines; both were
    read as user prose, their calls left unpaired (10 of the task's 231 calls)."""
    events = messages(sessionport.read(str(CLINE_TASK_2026_04)))
    calls = {e["toolCallId"]: e["toolName"] for e in events if kind(e) == "tool_use"}
    results = {e["toolCallId"]: e for e in events if kind(e) == "tool_result"}
    assert calls == {"tooluse_Sub01": "use_subagents", "tooluse_Ask02": "ask_followup_question", "tooluse_Done03": "attempt_completion"}
    assert set(results) == {"tooluse_Sub01", "tooluse_Ask02"}  # the closing attempt_completion stays unpaired
    assert results["tooluse_Sub01"]["text"].startswith("[subagents] Result:\nSubagent results:")
    assert results["tooluse_Ask02"]["text"].startswith("[ask_followup_question for '## Step 1: Config Refactor")
    assert results["tooluse_Ask02"]["text"].endswith("<answer>\nApproved - Proceed to Step 2\n</answer>")
    assert all(e["role"] == "tool" for e in results.values())
    assert not any(e["role"] == "user" and "] Result:" in e["text"] for e in events)


def test_cline_harness_texts_in_the_users_turn_are_read_as_injected():
    """What Cline puts in the user's turn itself (real task of 2026-04/05,
    mike4567/MRA04242026: 226 ``<environment_details>`` blocks, 24 todo-list
    reminders, 12 ``[TASK RESUMPTION]`` notes, 7 ``[ERROR] You did not use a
    tool`` replies among 527 user text blocks) was read as what the user typed."""
    events = messages(sessionport.read(str(CLINE_TASK_2026_04)))
    users = [e for e in events if e["role"] == "user"]
    kinds = [(e["meta"].get("injectedKind"), e["text"].split("\n")[0]) for e in users if e["meta"].get("injected")]
    assert [k for k, _ in kinds] == [
        "environment_details", "task_progress", "environment_details", "environment_details",
        "task_resumption", "environment_details", "no_tool_used", "task_progress", "environment_details",
    ]
    typed = [e["text"] for e in users if not e["meta"].get("injected")]
    assert typed == [
        "<task>\nSummarise this repository, then move its config to environment variables.\n</task>",
        "New instructions for task continuation:\n<user_message>\nAlso do step 2\n</user_message>",
    ]
    # the same texts in another app's message list are not Cline's harness
    raw = json.loads(CLINE_TASK_2026_04.read_text())
    plain = messages(sessionport.loads(json.dumps({"messages": raw}).encode()))
    assert not any(e["meta"].get("injected") for e in plain)


def test_cline_harness_texts_leave_with_filter_no_injected():
    out = run_cli("convert", str(CLINE_TASK_2026_04), "--to", "portable-jsonl")
    kept = run_cli("filter", "--no-injected", input=out.stdout)
    texts = [json.loads(line).get("text", "") for line in kept.stdout.splitlines()]
    assert not any(t.startswith(("<environment_details>", "[TASK RESUMPTION]", "[ERROR] You did not use a tool")) for t in texts)
    assert any(t.startswith("New instructions for task continuation:") for t in texts)


CLINE_TASK_FAILED = FIXTURES / "cline-tasks" / "1767600000000"


def test_cline_ui_messages_errors_are_read_as_notices_where_they_were_shown():
    """A failed request (``ask: "api_req_failed"``, after its retries) is in
    ``ui_messages.json`` only (real task of 2026-01, haram-333/fineye,
    ui_messages.json, commit 3f3dddc79fb3ef725d4c07c4d95de21f2e9b3fb6: 6 of them).
    Its ``conversationHistoryIndex`` names the history's last message when it was
    shown: the notice follows that message's events."""
    events = messages(sessionport.read(str(CLINE_TASK_FAILED / "api_conversation_history.json")))
    notices = [(n, e) for n, e in enumerate(events) if e["role"] == "system"]
    assert len(notices) == 2
    (first_at, first), (last_at, last) = notices
    assert first["isError"] is True and first["meta"]["notice"] == "error"
    assert first["text"].startswith("Failed to create stream: inference request failed")
    assert first["meta"]["uiMessage"] == {
        "type": "ask", "ask": "api_req_failed", "code": "stream_initialization_failed",
        "request_id": "req_fixture01", "modelId": "x-ai/grok-code-fast-1", "providerId": "cline",
    }
    assert first["timestamp"] == "2026-01-05T08:01:06.020Z"
    # after the user's feedback (history index 2) and before the answer that came once it was retried
    assert events[first_at - 1]["text"].startswith("<environment_details>") and events[first_at + 1]["role"] == "assistant"
    assert events[first_at - 2]["text"].startswith("[attempt_completion] Result: Done")
    # shown after the last message: at the end
    assert last_at == len(events) - 1 and last["meta"]["uiMessage"]["request_id"] == "req_fixture02"
    # the retries and status lines are not errors
    assert not any("attempt" in e["text"] for _, e in notices)


def test_cline_ui_messages_notices_reach_every_writer_as_system_errors():
    for fmt in ("claude-code", "codex", "gemini-cli", "markdown"):
        out = io.BytesIO()
        sessionport.write_events(sessionport.read(str(CLINE_TASK_FAILED / "api_conversation_history.json")), out, format=fmt)
        assert b"Failed to create stream" in out.getvalue(), fmt


CLINE_TASK = FIXTURES / "cline-tasks" / "1769100000000"


def _ui_requests(folder) -> list[dict]:
    ui = json.loads((folder / "ui_messages.json").read_text())
    return [json.loads(m["text"]) for m in ui if m.get("say") == "api_req_started"]


def test_cline_metrics_give_the_usage_and_ui_messages_split_the_cache():
    """``metrics.tokens`` on each assistant message (``prompt``, ``completion``,
    ``cached`` = cache reads + writes) and, in ``ui_messages.json`` beside it,
    the request's ``tokensIn``/``tokensOut``/``cacheWrites``/``cacheReads``:
    in the real 2026-01 task cited above all 47 requests agree so."""
    history = json.loads((CLINE_TASK / "api_conversation_history.json").read_text())
    tokens = [m["metrics"]["tokens"] for m in history if "metrics" in m]
    requests = _ui_requests(CLINE_TASK)
    events = list(sessionport.read(str(CLINE_TASK / "api_conversation_history.json")))
    end = events[-1]
    assert end["usage"] == {
        "input_tokens": sum(t["prompt"] + t["cached"] for t in tokens),
        "cached_input_tokens": sum(r["cacheReads"] for r in requests),
        "output_tokens": sum(t["completion"] for t in tokens),
        "total_tokens": sum(t["prompt"] + t["cached"] + t["completion"] for t in tokens),
        "cache_creation_input_tokens": sum(r["cacheWrites"] for r in requests),
    }
    carried = [e["meta"]["usage"] for e in messages(events) if "usage" in e.get("meta", {})]
    assert len(carried) == len(tokens)  # once per API request, on its first event
    assert {k: sum(u[k] for u in carried) for k in end["usage"]} == end["usage"]
    result = run_cli("inspect", CLINE_TASK / "api_conversation_history.json")
    assert result.returncode == 0 and b"cached_input_tokens=%d" % end["usage"]["cached_input_tokens"] in result.stdout


def test_without_matching_ui_messages_the_cache_is_not_split(tmp_path):
    folder = tmp_path / "1769100000000"
    folder.mkdir()
    (folder / "api_conversation_history.json").write_bytes((CLINE_TASK / "api_conversation_history.json").read_bytes())
    ui = json.loads((CLINE_TASK / "ui_messages.json").read_text())
    started = [m for m in ui if m.get("say") == "api_req_started"]
    info = json.loads(started[1]["text"])
    started[1]["text"] = json.dumps({**info, "cacheReads": info["cacheReads"] + 1})
    (folder / "ui_messages.json").write_text(json.dumps(ui))
    end = list(sessionport.read(str(folder / "api_conversation_history.json")))[-1]
    assert set(end["usage"]) == {"input_tokens", "output_tokens", "total_tokens"}  # never a partial sum of reads
    assert any("cache reads and writes of 1 request(s)" in n for n in end["notes"])

    (folder / "ui_messages.json").write_text('[{"ts":1,"type":"say","say":"api_req_started","text":"{}"')  # torn
    result = run_cli("convert", folder / "api_conversation_history.json", "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert b"ui_messages.json" in result.stderr and b"Traceback" not in result.stderr  # its torn end, named
    assert set(orjson.loads(result.stdout.splitlines()[-1])["usage"]) == {"input_tokens", "output_tokens", "total_tokens"}


def test_a_walk_of_cline_tasks_reads_each_history_once(tmp_path):
    """``ui_messages.json`` and ``task_metadata.json`` hold no conversation
    of their own: a walk used to fail on each (exit 1)."""
    tasks = tmp_path / "tasks"
    task = tasks / CLINE_TASK.name
    task.mkdir(parents=True)
    for name in ("api_conversation_history.json", "ui_messages.json"):
        (task / name).write_bytes((CLINE_TASK / name).read_bytes())
    (task / "task_metadata.json").write_text(json.dumps({"files_in_context": [{"path": "src/report.py", "record_state": "active", "record_source": "read_tool"}]}, indent=2))
    out = tmp_path / "out"
    result = run_cli("convert", tasks, "--to", "markdown", "-o", f"{out}/")
    assert result.returncode == 0, result.stderr
    assert [p.relative_to(out).as_posix() for p in out.rglob("*.md")] == [f"{CLINE_TASK.name}/api_conversation_history.md"]


def test_a_result_text_for_a_call_without_an_id_names_the_tool(tmp_path):
    raw = json.loads(CLINE.read_text())
    del raw[1]["content"][1]["id"]
    source = _history_variant(tmp_path, raw)
    events = messages(sessionport.read(source))
    (result,) = [e for e in events if kind(e) == "tool_result" and e["text"].startswith("[read_file for")]
    assert result["toolName"] == "read_file" and result.get("toolCallId") is None
    for shape in ("request", "cline-task"):
        written = orjson.loads(sessionport.dumps(list(sessionport.read(source)), format="anthropic-messages", anthropic_shape=shape))
        history = written["messages"] if shape == "request" else written
        call = next(b for m in history for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use" and b["name"] == "read_file")
        answer = next(b for m in history for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result" and b["tool_use_id"] == call["id"])
        assert answer["content"].startswith("[read_file for 'src/cli.py'] Result:")


def test_a_cline_ui_messages_file_alone_says_where_the_conversation_is(tmp_path):
    """Real task folders committed with their ``ui_messages.json`` only
    (haram-333/fineye, pretty-printed with four spaces; CoreGems/Cline-Xray,
    compact) were refused with the general hint to name a format."""
    entries = json.loads((CLINE_TASK_FAILED / "ui_messages.json").read_text())
    for name, text in (("pretty", json.dumps(entries, indent=4)), ("compact", json.dumps(entries, separators=(",", ":")))):
        path = tmp_path / name / "ui_messages.json"
        path.parent.mkdir()
        path.write_text(text)
        result = run_cli("inspect", path)
        assert result.returncode == 1, name
        assert b"a Cline task's ui_messages.json" in result.stderr and b"api_conversation_history.json" in result.stderr, name
        assert b"Traceback" not in result.stderr


def test_task_metadata_beside_a_history_gives_the_session_metadata(tmp_path):
    task = FIXTURES / "cline-tasks" / "1767600000000"
    source = json.loads((task / "task_metadata.json").read_text())
    session = next(iter(sessionport.read(str(task / "api_conversation_history.json"))))
    metadata = session["metadata"]
    assert metadata["client"] == "cline"
    assert metadata["filesInContext"] == source["files_in_context"]
    assert metadata["modelUsage"] == source["model_usage"]
    assert metadata["environmentHistory"] == source["environment_history"]
    assert (metadata["model"], metadata["provider"], metadata["clientVersion"]) == ("claude-opus-4-5-20251101", "anthropic", "3.46.1")
    # Roo Code's file records (roo_read_date) tell its plain-array history from Cline's; a key not known is named
    roo = tmp_path / "0f1e2d3c-0000-4000-8000-000000000000"
    roo.mkdir()
    (roo / "api_conversation_history.json").write_bytes((task / "api_conversation_history.json").read_bytes())
    (roo / "task_metadata.json").write_text(json.dumps({"files_in_context": [
        {"path": "a.py", "record_state": "active", "record_source": "read_tool", "roo_read_date": 1, "roo_edit_date": None}],
        "initial_info": {"x": 1}}))
    metadata = next(iter(sessionport.read(str(roo / "api_conversation_history.json"))))["metadata"]
    assert metadata["client"] == "roo-code" and metadata["taskMetadataKeys"] == ["initial_info"]
    # an unreadable file is said, and the history still read
    (roo / "task_metadata.json").write_text("{torn")
    warnings: list[str] = []
    events = list(sessionport.read(str(roo / "api_conversation_history.json"), context=ReadContext(on_warning=warnings.append)))
    assert any("task_metadata.json cannot be read" in w for w in warnings) and events[-1]["type"] == "end"


def test_the_extension_folder_of_a_task_names_its_client(tmp_path):
    task = FIXTURES / "cline-tasks" / "1769100000000"
    for folder, client in (("kilocode.kilo-code", "kilo-code"), ("rooveterinaryinc.roo-cline", "roo-code"), ("saoudrizwan.claude-dev", "cline")):
        home = tmp_path / "globalStorage" / folder / "tasks" / task.name
        home.mkdir(parents=True)
        (home / "api_conversation_history.json").write_bytes((task / "api_conversation_history.json").read_bytes())
        session = next(iter(sessionport.read(str(home / "api_conversation_history.json"))))
        assert session["metadata"]["client"] == client


def test_a_block_of_a_type_not_known_is_written_back_as_it_was(tmp_path):
    """A newer API's block (a ``fallback`` echoed back from a response, any
    other) is reported on reading and kept; written back it is that block,
    not its ``[type]`` placeholder, which would change the prompt."""
    raw = {"model": "claude-x", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "fallback", "model": "claude-y"}, {"type": "text", "text": "hello"}]},
        {"role": "user", "content": [{"type": "hologram", "data": {"x": 1}}, {"type": "text", "text": "more"}]},
    ]}
    path = tmp_path / "x.json"
    path.write_text(json.dumps(raw))
    warnings: list[str] = []
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append)))
    assert events[-1]["unknown"] == {"content block": {"fallback": 1, "hologram": 1}}
    document = orjson.loads(sessionport.dumps(events, format="anthropic-messages"))
    assert document["messages"][1:] == [{"role": m["role"], "content": m["content"]} for m in raw["messages"][1:]]
