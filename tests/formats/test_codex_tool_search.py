"""codex: a tool search's output as the protocol (codex-rs ``ResponseItem::
ToolSearchOutput``) holds it, the loaded tool definitions in ``tools``, and
as earlier rollouts hold it, an ``output`` text; the writer writes both as
``tool_search_call`` / ``tool_search_output`` items again."""

from __future__ import annotations

import orjson

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES

TOOLS = FIXTURES / "codex" / "rollout-0.15x-tool-search-output-tools.jsonl"
TEXT = FIXTURES / "codex" / "rollout-0.146-event-only.jsonl"


def _read(path) -> list[dict]:
    return list(sessionport.read(str(path), context=ReadContext(on_warning=lambda m: None)))


def _items(data: bytes, kind: str) -> list[dict]:
    lines = [orjson.loads(line) for line in data.splitlines()]
    return [line["payload"] for line in lines if line["type"] == "response_item" and line["payload"]["type"] == kind]


def test_the_loaded_tools_are_the_result_text_and_kept_for_the_writer():
    events = _read(TOOLS)
    result = next(e for e in events if e["type"] == "message" and e.get("meta", {}).get("codexType") == "tool_search_output")
    assert (result["text"], result["toolCallId"], result["toolName"]) == ("money__format", "call_ts01", "tool_search")
    assert result["meta"]["tools"][0]["parameters"]["required"] == ["amount"]
    # a request control, not history: counted, not warned about as unknown
    assert events[-1]["skipped"] == {"response_item/compaction_trigger": 1} and "unknown" not in events[-1]


def test_the_codex_writer_writes_the_search_and_its_tools_back():
    source = TOOLS.read_bytes()
    written = sessionport.dumps(_read(TOOLS), "codex")
    assert _items(written, "tool_search_call") == _items(source, "tool_search_call")
    assert _items(written, "tool_search_output") == _items(source, "tool_search_output")
    assert not _items(written, "function_call")


def test_an_output_text_of_an_earlier_rollout_survives_the_round_trip():
    events = _read(TEXT)
    text = next(e["text"] for e in events if e["type"] == "message" and e.get("meta", {}).get("codexType") == "tool_search_output")
    assert text == "docs__search: search the project docs"
    back = sessionport.loads(sessionport.dumps(events, "codex"), format="codex")
    assert text in [e["text"] for e in back if e["type"] == "message" and e.get("meta", {}).get("codexType") == "tool_search_output"]
