"""claude-code: the stream-json output of ``claude -p --output-format
stream-json --verbose`` (and of the Agent SDK), as Claude Code 2.1.332 wrote
it offline against a scripted API (``fixtures/claude-code/
stream-json-2.1.332-scripted.jsonl``): records named by ``session_id``,
opened by ``system/init``, a sub-agent's messages marked by
``parent_tool_use_id``, closed by ``result``.  Detected, read as the session
it is, nothing reported unknown."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, detected_format, run_cli

SAMPLE = FIXTURES / "claude-code" / "stream-json-2.1.332-scripted.jsonl"
SESSION = "6b1f0c3e-2a4d-4e8f-9c1b-7d2e5f3a9b10"


def _events() -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(SAMPLE), context=ReadContext(on_warning=warnings.append)))
    assert warnings == []
    return events


def test_stream_json_is_detected_as_claude_code():
    assert detected_format(SAMPLE) == "claude-code"


def test_the_session_comes_from_the_init_record():
    session = _events()[0]
    assert session["sessionId"] == SESSION and session["cwd"] == "/work"
    assert session["metadata"] == {"version": "2.1.332", "model": "claude-opus-5-5", "streamJson": True}


def test_messages_pair_and_the_sub_agent_is_a_sidechain():
    messages = [e for e in _events() if e["type"] == "message"]
    calls = {m["toolCallId"] for m in messages if m["meta"]["kind"] == "tool_use"}
    results = {m["toolCallId"] for m in messages if m["meta"]["kind"] == "tool_result"}
    assert calls == results == {"toolu_script_1", "toolu_script_5", "toolu_script_sub"}
    sidechain = [m["text"] for m in messages if m["meta"].get("sidechain")]
    assert sidechain == ["Bash: echo sub", "sub", "Sub-agent done."]
    assert messages[-1]["text"] == "All steps done." and "sidechain" not in messages[-1]["meta"]


def test_the_result_record_is_the_end_summary_and_nothing_is_unknown():
    end = _events()[-1]
    assert "unknown" not in end
    assert end["skipped"]["system/init"] == 1 and end["skipped"]["result"] == 1
    assert end["metadata"]["result"]["subtype"] == "success"
    assert end["metadata"]["result"]["total_cost_usd"] > 0
    assert "result" not in end["metadata"]["result"]  # the text repeats the last message


def test_the_cli_converts_it_without_warnings(tmp_path):
    out = tmp_path / "chat.md"
    done = run_cli("convert", str(SAMPLE), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert "All steps done." in out.read_text()


QWEN = FIXTURES / "claude-code" / "stream-json-qwen-code-0.24.jsonl"


def test_qwen_codes_claude_compatible_stream_is_read_the_same_way():
    """Qwen Code 0.24 prints the same stream (its ``buildSystemMessage`` and
    stream adapter: ``qwen_code_version`` in the init record)."""
    warnings: list[str] = []
    events = list(sessionport.read(str(QWEN), context=ReadContext(on_warning=warnings.append)))
    assert warnings == []
    session, end = events[0], events[-1]
    assert session["metadata"] == {"version": "0.24.4", "model": "qwen3-coder-plus", "client": "qwen-code", "streamJson": True}
    messages = [e for e in events if e["type"] == "message"]
    assert [(m["meta"]["kind"], m.get("toolCallId")) for m in messages] == [("tool_use", "call_0"), ("tool_result", "call_0"), ("text", None)]
    assert end["metadata"]["result"]["num_turns"] == 2 and "unknown" not in end


def test_the_messages_saved_as_one_json_array_read_like_the_stream(tmp_path):
    """claude-code-action keeps a run's stream-json messages as one JSON
    array (its execution file), pretty-printed or not."""
    records = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    expected = [e for e in _events() if e["type"] == "message"]
    for indent in (None, 2):
        path = tmp_path / f"claude-execution-output-{indent}.json"
        path.write_text(json.dumps(records, indent=indent))
        assert detected_format(path) == "claude-code"
        warnings: list[str] = []
        events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append)))
        assert warnings == []
        assert events[0]["sessionId"] == SESSION
        assert [e for e in events if e["type"] == "message"] == expected


def test_a_version_field_that_is_no_version_is_not_taken(tmp_path):
    records = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    records[0]["claude_code_version"] = "2.1.332 ghp_KcBEKanD0F0rPZkcHFuep88VxcA3iMwyAs0R"
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    session = next(iter(sessionport.read(str(path))))
    assert "version" not in session["metadata"]
