"""Inputs valid as JSON whose fields are not what the formats promise: each is
read without loss of the rest, counted, and written by every exporter."""

from __future__ import annotations

import io
import json

import orjson
import pytest

from conftest import run_cli
from sessionport import api
from sessionport.context import ReadContext, WriteContext
from sessionport.jsonout import dumps, in_range
from sessionport.registry import get_registry

EXPORTERS = sorted(get_registry().exporter_names())


def _events(result) -> list[dict]:
    return [orjson.loads(line) for line in result.stdout.splitlines()]


# -- a portable document whose header follows its messages ----------------

def test_a_late_header_portable_document_is_detected_and_keeps_every_message(tmp_path):
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "text": f"message {i} " + "x" * 200, "id": f"m{i}"} for i in range(2000)]
    path = tmp_path / "late.json"
    path.write_text(json.dumps({"messages": messages, "schema": "sessionport/v1", "source": "x", "sessionId": "late-header"}))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = _events(result)
    assert events[0]["sessionId"] == "late-header" and events[0]["source"] == "x"
    assert sum(e["type"] == "message" for e in events) == 2000


def test_provider_lists_with_content_are_still_provider_lists(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi", "text": "extra"}]}))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert _events(result)[0]["source"] in ("anthropic-messages", "openai-chat")


# -- provider messages without content ------------------------------------

@pytest.mark.parametrize("fmt", ["anthropic-messages", "openai-chat"])
def test_provider_messages_without_content_are_counted_and_warned_about(tmp_path, fmt):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "kept"}, {"role": "user", "text": "hello"}, {"role": "assistant", "text": "world"}]}))
    result = run_cli("convert", path, "--from", fmt, "--to", "portable-jsonl")
    assert result.returncode == 0
    events = _events(result)
    assert [e["text"] for e in events if e["type"] == "message"] == ["kept"]
    assert events[-1]["skipped"] == {"message without content": 2}
    assert b"2 message(s) without content were left out (the first at messages[1])" in result.stderr


# -- integers beyond 64 bits ------------------------------------------------

def test_dumps_writes_integers_orjson_refuses_as_floats_and_leaves_the_rest():
    value = {"a": [2**70, {"b": 10**400, "c": True, "d": 7}], "e": -(2**64), "f": 2**64 - 1}
    assert orjson.loads(dumps(value)) == {"a": [float(2**70), {"b": 1.7976931348623157e308, "c": True, "d": 7}], "e": float(-(2**64)), "f": 2**64 - 1}
    assert value["a"][0] == 2**70  # the input is not changed
    plain = {"x": [1, "y"]}
    assert dumps(plain) == orjson.dumps(plain)
    deep = in_range([[[[2**80]]]])
    assert deep == [[[[float(2**80)]]]]


CC_BIGINT = (
    b'{"parentUuid":null,"type":"user","sessionId":"s","uuid":"u1","timestamp":"2026-04-01T10:00:00Z","message":{"role":"user","content":"hi"}}\n'
    b'{"parentUuid":"u1","type":"assistant","sessionId":"s","uuid":"u2","timestamp":"2026-04-01T10:00:01Z","message":{"id":"msg_1","role":"assistant","model":"m",'
    b'"content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":1e21,"output_tokens":18446744073709551615,"cache_read_input_tokens":18446744073709551615}}}\n'
)


def _write_all(path) -> None:
    """Read ``path`` once and write it with every exporter, in-process: any
    exception but a sessionport error fails the test."""
    events = list(api.read(str(path), context=ReadContext(on_warning=lambda message: None)))
    for fmt in EXPORTERS:
        api.write_events(iter(events), io.BytesIO(), format=fmt, context=WriteContext(on_warning=lambda message: None))


def test_token_counts_beyond_64_bits_reach_every_writer(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(CC_BIGINT)
    _write_all(path)
    result = run_cli("convert", path, "--to", "codex")
    assert result.returncode == 0 and b"internal error" not in result.stderr, result.stderr


def test_big_integers_in_a_json_document_are_a_clear_error_naming_the_path(tmp_path):
    """ijson's parser (yajl) stops at an integer beyond 64 bits; JSONL lines
    read it as a float (orjson), as the writers then write it."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"schema": "sessionport/v1", "source": "x", "metadata": {"n": 2**70}, "messages": [{"role": "user", "text": "a"}]}))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 1 and b"at $.metadata.n: the integer 1180591620717411303424 is out of range" in result.stderr, result.stderr
    lines = tmp_path / "doc.jsonl"
    lines.write_bytes(b'{"type":"session","schema":"sessionport/v1","source":"x","metadata":{"n":1180591620717411303424}}\n')
    assert _events(run_cli("convert", lines, "--to", "portable-jsonl"))[0]["metadata"]["n"] == float(2**70)


# -- portable fields of the wrong type ------------------------------------

BAD_META = (
    b'{"type":"session","schema":"sessionport/v1","source":"x","sessionId":"s1","metadata":"oops"}\n'
    b'{"type":"message","role":"user","text":"hi","meta":1.5}\n'
    b'{"type":"message","role":"assistant","text":"ok","parentId":["p"],"meta":{"kind":7,"model":"m"}}\n'
    b'{"type":"end","usage":"lots"}\n'
)


def test_portable_fields_of_the_wrong_type_are_left_out_and_every_writer_takes_the_rest(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(BAD_META)
    _write_all(path)
    result = run_cli("convert", path, "--to", "claude-code")
    assert result.returncode == 0, result.stderr
    assert b"5 field(s) of the wrong type were left out of their events: meta (1), meta.kind (1), metadata (1), parentId (1), usage (1)" in result.stderr


def test_the_portable_document_reader_checks_the_same_fields(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"schema": "sessionport/v1", "source": "x", "metadata": [], "messages": [{"role": "user", "text": "a", "meta": "m", "isError": "no"}]}))
    events = list(api.read(str(path), context=None))
    assert "metadata" not in events[0]
    assert events[1] == {"type": "message", "role": "user", "text": "a"}


def test_fields_of_the_wrong_type_are_reported_in_the_events_order_whatever_the_hash_seed(tmp_path):
    # Several wrong fields in one message and in its meta: the warning names
    # them in the order the event holds them, the same in every process.
    path = tmp_path / "wrong.jsonl"
    lines = [
        {"type": "session", "schema": "sessionport/v1", "source": "x", "sessionId": "s"},
        {"type": "message", "role": "user", "text": "hi", "toolName": 1, "timestamp": 2, "id": 3, "parentId": 4,
         "meta": {"usage": "no", "kind": 5, "model": 6, "injected": "yes"}},
        {"type": "end"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    seen = set()
    for seed in ("0", "1", "2", "3", "4", "5"):
        result = run_cli("convert", path, "--to", "portable-jsonl", env={"PYTHONHASHSEED": seed})
        assert result.returncode == 0, result.stderr
        seen.add(result.stderr)
        events = _events(result)
        message = events[1]
        assert "toolName" not in message and "timestamp" not in message and "meta" in message
        assert not {"usage", "kind", "model", "injected"} & set(message["meta"])
    assert len(seen) == 1, seen
    warning = seen.pop().decode()
    assert "toolName: int), line 2 (timestamp: int), line 2 (id: int), line 2 (parentId: int), line 2 (meta.usage: str)" in warning
