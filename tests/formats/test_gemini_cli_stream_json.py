"""gemini-cli: the stream-json output of ``gemini -p … -o stream-json``, as
Gemini CLI 0.61.0 printed it offline against a scripted API for a run and
its ``--resume`` run, saved into one file (``fixtures/gemini-cli/
stream-json-0.61-scripted.jsonl``): detected (it was taken for the portable
wire format before), assistant deltas joined, calls paired with results,
the runs' stats as usage."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, detected_format, run_cli

SAMPLE = FIXTURES / "gemini-cli" / "stream-json-0.61-scripted.jsonl"


def _events(path=SAMPLE) -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append)))
    assert warnings == []
    return events


def test_stream_json_is_detected_as_gemini_cli():
    assert detected_format(SAMPLE) == "gemini-cli"


def test_both_runs_are_one_session_in_order():
    events = _events()
    assert events[0]["sessionId"] == "cfc19072-1cc3-4dc5-b2f2-a7d02ee716d4"
    assert events[0]["createdAt"] == "2026-12-01T22:51:37.624Z"
    texts = [(m["role"], m["text"]) for m in events if m["type"] == "message" and m["role"] != "tool"]
    assert texts == [
        ("user", "SCRIPTED-TURN-ONE: follow the steps"),
        ("assistant", "Running a command first."),
        ("assistant", "All steps done."),
        ("user", "SCRIPTED-TURN-TWO: one more question"),
        ("assistant", "Second turn answered."),
    ]


def test_calls_pair_with_results_and_a_failed_one_is_an_error():
    messages = [e for e in _events() if e["type"] == "message" and e["role"] == "tool"]
    calls = [m for m in messages if m["meta"]["kind"] == "tool_use"]
    results = [m for m in messages if m["meta"]["kind"] == "tool_result"]
    assert [c["toolCallId"] for c in calls] == [r["toolCallId"] for r in results]
    assert [c["toolName"] for c in calls] == ["run_shell_command", "read_file", "replace", "run_shell_command", "google_web_search", "read_file"]
    assert calls[0]["toolInput"] == {"command": "echo hello", "description": "Print"}
    missing = results[-1]
    assert missing["isError"] is True and missing["meta"]["error"]["type"] == "file_not_found"


def test_the_stats_are_the_usage_and_the_results_are_kept():
    end = _events()[-1]
    assert end["usage"] == {"input_tokens": 4520, "cached_input_tokens": 900, "output_tokens": 366, "total_tokens": 5066}
    assert [r["status"] for r in end["metadata"]["results"]] == ["success", "success"]
    assert "unknown" not in end


def test_assistant_deltas_are_joined_into_one_message(tmp_path):
    path = tmp_path / "run.jsonl"
    lines = [
        {"type": "init", "timestamp": "2026-12-01T10:00:00.000Z", "session_id": "s-1", "model": "auto"},
        {"type": "message", "timestamp": "2026-12-01T10:00:00.100Z", "role": "user", "content": "hi"},
        {"type": "message", "timestamp": "2026-12-01T10:00:00.200Z", "role": "assistant", "content": "Hel", "delta": True},
        {"type": "message", "timestamp": "2026-12-01T10:00:00.300Z", "role": "assistant", "content": "lo.", "delta": True},
        {"type": "error", "timestamp": "2026-12-01T10:00:00.400Z", "severity": "warning", "message": "Loop detected"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    messages = [e for e in _events(path) if e["type"] == "message"]
    assert [(m["role"], m["text"], m.get("timestamp")) for m in messages] == [
        ("user", "hi", "2026-12-01T10:00:00.100Z"),
        ("assistant", "Hello.", "2026-12-01T10:00:00.200Z"),
        ("system", "Loop detected", "2026-12-01T10:00:00.400Z"),
    ]


def test_the_cli_converts_it_without_warnings(tmp_path):
    out = tmp_path / "run.md"
    done = run_cli("convert", str(SAMPLE), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert "Second turn answered." in out.read_text()
