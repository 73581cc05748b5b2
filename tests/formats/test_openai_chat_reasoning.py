"""openai-chat: the reasoning that OpenAI-compatible APIs return beside a
Chat Completions message (OpenRouter's ``reasoning`` string and
``reasoning_details`` list, MiniMax's details beside ``reasoning_content``),
as other projects' clients quote real responses: read as thinking, the
details kept verbatim for a replay, never hidden in ``meta.extra``."""

from __future__ import annotations

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli

SAMPLE = FIXTURES / "openai-chat" / "reasoning-details.json"


def _messages() -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(SAMPLE), context=ReadContext(on_warning=warnings.append)))
    assert warnings == []
    return [e for e in events if e["type"] == "message"]


def test_each_kind_of_reasoning_is_a_thinking_message_before_its_answer():
    messages = _messages()
    assert [(m["role"], m["meta"]["kind"], m["text"]) for m in messages if m["meta"]["kind"] in ("thinking", "text") and m["role"] == "assistant"] == [
        ("assistant", "thinking", "The user wants a file written."),
        ("assistant", "thinking", "Checked the tool result."),
        ("assistant", "text", "Written."),
        ("assistant", "thinking", "Add both values."),
        ("assistant", "text", "21"),
    ]
    assert not any("extra" in m["meta"] for m in messages)


def test_the_details_are_kept_verbatim_with_where_the_text_came_from():
    thinking = [m for m in _messages() if m["meta"]["kind"] == "thinking"]
    assert thinking[0]["meta"]["sourceField"] == "reasoning"
    assert thinking[0]["meta"]["reasoningDetails"][0]["format"] == "unknown"
    assert thinking[1]["meta"]["reasoningDetails"][1] == {"type": "reasoning.encrypted", "data": "gAAAAABpQ2x4", "format": "openai-responses-v1", "index": 1}
    assert "sourceField" not in thinking[2]["meta"]
    assert thinking[2]["meta"]["reasoningDetails"][0]["id"] == "reasoning-text-1"


def test_the_markdown_shows_the_reasoning(tmp_path):
    out = tmp_path / "chat.md"
    done = run_cli("convert", str(SAMPLE), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert "Checked the tool result." in out.read_text()
