"""chatgpt-export: real exports, zips and shards, tree linearization, adversarial input."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

import sessionport
from sessionport.cli import cli
from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.formats.chatgpt import reader as chatgpt_export
from sessionport.formats.chatgpt.tree import current_branch

from conftest import FIXTURES, corpus_files, corpus_path, detected_format, requires_corpus, run_cli
from helpers_streams import sessions_of

SAMPLE = FIXTURES / "chatgpt-export" / "conversations.json"
CORPUS_FILES = corpus_files("chatgpt", "*.json")


def conversations_of(path: Path) -> list[dict]:
    data = json.loads(path.read_bytes())
    return data if isinstance(data, list) else [data]


def invoke(*args: str, **options):
    """The command in this process (faster than a subprocess); -o keeps stdout unused."""
    return CliRunner().invoke(cli, list(args), **options)


def convert_events(path: Path, out: Path, *args: str, **options):
    """``convert PATH --to portable-jsonl ARGS -o OUT`` in process, which must
    succeed; the result and the events written."""
    result = invoke("convert", str(path), "--to", "portable-jsonl", *args, "-o", str(out), **options)
    assert result.exit_code == 0, result.output
    return result, [orjson.loads(line) for line in out.read_bytes().splitlines()]


def read_events(source, warnings: list[str] | None = None, **kwargs) -> list[dict]:
    """Events read in process; warnings are collected in ``warnings`` when given."""
    ctx = ReadContext(on_warning=warnings.append if warnings is not None else lambda message: None)
    return list(sessionport.read(str(source), context=ctx, **kwargs))


def write_export(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "conversations.json"
    path.write_bytes(data)
    return path


def cli_events(*args: str) -> list[dict]:
    """Events of ``sessionport convert ARGS --to portable-jsonl`` run as a real
    process, which must succeed."""
    result = run_cli("convert", *args, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    return [orjson.loads(line) for line in result.stdout.splitlines()]


def session_ids(events: list[dict]) -> list[str]:
    return [e["sessionId"] for e in events if e["type"] == "session"]


def visible_texts(conversation: dict) -> list[tuple[str, str]]:
    """The user/assistant texts a reader saw on the current branch, found by
    walking the raw tree from current_node up (independently of the importer)."""
    mapping = conversation["mapping"]
    node, path, seen = conversation.get("current_node"), [], set()
    while node is not None and node in mapping and node not in seen:
        seen.add(node)
        path.append(node)
        node = mapping[node].get("parent")
    texts = []
    for node_id in reversed(path):
        message = mapping[node_id].get("message")
        if not message or message["author"]["role"] not in ("user", "assistant"):
            continue
        if message.get("recipient", "all") != "all":
            continue
        if (message.get("metadata") or {}).get("is_visually_hidden_from_conversation"):
            continue
        content = message.get("content") or {}
        if content.get("content_type") not in ("text", "multimodal_text"):
            continue
        for part in content.get("parts") or ():
            if isinstance(part, str) and part.strip():
                texts.append((message["author"]["role"], part))
    return texts


def assert_in_order(expected: list[tuple[str, str]], messages: list[dict], label: str) -> None:
    shown = [m for m in messages if m["role"] in ("user", "assistant")]
    i = 0
    for role, text in expected:
        while i < len(shown) and not (shown[i]["role"] == role and text in shown[i]["text"]):
            i += 1
        assert i < len(shown), f"{label}: {role} text {text[:60]!r} is missing or out of order"


# --- real exports ------------------------------------------------------------


@requires_corpus
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_export_converts_one_session_per_conversation_in_order(path, tmp_path):
    _, events = convert_events(path, tmp_path / "out.jsonl", catch_exceptions=False)
    sessions = sessions_of(events)
    conversations = conversations_of(path)
    assert len(sessions) == len(conversations)
    for (session, messages, end), conversation in zip(sessions, conversations):
        assert session["source"] == "chatgpt-export"
        assert session["sessionId"] == conversation.get("conversation_id", conversation["id"])
        assert session.get("title") == conversation.get("title")
        assert session["createdAt"].endswith("Z")
        expected = visible_texts(conversation)
        assert expected, f"{path.name}: the test found no visible text"
        assert_in_order(expected, messages, f"{path.name} / {conversation.get('title')}")
        assert end is not None and end["counts"]["messages"] == len(messages)


@requires_corpus
def test_real_code_interpreter_export_pairs_calls_and_results():
    events = read_events(corpus_path("chatgpt", "chatgpt2graph_examples_conversations.json"))
    (session, messages, end), = sessions_of(events)
    assert session["metadata"]["model"] == "gpt-4-code-interpreter"
    calls = [m for m in messages if m.get("meta", {}).get("kind") == "tool_use"]
    results = [m for m in messages if m.get("meta", {}).get("kind") == "tool_result"]
    assert calls and len(calls) == len(results)
    assert {c["toolCallId"] for c in calls} == {r["toolCallId"] for r in results}
    assert all(c["toolName"] == "python" and "code" in c["toolInput"] for c in calls)
    # images the code drew are placeholders, never data
    assert any("[image: code output]" in r["text"] for r in results)
    assert not any("<<ImageDisplayed>>" in r["text"] for r in results)
    # the two empty hidden system messages are counted, not shown
    assert end["skipped"]["empty hidden message"] == 2
    assert not [m for m in messages if m["role"] == "system"]


@requires_corpus
def test_thinking_summaries_and_recaps_become_thinking():
    events = read_events(corpus_path("chatgpt", "pionxzh_fixture_thinking-summaries.json"))
    thinking = [e for e in events if e.get("meta", {}).get("kind") == "thinking"]
    assert [t["text"] for t in thinking if t["meta"].get("recap")] == ["Thought for 29s", "Thought for 14s"]
    assert any("summary 2\nthought 2" in t["text"] for t in thinking)
    assert all(t["role"] == "assistant" for t in thinking)


@requires_corpus
def test_children_lists_are_not_trusted():
    # convonaut: every child list is empty, only parent pointers chain
    events = read_events(corpus_path("chatgpt", "convonaut_sample_conversations.json"))
    assert all(len(messages) >= 2 for _, messages, _ in sessions_of(events))


@requires_corpus
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_corpus_export_is_detected(path):
    assert detected_format(path) == "chatgpt-export"


# --- zips and shards ----------------------------------------------------------


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _export_bytes() -> bytes:
    try:
        return corpus_path("chatgpt", "convonaut_sample_conversations.json").read_bytes()
    except pytest.skip.Exception:
        return SAMPLE.read_bytes()


def test_zip_converts_like_the_plain_file(tmp_path):
    data = _export_bytes()
    plain = write_export(tmp_path, data)
    archive = _zip(tmp_path / "export.zip", {"user.json": b"{}", "conversations.json": data, "chat.html": b"<html></html>", "message_feedback.json": b"[]"})
    expected = read_events(plain)
    assert read_events(archive) == expected
    assert read_events(archive, format="chatgpt-export") == expected
    assert cli_events(str(archive)) == expected


def test_zip_from_a_pipe_is_spooled(tmp_path):
    data = SAMPLE.read_bytes()
    archive = _zip(tmp_path / "export.zip", {"conversations.json": data})
    result = run_cli("convert", "-", "--to", "portable-jsonl", input=archive.read_bytes())
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(b'"type":"session"') == 3


def test_split_export_shards_in_a_zip_and_alone(tmp_path):
    conversations = json.loads(_export_bytes())
    first, second = conversations[: len(conversations) // 2 or 1], conversations[len(conversations) // 2 or 1 :]
    plain = tmp_path / "all.json"
    plain.write_bytes(json.dumps(conversations).encode())
    shard0, shard1 = json.dumps(first).encode(), json.dumps(second).encode()
    archive = _zip(
        tmp_path / "export.zip",
        {
            "export_manifest.json": json.dumps({"files": ["conversations-000.json", "conversations-001.json"]}).encode(),
            # written out of order: members are read by name
            "conversations-001.json": shard1,
            "conversations-000.json": shard0,
            "user_settings.json": b"{}",
        },
    )
    expected = read_events(plain)
    assert read_events(archive) == expected
    (tmp_path / "conversations-000.json").write_bytes(shard0)
    (tmp_path / "conversations-001.json").write_bytes(shard1)
    assert cli_events(str(tmp_path / "conversations-000.json"), str(tmp_path / "conversations-001.json")) == expected


def test_conversation_repeated_across_shards_is_read_once(tmp_path):
    data = SAMPLE.read_bytes()
    archive = _zip(tmp_path / "export.zip", {"conversations-000.json": data, "conversations-001.json": data})
    warnings: list[str] = []
    events = read_events(archive, warnings)
    assert sum(e["type"] == "session" for e in events) == 3
    assert any("already read" in w for w in warnings)


def test_zip_without_conversations_says_what_it_holds(tmp_path):
    archive = _zip(tmp_path / "photos.zip", {"a.jpg": b"x", "b.txt": b"y"})
    with pytest.raises(DataError) as info:
        read_events(archive, format="chatgpt-export")
    assert "a.jpg" in str(info.value) and "conversations.json" in str(info.value)


def test_truncated_zip_is_a_data_error(tmp_path):
    archive = _zip(tmp_path / "export.zip", {"conversations.json": SAMPLE.read_bytes() * 3})
    cut = tmp_path / "cut.zip"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    result = invoke("convert", str(cut), "--to", "portable-jsonl", "--from", "chatgpt-export", "-o", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "cut.zip" in result.stderr and "zip archive" in result.stderr and "internal error" not in result.stderr


# --- the fixture: branches, tools, hidden and injected messages ----------------


@pytest.fixture(scope="module")
def fixture_sessions():
    return sessions_of(read_events(SAMPLE))


def test_current_branch_goes_through_the_first_child_when_current_node_says_so(fixture_sessions):
    session, messages, end = fixture_sessions[0]
    texts = [m["text"] for m in messages]
    assert "It is a bar chart of monthly sales." in texts
    assert not any("regenerated away" in t for t in texts)
    assert end["skipped"]["other-branch message"] == 1
    assert session["createdAt"] == "2024-06-01T12:00:00.000Z"
    assert session["metadata"]["model"] == "gpt-4o"


def test_custom_instructions_are_injected_system_and_empty_system_is_counted(fixture_sessions):
    _, messages, end = fixture_sessions[0]
    first = messages[0]
    assert first["role"] == "system" and first["meta"]["injected"] is True
    assert "Answer briefly." in first["text"]
    assert end["skipped"]["empty hidden message"] == 1


def test_image_is_a_placeholder(fixture_sessions):
    _, messages, _ = fixture_sessions[0]
    user = next(m for m in messages if m["role"] == "user")
    assert user["text"].startswith("[image: 800x600, 1.0 MB]\nWhat is in this chart?")
    assert user["meta"]["assets"] == ["file-service://file-abc"]


def test_tool_call_and_result_share_a_synthesized_id(fixture_sessions):
    _, messages, _ = fixture_sessions[0]
    call = next(m for m in messages if m["meta"]["kind"] == "tool_use")
    result = next(m for m in messages if m["meta"]["kind"] == "tool_result")
    assert call["toolCallId"] == result["toolCallId"] == "call_a2"
    assert call["toolName"] == result["toolName"] == "python"
    assert call["toolInput"]["code"].startswith("import matplotlib")
    thinking = next(m for m in messages if m["meta"]["kind"] == "thinking")
    assert thinking["text"] == "Checking the plot\nThe curve is a parabola."


def test_browsing_results_pair_with_their_call_and_hidden_user_text_is_not_user(fixture_sessions):
    _, messages, end = fixture_sessions[1]
    call = next(m for m in messages if m["meta"]["kind"] == "tool_use")
    results = [m for m in messages if m["meta"]["kind"] == "tool_result"]
    assert [r["toolCallId"] for r in results] == [call["toolCallId"]] * 2
    assert "Argentina won." in results[1]["text"] and "https://example.org/final" in results[1]["text"]
    hidden = next(m for m in messages if "the user did not type this" in m["text"])
    assert hidden["role"] == "system" and hidden["meta"]["hidden"] and hidden["meta"]["injected"]
    # no current_node: the most recent leaf is followed, and that is said
    assert messages[-1]["text"] == "Argentina won the 2022 World Cup."
    assert any("no current_node" in note for note in end["notes"])


def test_loop_in_parent_pointers_is_cut(fixture_sessions):
    _, messages, end = fixture_sessions[2]
    assert [m["text"] for m in messages] == ["Does this loop forever?", "No: the reader stops when a node repeats.", "Good."]
    assert any("loop" in note for note in end["notes"])


def test_parent_ids_chain_the_emitted_messages(fixture_sessions):
    for _, messages, _ in fixture_sessions:
        assert "parentId" not in messages[0]
        for before, after in zip(messages, messages[1:]):
            assert after["parentId"] == before["id"]


def test_branch_never_assumes_the_last_child():
    mapping = {
        "b": {"parent": "a", "children": []},
        "a": {"parent": None, "children": ["b", "c"]},
        "c": {"parent": "a", "children": []},
    }
    assert current_branch(mapping, "b").node_ids == ["a", "b"]
    # without current_node, the leaf created last wins, not the last key
    mapping["b"]["message"] = {"create_time": 5.0}
    mapping["c"]["message"] = {"create_time": 3.0}
    assert current_branch(mapping, None).node_ids == ["a", "b"]
    assert current_branch(mapping, "missing").notes


def test_a_cycle_with_no_leaf_still_ends():
    mapping = {"a": {"parent": "b"}, "b": {"parent": "a"}}
    branch = current_branch(mapping, None)
    assert sorted(branch.node_ids) == ["a", "b"] and branch.notes


# --- detection ----------------------------------------------------------------


def test_sniff_tells_exports_from_other_json_formats():
    assert chatgpt_export.sniff(SAMPLE.read_bytes()[:65536]) >= 90
    assert chatgpt_export.sniff(b'{"schema":"sessionport/v1","messages":[{"role":"user","text":"\\"mapping\\": {"}]}') == 0
    assert chatgpt_export.sniff(b'{"messages":[{"role":"user","content":"hi"}]}') == 0
    assert chatgpt_export.sniff(b'{"type":"session","text":"a \\"mapping\\": {}"}\n') == 0
    assert chatgpt_export.sniff(b"PK\x03\x04....conversations.json") == 85
    assert chatgpt_export.sniff(b"") == 0
    # the first conversation's mapping may start past the head
    assert chatgpt_export.sniff(b'[{"title":"t","create_time":1.0,"current_node":"n","safe_urls":["' + b"x" * 70000) == 50
    for sample in (FIXTURES / "portable").iterdir():
        assert chatgpt_export.sniff(sample.read_bytes()[:65536]) == 0


# --- adversarial input -----------------------------------------------------------


def _conversation(conv_id: str, title: str, turns: int = 2) -> dict:
    mapping = {"root": {"id": "root", "message": None, "parent": None, "children": ["m0"]}}
    parent = "root"
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        node = f"m{i}"
        mapping[node] = {
            "id": node,
            "parent": parent,
            "children": [f"m{i + 1}"] if i + 1 < turns else [],
            "message": {"id": f"{conv_id}-{node}", "author": {"role": role}, "content": {"content_type": "text", "parts": [f"{title} turn {i}"]}, "recipient": "all"},
        }
        parent = node
    return {"id": conv_id, "title": title, "create_time": 1700000000.5, "current_node": parent, "mapping": mapping}


def _export(*conversations) -> bytes:
    return json.dumps(list(conversations), indent=1, ensure_ascii=False).encode()


def test_truncated_export_keeps_complete_conversations(tmp_path):
    data = _export(_conversation("c1", "one"), _conversation("c2", "two"), _conversation("c3", "three"))
    cut = data[: data.index(b'"three turn 1"')]
    path = write_export(tmp_path, cut)
    warnings: list[str] = []
    events = read_events(path, warnings)
    assert session_ids(events) == ["c1", "c2"]
    assert any("ends early, inside conversation 3" in w for w in warnings)
    with pytest.raises(DataError, match="conversation 3"):
        list(sessionport.read(str(path), strict=True))


def test_broken_node_is_a_data_error_naming_the_place_or_skipped(tmp_path):
    broken = _conversation("c2", "two", turns=4)
    broken["mapping"]["m1"]["message"] = "not a message"
    broken["mapping"]["m2"] = 42
    broken["current_node"] = "m3"
    path = write_export(tmp_path, _export(_conversation("c1", "one"), broken, _conversation("c3", "three")))
    with pytest.raises(DataError) as info:
        list(sessionport.read(str(path)))
    assert "[1].mapping.m2" in str(info.value) and "conversations.json" in str(info.value)
    result, events = convert_events(path, tmp_path / "out.jsonl", "--skip-bad")
    assert session_ids(events) == ["c1", "c2", "c3"]
    assert "skipped 1 unreadable record" in result.stderr


def test_odd_shapes_never_escape_as_internal_errors(tmp_path):
    odd = _conversation("c1", "odd", turns=3)
    odd["mapping"]["m0"]["message"]["content"] = {"content_type": "multimodal_text", "parts": [None, 7, {"content_type": "audio_asset_pointer", "size_bytes": 2048}, {"x": 1}]}
    odd["mapping"]["m1"]["message"]["content"] = {"content_type": "brand_new_type", "result": "kept text"}
    odd["mapping"]["m2"]["message"]["author"] = None
    odd["create_time"] = "2024-01-01T00:00:00Z"
    nothing = {"id": "c2", "title": None, "mapping": None}
    path = write_export(tmp_path, _export(odd, nothing, 5))
    result, events = convert_events(path, tmp_path / "out.jsonl", "--skip-bad")
    texts = [e["text"] for e in events if e["type"] == "message"]
    assert texts[0] == "7\n[audio: 2.0 KB]\n[object]" and texts[1] == "kept text"
    assert [e.get("title") for e in events if e["type"] == "session"] == ["odd", None]
    assert "conversations.json, at [2]" in result.stderr


def test_invalid_utf8_is_replaced_and_reported(tmp_path):
    data = _export(_conversation("c1", "caf\u00e9"), _conversation("c2", "two"))
    data = data.replace("caf\u00e9".encode(), b"caf\xe9", 1)
    path = write_export(tmp_path, data)
    warnings: list[str] = []
    events = read_events(path, warnings)
    assert [e["title"] for e in events if e["type"] == "session"] == ["caf\ufffd", "two"]
    assert any("invalid UTF-8" in w for w in warnings)


def test_garbage_in_the_middle_is_a_data_error(tmp_path):
    data = _export(_conversation("c1", "one"), _conversation("c2", "two"))
    path = write_export(tmp_path, data.replace(b'"two turn 0"', b'"two turn 0" oops', 1))
    result = invoke("convert", str(path), "--to", "portable-jsonl", "-o", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "invalid JSON in or after conversation 2" in result.stderr


def test_single_conversation_and_wrapped_list_are_read(tmp_path):
    one = tmp_path / "one.json"
    one.write_bytes(json.dumps(_conversation("c1", "one")).encode())
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_bytes(json.dumps({"conversations": [_conversation("c1", "one"), _conversation("c2", "two")]}).encode())
    assert [e["sessionId"] for e in read_events(one) if e["type"] == "session"] == ["c1"]
    assert [e["sessionId"] for e in read_events(wrapped, format="chatgpt-export") if e["type"] == "session"] == ["c1", "c2"]
    other = tmp_path / "other.json"
    other.write_bytes(b'{"hello": "world"}')
    with pytest.raises(DataError, match="expected a conversation"):
        read_events(other, format="chatgpt-export")


def test_first_session_arrives_before_the_export_is_read(monkeypatch):
    monkeypatch.setattr("sessionport.jsondoc.CHUNK", 8192)
    data = _export(*[_conversation(f"c{i}", f"title {i}", turns=6) for i in range(400)])
    stream = io.BufferedReader(io.BytesIO(data))
    ctx = ReadContext(on_warning=lambda message: None)
    events = chatgpt_export.read(stream, ctx)
    first = next(events)
    assert first["type"] == "session" and first["sessionId"] == "c0"
    assert stream.tell() < len(data) // 2
    assert sum(1 for e in events if e["type"] == "session") == 399


def test_deep_nesting_is_refused_before_memory_runs_away(tmp_path):
    data = b"[" + b'{"a":[' * 50000
    path = write_export(tmp_path, data)
    # a file is read again token by token, which knows the true depth
    with pytest.raises(DataError, match="nested deeper than"):
        read_events(path, format="chatgpt-export")
    # a stream that cannot be read again stops at the bracket count
    ctx = ReadContext(on_warning=lambda message: None)
    with pytest.raises(DataError, match="nests brackets more than"):
        list(chatgpt_export.read(io.BufferedReader(io.BytesIO(data)), ctx))


def test_brackets_inside_texts_do_not_count_as_nesting(tmp_path):
    plain = [_conversation(f"c{i}", "plain") for i in range(3)]
    heavy = [_conversation(f"c{i}", "[" * 2000 + "{" * 1000, turns=2) for i in range(3, 6)]
    path = write_export(tmp_path, _export(*plain, *heavy))
    events = read_events(path)
    assert session_ids(events) == [f"c{i}" for i in range(6)]
    assert events == read_events(path, format="chatgpt-export")


def test_calls_to_one_tool_are_answered_in_order(tmp_path):
    conversation = _conversation("c1", "search", turns=1)
    mapping = conversation["mapping"]
    steps = [
        ("s1", "assistant", "web.run", '{"q": "first"}', None),
        ("s2", "assistant", "web.run", '{"q": "second"}', None),
        ("r1", "tool", "all", "first result", "web.run"),
        ("r2", "tool", "all", "second result", "web.run"),
        ("r3", "tool", "all", "more for the second", "web.run"),
    ]
    parent = "m0"
    for node, role, recipient, text, name in steps:
        author = {"role": role, "name": name} if name else {"role": role}
        mapping[node] = {"id": node, "parent": parent, "children": [], "message": {"id": node, "author": author, "recipient": recipient, "content": {"content_type": "text", "parts": [text]}}}
        parent = node
    conversation["current_node"] = parent
    path = write_export(tmp_path, _export(conversation))
    tools = [e for e in read_events(path) if e.get("role") == "tool"]
    assert [t["toolInput"] for t in tools[:2]] == [{"q": "first"}, {"q": "second"}]
    assert [t["toolCallId"] for t in tools[2:]] == ["call_s1", "call_s2", "call_s2"]


def test_nul_padding_is_a_damaged_tail_and_a_nul_inside_is_an_error(tmp_path):
    data = _export(_conversation("c1", "one"), _conversation("c2", "two"))
    padded = tmp_path / "padded.json"
    padded.write_bytes(data + b"\x00" * 5000)
    warnings: list[str] = []
    events = read_events(padded, warnings)
    assert session_ids(events) == ["c1", "c2"]
    assert any("NUL padding" in w for w in warnings)
    cut = tmp_path / "cut.json"
    cut.write_bytes(data[: data.index(b'"two turn 1"')] + b"\x00" * 5000)
    warnings.clear()
    events = read_events(cut, warnings)
    assert session_ids(events) == ["c1"]
    assert any("ends early, inside conversation 2" in w and "NUL padding" in w for w in warnings)
    with pytest.raises(DataError, match="NUL"):
        list(sessionport.read(str(cut), strict=True))
    middle = tmp_path / "middle.json"
    middle.write_bytes(data.replace(b'"two turn 0"', b'"two\x00turn 0"'))
    with pytest.raises(DataError, match="NUL byte inside the export"):
        list(sessionport.read(str(middle)))


def test_an_unpacked_split_export_folder_reads_its_conversations_only(tmp_path):
    conversations = json.loads(_export_bytes())
    folder = tmp_path / "Chat-Export"
    folder.mkdir()
    half = len(conversations) // 2 or 1
    (folder / "conversations-000.json").write_text(json.dumps(conversations[:half]))
    (folder / "conversations-001.json").write_text(json.dumps(conversations[half:]))
    (folder / "export_manifest.json").write_text(json.dumps({"files": ["conversations-000.json", "conversations-001.json"]}))
    (folder / "user.json").write_text("{}")
    (folder / "message_feedback.json").write_text("[]")
    (folder / "chat.html").write_text("<html></html>")
    result = run_cli("inspect", folder, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    raw_ids = [c.get("conversation_id") or c.get("id") for c in conversations]
    assert [s["sessionId"] for s in summary["sessions"]] == raw_ids  # auto-detected, in shard order
    out = tmp_path / "out"
    converted = run_cli("convert", folder, "--to", "portable-jsonl", "-o", out)
    assert converted.returncode == 0, converted.stderr
    assert sorted(p.name for p in out.iterdir()) == ["conversations-000.jsonl", "conversations-001.jsonl"]
