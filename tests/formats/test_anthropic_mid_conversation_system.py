"""anthropic-messages: a ``mid_conv_system`` block (system instructions given
mid-conversation, the trailing block of a user turn) is a system message in
its place, written back as a ``role: "system"`` message there (the SDK's
request types declare no such block), its ``cache_control`` kept."""

from __future__ import annotations

import io
import json

import orjson

import sessionport
from sessionport.context import ReadContext, WriteContext
from sessionport.pipeline.stream import write_events

from conftest import FIXTURES
from test_provider_roundtrip import assert_api_valid

SAMPLE = FIXTURES / "anthropic-messages" / "mid-conversation-system.json"


def test_the_block_is_a_system_message_in_its_place_and_written_back():
    warnings: list[str] = []
    events = list(sessionport.read(str(SAMPLE), context=ReadContext(on_warning=warnings.append)))
    assert warnings == [] and "unknown" not in events[-1]
    roles = [(e["role"], e["text"]) for e in events if e["type"] == "message"]
    assert roles[2:4] == [("user", "Go ahead and start."), ("system", "Plan mode has ended; you may edit files now.")]
    out = io.BytesIO()
    write_events(events, out, format="anthropic-messages", context=WriteContext(on_warning=warnings.append))
    document = orjson.loads(out.getvalue())
    assert_api_valid("anthropic-messages", document)
    assert document["messages"][2:4] == [
        {"role": "user", "content": [{"type": "text", "text": "Go ahead and start."}]},
        {"role": "system", "content": [{"type": "text", "text": "Plan mode has ended; you may edit files now.", "cache_control": {"type": "ephemeral"}}]},
    ]
    assert warnings == []


def test_other_content_of_the_block_is_counted_when_left_out(tmp_path):
    raw = json.loads(SAMPLE.read_text())
    block = raw["messages"][2]["content"][1]
    block["content"].append({"type": "tool_addition", "tool": {"name": "edit_file"}})
    path = tmp_path / "x.json"
    path.write_text(json.dumps(raw))
    events = list(sessionport.read(str(path)))
    assert next(e for e in events if e.get("role") == "system")["meta"]["midConvContent"] == block["content"]
    warnings: list[str] = []
    write_events(events, io.BytesIO(), format="anthropic-messages", context=WriteContext(on_warning=warnings.append))
    assert any("1 tool addition(s) or removal(s) of mid_conv_system" in w for w in warnings)
