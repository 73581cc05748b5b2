"""chatgpt-export: what 2025-2026 answers hold beside their text, as public
exports of those years hold it (fixtures/README.md names them).

- Inline references: the answer's text holds private-use markers
  (``\\ue200cite\\ue202turn0search0\\ue201``, ``\\ue200entity\\ue202[…]\\ue201``)
  or older ``【12†L3-L9】`` marks, and ``metadata.content_references`` says
  what the app shows in their place (``alt``) and which pages they cite.
- A ``web.run`` search's results only in ``metadata.search_result_groups``.
- o1/o3-mini's reasoning written as a tool's message no call asked for.
- Empty tool messages: a search's spinner, state messages of agent mode.
"""

from __future__ import annotations

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli

SAMPLE = FIXTURES / "chatgpt-export" / "references-and-search.json"


def _messages(warnings: list | None = None) -> tuple[list[dict], dict]:
    ctx = ReadContext(on_warning=(warnings if warnings is not None else []).append)
    events = list(sessionport.read(str(SAMPLE), context=ctx))
    return [e for e in events if e["type"] == "message"], events[-1]


def test_references_read_as_the_app_shows_them_with_their_sources():
    warnings: list[str] = []
    messages, _ = _messages(warnings)
    assert warnings == []
    answer = messages[-1]
    assert answer["text"] == (
        "The **ADX** line ADX rises in a trend ([investopedia.com](https://www.investopedia.com/terms/a/adx.asp)). "
        "The report says so too ([example.org](https://example.org/report)) and the plan file agrees [file: plan.md]. Done.\n "
    )
    assert not any("\ue200" <= ch <= "\ue206" for ch in answer["text"])
    # every page the references cite, once, the ones the text shows no link to included
    assert [c["url"] for c in answer["meta"]["citations"]] == [
        "https://www.investopedia.com/terms/a/adx.asp", "https://example.com/adx", "https://example.org/report"]


def test_a_search_result_is_its_pages_and_a_spinner_is_no_result():
    messages, end = _messages()
    call, result = [m for m in messages if m["role"] == "tool"]
    assert (call["meta"]["kind"], call["toolName"]) == ("tool_use", "web.run")
    assert result["toolCallId"] == call["toolCallId"]
    assert result["text"] == "- [Average Directional Index (ADX)](https://www.investopedia.com/terms/a/adx.asp)\n  ADX measures the strength of a trend."
    assert end["skipped"]["empty tool message (still running)"] == 1
    assert end["skipped"]["empty tool message without a call"] == 1


def test_reasoning_written_as_a_tools_message_is_thinking():
    messages, _ = _messages()
    thinking = messages[1]
    assert (thinking["role"], thinking["meta"]["kind"], thinking["meta"]["authorRole"]) == ("assistant", "thinking", "tool")
    assert thinking["text"].startswith("**Looking at ADX**")
    assert "toolCallId" not in thinking


def test_markdown_shows_the_links_not_the_markers(tmp_path):
    out = tmp_path / "adx.md"
    done = run_cli("convert", SAMPLE, "--to", "markdown", "-o", out)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert "[investopedia.com](https://www.investopedia.com/terms/a/adx.asp)" in text
    assert "\ue200" not in text and "*(no output)*" not in text
