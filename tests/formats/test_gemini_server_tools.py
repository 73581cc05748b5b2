"""gemini: the ``toolCall`` / ``toolResponse`` parts of the built-in tools the
API runs itself (Google Search, URL context, Maps, file search), shaped as
google-genai declares them (``Part.tool_call``: ``{id, toolType, args}``,
``Part.tool_response``: ``{id, toolType, response}``), and a part's
``audioTranscription``: read as calls and results, and written back as the
same parts."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli

SAMPLE = FIXTURES / "gemini" / "server-tool-calls.json"


def _messages(path=SAMPLE) -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append)))
    assert warnings == []
    return [e for e in events if e["type"] == "message"]


def test_server_tools_are_calls_answered_by_their_responses():
    tools = [m for m in _messages() if m["role"] == "tool"]
    assert [(m["meta"]["kind"], m["toolName"], m["toolCallId"]) for m in tools] == [
        ("tool_use", "google_search_web", "tc_01"),
        ("tool_result", "google_search_web", "tc_01"),
        ("tool_use", "url_context", "tc_02"),
        ("tool_result", "url_context", "tc_02"),
    ]
    search = tools[0]
    assert search["toolInput"] == {"queries": ["Lisbon weather today"]}
    assert search["meta"]["serverTool"] is True and search["meta"]["thoughtSignature"] == "CpIBAdHtim8"
    assert tools[3]["text"] == "The page lists opening hours."


def test_written_back_the_parts_are_the_same(tmp_path):
    out = tmp_path / "contents.json"
    done = run_cli("convert", str(SAMPLE), "--to", "gemini", "-o", str(out))
    assert done.returncode == 0, done.stderr
    model = json.loads(out.read_text())["contents"][-1]["parts"]
    original = json.loads(SAMPLE.read_text())["contents"][-1]["parts"]
    assert model == original


def test_an_audio_transcription_part_is_its_text(tmp_path):
    path = tmp_path / "contents.json"
    path.write_text(json.dumps({"contents": [
        {"role": "user", "parts": [{"audioTranscription": {"text": "book a table for two", "finished": True}}]},
        {"role": "model", "parts": [{"text": "Done."}]},
    ]}))
    messages = _messages(path)
    assert [(m["role"], m["text"]) for m in messages] == [("user", "book a table for two"), ("assistant", "Done.")]
