"""chatgpt-export: canvas (``canmore``) conversations and the export folder of
2026 around them.  The assistant writes a canvas document with a ``code``
message to ``canmore.create_textdoc`` / ``canmore.update_textdoc``; the tool's
answer carries ``metadata.canvas`` (``textdoc_id``, ``textdoc_type``,
``title``, ``version``, ``create_source``), which names the document and its
version.  Exports of 2026 may also hold ``textdocs/`` (one JSON file per
canvas document), ``group_chats.json``, ``sora.json``…: a directory walk of
the export must read its conversations and pass over those.  The fixture
follows real records of 2025-10 to 2026-05 (fixtures/chatgpt-export/canvas-2026/README.md)."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli

FOLDER = FIXTURES / "chatgpt-export" / "canvas-2026"
SAMPLE = FOLDER / "conversations.json"
DOC = "6905aaaa0000819100000000000000aa"


def _messages() -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(SAMPLE), context=ReadContext(on_warning=warnings.append)))
    assert warnings == [] and "unknown" not in events[-1]
    return [e for e in events if e["type"] == "message"]


def test_canvas_calls_are_tool_calls_with_their_document():
    messages = _messages()
    calls = [m for m in messages if m["meta"]["kind"] == "tool_use"]
    assert [c["toolName"] for c in calls] == ["canmore.create_textdoc", "canmore.update_textdoc"]
    assert calls[0]["toolInput"]["type"] == "code/powershell"
    assert calls[1]["toolInput"]["updates"][0]["pattern"] == ".*"
    results = [m for m in messages if m["meta"]["kind"] == "tool_result"]
    assert [r["toolCallId"] for r in results] == [c["toolCallId"] for c in calls]
    assert [r["meta"]["canvas"]["version"] for r in results] == [1, 2]
    assert results[0]["meta"]["canvas"] == {
        "textdoc_id": DOC,
        "textdoc_type": "code/powershell",
        "title": "New-User",
        "version": 1,
        "create_source": "system_hint_canvas",
    }


def test_thoughts_and_recap_are_thinking():
    thinking = [m for m in _messages() if m["meta"]["kind"] == "thinking"]
    assert [m["text"] for m in thinking] == ["Creating user script\nThe user wants a script. Put it in the canvas.", "Thought for 23s"]


def test_the_canvas_survives_portable_and_markdown(tmp_path):
    portable = tmp_path / "x.jsonl"
    done = run_cli("convert", str(SAMPLE), "--to", "portable-jsonl", "-o", str(portable))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in portable.read_text().splitlines()]
    assert sum(1 for e in lines if e.get("meta", {}).get("canvas", {}).get("textdoc_id") == DOC) == 2
    shown = run_cli("convert", str(SAMPLE), "--to", "markdown")
    assert shown.returncode == 0, shown.stderr
    assert b"canmore.update_textdoc" in shown.stdout


def test_a_walk_of_the_export_passes_over_its_canvas_documents(tmp_path):
    out = tmp_path / "out"
    done = run_cli("convert", str(FOLDER), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert b"1 of 1 input(s) converted" in done.stderr
    assert [p.name for p in out.rglob("*.md")] == ["conversations.md"]


def test_a_textdocs_folder_outside_an_export_is_walked(tmp_path):
    # only an export's own textdocs/ is passed over
    folder = tmp_path / "textdocs"
    folder.mkdir()
    (folder / "notes.json").write_text(json.dumps([{"role": "user", "content": "hi"}]))
    done = run_cli("convert", str(tmp_path), "--to", "markdown", "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert b"1 of 1 input(s) converted" in done.stderr
