"""The ``gemini-cli`` importer: legacy sessions, the append-only JSONL log
with its replay rules, and checkpoints; real files and adversarial ones."""

from __future__ import annotations

import io
import json

import orjson
import pytest

import sessionport
from sessionport.context import ReadContext
from sessionport.detect import detect
from sessionport.errors import DataError
from sessionport.registry import get_registry

from conftest import FIXTURES, corpus_files, corpus_path, requires_corpus, run_cli

REGISTRY = get_registry()
SAMPLES = FIXTURES / "gemini-cli"
LEGACY = SAMPLES / "session-2026-03-01T10-00-legacy01.json"
REPLAY = SAMPLES / "session-2026-04-30T09-00-replay01.jsonl"
CHECKPOINT = SAMPLES / "checkpoint-before%20refactor.json"


def kind(event: dict) -> str:
    return (event.get("meta") or {}).get("kind", "text")


def messages(events):
    return [e for e in events if e["type"] == "message"]


def read_bytes(data: bytes, **ctx_fields) -> list[dict]:
    ctx = ReadContext(name="<gemini-cli test>", on_warning=lambda m: None, **ctx_fields)
    return list(REGISTRY.importer("gemini-cli").read(io.BufferedReader(io.BytesIO(data)), ctx))


def replay_raw(path) -> dict:
    """The message records a JSONL log ends with, straight from its lines
    (upsert by id, first position kept)."""
    records: dict = {}
    for line in path.read_bytes().splitlines():
        if line.strip():
            record = json.loads(line)
            if isinstance(record.get("id"), str):
                records[record["id"]] = record
    return records


# -- corpus ---------------------------------------------------------------------
@requires_corpus
@pytest.mark.parametrize("path", corpus_files("gemini", "vct_*"), ids=lambda p: p.name)
def test_corpus_sessions_convert_with_detection(path):
    result = run_cli("convert", str(path), "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr.decode()
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "session" and events[0]["source"] == "gemini-cli"
    assert messages(events)


def test_jsonl_log_keeps_each_repeated_message_once_with_its_latest_content():
    path = corpus_path("gemini", "vct_session.jsonl")
    raw = replay_raw(path)
    events = list(sessionport.read(str(path)))
    msgs = messages(events)
    # every tool call of the final records, once, each with its own result
    expected_calls = [c["id"] for r in raw.values() for c in r.get("toolCalls", [])]
    uses = [m for m in msgs if kind(m) == "tool_use"]
    results = [m for m in msgs if kind(m) == "tool_result"]
    assert [u["toolCallId"] for u in uses] == expected_calls and len(expected_calls) == 12
    assert sorted(r["toolCallId"] for r in results) == sorted(expected_calls)
    for use in uses:
        result = next(r for r in results if r["toolCallId"] == use["toolCallId"])
        assert msgs.index(result) > msgs.index(use)
    # the repeated id appears at its first position (before the next user prompt)
    repeated = "52e62e67-5d6b-4a2c-b12d-11b87fe3e4a4"
    first = next(i for i, m in enumerate(msgs) if m.get("id") == repeated)
    prompt = next(i for i, m in enumerate(msgs) if m["role"] == "user")
    assert first == prompt + 1
    assert sum(1 for m in msgs if m.get("id") == repeated) == 1
    # texts read from the raw lines
    users = [m["text"] for m in msgs if m["role"] == "user"]
    assert users[1] == "System: Please continue." and msgs[[m["text"] for m in msgs].index(users[1])]["meta"]["injected"] is True
    assert users[2].startswith("幫我做一個小修改")
    answers = [m["text"] for m in msgs if m["role"] == "assistant" and kind(m) == "text"]
    assert answers[0].startswith("我已經完成了對專案的深入分析")
    assert [m["text"] for m in msgs if (m.get("meta") or {}).get("notice")] == ["Empty GEMINI.md created. Now analyzing the project to populate it.", "Request cancelled."]
    # usage: the sum of each final record's tokens, counted once
    tokens = [r["tokens"] for r in raw.values() if r.get("tokens")]
    end = events[-1]
    assert end["type"] == "end"
    assert end["usage"]["total_tokens"] == sum(t["total"] for t in tokens)
    assert end["usage"]["cached_input_tokens"] == sum(t["cached"] for t in tokens)
    assert end["metadata"]["lastUpdated"] == "2026-04-23T12:58:35.591Z"


def test_legacy_session_with_tool_calls():
    path = corpus_path("gemini", "vct_legacy_session.json")
    raw = json.loads(path.read_bytes())
    events = list(sessionport.read(str(path)))
    session, msgs = events[0], messages(events)
    assert session["sessionId"] == raw["sessionId"] and session["createdAt"] == raw["startTime"]
    assert msgs[0]["role"] == "user" and msgs[0]["text"] == raw["messages"][0]["content"][0]["text"]
    calls = [c for m in raw["messages"] for c in m.get("toolCalls", [])]
    uses = [m for m in msgs if kind(m) == "tool_use"]
    results = {m["toolCallId"]: m for m in msgs if kind(m) == "tool_result"}
    assert [(u["toolName"], u["toolCallId"]) for u in uses] == [(c["name"], c["id"]) for c in calls]
    for call in calls:
        assert results[call["id"]]["text"] == call["result"][0]["functionResponse"]["response"]["output"]
    thinking = [m for m in msgs if kind(m) == "thinking"]
    first_thought = raw["messages"][1]["thoughts"][0]
    assert thinking[0]["text"] == f"**{first_thought['subject']}** {first_thought['description']}"
    assert msgs[-1]["text"] == raw["messages"][-1]["content"] and msgs[-1]["meta"]["model"] == raw["messages"][-1]["model"]
    assert msgs[-1]["meta"]["usage"]["total_tokens"] == raw["messages"][-1]["tokens"]["total"]
    assert events[-1]["metadata"] == {"kind": "main"}  # a key that followed the messages


def test_oldest_legacy_session_with_string_content():
    path = corpus_path("gemini", "vct_legacy_session_2025-10.json")
    raw = json.loads(path.read_bytes())
    msgs = messages(sessionport.read(str(path)))
    texts = [m["text"] for m in msgs if kind(m) == "text"]
    assert texts == [m["content"] for m in raw["messages"] if m["content"]]
    assert texts[0] == "請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼"
    assert sum(1 for m in msgs if kind(m) == "thinking") == sum(len(m.get("thoughts", [])) for m in raw["messages"])


@requires_corpus
@pytest.mark.parametrize("path", corpus_files("gemini", "vct_*"), ids=lambda p: p.name)
def test_corpus_sessions_are_told_from_the_gemini_api_format(path):
    head = path.read_bytes()[:65536]
    assert detect(head, path.name, REGISTRY).name == "gemini-cli"
    assert REGISTRY.importer("gemini").sniff(head) == 0


# -- samples: replay rules -------------------------------------------------------
def test_replay_sample_applies_set_rewind_and_upsert():
    events = list(sessionport.read(str(REPLAY)))
    msgs = messages(events)
    assert [(m["role"], kind(m), m["text"]) for m in msgs] == [
        ("user", "text", "How many tests are there?"),
        ("assistant", "thinking", "**Counting** Run the test collector."),
        ("tool", "tool_use", "pytest --collect-only -q"),
        ("tool", "tool_result", "42 tests collected"),
        ("assistant", "text", "There are 42 tests."),  # g2 and u2 were rewound
        ("system", "text", "Request cancelled."),
    ]
    assert msgs[2]["toolCallId"] == msgs[3]["toolCallId"] == "shell-1"
    assert msgs[2]["meta"]["usage"]["total_tokens"] == 935  # the upserted record, counted once, on its first call
    end = events[-1]
    assert end["usage"]["total_tokens"] == 935 + 958
    assert end["metadata"]["summary"] == "Count the tests"
    assert end["counts"] == {"tool_calls": 1, "notices": 1}


def test_set_messages_replaces_the_history_and_unknown_rewind_clears_it():
    lines = [
        {"sessionId": "s", "projectHash": "h", "startTime": "2026-05-01T00:00:00Z"},
        {"id": "a", "type": "user", "content": "first"},
        {"$set": {"messages": [{"id": "b", "type": "user", "content": "compressed"}]}},
        {"id": "c", "type": "gemini", "content": "after"},
    ]
    data = b"\n".join(orjson.dumps(x) for x in lines) + b"\n"
    assert [m["text"] for m in messages(read_bytes(data))] == ["compressed", "after"]
    data += orjson.dumps({"$rewindTo": "nope"}) + b"\n" + orjson.dumps({"id": "d", "type": "user", "content": "fresh"}) + b"\n"
    assert [m["text"] for m in messages(read_bytes(data))] == ["fresh"]


def test_legacy_sample_marks_errors_and_descriptions():
    msgs = messages(sessionport.read(str(LEGACY)))
    uses = [m for m in msgs if kind(m) == "tool_use"]
    results = [m for m in msgs if kind(m) == "tool_result"]
    assert uses[0]["text"] == "utils.py" and uses[0]["meta"]["displayName"] == "ReadFile"
    assert results[1]["isError"] is True and results[1]["text"] == "old_string not found"
    assert results[1]["meta"]["status"] == "error"


def test_checkpoint_sample_reads_api_history():
    events = list(sessionport.read(str(CHECKPOINT)))
    assert events[0]["title"] == "before refactor"
    assert events[-1]["metadata"]["authType"] == "oauth-personal"  # a key after the history
    msgs = messages(events)
    assert [kind(m) for m in msgs] == ["text", "thinking", "tool_use", "tool_result", "text"]
    assert msgs[3]["toolCallId"] == "du-1" and msgs[3]["text"] == "12M\tlogs"


def test_restore_checkpoint_reads_client_history_not_ui_history():
    doc = {
        "history": [{"type": "user", "text": "ui only", "id": 1}],
        "clientHistory": [{"role": "user", "parts": [{"text": "api history"}]}, {"role": "model", "parts": [{"text": "answer"}]}],
        "toolCall": {"name": "write_file", "args": {"file_path": "x"}},
        "commitHash": "abc123",
        "messageId": "p-1",
    }
    data = json.dumps(doc, indent=2).encode()
    assert REGISTRY.importer("gemini-cli").sniff(data) > 0
    events = read_bytes(data)
    assert [m["text"] for m in messages(events)] == ["api history", "answer"]
    assert events[-1]["metadata"]["commitHash"] == "abc123" and "history" not in events[0]["metadata"]
    assert events[0]["metadata"]["checkpoint"] == "restore"


def test_modern_record_content_does_not_duplicate_tool_calls():
    record = {
        "id": "g", "type": "gemini",
        "content": [{"text": "plan", "thought": True}, {"text": "Calling."}, {"functionCall": {"id": "t1", "name": "ls", "args": {}}}],
        "thoughts": [{"subject": "ignored", "description": "same thought"}],
        "toolCalls": [{"id": "t1", "name": "ls", "args": {}, "status": "success", "result": [{"functionResponse": {"id": "t1", "name": "ls", "response": {"output": "a b"}}}]}],
    }
    follow = {"id": "u", "type": "user", "content": [{"functionResponse": {"id": "t1", "name": "ls", "response": {"output": "a b"}}}, {"text": "next"}]}
    data = b"\n".join(orjson.dumps(x) for x in ({"sessionId": "s", "projectHash": "h"}, record, follow)) + b"\n"
    msgs = messages(read_bytes(data))
    assert [(kind(m), m["text"]) for m in msgs] == [
        ("thinking", "plan"), ("text", "Calling."), ("tool_use", ""), ("tool_result", "a b"), ("text", "next"),
    ]


def test_running_call_stays_unpaired_and_cancelled_call_is_an_error():
    record = {
        "id": "g", "type": "gemini", "content": "",
        "toolCalls": [
            {"id": "t1", "name": "shell", "args": {"command": "sleep 9"}, "status": "executing"},
            {"id": "t2", "name": "shell", "args": {"command": "rm -rf x"}, "status": "cancelled", "resultDisplay": "Cancelled by user."},
        ],
    }
    data = orjson.dumps({"sessionId": "s", "projectHash": "h"}) + b"\n" + orjson.dumps(record) + b"\n"
    msgs = messages(read_bytes(data))
    assert [(kind(m), m.get("toolCallId")) for m in msgs] == [("tool_use", "t1"), ("tool_use", "t2"), ("tool_result", "t2")]
    assert msgs[2]["isError"] is True and msgs[2]["text"] == "Cancelled by user."


# -- detection and adversarial input ---------------------------------------------
@pytest.mark.parametrize("sample", [LEGACY, REPLAY, CHECKPOINT], ids=lambda p: p.name)
def test_samples_are_detected_and_not_taken_by_gemini(sample):
    head = sample.read_bytes()[:65536]
    assert detect(head, sample.name, REGISTRY).name == "gemini-cli"
    assert REGISTRY.importer("gemini").sniff(head) == 0


@pytest.mark.parametrize(
    "head",
    [
        b'{"parentUuid":null,"sessionId":"x","type":"user","message":{"role":"user","content":"hi"},"uuid":"u"}\n',
        b'[{"role":"user","parts":[{"text":"hi"}]}]',
        b'{"type":"session","schema":"sessionport/v1","source":"x"}\n',
        b'{"messages":[{"role":"user","content":"hi"}]}',
    ],
)
def test_other_formats_are_not_claimed(head):
    assert REGISTRY.importer("gemini-cli").sniff(head) == 0


def test_sniff_survives_cut_heads():
    for sample in (LEGACY, REPLAY, CHECKPOINT):
        data = sample.read_bytes()
        for cut in (1, 7, 40, 150, len(data) // 2):
            REGISTRY.importer("gemini-cli").sniff(data[:cut])
    assert REGISTRY.importer("gemini-cli").sniff(REPLAY.read_bytes()[:120]) > 0  # a torn first line


def test_torn_last_line_is_a_warning_and_strict_makes_it_an_error():
    data = REPLAY.read_bytes()
    cut = data[: data.rindex(b"Request") + 3]
    seen = []
    ctx = ReadContext(name="<torn>", on_warning=seen.append)
    events = list(REGISTRY.importer("gemini-cli").read(io.BufferedReader(io.BytesIO(cut)), ctx))
    assert messages(events)[-1]["text"] == "There are 42 tests."
    assert any("incomplete" in w for w in seen)
    with pytest.raises(DataError):
        read_bytes(cut, strict=True)


def test_garbage_line_names_its_line_and_skip_bad_reads_on():
    lines = REPLAY.read_bytes().splitlines()
    data = b"\n".join([*lines[:3], b"not json at all", *lines[3:]]) + b"\n"
    with pytest.raises(DataError) as info:
        read_bytes(data)
    assert "line 4" in str(info.value)
    assert messages(read_bytes(data, skip_bad=True))[-1]["text"] == "Request cancelled."


def test_truncated_legacy_document_keeps_what_was_read():
    data = LEGACY.read_bytes()
    events = read_bytes(data[: data.index(b'"id": "m3"')])
    assert messages(events)[0]["text"] == "Rename the helper in utils.py to parse_date."
    with pytest.raises(DataError):
        read_bytes(data[: len(data) // 2], strict=True)


def test_invalid_utf8_and_nul_tail():
    data = REPLAY.read_bytes().replace("How many".encode(), b"How \xffany") + b"\x00" * 512
    msgs = messages(read_bytes(data))
    assert msgs[0]["text"] == "How \ufffdany tests are there?"


@pytest.mark.parametrize(
    "data, where",
    [
        (b'{"sessionId":"s","projectHash":"h"}\n[1,2]\n', "line 2"),
        (b'{\n "sessionId": "s",\n "projectHash": "h",\n "messages": [42]\n}', "messages[0]"),
        (b'{\n "sessionId": "s",\n "projectHash": "h",\n "messages": [{"id": "a", "type": "gemini", "toolCalls": ["x"]}]\n}', "toolCalls[0]"),
        (b'{\n "hello": 1\n}', "$"),
    ],
)
def test_wrong_shapes_raise_a_data_error(data, where):
    with pytest.raises(DataError) as info:
        read_bytes(data)
    assert where in str(info.value)


def _prompt_log(sessions: list[tuple[str, str]]) -> str:
    """``logs.json`` as Gemini CLI writes it (pretty-printed, two-space
    indent; shape as real files are quoted in several projects' notes:
    ``[{"sessionId", "messageId", "type": "user", "message", "timestamp"}]``)."""
    entries = [
        {"sessionId": sid, "messageId": n, "type": "user", "message": text, "timestamp": f"2026-04-30T09:0{n}:00.000Z"}
        for n, (sid, text) in enumerate(sessions)
    ]
    return json.dumps(entries, indent=2)


def test_a_walk_of_a_project_folder_passes_over_its_prompt_log(tmp_path):
    """Walking ``~/.gemini/tmp`` used to stop on every project's
    ``logs.json`` as an unrecognised file (exit 1)."""
    project = tmp_path / "tmp" / "0c0d7b04c22749f3687ea60b66949fd32bcea2551d4349bf72346a9ccc9a9ba4"
    (project / "chats").mkdir(parents=True)
    (project / "chats" / REPLAY.name).write_bytes(REPLAY.read_bytes())
    (project / "logs.json").write_text(_prompt_log([("s1", "hello"), ("s1", "/quit")]))
    out = tmp_path / "out"
    result = run_cli("convert", tmp_path / "tmp", "--to", "markdown", "-o", f"{out}/")
    assert result.returncode == 0, result.stderr
    assert [p.name for p in out.rglob("*.md")] == [REPLAY.stem + ".md"]


def test_a_prompt_log_without_chats_is_not_passed_over(tmp_path):
    """With chat recording off the prompt log is all there is: a walk names
    it as a file it cannot read rather than leaving it out unsaid."""
    project = tmp_path / "tmp" / "0c0d7b04"
    project.mkdir(parents=True)
    (project / "logs.json").write_text(_prompt_log([("s1", "hello")]))
    result = run_cli("convert", tmp_path / "tmp", "--to", "markdown", "-o", f"{tmp_path / 'out'}/")
    assert result.returncode == 1
    assert b"logs.json" in result.stderr and b"Traceback" not in result.stderr


def test_a_sub_agent_log_names_the_session_whose_folder_holds_it(tmp_path):
    """gemini-cli keeps a sub-agent's log in ``chats/<parent session id>/``
    with ``kind: "subagent"`` in its metadata line and no other link to the
    parent (the layout as several session viewers' tests build it)."""
    parent = json.loads(REPLAY.read_text().splitlines()[0])["sessionId"]
    folder = tmp_path / "chats" / parent
    folder.mkdir(parents=True)
    lines = [
        {"sessionId": "5d2e8c1a-0b3f-4e6a-9c7d-1f2e3a4b5c6d", "projectHash": "9da8b3df", "startTime": "2026-04-30T09:05:00.000Z",
         "lastUpdated": "2026-04-30T09:05:00.000Z", "kind": "subagent"},
        {"id": "s-u1", "timestamp": "2026-04-30T09:05:00.100Z", "type": "user", "content": [{"text": "Map the package layout."}]},
        {"id": "s-g1", "timestamp": "2026-04-30T09:05:04.000Z", "type": "gemini", "content": "Three packages: core, cli, web.",
         "tokens": {"input": 900, "output": 12, "cached": 0, "thoughts": 0, "tool": 0, "total": 912}, "model": "gemini-3-flash-preview"},
    ]
    sub = folder / "5d2e8c1a-0b3f-4e6a-9c7d-1f2e3a4b5c6d.jsonl"
    sub.write_text("".join(json.dumps(l) + "\n" for l in lines))
    session = next(iter(sessionport.read(str(sub))))
    assert session["metadata"]["parentSessionId"] == parent and session["metadata"]["kind"] == "subagent"
    # a main session (no kind, or not in a folder under chats/) names no parent
    (tmp_path / "chats" / REPLAY.name).write_bytes(REPLAY.read_bytes())
    assert "parentSessionId" not in next(iter(sessionport.read(str(tmp_path / "chats" / REPLAY.name))))["metadata"]
