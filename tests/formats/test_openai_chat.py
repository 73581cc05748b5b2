"""openai-chat: Chat Completions message lists, responses and recorded traffic."""

from __future__ import annotations

import orjson
import pytest

import sessionport
from sessionport.errors import DataError
from sessionport.formats.providers import openai_chat_reader as openai_chat

from conftest import FIXTURES, corpus_files, corpus_path, requires_corpus, run_cli
from helpers_streams import kind, messages, read_bytes_with

SAMPLE = FIXTURES / "openai-chat" / "conversation.json"


def read_bytes(data: bytes, **options) -> list[dict]:
    return read_bytes_with(openai_chat.read, data, **options)


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("openai", "*.json"), ids=lambda p: p.name)
def test_every_openai_corpus_file_converts_with_detection(path):
    result = run_cli("convert", str(path), "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr.decode()
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "session"
    assert events[0]["source"] in ("openai-chat", "openai-responses")
    body = messages(events)
    assert any(e["role"] == "user" for e in body) and any(e["role"] == "assistant" for e in body)
    calls = [e for e in body if kind(e) == "tool_use"]
    results = {e["toolCallId"] for e in body if kind(e) == "tool_result"}
    assert calls and all(c["toolCallId"] in results for c in calls)


def test_recording_that_moves_from_gemini_to_openai_yields_the_whole_conversation():
    path = corpus_path("openai", "pydanticai_chat_multiple_agent_tool_calls.json")
    events = list(sessionport.read(str(path)))
    assert [e["type"] for e in events].count("session") == 1
    assert [(e["role"], kind(e), e["text"]) for e in messages(events) if kind(e) != "tool_use"] == [
        ("user", "text", "What is the capital of France?"),
        ("tool", "tool_result", "Paris"),
        ("assistant", "text", "The capital of France is Paris.\n"),
        ("user", "text", "What is the capital of England?"),
        ("tool", "tool_result", "London"),
        ("assistant", "text", "The capital of England is London."),
    ]
    assert [c["toolInput"] for c in messages(events) if kind(c) == "tool_use"] == [{"country": "France"}, {"country": "England"}]


def test_recording_with_image_tool_response_keeps_the_url_as_a_placeholder():
    path = corpus_path("openai", "pydanticai_chat_image_url_tool_response.json")
    body = messages(sessionport.read(str(path)))
    assert body[-2]["text"].startswith("[image: https://t3.ftcdn.net/")
    assert body[-1]["text"] == "The image shows a potato."


def test_recording_with_two_unrelated_conversations_gives_two_sessions():
    def interaction(history, reply):
        return {"uri": "https://api.openai.com/v1/chat/completions", "request_body": {"messages": history, "model": "m"},
                "response_body": {"choices": [{"message": {"role": "assistant", "content": reply}}]}}

    first = [{"role": "user", "content": "a"}]
    second = [{"role": "user", "content": "b"}]
    data = orjson.dumps({"interactions": [
        interaction(first, "A"),
        interaction(first + [{"role": "assistant", "content": "A"}, {"role": "user", "content": "a2"}], "A2"),
        interaction(second, "B"),
    ]})
    events = read_bytes(data)
    sessions = [e for e in events if e["type"] == "session"]
    assert len(sessions) == 2
    assert [e["text"] for e in messages(events)] == ["a", "A", "a2", "A2", "b", "B"]


def test_sample_maps_developer_parts_double_encoded_and_legacy_calls():
    body = messages(sessionport.read(str(SAMPLE)))
    assert body[0]["role"] == "system" and body[0]["meta"]["sourceRole"] == "developer"
    assert body[2]["text"] == "[image: image/png, 70 B]"
    calls = [e for e in body if kind(e) == "tool_use"]
    assert [c["toolInput"] for c in calls] == [{"city": "Paris"}, {"city": "Oslo"}, {"celsius": 2}]
    legacy = calls[2]
    assert "toolCallId" not in legacy and legacy["meta"]["legacyFunction"] is True
    assert body[8]["meta"]["name"] == "dana"


def test_export_pairs_legacy_calls_and_orders_tool_messages_after_their_call():
    document = orjson.loads(sessionport.dumps(list(sessionport.read(str(SAMPLE))), format="openai-chat"))
    chat = document["messages"]
    assert chat[0] == {"role": "developer", "content": "Answer briefly. Use the tools for facts."}
    legacy_call = chat[-3]["tool_calls"][0]
    assert legacy_call["id"] == "call_sp0001" and legacy_call["function"] == {"name": "convert_temperature", "arguments": '{"celsius":2}'}
    assert chat[-2] == {"role": "tool", "tool_call_id": "call_sp0001", "content": "35.6"}
    # Results arrive in another order than the calls: both still follow them.
    assert [m.get("tool_call_id") for m in chat[3:5]] == ["call_oslo", "call_paris"]


def test_invalid_arguments_survive_as_raw_text():
    data = orjson.dumps({"messages": [
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{not json"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]})
    call = messages(read_bytes(data))[0]
    assert "toolInput" not in call and call["meta"]["rawArguments"] == "{not json"
    back = orjson.loads(sessionport.dumps(read_bytes(data), format="openai-chat"))
    assert back["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{not json"


def test_chat_completion_response_object_is_read():
    data = b'{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Hi!","refusal":null}}]}'
    body = messages(read_bytes(data))
    assert [(e["role"], e["text"], e["meta"]["model"]) for e in body] == [("assistant", "Hi!", "gpt-4o")]


def test_bad_items_are_data_errors_with_their_path():
    with pytest.raises(DataError) as info:
        read_bytes(b'[{"role":"user","content":"a"}, 42]')
    assert "messages[1]" in str(info.value)
    assert [e["text"] for e in messages(read_bytes(b'[{"role":"user","content":"a"}, 42, {"role":"wizard"}]', skip_bad=True))] == ["a"]


def test_garbage_and_wrong_format_are_not_claimed():
    s = openai_chat.sniff
    assert s(SAMPLE.read_bytes()) > 50
    assert s(b"not json at all") == 0
    assert s(b'{"contents":[{"role":"user","parts":[{"text":"x"}]}]}') == 0
    assert s(b'{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user"}}\n{"x":1}\n') == 0
    assert s((FIXTURES / "openai-responses" / "input.json").read_bytes()) < s(SAMPLE.read_bytes())


def test_truncated_document_warns_and_keeps_what_was_read():
    data = SAMPLE.read_bytes()
    warnings: list[str] = []
    events = read_bytes(data[: len(data) * 2 // 3], warnings=warnings, name="<cut>")
    assert messages(events) and "ends early" in warnings[0]


def test_one_conversation_per_line_gives_a_session_per_line():
    lines = [
        {"messages": [{"role": "user", "content": "Weather in Paris?"},
                      {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
                      {"role": "tool", "tool_call_id": "call_1", "content": "14 C"},
                      {"role": "assistant", "content": "14 C in Paris."}],
         "tools": [{"type": "function", "function": {"name": "get_weather"}}]},
        {"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]},
    ]
    data = b"".join(orjson.dumps(line) + b"\n" for line in lines) + b'{"messages": [{"role": "user", "content": "torn'
    assert openai_chat.sniff(data) > 50
    warnings: list[str] = []
    events = read_bytes(data, warnings=warnings, name="<lines>")
    assert [e["type"] for e in events].count("session") == 2
    assert [e["text"] for e in messages(events) if kind(e) == "text"] == ["Weather in Paris?", "14 C in Paris.", "Hi", "Hello!"]
    assert warnings and "incomplete" in warnings[0]
    with pytest.raises(DataError) as info:
        read_bytes(b'{"messages": []}\n{"messages": []}\n["not", "a", "conversation"]\n')
    assert "line 3" in str(info.value)
