"""iFlow CLI sessions: Claude Code's line format holding Gemini CLI's tool
results.

iFlow CLI (``@iflow-ai/iflow-cli``, a Gemini CLI fork) writes one JSONL file
per session under ``~/.iflow/projects/<encoded cwd>/session-<uuid>.jsonl``,
each line a Claude Code record (``uuid``/``parentUuid``/``sessionId``,
``message`` with Anthropic content blocks, ``usage`` with ``input_tokens``),
but the ``content`` of a ``tool_result`` block is one *object*: Gemini CLI's
``{callId, responseParts: {functionResponse}, resultDisplay}``, or
``{functionResponse}`` alone.  The shapes are those of the field study of
two real iFlow 1.0.0 sessions in bbingz/engram (commit
b1d55d4db3d4b791d1aa17906ea88f8605bdbf90, ``docs/session-formats/iflow.md``,
"5. Shared envelope" to "9. Token usage"); the fixture
``fixtures/claude-code/iflow-session-1.0.0.jsonl`` holds invented texts in
them.  Such a result used to become ``[unknown block]`` with no warning.
"""

from __future__ import annotations

import json

from conftest import FIXTURES, detected_format, run_cli

SESSION = FIXTURES / "claude-code" / "iflow-session-1.0.0.jsonl"


def raw() -> list[dict]:
    return [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines()]


def convert(path, *extra: str) -> tuple[list[dict], bytes]:
    result = run_cli("convert", path, "--to", "portable-jsonl", *extra)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()], result.stderr


def results(events: list[dict]) -> dict[str, dict]:
    return {e["toolCallId"]: e for e in events if e.get("meta", {}).get("kind") == "tool_result"}


def test_detected_as_claude_code():
    assert detected_format(SESSION) == "claude-code"


def test_results_carry_the_function_response_output():
    events, stderr = convert(SESSION)
    assert b"warning" not in stderr, stderr
    found = results(events)
    outputs = {}
    for record in raw():
        content = record["message"]["content"]
        if isinstance(content, list) and content[0].get("type") == "tool_result":
            block = content[0]["content"]
            response = block.get("responseParts", block)["functionResponse"]["response"]
            outputs[content[0]["tool_use_id"]] = response
    assert set(found) == set(outputs) and len(found) == 4
    for call_id, response in outputs.items():
        assert found[call_id]["text"] == response.get("output", response.get("error"))
    # the compact wrapper (no callId, no responseParts) reads the same way
    assert found["call_-4412"]["text"].startswith("# Notse app")


def test_an_error_response_marks_the_result_failed():
    found = results(convert(SESSION)[0])
    assert found["call_-4414"]["isError"] is True
    assert all("isError" not in event for call_id, event in found.items() if call_id != "call_-4414")


def test_calls_pair_and_read_with_gemini_argument_names():
    events = convert(SESSION)[0]
    calls = {e["toolCallId"]: e for e in events if e.get("meta", {}).get("kind") == "tool_use"}
    assert set(calls) == set(results(events))
    assert calls["call_-4412"]["text"] == "read_file: /home/dev/notes-app/README.md"


def test_inspect_counts_what_convert_reads():
    result = run_cli("inspect", "--json", SESSION)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    session = summary[0] if isinstance(summary, list) else summary
    text = json.dumps(session)
    assert '"tool_result": 4' in text and '"glm-4.7"' in text


def test_written_back_as_claude_code_the_results_are_strings(tmp_path):
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", SESSION, "--to", "claude-code", "--keep-tool-names", "-o", out)
    assert result.returncode == 0, result.stderr
    written = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        content = record.get("message", {}).get("content")
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result":
                    written[block["tool_use_id"]] = block
    assert len(written) == 4
    assert written["call_-4411"]["content"] == "Directory listing for /home/dev/notes-app/notes:\ntodo.md\nideas.md"
    assert written["call_-4414"].get("is_error") is True


def test_another_object_is_kept_as_json_and_warned_about(tmp_path):
    lines = SESSION.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[2])
    record["message"]["content"][0]["content"] = {"rows": [1, 2], "note": "kept"}
    lines[2] = json.dumps(record)
    path = tmp_path / "session-odd.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    events, stderr = convert(path)
    assert json.loads(results(events)["call_-4411"]["text"]) == {"rows": [1, 2], "note": "kept"}
    assert b"tool result content" in stderr and b"object" in stderr, stderr
