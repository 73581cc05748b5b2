"""The session-json importer: the adapter's shapes and first-match field rules,
skipped entries, the no-action error, detection that yields to real formats,
laziness, and damaged input."""

from __future__ import annotations

import io

import orjson
import pytest

import sessionport
from conftest import FIXTURES, corpus_path
from helpers_streams import messages, read_bytes_with
from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.agentscope import session_json
from sessionport.agentscope.session_json_header import SCORE_TOOL_LOG, sniff
from test_contract import _CountingRaw

SAMPLES = FIXTURES / "session-json"
SEED = SAMPLES / "agent-session.json"


def read_bytes(data: bytes, **fields) -> tuple[list[dict], list[str]]:
    warnings: list[str] = []
    return read_bytes_with(session_json.read, data, warnings, **fields), warnings


def test_the_seed_example_becomes_a_read_and_a_bash_call_with_its_result():
    events = list(sessionport.read(str(SEED)))
    session = events[0]
    assert session["source"] == "session-json"
    assert session["title"] == "Fix auth token expiry test"
    assert session["metadata"]["agent"] == "Claude Code"
    read, bash, result = messages(events)
    assert read["toolName"] == "Read" and read["toolInput"] == {"file_path": "src/auth/session.test.ts"}
    assert read["meta"] == {"kind": "tool_use", "summary": "Read the failing test before editing code."}
    assert bash["toolName"] == "Bash" and bash["toolInput"]["command"] == "npm test -- session.test.ts"
    assert result["meta"]["kind"] == "tool_result" and result["text"] == "PASS src/auth/session.test.ts"
    assert result["toolCallId"] == bash["toolCallId"] != read["toolCallId"]
    assert events[-1] == {"type": "end", "counts": {"entries": 2, "actions": 2, "results": 1}}


def test_jsonl_with_a_header_line_reads_fields_from_every_place():
    events = list(sessionport.read(str(SAMPLES / "agent-session.jsonl")))
    session = events[0]
    assert session["title"] == "Make the retry helper respect max attempts"
    assert session["metadata"]["branch"] == "fix/retry-limit" and session["cwd"] == "/home/dev/app"
    assert session["createdAt"] == "2026-05-02T09:15:01Z"
    uses = [m for m in messages(events) if m["meta"]["kind"] == "tool_use"]
    assert [u["toolName"] for u in uses] == ["Grep", "Read", "apply_patch", "shell", "Edit", "shell"]
    assert uses[1]["toolInput"] == {"file_path": "src/retry.ts"}  # top-level "file" joins the input
    assert uses[2]["toolInput"]["diff"].startswith("*** Begin Patch")
    assert uses[3]["toolInput"]["command"] == "npm test -- retry"  # ["bash", "-lc", ...] unwrapped
    assert uses[0]["meta"]["durationMs"] == 120 and uses[3]["meta"]["durationMs"] == 7000
    failing = next(m for m in messages(events) if m["meta"].get("exitCode") == 1)
    assert failing["text"].startswith("FAIL src/retry.test.ts")
    assert events[-1]["skipped"] == {"message": 1}


def test_object_with_steps_and_title_after_the_array():
    events = list(sessionport.read(str(SAMPLES / "steps-object.json")))
    session = events[0]
    assert session["title"] == "Publish the landing page"  # spooled until the document ended
    assert session["createdAt"] == "2026-01-01T08:30:00Z"  # epoch seconds become ISO
    body = messages(events)
    first_use, first_result = body[0], body[1]
    assert first_use["toolName"] == "exec_command" and first_use["toolInput"]["cmd"] == "git status --short"
    assert first_result["toolCallId"] == first_use["toolCallId"] == "call_a"  # a separate output entry joins its call
    assert body[2]["toolName"] == "write_file"  # "function" defers to function.name; JSON-string arguments parsed
    assert body[2]["toolInput"]["path"] == "index.html"
    assert body[-1] == {"type": "message", "role": "assistant", "text": "Rewrote index.html and force-pushed it to main.", "meta": {"kind": "summary"}}
    assert events[-1]["skipped"] == {"reasoning": 1}


def test_a_json_array_and_a_single_entry_object():
    events, _ = read_bytes(b'[{"toolName": "Bash", "cmd": "ls -la", "stdout": "a\\nb"}, {"role": "user", "content": "hi"}]')
    use, result = messages(events)
    assert use["toolInput"] == {"command": "ls -la"} and result["text"] == "a\nb"
    assert "title" not in events[0]  # no title key and no file name (the input is not a file)
    single, _ = read_bytes(b'{"tool": "Write", "file_path": "notes.md", "content": "hello"}')
    assert [m["toolName"] for m in messages(single)] == ["Write", "Write"]


def test_title_falls_back_to_the_file_name(tmp_path):
    path = tmp_path / "my-run.json"
    path.write_bytes(b'[{"tool": "Bash", "command": "make"}]')
    assert list(sessionport.read(str(path)))[0]["title"] == "my-run.json"


@pytest.mark.parametrize(
    "data, agent",
    [
        (b'{"agent": "Aider", "events": [{"tool": "Bash", "command": "claude --help"}]}', "Aider"),
        (b'{"title": "t", "events": [{"tool": "Bash", "command": "ls", "model": "claude-sonnet-4"}]}', "Claude Code"),
        (b'{"title": "t", "events": [{"tool": "shell", "command": "ls", "source": "codex_cli_rs"}]}', "Codex"),
        (b'{"title": "t", "events": [{"tool": "Bash", "command": "ls"}]}', None),
    ],
)
def test_agent_is_explicit_or_inferred_from_claude_and_codex_strings(data, agent):
    session = read_bytes(data)[0][0]
    assert session["metadata"].get("agent") == agent


def test_no_supported_action_is_a_data_error_naming_what_was_skipped():
    with pytest.raises(DataError, match=r"no supported tool-call action found in 2 entries \(skipped: message x2\)"):
        read_bytes(b'{"messages": [{"type": "message", "content": "a"}, {"type": "message", "content": "b"}]}')
    with pytest.raises(DataError, match="found no entries"):
        read_bytes(b'{"title": "nothing here", "notes": []}')


def test_the_cli_exits_1_and_says_no_action_was_found(tmp_path):
    path = tmp_path / "chat.json"
    path.write_bytes(b'[{"type": "note", "text": "hello"}]')
    from click.testing import CliRunner

    from sessionport.cli import cli

    result = CliRunner().invoke(cli, ["convert", str(path), "--from", "session-json", "--to", "portable-jsonl"])
    assert result.exit_code == 1
    assert "no supported tool-call action found" in result.output and "chat.json" in result.output
    assert "internal error" not in result.output


def test_sniff_scores_tool_logs_and_yields_to_chat_and_real_formats():
    assert sniff(SEED.read_bytes()) == SCORE_TOOL_LOG
    assert sniff((SAMPLES / "agent-session.jsonl").read_bytes()) > 0
    assert sniff(b'{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}') < 10
    assert sniff(b'[{"role": "user", "content": "hi"}]') == 0
    assert sniff(b'{"type":"session","schema":"sessionport/v1","source":"x"}\n{"type":"message","role":"user","text":"a"}\n') == 0
    assert sniff(b"\x00\xff garbage") == 0 and sniff(b"") == 0 and sniff(b'{"tool": "Ba') == 0


@pytest.mark.parametrize("folder", ["claude-code", "codex"])
def test_real_transcripts_are_not_taken_for_loose_logs(folder):
    directory = corpus_path(folder)
    for path in sorted(p for p in directory.iterdir() if p.is_file())[:6]:
        assert sniff(path.read_bytes()[: 64 * 1024]) == 0, path.name


def test_an_openai_chat_document_is_detected_as_something_else(tmp_path):
    path = tmp_path / "chat.json"
    path.write_bytes(b'{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}')
    from sessionport.detect import detect
    from sessionport.registry import get_registry

    registry = get_registry()
    if "openai-chat" not in registry.importer_names():
        pytest.skip("the openai-chat importer is not registered")
    assert detect(path.read_bytes(), str(path), registry).name != "session-json"


@pytest.mark.parametrize("shape", ["object", "array", "jsonl"])
def test_the_session_event_arrives_before_the_input_is_read(shape):
    entry = {"tool": "Bash", "input": {"command": "echo hi"}, "output": "hi " * 40}
    if shape == "jsonl":
        data = b"\n".join(orjson.dumps(entry) for _ in range(5000)) + b"\n"
    elif shape == "array":
        data = orjson.dumps([entry] * 20000)  # documents are read in 1 MiB chunks
    else:
        data = orjson.dumps({"title": "big", "events": [entry] * 20000})
    raw = _CountingRaw(data)
    ctx = ReadContext(name="<large>", on_warning=lambda m: None)
    events = session_json.read(io.BufferedReader(raw, buffer_size=64 * 1024), ctx)
    assert next(events)["type"] == "session"
    assert raw.position < len(data) / 2


def test_a_truncated_document_keeps_what_was_read_or_fails_under_strict():
    data = SEED.read_bytes()
    cut = data[: data.index(b'"output"')]
    events, warnings = read_bytes(cut)
    assert [m["toolName"] for m in messages(events)] == ["Read"]
    assert any("ends early" in w for w in warnings)
    with pytest.raises(DataError):
        read_bytes(cut, strict=True)


def test_garbage_line_in_jsonl_stops_unless_skip_bad():
    data = b'{"tool": "Bash", "command": "ls"}\nthis is not json\n{"tool": "Read", "path": "a.txt"}\n'
    with pytest.raises(DataError, match="line 2"):
        read_bytes(data)
    events, _ = read_bytes(data, skip_bad=True)
    assert [m["toolName"] for m in messages(events)] == ["Bash", "Read"]


def test_nul_padding_and_invalid_utf8_are_read_through():
    events, warnings = read_bytes(b'{"tool": "Bash", "command": "echo \xff"}\n{"tool": "Read", "file": "x"}\n' + b"\x00" * 512)
    assert [m["toolName"] for m in messages(events)] == ["Bash", "Read"]
    assert "\ufffd" in messages(events)[0]["toolInput"]["command"]
    assert warnings


def test_wrong_format_is_a_data_error():
    with pytest.raises(DataError, match="expected a JSON array"):
        read_bytes(b"# a markdown file\n")
