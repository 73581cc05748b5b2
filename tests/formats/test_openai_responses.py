"""openai-responses: Responses API item lists, response objects and recorded traffic."""

from __future__ import annotations

import orjson
import pytest

import sessionport
from sessionport.errors import DataError
from sessionport.formats.providers import openai_responses_reader as openai_responses

from conftest import FIXTURES, corpus_path
from helpers_streams import kind, messages, read_bytes_with

SAMPLE = FIXTURES / "openai-responses" / "input.json"


def read_bytes(data: bytes, **options) -> list[dict]:
    return read_bytes_with(openai_responses.read, data, **options)


def test_recorded_phase_traffic_yields_instructions_reasoning_calls_and_answer():
    path = corpus_path("openai", "pydanticai_responses_phase_live.json")
    events = list(sessionport.read(str(path)))
    assert events[0]["source"] == "openai-responses" and events[0]["metadata"] == {"model": "gpt-5.5"}
    body = messages(events)
    assert [(e["role"], kind(e)) for e in body] == [
        ("system", "text"), ("user", "text"), ("assistant", "thinking"), ("assistant", "text"),
        ("tool", "tool_use"), ("tool", "tool_result"), ("assistant", "text"),
    ]
    reasoning = body[2]
    assert reasoning["text"] == "" and reasoning["meta"]["encryptedContent"].startswith("gAAAAABp79WD")
    assert reasoning["meta"]["itemId"].startswith("rs_")
    assert [e["meta"].get("phase") for e in body if e["role"] == "assistant" and kind(e) == "text"] == ["commentary", "final_answer"]
    assert body[4]["toolCallId"] == body[5]["toolCallId"] == "call_ALAJMWK9buNN7RXxxXbECcHa"
    assert body[-1]["text"] == "The capital of PotatoLand is **Potato City**."


def test_recorded_traffic_round_trips_reasoning_verbatim():
    path = corpus_path("openai", "pydanticai_responses_phase_live.json")
    document = orjson.loads(sessionport.dumps(list(sessionport.read(str(path))), format="openai-responses"))
    recorded = orjson.loads(path.read_bytes())["interactions"][1]["request_body"]
    assert document["instructions"] == recorded["instructions"]
    ours = document["input"][:5]
    theirs = recorded["input"]
    assert ours[1] == {"type": "reasoning", "id": theirs[1]["id"], "summary": [], "encrypted_content": theirs[1]["encrypted_content"]}
    assert ours[3] == {k: theirs[3][k] for k in ("type", "call_id", "name", "arguments")}
    assert ours[4] == theirs[4]


def test_sample_round_trip_keeps_custom_tools_images_and_instructions():
    events = list(sessionport.read(str(SAMPLE)))
    body = messages(events)
    patch = next(e for e in body if e.get("toolName") == "apply_patch")
    assert patch["meta"]["customTool"] is True and patch["text"].startswith("*** Begin Patch")
    assert any(e["text"] == "[image: image/png, 70 B]" for e in body)
    document = orjson.loads(sessionport.dumps(events, format="openai-responses"))
    assert document["instructions"].startswith("Briefly narrate")
    kinds = [item["type"] for item in document["input"]]
    assert kinds == ["message", "reasoning", "message", "function_call", "function_call_output",
                     "custom_tool_call", "custom_tool_call_output", "message", "message"]
    assert document["input"][5]["input"].startswith("*** Begin Patch")
    assert document["input"][7]["content"][1] == {"type": "input_text", "text": "[image: image/png, 70 B]"}
    back = messages(sessionport.loads(orjson.dumps(document)))
    assert [(e["role"], e["text"]) for e in back] == [(e["role"], e["text"]) for e in body]


def test_response_object_output_and_string_input_are_read():
    response = b'{"id":"resp_1","object":"response","model":"gpt-5","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi."}]}]}'
    assert [(e["role"], e["text"]) for e in messages(read_bytes(response))] == [("assistant", "Hi.")]
    request = b'{"model":"gpt-5","instructions":"Be terse.","input":"Hello"}'
    assert [(e["role"], e["text"]) for e in messages(read_bytes(request))] == [("system", "Be terse."), ("user", "Hello")]


def test_hosted_tool_items_become_calls_and_unknown_items_are_counted():
    data = orjson.dumps([
        {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "potato"}},
        {"type": "local_shell_call", "id": "lsh_1", "call_id": "call_sh", "action": {"command": ["ls"]}},
        {"type": "local_shell_call_output", "id": "call_sh", "output": "a.txt"},
        {"type": "item_reference", "id": "msg_old"},
    ])
    events = read_bytes(data)
    body = messages(events)
    assert [(e.get("toolName"), kind(e)) for e in body] == [("web_search", "tool_use"), ("local_shell", "tool_use"), ("local_shell", "tool_result")]
    # the item a reference names is stored by the API, not in the file
    assert events[-1]["skipped"] == {"item_reference item": 1}


def test_reasoning_with_plaintext_content_only():
    data = orjson.dumps([{"type": "reasoning", "id": "", "summary": [], "content": [{"type": "reasoning_text", "text": "Think."}], "encrypted_content": None}])
    reasoning = messages(read_bytes(data))[0]
    assert reasoning["text"] == "Think." and reasoning["meta"]["fromContent"] is True
    document = orjson.loads(sessionport.dumps([{"type": "session", "schema": "sessionport/v1", "source": "x"}, reasoning], format="openai-responses"))
    assert document["input"][0]["content"] == [{"type": "reasoning_text", "text": "Think."}]


def test_bad_items_are_data_errors_with_their_path():
    with pytest.raises(DataError) as info:
        read_bytes(b'{"input":[{"role":"user","content":"a"},"oops"]}')
    assert "input[1]" in str(info.value)


def test_detection_prefers_responses_for_item_lists():
    s = openai_responses.sniff
    assert s(SAMPLE.read_bytes()) > 50
    assert s(b'[{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"x"}]') > 50
    assert s(b'{"session":{"id":"x"},"items":[{"type":"message","role":"user","content":[]}]}') == 0  # codex TS rollout
    assert s(b'{"messages":[{"role":"user","content":"x"}]}') == 0


def test_output_text_annotations_are_kept_and_written_back_on_the_output_message():
    import io

    from sessionport.context import WriteContext
    from sessionport.pipeline.stream import write_events

    from test_provider_roundtrip import assert_api_valid

    sample = FIXTURES / "openai-responses" / "output-text-annotations.json"
    source = orjson.loads(sample.read_bytes())["input"][2]["content"][0]["annotations"]
    events = list(sessionport.read(str(sample)))
    answer = [m for m in messages(events) if m["role"] == "assistant" and m["meta"].get("itemId") == "msg_1"][0]
    assert answer["meta"]["annotations"] == source
    out, warnings = io.BytesIO(), []
    write_events(events, out, format="openai-responses", context=WriteContext(on_warning=warnings.append))
    document = orjson.loads(out.getvalue())
    assert_api_valid("openai-responses", document)
    written = [i for i in document["input"] if i.get("id") == "msg_1"][0]
    assert written["status"] == "completed"
    assert written["content"] == [{"type": "output_text", "text": answer["text"], "annotations": source}]
    assert warnings == []
    # without the item id the output-message shape cannot be written: the loss is counted
    for event in events:
        if event.get("meta", {}).get("itemId") == "msg_1":
            del event["meta"]["itemId"]
    out, warnings = io.BytesIO(), []
    write_events(events, out, format="openai-responses", context=WriteContext(on_warning=warnings.append))
    assert any("2 output_text annotation(s)" in w for w in warnings)
