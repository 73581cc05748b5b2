"""Provider exporters write documents the APIs accept, and round trips keep the conversation.

Validity is judged against the providers' own SDK request types (the
``anthropic`` and ``openai`` packages from PyPI, test dependencies): every
key of the written document is checked against the SDK's TypedDict
annotations, strictly (required keys present, no unknown keys, literal
values, union members, lists item by item).  pydantic's own TypedDict
validation is not used because it ignores unknown keys and validates
``Iterable`` fields lazily, so it would pass wrong documents.

Round trip: a stream with text, signed thinking, parallel tool calls with
ids, a call without id, an error result, images as placeholders, a system
prompt, an unanswered call and a result without a call goes to each format
and back (with auto-detection); then real Claude Code sessions from the
corpus do the same.
"""

from __future__ import annotations

import collections.abc
import functools
import io
import types
import typing

import orjson
import pytest
import typing_extensions as te

import sessionport
from sessionport.context import WriteContext
from sessionport.model import iter_sessions
from sessionport.registry import get_registry

from conftest import corpus_files, requires_corpus

FORMATS = ("anthropic-messages", "openai-chat", "openai-responses")


# -- a strict checker over the SDKs' TypedDict annotations ------------------------

def _is(origin, *names) -> bool:
    return any(origin is getattr(mod, name, object()) for mod in (typing, te) for name in names)


def conforms(value, tp, path: str = "$") -> list[str]:
    """Errors of ``value`` against SDK type ``tp`` (empty when it conforms)."""
    from pydantic import BaseModel

    origin, args = te.get_origin(tp), te.get_args(tp)
    if tp is typing.Any or tp is object or isinstance(tp, typing.TypeVar):
        return []
    if _is(origin, "Annotated", "Required", "NotRequired"):
        return conforms(value, args[0], path)
    if origin in (typing.Union, types.UnionType):
        failures = []
        for arg in _discriminated(value, args):
            errors = conforms(value, arg, path)
            if not errors:
                return []
            failures.append(errors)
        closest = min(failures, key=len)
        return [f"{path}: matches none of {len(args)} members of the union; closest: {closest[0]}"]
    if _is(origin, "Literal"):
        return [] if value in args else [f"{path}: {value!r} is not one of {args}"]
    if te.is_typeddict(tp):
        return _typeddict(value, tp, path)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [f"{path}: {tp.__name__} is a response model, not a request parameter"]
    if origin in (list, collections.abc.Iterable, collections.abc.Sequence) or getattr(origin, "__name__", "") == "SequenceNotStr":
        if not isinstance(value, list):
            return [f"{path}: expected a list, found {type(value).__name__}"]
        return [e for i, item in enumerate(value) for e in conforms(item, args[0] if args else typing.Any, f"{path}[{i}]")]
    if origin in (dict, collections.abc.Mapping):
        return [] if isinstance(value, dict) else [f"{path}: expected an object"]
    scalar = {type(None): lambda v: v is None, bool: lambda v: isinstance(v, bool),
              int: lambda v: isinstance(v, int) and not isinstance(v, bool),
              float: lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), str: lambda v: isinstance(v, str)}
    if tp in scalar:
        return [] if scalar[tp](value) else [f"{path}: expected {tp.__name__}, found {type(value).__name__}"]
    raise TypeError(f"{path}: the checker does not know {tp!r}")


@functools.lru_cache(maxsize=None)
def _hints(tp) -> dict:
    return te.get_type_hints(tp, include_extras=True)


def _discriminated(value, members: tuple) -> tuple:
    """The union members whose ``type``/``role`` literal admits the value's
    (checking only those keeps the strict check fast on big unions)."""
    if not isinstance(value, dict):
        return members
    for key in ("type", "role"):
        if key not in value:
            continue
        chosen = []
        for member in members:
            if not te.is_typeddict(member):
                chosen.append(member)
                continue
            hint = _hints(member).get(key)
            literal = te.get_args(hint)[0] if _is(te.get_origin(hint), "Required", "NotRequired") else hint
            if hint is None or te.get_origin(literal) is None or value[key] in te.get_args(literal):
                chosen.append(member)
        if chosen:
            return tuple(chosen)
    return members


def _typeddict(value, tp, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object ({tp.__name__}), found {type(value).__name__}"]
    hints = _hints(tp)
    errors = []
    for key, hint in hints.items():
        marker = te.get_origin(hint)
        required = _is(marker, "Required") or (getattr(tp, "__total__", True) and not _is(marker, "NotRequired"))
        if required and key not in value:
            errors.append(f"{path}: {tp.__name__} needs {key!r}")
    for key, item in value.items():
        if key not in hints:
            errors.append(f"{path}: {tp.__name__} has no key {key!r}")
        else:
            errors.extend(conforms(item, hints[key], f"{path}.{key}"))
    return errors


def request_type(fmt: str):
    """The SDK's request-parameter TypedDict of each format."""
    if fmt == "anthropic-messages":
        anthropic = pytest.importorskip("anthropic", reason="the anthropic SDK (test dependency) is not installed")
        from anthropic.types import message_create_params

        return message_create_params.MessageCreateParamsBase, "messages", anthropic
    pytest.importorskip("openai", reason="the openai SDK (test dependency) is not installed")
    if fmt == "openai-chat":
        from openai.types.chat import completion_create_params

        return completion_create_params.CompletionCreateParamsBase, "messages", None
    from openai.types.responses import response_create_params

    return response_create_params.ResponseCreateParamsBase, "input", None


def assert_api_valid(fmt: str, document: dict) -> None:
    params, array_key, _ = request_type(fmt)
    hints = _hints(params)
    assert isinstance(document.get(array_key), list), f"{fmt}: the document has no {array_key} list"
    errors = []
    for key, value in document.items():
        assert key in hints, f"{fmt}: the request has no parameter {key!r}"
        errors.extend(conforms(value, hints[key], f"$.{key}"))
    assert not errors, f"{fmt} output is not a valid request:\n" + "\n".join(errors[:10])
    if fmt == "anthropic-messages":
        _assert_anthropic_turns(document["messages"])
    elif fmt == "openai-chat":
        _assert_chat_pairing(document["messages"])
    else:
        _assert_responses_pairing(document["input"])


def _assert_anthropic_turns(messages: list) -> None:
    previous_role, answering = None, False
    for index, message in enumerate(messages):
        assert message["role"] != previous_role or message["role"] == "system", f"messages[{index}]: two {message['role']} turns in a row"
        previous_role = message["role"]
        blocks = message["content"] if isinstance(message["content"], list) else []
        calls = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        if calls:
            answer = messages[index + 1]
            assert answer["role"] == "user", f"messages[{index}]: tool calls not followed by a user turn"
            results = [b for b in answer["content"] if b.get("type") == "tool_result"]
            assert sorted(r["tool_use_id"] for r in results) == sorted(calls)
            kinds = [b.get("type") for b in answer["content"]]
            assert kinds[: len(results)] == ["tool_result"] * len(results), "tool_result blocks must open the user turn"
        elif message["role"] == "user" and not answering:
            assert not any(b.get("type") == "tool_result" for b in blocks), f"messages[{index}]: a tool_result without calls before it"
        answering = bool(calls)


def _assert_chat_pairing(messages: list) -> None:
    open_calls: list[str] = []
    for index, message in enumerate(messages):
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_calls, f"messages[{index}]: tool message answers no open call"
            open_calls.remove(message["tool_call_id"])
            continue
        assert not open_calls, f"messages[{index}]: {message['role']} message before all tool results"
        open_calls = [call["id"] for call in message.get("tool_calls") or ()]
    assert not open_calls, "the document ends with unanswered tool calls"


def _assert_responses_pairing(items: list) -> None:
    calls = [i["call_id"] for i in items if i.get("type") in ("function_call", "custom_tool_call")]
    outputs = [i["call_id"] for i in items if i.get("type") in ("function_call_output", "custom_tool_call_output")]
    assert sorted(calls) == sorted(outputs) and len(set(calls)) == len(calls)
    for call_id in calls:
        call_at = next(n for n, i in enumerate(items) if i.get("call_id") == call_id and i["type"].endswith("_call"))
        output_at = next(n for n, i in enumerate(items) if i.get("call_id") == call_id and i["type"].endswith("_output"))
        assert call_at < output_at


# -- what a round trip must keep ----------------------------------------------------

def conversation_texts(events) -> list[tuple[str, str]]:
    return [
        (e["role"], e["text"])
        for e in events
        if e.get("type") == "message" and e["role"] in ("user", "assistant")
        and (e.get("meta") or {}).get("kind", "text") not in ("thinking", "tool_use", "tool_result") and e["text"].strip()
    ]


def tool_calls(events) -> list[tuple[str, object, str | None]]:
    """(name, input, result text or None) of every call: results pair by id,
    a result without id with the oldest open call (of the same name first)."""
    calls, order, open_keys = {}, [], []
    for event in events:
        if event.get("type") != "message":
            continue
        kind = (event.get("meta") or {}).get("kind")
        if kind == "tool_use":
            key = event.get("toolCallId") or f"#{len(order)}"
            calls[key] = [event.get("toolName"), event.get("toolInput"), None]
            order.append(key)
            open_keys.append(key)
        elif kind == "tool_result":
            key = event.get("toolCallId")
            if not key and open_keys:
                named = [k for k in open_keys if calls[k][0] == event.get("toolName")]
                key = (named or open_keys)[0]
            if key in open_keys:
                calls[key][2] = event["text"]
                open_keys.remove(key)
    return [tuple(calls[k]) for k in order]


def is_subsequence(small: list, big: list) -> bool:
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


def round_trip(fmt: str, events: list[dict]) -> tuple[dict, list[dict]]:
    data = sessionport.dumps(events, format=fmt)
    document = orjson.loads(data)
    back = sessionport.loads(data)  # auto-detected
    if back[0]["source"] != fmt:
        # Plain role/content messages read the same in all three formats;
        # anything with tool calls or thinking must be recognised.
        plain = all((e.get("meta") or {}).get("kind", "text") == "text" for e in back if e["type"] == "message")
        assert plain, f"{fmt} output was detected as {back[0]['source']}"
    return document, back


def assert_kept(fmt: str, events: list[dict], back: list[dict]) -> None:
    before, after = conversation_texts(events), conversation_texts(back)
    assert is_subsequence(before, after), f"{fmt}: user or assistant texts were lost"
    extra = [t for t in after if t not in before]
    assert all(text.startswith("[tool result for ") for _, text in extra), f"{fmt}: unexpected texts {extra[:3]}"
    assert tool_calls(back) == tool_calls(events), f"{fmt}: tool calls or their results changed"


# -- a synthetic session with the variety of a real one -----------------------------

def synthetic_stream() -> list[dict]:
    def msg(role, text, **fields):
        event = {"type": "message", "role": role, "text": text}
        event.update(fields)
        return event

    def use(call_id, name, tool_input):
        fields = {"toolName": name, "toolInput": tool_input, "meta": {"kind": "tool_use"}}
        if call_id:
            fields["toolCallId"] = call_id
        return msg("tool", "", **fields)

    def result(call_id, text, **fields):
        fields.setdefault("meta", {"kind": "tool_result"})
        if call_id:
            fields["toolCallId"] = call_id
        return msg("tool", text, **fields)

    return [
        {"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "s1", "metadata": {"model": "claude-opus-4-5"}},
        msg("system", "You are a coding agent."),
        msg("user", "Why does `make test` fail? Screenshot below."),
        msg("user", "[image: image/png, 1.0 MB]", meta={"kind": "text", "attachment": "image"}),
        msg("assistant", "Looking at the Makefile and the tests together.", meta={"kind": "thinking", "signature": "EqoBCkgIARABGAIiQN0signature"}),
        msg("assistant", "I'll read the Makefile and run the tests."),
        use("toolu_01A", "Read", {"file_path": "Makefile"}),
        use("toolu_01B", "Bash", {"command": "make test", "timeout": 120}),
        result("toolu_01B", "FAIL test_cart.py::test_total", isError=True),
        result("toolu_01A", "test:\n\tpytest -q"),
        msg("assistant", "The total test fails; let me grep for the discount."),
        use(None, "Grep", {"pattern": "discount"}),
        result(None, "cart.py:12: total = price"),
        msg("assistant", "Fixing it now."),
        use("call.with:odd/chars", "Edit", {"file_path": "cart.py", "old_string": "price", "new_string": "price * (1 - discount)"}),
        msg("system", "hook: formatter ran", meta={"kind": "text", "injected": True}),
        result("call.with:odd/chars", "The file cart.py has been updated."),
        msg("user", "[Request interrupted by user]"),
        result("toolu_unknown", "a result whose call is not in the stream"),
        msg("user", "Run the tests once more, please."),
        use("toolu_04", "Bash", {"command": "make test"}),
    ]


@pytest.mark.parametrize("fmt", FORMATS)
def test_synthetic_session_export_is_a_valid_request(fmt):
    data = sessionport.dumps(synthetic_stream(), format=fmt)
    assert_api_valid(fmt, orjson.loads(data))


@pytest.mark.parametrize("fmt", FORMATS)
def test_synthetic_session_round_trip_keeps_texts_calls_and_results(fmt):
    events = synthetic_stream()
    document, back = round_trip(fmt, events)
    # The result without a call comes back as user text naming the call.
    assert ("user", "[tool result for toolu_unknown]\na result whose call is not in the stream") in conversation_texts(back)
    # The last call had no result: the document carries a placeholder the
    # importer drops again, so the call is unanswered as in the source.
    expected = [c for c in tool_calls(events)]
    assert expected[-1] == ("Bash", {"command": "make test"}, None)
    assert_kept(fmt, events, back)
    # Synthesized or rewritten ids still pair every call with its result.
    assert tool_calls(back)[2] == ("Grep", {"pattern": "discount"}, "cart.py:12: total = price")


def test_anthropic_keeps_signed_thinking_errors_and_the_system_prompt():
    document, back = round_trip("anthropic-messages", synthetic_stream())
    assert document["system"] == "You are a coding agent."
    assert document["model"] == "claude-opus-4-5"
    thinking = [e for e in back if (e.get("meta") or {}).get("kind") == "thinking"]
    assert [(t["text"], t["meta"]["signature"]) for t in thinking] == [("Looking at the Makefile and the tests together.", "EqoBCkgIARABGAIiQN0signature")]
    errors = [e["text"] for e in back if e.get("isError")]
    assert errors == ["FAIL test_cart.py::test_total"]
    ids = [b["id"] for m in document["messages"] for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert "call_with_odd_chars" in ids  # tool_use ids must match ^[a-zA-Z0-9_-]+$
    # The hook message arrived between a call and its result: it waits until
    # the result has been written, as a system message.
    roles = [m["role"] for m in document["messages"]]
    assert "system" in roles
    at = roles.index("system")
    assert any(b.get("type") == "tool_result" for b in document["messages"][at - 1]["content"])


def test_openai_formats_drop_or_keep_thinking_as_their_api_allows():
    warnings: list[str] = []
    from sessionport.context import WriteContext
    import io

    out = io.BytesIO()
    sessionport.write_events(synthetic_stream(), out, format="openai-chat", context=WriteContext(on_warning=warnings.append))
    assert any("thinking message(s) dropped" in w for w in warnings)
    assert any("no recorded result" in w for w in warnings)
    assert any("no matching call" in w for w in warnings)
    assert any("synthesized" in w for w in warnings)
    document, back = round_trip("openai-responses", synthetic_stream())
    reasoning = [i for i in document["input"] if i.get("type") == "reasoning"]
    assert reasoning[0]["summary"] == [{"type": "summary_text", "text": "Looking at the Makefile and the tests together."}]
    assert document["input"][0] == {"type": "message", "role": "system", "content": "You are a coding agent."}


@pytest.mark.parametrize("fmt", FORMATS)
def test_fixture_exports_are_valid_requests(fmt):
    """Every provider fixture, converted to each provider format."""
    from conftest import FIXTURES

    for source in FORMATS:
        for sample in sorted((FIXTURES / source).iterdir()):
            events = list(sessionport.read(str(sample)))
            # a Cline task goes back to Cline's own array by default: the request is asked for
            options = {"anthropic_shape": "request"} if fmt == "anthropic-messages" else {}
            data = sessionport.dumps(events, format=fmt, **options)
            assert_api_valid(fmt, orjson.loads(data))
            back = sessionport.loads(data, format=fmt)
            assert tool_calls(back) == tool_calls(events), f"{sample.name} -> {fmt}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_stream_writes_an_empty_request(fmt):
    document = orjson.loads(sessionport.dumps([], format=fmt))
    key = "input" if fmt == "openai-responses" else "messages"
    assert document == {key: []}


# -- real Claude Code sessions ---------------------------------------------------------

CLAUDE_FILES = [p for p in corpus_files("claude-code", "*.jsonl") if p.stat().st_size > 0]


def _claude_code_registered() -> None:
    info = get_registry().formats.get("claude-code")
    if info is None or info.importer is None:
        pytest.skip("the claude-code importer is not registered in this checkout")


@requires_corpus
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: p.name[:40])
def test_claude_code_sessions_round_trip_through_provider_formats(path, fmt):
    _claude_code_registered()
    portable = sessionport.dumps(sessionport.read(str(path), format="claude-code"), format="portable-jsonl")
    events = sessionport.loads(portable, format="portable-jsonl")
    sessions = list(iter_sessions(events))
    checked = 0
    for session, messages in sessions:
        if not messages:
            continue
        stream = [session, *messages]
        document, back = round_trip(fmt, stream)
        assert_api_valid(fmt, document)
        # Sub-agent messages inlined in the main thread are left out by design.
        main_thread = [e for e in stream if not (e.get("meta") or {}).get("sidechain")]
        assert_kept(fmt, main_thread, back)
        if fmt == "anthropic-messages":
            # Claude's thinking carries its signature and survives unchanged.
            def signed(events):
                return [(e["text"], e["meta"]["signature"]) for e in events
                        if (e.get("meta") or {}).get("kind") == "thinking" and "signature" in e["meta"]]
            assert signed(back) == signed(main_thread)
        checked += 1
    if not checked:
        pytest.skip(f"{path.name} holds no conversation")


def test_results_written_between_the_parallel_calls_of_one_answer_stay_paired():
    """Claude Code 2.1.9x writes a parallel call's result as soon as the tool
    ends, before the answer's next call (and text of the same answer can come
    between its calls): a real 2.1.92 sub-agent transcript (Xu-Wentao/dotfile)
    exported to Messages, Responses and Gemini CLI with calls left without
    results and results without calls."""
    from conftest import FIXTURES

    path = str(FIXTURES / "claude-code" / "session-2.1.92-parallel-results.jsonl")
    for fmt in ("anthropic-messages", "openai-responses", "gemini-cli"):
        warnings: list[str] = []
        out = io.BytesIO()
        sessionport.write_events(sessionport.read(path), out, format=fmt, context=WriteContext(on_warning=warnings.append))
        assert not [w for w in warnings if "without a call" in w or "no matching call" in w or "no recorded result" in w], (fmt, warnings)
    out = io.BytesIO()
    sessionport.write_events(sessionport.read(path), out, format="anthropic-messages")
    turns = [(m["role"], [b.get("id") or b.get("tool_use_id") or b["type"] for b in m["content"]]) for m in orjson.loads(out.getvalue())["messages"]]
    assert turns[1:5] == [
        ("assistant", ["thinking", "toolu_01FixA", "toolu_01FixB"]),  # the blank text between them is left out
        ("user", ["toolu_01FixB", "toolu_01FixA"]),
        ("assistant", ["text", "toolu_01FixC", "toolu_01FixD", "toolu_01FixE"]),
        ("user", ["toolu_01FixD", "toolu_01FixC", "toolu_01FixE"]),
    ]
