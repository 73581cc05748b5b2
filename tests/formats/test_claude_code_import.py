"""The claude-code importer on every real file of the corpus and on hostile input.

Expectations are computed from the raw files with the standard ``json``
module, independently of the importer: every user prompt, assistant text
block, tool_use id and tool_result id must appear in the stream, and token
usage must equal the last ``usage`` of each ``message.id``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

import sessionport
from sessionport.cli import cli
from sessionport.formats.claude_code.reader import sniff

from conftest import FIXTURES, corpus_files, corpus_path, requires_corpus, run_cli
from helpers_streams import sessions_of

CORPUS_FILES = corpus_files("claude-code", "*.jsonl")
CONVERSATIONS = [p for p in CORPUS_FILES if p.stat().st_size > 2000]
SAMPLE = FIXTURES / "claude-code" / "session.jsonl"
PROJECT = FIXTURES / "claude-code" / "project"
PROJECT_MAIN = PROJECT / "5a1c2e3f-0000-4000-8000-000000000002.jsonl"
MAIN_2_1_114 = ("claude-code", "11_cc-2.1.114_project", "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")


def convert(path: Path, tmp_path: Path, *extra: str) -> tuple[list[dict], str]:
    """Run the CLI in-process with auto-detection; returns events and stderr."""
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["convert", str(path), "--to", "portable-jsonl", "-o", str(out), *extra])
    assert result.exit_code == 0, f"{path.name}: exit {result.exit_code}: {result.stderr} {result.exception!r}"
    events = [orjson.loads(line) for line in out.read_bytes().splitlines()] if out.exists() else []
    return events, result.stderr


def raw_facts(path: Path) -> dict:
    """What the raw file says, read with the standard library."""
    facts = {"prompts": [], "texts": [], "tool_uses": [], "results": [], "usage": {}}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            message = record.get("message") or {}
            content = message.get("content")
            if record.get("type") == "user":
                if isinstance(content, str):
                    facts["prompts"].append(content)
                for block in content if isinstance(content, list) else ():
                    if block.get("type") == "text":
                        facts["prompts"].append(block["text"])
                    elif block.get("type") == "tool_result":
                        facts["results"].append(block["tool_use_id"])
            elif record.get("type") == "assistant":
                for block in content:
                    if block.get("type") == "text":
                        facts["texts"].append(block["text"])
                    elif block.get("type") == "tool_use":
                        facts["tool_uses"].append(block["id"])
                if "usage" in message:
                    facts["usage"][message["id"]] = message["usage"]  # the last one wins
    return facts


def independent_usage(usage_by_id: dict) -> dict:
    inp = sum(u.get("input_tokens", 0) + u.get("cache_creation_input_tokens", 0) + u.get("cache_read_input_tokens", 0) for u in usage_by_id.values())
    cached = sum(u.get("cache_read_input_tokens", 0) for u in usage_by_id.values())
    out = sum(u.get("output_tokens", 0) for u in usage_by_id.values())
    return {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out, "total_tokens": inp + out}


# -- the corpus ---------------------------------------------------------------


@requires_corpus
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name)
def test_every_corpus_file_converts_with_auto_detection(path, tmp_path):
    events, _ = convert(path, tmp_path)
    for event in events:
        if event["type"] == "message":
            assert isinstance(event["text"], str)
            assert None not in event.values()
    if path.stat().st_size > 2000:
        assert events[0]["type"] == "session" and events[0]["source"] == "claude-code"


@requires_corpus
@pytest.mark.parametrize("path", CONVERSATIONS, ids=lambda p: p.name)
def test_every_prompt_text_and_tool_id_of_the_raw_file_is_in_the_stream(path, tmp_path):
    events, _ = convert(path, tmp_path)
    facts = raw_facts(path)
    messages = [e for e in events if e["type"] == "message"]
    user_text = "\n".join(m["text"] for m in messages if m["role"] == "user")
    assistant_texts = {m["text"] for m in messages if m["role"] == "assistant" and m.get("meta", {}).get("kind") == "text"}
    tool_uses = [m["toolCallId"] for m in messages if m.get("meta", {}).get("kind") == "tool_use"]
    results = [m["toolCallId"] for m in messages if m.get("meta", {}).get("kind") == "tool_result"]
    for prompt in facts["prompts"]:
        assert prompt in user_text, f"{path.name}: user text missing: {prompt[:80]!r}"
    for text in facts["texts"]:
        assert text in assistant_texts, f"{path.name}: assistant text missing: {text[:80]!r}"
    assert set(facts["tool_uses"]) <= set(tool_uses)
    assert set(facts["results"]) <= set(results)
    if not path.parent.name == "subagents":
        # Nothing counted twice either (the 2.1.114 session adds its subagent after).
        main = sessions_of(events)[0][1]
        assert len([m for m in main if m.get("meta", {}).get("kind") == "tool_use"]) == len(facts["tool_uses"])


@requires_corpus
@pytest.mark.parametrize("path", CONVERSATIONS, ids=lambda p: p.name)
def test_usage_is_the_last_value_per_message_id(path, tmp_path):
    events, _ = convert(path, tmp_path, "--no-subagents")
    [(session, messages, end)] = sessions_of(events)
    usage_by_id = raw_facts(path)["usage"]
    if not usage_by_id:
        assert "usage" not in end  # unknown, not zero
        return
    expected = independent_usage(usage_by_id)
    got = {k: end["usage"][k] for k in expected}
    assert got == expected
    # meta.usage sits on one event per API message, so it sums to the same.
    summed = dict.fromkeys(expected, 0)
    for message in messages:
        for key in expected:
            summed[key] += message.get("meta", {}).get("usage", {}).get(key, 0)
    assert summed == expected


@requires_corpus
def test_interleaved_chunks_are_counted_once(tmp_path):
    path = corpus_path("claude-code", "06_cc-2.0.55_a7da6a22_interleaved-msgid.jsonl")
    events, _ = convert(path, tmp_path)
    [(_, messages, end)] = sessions_of(events)
    naive = sum(json.loads(l)["message"]["usage"]["output_tokens"] for l in open(path) if '"type":"assistant"' in l)
    assert end["usage"]["output_tokens"] < naive
    assert end["counts"]["apiMessages"] == len(raw_facts(path)["usage"])


@requires_corpus
def test_subagent_session_follows_and_no_subagents_drops_it(tmp_path):
    path = corpus_path(*MAIN_2_1_114)
    events, _ = convert(path, tmp_path)
    sessions = sessions_of(events)
    assert len(sessions) == 2
    main, agent = sessions[0][0], sessions[1][0]
    assert agent["sessionId"] == "agent-a4ca7529859c158c2"
    assert agent["metadata"]["parentSessionId"] == main["sessionId"] == "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    spawning = agent["metadata"]["parentToolCallId"]
    assert any(m.get("toolCallId") == spawning and m.get("toolName") == "Agent" for m in sessions[0][1])
    assert any("subagent session" in note for note in sessions[0][2]["notes"])
    alone, _ = convert(path, tmp_path, "--no-subagents")
    assert [e["sessionId"] for e in alone if e["type"] == "session"] == [main["sessionId"]]


@requires_corpus
def test_inspect_shows_the_subagent_and_no_subagents_leaves_it_out():
    path = corpus_path(*MAIN_2_1_114)
    shown = CliRunner().invoke(cli, ["inspect", str(path), "--json"])
    assert shown.exit_code == 0, shown.stderr
    report = json.loads(shown.stdout)
    assert report["sessionCount"] == 2
    assert report["sessions"][1]["parentSessionId"] == "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    assert report["sessions"][1]["sessionId"] == "agent-a4ca7529859c158c2"
    dropped = CliRunner().invoke(cli, ["inspect", str(path), "--json", "--no-subagents"])
    report = json.loads(dropped.stdout)
    assert report["sessionCount"] == 1
    assert any("left out (--no-subagents)" in n for n in report["sessions"][0]["notes"])


@requires_corpus
def test_inline_sidechains_stay_in_the_stream_marked():
    path = corpus_path("claude-code", "03_cc-1.0.98_fe5e1c67_inline-sidechains.jsonl")
    events = list(sessionport.read(str(path)))
    side = [e for e in events if e["type"] == "message" and e.get("meta", {}).get("sidechain")]
    raw_side = sum(1 for line in open(path, "rb") if orjson.loads(line).get("isSidechain"))
    assert side and len({e["id"].split("#")[0] for e in side}) == raw_side
    assert sum(e["type"] == "session" for e in events) == 1


@requires_corpus
@pytest.mark.parametrize(
    "name,why",
    [
        ("12_cc_summary-only_4e27c414.jsonl", "only session summary records"),
        ("13_cc-2.1.x_snapshot-only_a95fea4a.jsonl", "only file-history-snapshot records"),
        ("14_cc_empty-0-bytes_2c5941bd.jsonl", "empty"),
    ],
)
def test_files_without_conversation_give_nothing_and_inspect_says_why(name, why, tmp_path):
    path = corpus_path("claude-code", name)
    events, stderr = convert(path, tmp_path, "--from", "claude-code")
    assert events == []
    assert why in stderr
    shown = CliRunner().invoke(cli, ["inspect", str(path), "--from", "claude-code"])
    assert shown.exit_code == 0 and "no sessions" in shown.stdout and why in shown.stdout


@requires_corpus
def test_warmup_agent_file_read_directly_says_what_it_is(tmp_path):
    events, _ = convert(corpus_path("claude-code", "05_cc-2.0.37_agent-0c78cdae_warmup-sidechain.jsonl"), tmp_path)
    [(session, messages, end)] = sessions_of(events)
    assert session["metadata"]["agentId"] == "0c78cdae" and session["sessionId"] == "agent-0c78cdae"
    assert messages[0]["text"] == "Warmup"
    assert any("Warmup" in note for note in end["notes"])


@requires_corpus
def test_the_1mb_image_line_becomes_a_placeholder(tmp_path):
    path = corpus_path("claude-code", "02_cc-1.0.43_0d3a8e6f_1MB-image-hook-system.jsonl")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["convert", str(path), "--to", "portable-jsonl", "-o", str(out)])
    assert result.exit_code == 0
    assert out.stat().st_size < 200_000  # no base64 in the output
    assert b"[image: image/png, 784.8 KB]" in out.read_bytes()


# -- the synthetic fixtures ---------------------------------------------------


def test_fixture_session_maps_every_field():
    events = list(sessionport.read(str(SAMPLE)))
    session, *messages, end = events
    assert session["sessionId"] == "5a1c2e3f-0000-4000-8000-000000000001"
    assert session["cwd"] == "/home/user/demo" and session["title"] == "Listing a demo folder"
    assert session["metadata"]["version"] == "2.1.114" and session["metadata"]["gitBranch"] == "main"
    assert [(m["role"], m.get("meta", {}).get("kind", "text")) for m in messages] == [
        ("user", "text"),
        ("assistant", "thinking"),
        ("assistant", "text"),
        ("tool", "tool_use"),
        ("tool", "tool_result"),
        ("assistant", "text"),
    ]
    thinking, call, result = messages[1], messages[3], messages[4]
    assert thinking["parentId"] == messages[0]["id"]  # re-linked through the skipped attachment
    assert call["toolName"] == "Bash" and call["toolInput"] == {"command": "ls", "description": "List files"}
    assert result["toolCallId"] == call["toolCallId"] == "toolu_demo_1" and result["isError"] is False
    assert result["text"] == "README.md\nsrc\n"  # toolUseResult's copy is not added
    assert call["meta"]["usage"]["output_tokens"] == 30 and "usage" not in messages[2].get("meta", {})
    assert end["usage"] == {"input_tokens": 2315, "cached_input_tokens": 2200, "output_tokens": 37, "total_tokens": 2352, "cache_creation_input_tokens": 100}
    assert end["skipped"] == {"attachment/hook_success": 1, "file-history-snapshot": 1}  # a hook that printed nothing


def test_fixture_project_finds_its_subagent_and_skips_the_warmup():
    events = list(sessionport.read(str(PROJECT_MAIN)))
    (main, main_msgs, main_end), (agent, agent_msgs, agent_end) = sessions_of(events)
    assert agent["metadata"]["parentToolCallId"] == "toolu_proj_1"
    assert agent["metadata"]["agentId"] == "abc1234"
    assert not any(m.get("meta", {}).get("sidechain") for m in agent_msgs)
    assert any("warmup agent file agent-0beef00.jsonl skipped" in n for n in main_end["notes"])
    assert agent_end["usage"]["output_tokens"] == 14


def test_a_symlink_to_the_session_finds_subagents_at_the_real_path(tmp_path):
    link = tmp_path / "linked.jsonl"
    link.symlink_to(PROJECT_MAIN)
    events = list(sessionport.read(str(link)))
    assert [e["sessionId"] for e in events if e["type"] == "session"][1] == "agent-abc1234"


def test_stdin_reads_the_session_without_subagents(tmp_path):
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["to", "portable-jsonl", "-o", str(out)], input=PROJECT_MAIN.read_bytes())
    assert result.exit_code == 0, result.stderr
    events = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert sum(e["type"] == "session" for e in events) == 1


def test_compaction_and_late_title_records():
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": "hi"}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "c1", "parentUuid": None, "logicalParentUuid": "u1", "sessionId": "s", "content": "Conversation compacted", "compactMetadata": {"trigger": "auto", "preTokens": 1000}},
        {"type": "user", "uuid": "u2", "parentUuid": "c1", "sessionId": "s", "isCompactSummary": True, "message": {"role": "user", "content": "This session is being continued from a previous conversation."}},
        {"type": "ai-title", "aiTitle": "Saying hi", "sessionId": "s"},
        {"type": "brand-new-record", "uuid": "n1", "parentUuid": "u2", "sessionId": "s"},
        {"type": "user", "uuid": "u3", "parentUuid": "n1", "sessionId": "s", "message": {"role": "user", "content": "again"}},
    ]
    events = sessionport.loads(b"".join(orjson.dumps(l) + b"\n" for l in lines), format="claude-code")
    session, *messages, end = events
    assert [(m["role"], m.get("meta", {}).get("kind", "text")) for m in messages] == [
        ("user", "text"), ("system", "compaction"), ("user", "summary"), ("user", "text")]
    assert messages[1]["meta"]["compactMetadata"]["preTokens"] == 1000
    assert messages[3]["parentId"] == "u2"  # through the unknown record
    assert end["skipped"] == {"brand-new-record": 1} and end["title"] == "Saying hi"


# -- hostile input ------------------------------------------------------------


def write(tmp_path: Path, data: bytes, name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_torn_last_line_warns_and_strict_fails(tmp_path):
    data = SAMPLE.read_bytes()
    path = write(tmp_path, data[: len(data) - 40])
    events, stderr = convert(path, tmp_path)
    assert "line 9" in stderr and sum(e["type"] == "message" for e in events) == 5
    strict = CliRunner().invoke(cli, ["convert", str(path), "--to", "portable-jsonl", "-o", str(tmp_path / "x"), "--strict"])
    assert strict.exit_code == 1 and "s.jsonl" in strict.stderr


def test_nul_padded_tail_reads_everything_before_it(tmp_path):
    path = write(tmp_path, SAMPLE.read_bytes() + b"\x00" * 5000)
    events, stderr = convert(path, tmp_path, "--from", "claude-code")
    assert "NUL" in stderr and sum(e["type"] == "message" for e in events) == 6


def test_garbage_middle_line_names_file_and_line_or_is_skipped(tmp_path):
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    lines.insert(4, b'{"type":"assistant","message":{"content":[tru\n')
    path = write(tmp_path, b"".join(lines))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 1
    assert b"s.jsonl" in result.stderr and b"line 5" in result.stderr and b"Traceback" not in result.stderr
    events, stderr = convert(path, tmp_path, "--skip-bad")
    assert sum(e["type"] == "message" for e in events) == 6 and "line 5" in stderr


def test_invalid_utf8_inside_a_string_is_replaced(tmp_path):
    path = write(tmp_path, SAMPLE.read_bytes().replace(b"please", b"pl\xffase"))
    events, stderr = convert(path, tmp_path)
    assert "invalid UTF-8" in stderr
    assert events[1]["text"] == "List the files here, pl\ufffdase."


def test_a_1mb_single_line_with_an_image_is_a_placeholder(tmp_path):
    image = base64.b64encode(b"\x89PNG" + bytes(1_200_000)).decode()
    record = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "cwd": "/x", "timestamp": "2026-01-01T00:00:00Z",
              "message": {"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                                      {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}}]}}
    path = write(tmp_path, orjson.dumps(record) + b"\n")
    assert sniff(path.read_bytes()[:65536]) > 0  # the head cuts the line
    events, _ = convert(path, tmp_path)
    assert events[1]["text"] == "what is this?\n\n[image: image/png, 1.2 MB]"
    assert (tmp_path / "out.jsonl").stat().st_size < 2000


def test_non_object_lines_and_wrong_shapes_are_never_fatal_surprises(tmp_path):
    odd = [
        {"type": "user", "uuid": 5, "message": 5},
        {"type": "user", "message": {"content": {"a": 1}}},
        {"type": "user", "message": {"content": [1, None, {"type": "tool_result"}, {"type": "image", "source": "x"}]}},
        {"type": "assistant", "message": {"id": ["x"], "content": [7, {"type": "tool_use", "input": "str"}, {"type": "weird"}], "usage": "lots"}},
        {"type": "assistant", "message": {"content": "plain string", "usage": {"input_tokens": -3, "output_tokens": 1.5}}},
        {"type": 7},
        {"type": "system", "subtype": "compact_boundary", "content": ["x", 1]},
        {},
    ]
    data = b"".join(orjson.dumps(o) + b"\n" for o in odd)
    events = sessionport.loads(data, format="claude-code")
    assert events[0]["type"] == "session" and events[-1]["type"] == "end"
    assert all(isinstance(e["text"], str) for e in events if e["type"] == "message")
    path = write(tmp_path, data + b"[1, 2]\n" + data)
    result = CliRunner().invoke(cli, ["convert", str(path), "--from", "claude-code", "--to", "portable-jsonl", "-o", str(tmp_path / "o")])
    assert result.exit_code == 1 and "line 9" in result.stderr


def test_sniff_scores_claude_code_heads_and_not_others():
    assert sniff(SAMPLE.read_bytes()) >= 85
    assert sniff(b'{"type":"file-history-snapshot","messageId":"m","snapshot":{}}\n') >= 85
    assert sniff(b'{"type":"permission-mode","permissionMode":"default","sessionId":"s"}\n') >= 85
    assert sniff(b'{"parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"content":"' + b"x" * 70000) > 0
    assert sniff((FIXTURES / "portable-jsonl" / "session.jsonl").read_bytes()) == 0
    assert sniff(b'{"timestamp":"2026","type":"session_meta","payload":{}}\n') == 0
    assert sniff(b"\xff\xfe garbage") == 0
    assert sniff(b"") == 0


def test_first_event_arrives_before_the_input_is_read():
    import io

    from sessionport.context import ReadContext
    from sessionport.formats.claude_code.reader import read

    data = SAMPLE.read_bytes() * 200
    stream = io.BufferedReader(io.BytesIO(data), buffer_size=4096)
    first = next(read(stream, ReadContext(on_warning=lambda m: None)))
    assert first["type"] == "session" and stream.tell() < len(data)


@requires_corpus
def test_all_corpus_files_in_one_real_process():
    result = run_cli("convert", *map(str, CORPUS_FILES), "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr[-2000:]
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr
    sessions = [orjson.loads(l) for l in result.stdout.splitlines() if l.startswith(b'{"type":"session"')]
    # every file but the three without conversation, plus the 2.1.114 subagent
    assert len(sessions) == len(CORPUS_FILES) - 3 + 1
    assert all(s["source"] == "claude-code" for s in sessions)


def test_2_0_agent_files_beside_the_session_are_matched_by_session_id(tmp_path):
    import shutil

    main = tmp_path / PROJECT_MAIN.name
    shutil.copy(PROJECT_MAIN, main)
    agent = (PROJECT / PROJECT_MAIN.stem / "subagents" / "agent-abc1234.jsonl").read_bytes()
    (tmp_path / "agent-abc1234.jsonl").write_bytes(agent)  # 2.0.x layout: beside the session
    other = agent.replace(b"5a1c2e3f-0000-4000-8000-000000000002", b"5a1c2e3f-0000-4000-8000-00000000ffff")
    (tmp_path / "agent-fff0000.jsonl").write_bytes(other)  # another session's agent
    (tmp_path / "agent-fff0000.meta.json").write_bytes(b'{"toolUseId":"toolu_other"}')
    sessions = [e for e in sessionport.read(str(main)) if e["type"] == "session"]
    assert [s["sessionId"] for s in sessions] == [main.stem, "agent-abc1234"]
    assert sessions[1]["metadata"]["parentToolCallId"] == "toolu_proj_1"


def test_a_sidecar_names_the_spawning_call_when_the_result_does_not(tmp_path):
    import shutil

    shutil.copytree(PROJECT, tmp_path / "p")
    main = tmp_path / "p" / PROJECT_MAIN.name
    main.write_bytes(main.read_bytes().replace(b'"agentId":"abc1234"', b'"other":"x"').replace(b"agentId: abc1234", b"done"))
    (tmp_path / "p" / PROJECT_MAIN.stem / "subagents" / "agent-abc1234.meta.json").write_bytes(b'{"toolUseId":"toolu_proj_1"}')
    sessions = [e for e in sessionport.read(str(main)) if e["type"] == "session"]
    assert sessions[1]["metadata"]["parentToolCallId"] == "toolu_proj_1"


def test_memory_does_not_grow_with_many_1mb_image_lines(tmp_path):
    import tracemalloc

    image = base64.b64encode(bytes(900_000)).decode()

    def peak_reading(lines: int) -> int:
        path = tmp_path / f"images-{lines}.jsonl"
        with open(path, "wb") as handle:
            for n in range(lines):
                record = {"type": "user", "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None, "sessionId": "s",
                          "timestamp": "2026-01-01T00:00:00Z",
                          "message": {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}}]}}
                handle.write(orjson.dumps(record) + b"\n")
        tracemalloc.start()
        try:
            count = sum(1 for e in sessionport.read(str(path)) if e["type"] == "message")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert count == lines
        return peak

    list(sessionport.read(str(SAMPLE)))  # plugins loaded before measuring
    few, many = peak_reading(2), peak_reading(24)
    # The peak is the parse of one line (orjson's own working memory), the
    # same for 2 lines as for 24 (28 MB of input).
    assert many < few + 2_000_000, f"peak {many} bytes for 24 lines vs {few} for 2"


def test_progress_lines_are_read_from_their_bytes_and_keep_the_chain(tmp_path):
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    u1 = b"00000000-0000-4000-8000-000000000001"
    exact = (b'{"parentUuid":"' + u1 + b'","isSidechain":false,"userType":"external","cwd":"/home/user/demo",'
             b'"sessionId":"s","version":"2.1.42","gitBranch":"main","type":"progress","data":{"type":"bash_progress",'
             b'"output":"' + b"x" * 5000 + b'"},"toolUseID":"t","timestamp":"2026-04-01T10:00:00.050Z","uuid":"p1"}\n')
    # a shape the byte check does not recognise (an object before the type) is parsed instead
    odd = b'{"parentUuid":"p1","extra":{"a":1},"type":"progress","data":{},"uuid":"p2"}\n'
    attachment = lines[2].replace(b'"parentUuid":"' + u1 + b'"', b'"parentUuid":"p2"')
    path = write(tmp_path, b"".join([lines[0], lines[1], exact, odd, attachment, *lines[3:]]))
    session, *messages, end = sessionport.read(str(path))
    assert messages[1]["parentId"] == u1.decode()  # through attachment -> p2 -> p1 -> the prompt
    assert end["skipped"]["progress"] == 2


def test_a_message_past_the_look_ahead_bound_adds_only_its_growth(tmp_path, monkeypatch):
    from sessionport.formats.claude_code import usage as claude_code_usage

    monkeypatch.setattr(claude_code_usage, "MAX_HELD_EVENTS", 2)
    env = {"sessionId": "s", "cwd": "/w", "version": "2.0.55", "timestamp": "2025-01-01T00:00:00Z"}

    def line(**fields) -> bytes:
        return orjson.dumps({**env, **fields}) + b"\n"

    def reply(uid, parent, text, out):
        usage = {"input_tokens": 3, "cache_read_input_tokens": 10, "output_tokens": out}
        content = [{"type": "text", "text": text}]
        return line(type="assistant", uuid=uid, parentUuid=parent, message={"id": "m1", "role": "assistant", "content": content, "usage": usage})

    def result(uid, parent):
        content = [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]
        return line(type="user", uuid=uid, parentUuid=parent, message={"role": "user", "content": content})

    path = tmp_path / "bound.jsonl"
    path.write_bytes(
        line(type="user", uuid="u1", parentUuid=None, message={"role": "user", "content": "go"})
        + reply("a1", "u1", "first", 5)
        + result("r1", "a1")
        + result("r2", "r1")  # three events held: the message closes early
        + reply("a2", "r2", "second", 9)
    )
    [(_, messages, end)] = sessions_of(list(sessionport.read(str(path), format="claude-code")))
    usage = {m["id"]: m["meta"]["usage"] for m in messages if "usage" in m.get("meta", {})}
    assert [m["id"] for m in messages] == ["u1", "a1", "r1", "r2", "a2"]
    assert usage["a1"]["output_tokens"] == 5 and usage["a1"]["input_tokens"] == 13
    assert usage["a2"] == {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 4, "total_tokens": 4, "cache_creation_input_tokens": 0}
    assert end["usage"]["output_tokens"] == 9 and end["usage"]["input_tokens"] == 13
    assert end["counts"]["apiMessages"] == 1
