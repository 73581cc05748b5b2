"""chatgpt-export: the content types of 2025-2026 exports, as real exports hold them.

``sonic_webpage`` is the page the ``web.run`` tool fetched (``url``,
``domain``, ``title``, scraped ``text``, ``snippet``, ``pub_timestamp``);
``app_pairing_content`` the windows of other apps the desktop app (a hidden
user message whose ``real_author`` is ``tool:app-pairing``) or the Atlas
browser (a ``multimodal_text`` part of a ``*_context`` tool's message)
shared with the model; ``computer_output`` the screenshot and browser state
a ``computer.*`` tool (Operator, agent mode) returned; ``citable_code_output``
a tool output kept for citing (``output_str``).  Each must be read as what
it is, not reported as an unknown type nor reduced to a ``[type]`` placeholder.
"""

from __future__ import annotations

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, detected_format, run_cli

SAMPLE = FIXTURES / "chatgpt-export" / "web-run-and-app-pairing.json"


def _read(warnings: list[str]) -> list[dict]:
    ctx = ReadContext(on_warning=warnings.append)
    return list(sessionport.read(str(SAMPLE), context=ctx))


def test_2026_content_types_are_known_and_read():
    warnings: list[str] = []
    events = _read(warnings)
    assert detected_format(SAMPLE) == "chatgpt-export"
    assert warnings == []
    assert "unknown" not in events[-1]
    messages = [e for e in events if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["system", "user", "tool", "tool", "tool", "assistant", "tool", "tool", "tool", "assistant"]
    assert not any(m["text"].startswith("[") and m["text"].endswith("]") and "_" in m["text"] for m in messages)


def test_fetched_page_is_the_result_of_its_web_run_call():
    events = _read([])
    call, page = [e for e in events if e["type"] == "message" and e["role"] == "tool"][:2]
    assert call["meta"]["kind"] == "tool_use" and call["toolName"] == "web.run"
    assert page["meta"]["kind"] == "tool_result" and page["toolCallId"] == call["toolCallId"]
    assert page["meta"]["contentType"] == "sonic_webpage"
    assert page["meta"]["url"] == "https://example.invalid/crdt"
    assert page["text"].splitlines() == [
        "CRDT explained (https://example.invalid/crdt)",
        "A conflict-free replicated data type is a structure that replicas update independently.",
    ]


def test_shared_app_windows_are_injected_context_with_their_text():
    events = _read([])
    pairing = next(e for e in events if e["type"] == "message" and e["meta"].get("contentType") == "app_pairing_content")
    assert pairing["role"] == "system" and pairing["meta"]["injected"] is True and pairing["meta"]["authorRole"] == "user"
    assert pairing["text"] == "[app: Terminal: zsh — 80x24]\n$ pytest -q\n2 failed, 10 passed"
    atlas = next(e for e in events if e["type"] == "message" and e.get("toolName") == "atlas_context")
    assert atlas["text"] == "[app: browser_window]\nPage: CI run #412, step 'tests' failed"


def test_markdown_of_the_export_carries_the_page_and_the_windows(tmp_path):
    out = tmp_path / "chat.md"
    done = run_cli("convert", str(SAMPLE), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert b"unknown" not in done.stderr
    text = out.read_text()
    assert "CRDT explained (https://example.invalid/crdt)" in text
    assert "[app: Terminal: zsh — 80x24]" in text


def test_a_computer_screenshot_and_a_citable_output_are_tool_results():
    events = _read([])
    computer = next(e for e in events if e["type"] == "message" and e["meta"].get("contentType") == "computer_output")
    assert computer["role"] == "tool" and computer["toolName"] == "computer.do"
    assert computer["text"] == "[screenshot: 1024x768, 40.8 KB]\nCI run #412 (https://ci.example.invalid/runs/412)"
    assert computer["meta"]["assets"] == ["sediment://file_00000000e82072308cd29db53edad777"]
    call = next(e for e in events if e["type"] == "message" and e.get("toolName") == "computer.do" and e["meta"]["kind"] == "tool_use")
    assert computer["toolCallId"] == call["toolCallId"]
    cited = next(e for e in events if e["type"] == "message" and e["meta"].get("contentType") == "citable_code_output")
    assert cited["text"] == '{"exit_code": 1, "stdout": "2 failed"}'
