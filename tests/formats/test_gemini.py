"""The ``gemini`` format: Gemini API history in and out.

Real recorded API traffic from the corpus, the shipped samples, a varied
synthetic stream and real Claude Code sessions through the exporter and
back, Google's own SDK types as the judge of the written request, and
adversarial inputs.
"""

from __future__ import annotations

import io
import json

import orjson
import pytest

import sessionport
from sessionport.context import ReadContext
from sessionport.detect import detect
from sessionport.errors import DataError
from sessionport.model import end_event, message_event, session_event
from sessionport.registry import get_registry

from conftest import FIXTURES, corpus_files, corpus_path, requires_corpus, run_cli

REGISTRY = get_registry()
RETRY = ("gemini", "pydanticai_google_model_retry.json")


def kind(event: dict) -> str:
    return (event.get("meta") or {}).get("kind", "text")


def messages(events):
    return [e for e in events if e["type"] == "message"]


def read_bytes(data: bytes, **ctx_fields) -> list[dict]:
    ctx = ReadContext(name="<gemini test>", on_warning=lambda m: None, **ctx_fields)
    return list(REGISTRY.importer("gemini").read(io.BufferedReader(io.BytesIO(data)), ctx))


# -- what a round trip must keep -------------------------------------------
def texts(events: list[dict]) -> list[tuple[str, str]]:
    """User and assistant texts in order (what Gemini turns can carry)."""
    return [
        (e["role"], e["text"])
        for e in events
        if e.get("type") == "message" and e["role"] in ("user", "assistant") and kind(e) == "text" and e["text"]
    ]


def calls_with_results(events: list[dict]) -> list[tuple]:
    """Each call as (name, input, result text or None, is_error), in call order."""
    results: dict = {}
    for e in events:
        if e.get("type") == "message" and kind(e) == "tool_result":
            results.setdefault(e.get("toolCallId"), e)
    out = []
    for e in events:
        if e.get("type") == "message" and kind(e) == "tool_use":
            result = results.get(e.get("toolCallId"))
            out.append((e.get("toolName"), e.get("toolInput", {}), result["text"] if result else None, bool(result and result.get("isError"))))
    return out


def assert_round_trip(events: list[dict]) -> list[dict]:
    data = sessionport.dumps(events, format="gemini")
    back = sessionport.loads(data, format="gemini")
    # a result without a call has no place but user text: it is not a call
    assert [t for t in texts(back) if not t[1].startswith("[result of ")] == texts(events)
    before, after = calls_with_results(events), calls_with_results(back)
    assert len(after) == len(before)
    for (name, args, result, error), (name2, args2, result2, error2) in zip(before, after):
        assert name2 == name
        assert args2 == (args if isinstance(args, dict) else {"input": args})
        if result is not None:
            assert result2 == result, f"the result of {name} changed or lost its call"
            assert error2 == error
    ids = [e["toolCallId"] for e in back if kind(e) == "tool_use"]
    assert len(ids) == len(set(ids)), "call ids must stay unique"
    return back


def varied_stream() -> list[dict]:
    """A portable stream with the variety of a Claude Code session."""
    tool = lambda text, **f: message_event("tool", text, **f)  # noqa: E731
    return [
        session_event("claude-code", sessionId="synthetic", cwd="/repo"),
        message_event("system", "You are Claude Code.", meta={"kind": "text"}),
        message_event("user", "<system-reminder>context</system-reminder>", meta={"kind": "text", "injected": True}),
        message_event("user", "Fix the build, please."),
        message_event("assistant", "Thinking about the build.", meta={"kind": "thinking", "signature": "anthropic-opaque"}),
        message_event("assistant", "", meta={"kind": "thinking", "redacted": True}),
        message_event("assistant", "Let me look at two files.", meta={"kind": "text", "model": "claude"}),
        tool("", toolName="Read", toolCallId="toolu_a", toolInput={"file_path": "a.py"}, meta={"kind": "tool_use"}),
        tool("", toolName="Read", toolCallId="toolu_b", toolInput={"file_path": "b.py"}, meta={"kind": "tool_use"}),
        # results out of order, a user interruption between them
        tool("contents of b", toolCallId="toolu_b", meta={"kind": "tool_result"}),
        message_event("user", "Also check c.py.", meta={"kind": "text"}),
        tool("contents of a", toolCallId="toolu_a", meta={"kind": "tool_result"}),
        message_event("user", "[image: image/png, 1.0 MB]", meta={"kind": "text"}),
        message_event("assistant", "Running the tests.", meta={"kind": "text"}),
        tool("pytest", toolName="Bash", toolCallId="toolu_c", toolInput={"command": "pytest"}, meta={"kind": "tool_use"}),
        # an inlined subagent between the call and its result
        message_event("user", "Subagent prompt", meta={"kind": "text", "sidechain": True}),
        tool("", toolName="Grep", toolCallId="toolu_s", toolInput={"pattern": "x"}, meta={"kind": "tool_use", "sidechain": True}),
        tool("no matches", toolCallId="toolu_s", meta={"kind": "tool_result", "sidechain": True}),
        message_event("assistant", "Subagent answer", meta={"kind": "text", "sidechain": True}),
        tool("1 failed", toolCallId="toolu_c", isError=True, meta={"kind": "tool_result"}),
        message_event("assistant", "", meta={"kind": "text"}),
        tool("", toolName="TodoWrite", toolCallId="toolu_d", toolInput="plain string input", meta={"kind": "tool_use"}),
        tool("ok", toolCallId="toolu_d", meta={"kind": "tool_result"}),
        tool("late output", toolCallId="toolu_unknown", meta={"kind": "tool_result"}),
        message_event("assistant", "Fixed.", meta={"kind": "text"}),
        tool("", toolName="Bash", toolCallId="toolu_e", toolInput={"command": "git push"}, meta={"kind": "tool_use"}),
        end_event(usage={"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}),
    ]


# -- corpus: recorded Gemini API traffic -------------------------------------
def test_recorded_traffic_yields_the_whole_conversation_once():
    path = corpus_path(*RETRY)
    raw = json.loads(path.read_bytes())
    last = raw["interactions"][-1]
    events = list(sessionport.read(str(path)))
    assert events[0]["type"] == "session" and events[0]["source"] == "gemini"
    msgs = messages(events)
    system = last["request_body"]["systemInstruction"]["parts"][0]["text"]
    question = last["request_body"]["contents"][0]["parts"][0]["text"]
    final = last["response_body"]["candidates"][0]["content"]["parts"][0]["text"]
    assert [(m["role"], m["text"]) for m in msgs if kind(m) == "text"] == [("system", system), ("user", question), ("assistant", final)]
    assert (system, question, final) == ("You are a helpful chatbot.", "What is the capital of France?", "Paris")
    calls = [m for m in msgs if kind(m) == "tool_use"]
    results = [m for m in msgs if kind(m) == "tool_result"]
    # the history is resent by every request: each call appears once
    assert [c["toolInput"] for c in calls] == [{"country": "France"}, {"country": "La France"}]
    assert [c["toolCallId"] for c in calls] == [r["toolCallId"] for r in results]
    assert results[0]["isError"] is True and "La France" in results[0]["text"]
    assert results[1]["text"] == "Paris" and results[1]["meta"]["responseKey"] == "return_value"
    # the signature the client resent is kept byte for byte (URL-safe base64 there)
    sent = last["request_body"]["contents"][1]["parts"][0]["thoughtSignature"]
    assert calls[0]["meta"]["thoughtSignature"] == sent
    assert msgs[-1]["meta"]["model"] == last["response_body"]["modelVersion"]
    end = events[-1]
    usage = [i["response_body"]["usageMetadata"] for i in raw["interactions"]]
    assert end["usage"]["total_tokens"] == sum(u["totalTokenCount"] for u in usage)
    assert end["usage"]["reasoning_output_tokens"] == sum(u["thoughtsTokenCount"] for u in usage)


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("gemini", "pydanticai_*.json"), ids=lambda p: p.name)
def test_corpus_api_files_convert_with_detection(path):
    result = run_cli("convert", str(path), "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr.decode()
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["source"] == "gemini"
    assert any(e["type"] == "message" and e["role"] == "user" for e in events)


def test_recorded_streaming_traffic_joins_its_chunks():
    uri = "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-flash:streamGenerateContent?alt=sse"
    chunk = lambda parts, **extra: {"candidates": [{"content": {"role": "model", "parts": parts}}], **extra}  # noqa: E731
    doc = {"interactions": [{
        "uri": uri,
        "request_body": {"contents": [{"role": "user", "parts": [{"text": "Count to three."}]}]},
        "response_body": [
            chunk([{"text": "Counting", "thought": True}]),
            chunk([{"text": " slowly.", "thought": True}]),
            chunk([{"text": "One, "}]),
            chunk([{"text": "two, three.", "thoughtSignature": "CqQDAXLI"}], usageMetadata={"promptTokenCount": 5, "candidatesTokenCount": 4, "thoughtsTokenCount": 3, "totalTokenCount": 12}, modelVersion="gemini-3-flash"),
        ],
    }]}
    data = json.dumps(doc, indent=1).encode()
    assert detect(data, "x", REGISTRY).name == "gemini"
    events = read_bytes(data)
    assert [(kind(m), m["text"]) for m in messages(events)] == [("text", "Count to three."), ("thinking", "Counting slowly."), ("text", "One, two, three.")]
    assert messages(events)[-1]["meta"] == {"kind": "text", "model": "gemini-3-flash", "thoughtSignature": "CqQDAXLI"}
    assert events[-1]["usage"]["total_tokens"] == 12


def test_traffic_continued_on_another_provider_is_not_claimed_first():
    head = corpus_path("openai", "pydanticai_chat_multiple_agent_tool_calls.json").read_bytes()[:65536]
    assert 0 < REGISTRY.importer("gemini").sniff(head) <= 20


# -- samples ------------------------------------------------------------------
def test_request_sample_maps_every_part_kind():
    events = list(sessionport.read(str(FIXTURES / "gemini" / "request.json")))
    msgs = messages(events)
    assert [(m["role"], kind(m)) for m in msgs] == [
        ("system", "text"), ("user", "text"), ("user", "text"), ("assistant", "thinking"),
        ("tool", "tool_use"), ("tool", "tool_result"), ("assistant", "text"),
    ]
    assert msgs[0]["text"] == "You are a concise weather assistant."  # systemInstruction after contents still comes first
    assert msgs[2]["text"].startswith("[image: image/png,") and "iVBOR" not in msgs[2]["text"]
    call, result = msgs[4], msgs[5]
    assert call["toolCallId"] == "gemini-call-1" and call["meta"]["syntheticId"] is True
    assert result["toolCallId"] == call["toolCallId"] and result["text"] == "18 C, clear sky"
    assert call["meta"]["thoughtSignature"].startswith("CpYEAXLI")
    assert events[-1]["metadata"]["generationConfig"] == {"temperature": 0.2}  # keys after the history


def test_history_sample_pairs_by_id_out_of_order():
    msgs = messages(sessionport.read(str(FIXTURES / "gemini" / "history.json")))
    by_id = {m["toolCallId"]: m for m in msgs if kind(m) == "tool_result"}
    assert by_id["call-a"]["text"] == "README.md\nsrc/"
    assert by_id["call-b"]["text"].startswith("# Demo")


def test_calls_without_ids_pair_by_order_and_name():
    doc = [
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"n": 1}}}, {"functionCall": {"name": "g", "args": {}}}, {"functionCall": {"name": "f", "args": {"n": 2}}}]},
        {"role": "function", "parts": [{"functionResponse": {"name": "g", "response": {"x": 1, "y": 2}}}, {"functionResponse": {"name": "f", "response": {"output": "one"}}}, {"functionResponse": {"name": "f", "response": {"output": "two"}}}]},
    ]
    msgs = messages(read_bytes(orjson.dumps(doc)))
    calls = {m["toolCallId"]: m for m in msgs if kind(m) == "tool_use"}
    results = [m for m in msgs if kind(m) == "tool_result"]
    assert [calls[r["toolCallId"]]["toolInput"] for r in results] == [{}, {"n": 1}, {"n": 2}]
    assert results[0]["text"] == '{"x":1,"y":2}' and results[0]["meta"]["responseJson"] is True
    assert all(r["role"] == "tool" for r in results)
    # the same input gives the same synthesized ids
    assert [m.get("toolCallId") for m in messages(read_bytes(orjson.dumps(doc)))] == [m.get("toolCallId") for m in msgs]


def test_unknown_parts_are_kept_whole():
    doc = {"contents": [{"role": "model", "parts": [{"videoMetadata": {"fps": 2}, "fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}}, {"hologramCall": {"id": "t1"}}]}]}
    msgs = messages(read_bytes(orjson.dumps(doc)))
    assert msgs[0]["text"] == "[file: video/mp4, gs://b/v.mp4]"
    assert msgs[1]["meta"]["geminiPart"] == {"hologramCall": {"id": "t1"}}
    back = json.loads(sessionport.dumps([session_event("gemini"), *msgs], format="gemini"))
    assert back["contents"][0]["parts"][1] == {"hologramCall": {"id": "t1"}}


# -- exporter -------------------------------------------------------------------
def test_export_merges_turns_and_places_calls_and_results():
    doc = json.loads(sessionport.dumps(varied_stream(), format="gemini"))
    contents = doc["contents"]
    roles = [c["role"] for c in contents]
    assert all(a != b for a, b in zip(roles, roles[1:])), "consecutive turns of one role must be merged"
    assert doc["systemInstruction"] == {"parts": [{"text": "You are Claude Code."}]}
    for i, content in enumerate(contents):
        calls = [p["functionCall"]["id"] for p in content["parts"] if "functionCall" in p]
        responses = [p["functionResponse"]["id"] for p in content["parts"] if "functionResponse" in p]
        if calls:
            assert content["role"] == "model"
            # Gemini 3 refuses calls without a signature: foreign history gets Google's stand-in
            assert [p.get("thoughtSignature") for p in content["parts"] if "functionCall" in p][0] == "skip_thought_signature_validator"
            following = [p["functionResponse"]["id"] for p in contents[i + 1]["parts"] if "functionResponse" in p]
            assert sorted(following) == sorted(calls), "each call turn is answered by the next user turn"
        if responses:
            assert content["role"] == "user"
        for part in content["parts"]:
            if "functionResponse" in part:
                assert isinstance(part["functionResponse"]["response"], dict)
    thought = [p for c in contents for p in c["parts"] if p.get("thought")]
    assert thought == [{"text": "Thinking about the build.", "thought": True}], "foreign signatures are not passed on"
    text = orjson.dumps(doc).decode()
    assert "[result of a tool]\\nlate output" in text
    assert '"error":"sessionport: no result was recorded for this call"' in text


def test_export_warns_about_what_it_changed():
    seen = []
    from sessionport.context import WriteContext

    out = io.BytesIO()
    REGISTRY.exporter("gemini").write(varied_stream(), out, WriteContext(on_warning=seen.append))
    assert len(seen) == 1
    assert "1 empty thinking block(s) dropped" in seen[0] and "1 call(s) without a result" in seen[0] and "1 result(s) without an open call" in seen[0]


def test_synthetic_varied_stream_round_trips():
    back = assert_round_trip(varied_stream())
    assert [m["role"] for m in messages(back)][0] == "system"
    # the call that had no result gets a placeholder answer in the request,
    # which reading drops again: unpaired as in the source, and counted
    push = next(m for m in back if kind(m) == "tool_use" and m["toolInput"] == {"command": "git push"})
    assert not [m for m in back if kind(m) == "tool_result" and m["toolCallId"] == push["toolCallId"]]
    assert back[-1]["skipped"] == {"placeholder result": 1}
    # the stand-in signature is not a signature: it does not come back as one
    assert not [m for m in back if "thoughtSignature" in (m.get("meta") or {})]


def test_sample_round_trip_is_stable():
    once = sessionport.dumps(sessionport.read(str(FIXTURES / "gemini" / "request.json")), format="gemini")
    twice = sessionport.dumps(sessionport.loads(once, format="gemini"), format="gemini")
    assert once == twice
    original = json.loads((FIXTURES / "gemini" / "request.json").read_bytes())
    written = json.loads(once)
    assert written["systemInstruction"] == original["systemInstruction"]
    assert written["contents"][1]["parts"][1]["thoughtSignature"] == original["contents"][1]["parts"][1]["thoughtSignature"]
    assert written["contents"][2]["parts"][0]["functionResponse"]["response"] == {"result": "18 C, clear sky"}


def claude_code_sessions():
    return [p for p in corpus_files("claude-code", "*.jsonl") if p.stat().st_size > 2000 and "subagents" not in p.parts]


@requires_corpus
@pytest.mark.parametrize("path", claude_code_sessions(), ids=lambda p: p.name)
def test_real_claude_code_session_round_trips(path):
    if "claude-code" not in REGISTRY.importer_names():
        pytest.skip("the claude-code importer is not registered in this checkout")
    portable = sessionport.dumps(sessionport.read(str(path), format="claude-code"), format="portable-jsonl")
    events = sessionport.loads(portable, format="portable-jsonl")
    starts = [i for i, e in enumerate(events) if e["type"] == "session"]
    if len(starts) > 1:  # the gemini format holds one session: take the main one
        events = events[: starts[1]]
    back = assert_round_trip(events)
    assert sum(1 for e in back if kind(e) == "tool_use") == sum(1 for e in events if kind(e) == "tool_use")


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("gemini", "vct_*"), ids=lambda p: p.name)
def test_real_gemini_cli_session_round_trips(path):
    events = list(sessionport.read(str(path), format="gemini-cli"))
    back = assert_round_trip(events)
    assert sum(1 for e in back if kind(e) == "thinking") == sum(1 for e in events if kind(e) == "thinking")


# -- Google's own SDK types judge the written request ---------------------------
def _validate_with_sdk(doc: dict) -> None:
    types = pytest.importorskip("google.genai.types", reason="google-genai (Google's SDK, a test dependency) is not installed")
    for content in doc["contents"]:
        types.Content.model_validate(content)
    if "systemInstruction" in doc:
        types.GenerateContentConfig.model_validate({"systemInstruction": doc["systemInstruction"]})
    assert set(doc) <= {"contents", "systemInstruction"}


def test_sdk_accepts_the_exported_varied_stream():
    _validate_with_sdk(json.loads(sessionport.dumps(varied_stream(), format="gemini")))


def test_sdk_accepts_exported_samples_and_corpus():
    sources = [FIXTURES / "gemini" / "request.json", FIXTURES / "gemini" / "history.json", FIXTURES / "portable-jsonl" / "session.jsonl"]
    sources += sorted((FIXTURES / "gemini-cli").iterdir()) + corpus_files("gemini")
    for source in sources:
        _validate_with_sdk(json.loads(sessionport.dumps(sessionport.read(str(source)), format="gemini")))


def test_history_dumped_by_the_python_sdk_reads():
    """``Content.model_dump()`` writes snake_case keys and every unset field as null."""
    types = pytest.importorskip("google.genai.types", reason="google-genai (Google's SDK, a test dependency) is not installed")
    history = [
        types.Content(role="user", parts=[types.Part(text="Weather in Oslo?")]),
        types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(name="weather", args={"city": "Oslo"}), thought_signature=b"sig")]),
        types.Content(role="user", parts=[types.Part(function_response=types.FunctionResponse(name="weather", response={"output": "-3 C"}))]),
        types.Content(role="model", parts=[types.Part(text="It is -3 C.")]),
    ]
    data = orjson.dumps([c.model_dump(mode="json") for c in history])
    assert detect(data, "x", REGISTRY).name == "gemini"
    msgs = messages(read_bytes(data))
    assert [(kind(m), m["text"]) for m in msgs] == [("text", "Weather in Oslo?"), ("tool_use", "Oslo"), ("tool_result", "-3 C"), ("text", "It is -3 C.")]
    assert msgs[1]["toolCallId"] == msgs[2]["toolCallId"] and msgs[1]["meta"]["thoughtSignature"]


def test_sdk_rejects_what_the_exporter_avoids():
    """The judge is real: a plain-string response is refused, so the wrapping matters."""
    types = pytest.importorskip("google.genai.types", reason="google-genai (Google's SDK, a test dependency) is not installed")
    with pytest.raises(Exception):
        types.Content.model_validate({"role": "user", "parts": [{"functionResponse": {"name": "f", "response": "text"}}]})


@requires_corpus
@pytest.mark.parametrize("path", claude_code_sessions()[:4], ids=lambda p: p.name)
def test_sdk_accepts_exported_claude_code_sessions(path):
    if "claude-code" not in REGISTRY.importer_names():
        pytest.skip("the claude-code importer is not registered in this checkout")
    events = list(sessionport.read(str(path), format="claude-code"))
    starts = [i for i, e in enumerate(events) if e["type"] == "session"]
    events = events[: starts[1]] if len(starts) > 1 else events
    _validate_with_sdk(json.loads(sessionport.dumps(events, format="gemini")))


# -- detection and adversarial input --------------------------------------------
@pytest.mark.parametrize(
    "head, expected",
    [
        (b'[{"role":"user","parts":[{"text":"hi"}]}]', "gemini"),
        (b'{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}', "gemini"),
        (b'[{"role":"user","content":"hi"}]', None),
        (b'{"sessionId":"s","projectHash":"h","messages":[{"content":[{"text":"x"}],"parts":[]}]}', None),
    ],
)
def test_sniff(head, expected):
    score = REGISTRY.importer("gemini").sniff(head)
    assert (score > 0) == (expected == "gemini")


def test_sniff_survives_a_cut_head():
    data = (FIXTURES / "gemini" / "request.json").read_bytes()
    for cut in (1, 10, 50, 200, len(data) - 5):
        REGISTRY.importer("gemini").sniff(data[:cut])
    assert detect(data[:300], "x", REGISTRY).name == "gemini"


def test_truncated_document_warns_and_keeps_what_was_read():
    data = (FIXTURES / "gemini" / "history.json").read_bytes()
    seen = []
    ctx = ReadContext(name="<cut>", on_warning=seen.append)
    events = list(REGISTRY.importer("gemini").read(io.BufferedReader(io.BytesIO(data[: len(data) * 2 // 3])), ctx))
    assert messages(events) and messages(events)[0]["text"] == "List the files, then read README.md."
    assert any("ends early" in w for w in seen)
    with pytest.raises(DataError):
        read_bytes(data[: len(data) * 2 // 3], strict=True)


def test_invalid_utf8_is_replaced_not_fatal():
    data = orjson.dumps([{"role": "user", "parts": [{"text": "caf\u00e9 ok"}]}]).replace("é".encode(), b"\xff")
    msgs = messages(read_bytes(data))
    assert msgs[0]["text"] == "caf\ufffd ok"


@pytest.mark.parametrize(
    "doc, where",
    [
        (b'[{"role":"user","parts":[{"text":"a"}]}, 42]', "contents[1]"),
        (b'[{"role":"user","parts":"not parts"}]', None),
        (b'[{"role":"user","parts":[7]}]', "contents[0].parts[0]"),
        (b'{"contents":{"role":"user"}}', "$.contents"),
        (b'{"hello":"world"}', "$"),
        (b'[{"role":"user","parts":[{"text":"a"}]} garbage', None),
    ],
)
def test_wrong_shapes_raise_a_data_error_naming_the_place(doc, where):
    if where is None:
        try:
            events = read_bytes(doc)
        except DataError as exc:
            assert "<gemini test>" in str(exc)
        else:
            assert messages(events)[0]["role"] == "user"
        return
    with pytest.raises(DataError) as info:
        read_bytes(doc)
    assert where in str(info.value)
    # and --skip-bad reads on
    read_bytes(doc, skip_bad=True)


def test_cli_converts_from_stdin_with_detection():
    data = (FIXTURES / "gemini" / "history.json").read_bytes()
    result = run_cli("convert", "-", "--to", "gemini", input=data)
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout)["contents"][0]["parts"][0]["text"] == "List the files, then read README.md."


def test_file_data_named_by_uri_is_written_back_and_not_counted_as_lost_bytes(tmp_path):
    sample = FIXTURES / "gemini" / "file-data.json"
    original = json.loads(sample.read_text())["contents"][0]["parts"]
    events = list(sessionport.read(str(sample)))
    refs = [m["meta"]["mediaRef"] for m in messages(events) if "mediaRef" in m["meta"]]
    assert refs == [{"fileData": p["fileData"]} for p in original[1:3]]
    out = tmp_path / "back.json"
    done = run_cli("convert", str(sample), "--to", "gemini", "-o", str(out))
    assert done.returncode == 0, done.stderr
    written = json.loads(out.read_text())["contents"][0]["parts"]
    assert written[1:3] == original[1:3]
    assert "text" in written[3]  # inline bytes: the placeholder, as before
    assert b"the bytes of 1 image(s) or document(s)" in done.stderr
