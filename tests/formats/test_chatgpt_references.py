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


def test_a_video_its_transcript_a_voice_turn_and_an_image_a_tool_opened(tmp_path):
    import json

    conversation = json.loads(SAMPLE.read_text(encoding="utf-8"))[0]
    user = conversation["mapping"]["u1"]["message"]
    user["content"] = {"content_type": "multimodal_text", "parts": [
        {"content_type": "video_asset_pointer", "asset_pointer": "sediment://file_0aa1", "format": "mp4", "size_bytes": 15793167,
         "metadata": {"width": 1024, "height": 512, "source": "quick_video_capture",
                      "transcription": {"content_type": "audio_transcription", "text": "This one rides on 19 mm tyres."}}},
        {"content_type": "real_time_user_audio_video_asset_pointer", "frames_asset_pointers": [], "video_container_asset_pointer": None,
         "audio_asset_pointer": {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_0aa2", "size_bytes": 98407, "format": "wav"}},
        ""]}
    opened = conversation["mapping"]["m1"]["message"]
    opened["author"]["name"] = "container.open_image"
    opened["content"] = {"content_type": "execution_output", "text": "<<ImageDisplayed>>"}
    opened["metadata"] = {"attachments": [{"id": "file_0aa3", "name": "chart.png", "mime_type": "image/png"}]}
    conversation["mapping"]["c1"]["message"]["recipient"] = "container.open_image"
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([conversation]), encoding="utf-8")
    messages = [e for e in sessionport.read(str(source)) if e["type"] == "message"]
    assert messages[0]["text"] == "[video: mp4, 15.8 MB]\nThis one rides on 19 mm tyres.\n[audio/video: 98.4 KB]"
    assert messages[0]["meta"]["assets"] == ["sediment://file_0aa1", "sediment://file_0aa2"]
    shown = next(m for m in messages if m.get("toolName") == "container.open_image" and m["meta"]["kind"] == "tool_result")
    assert shown["text"] == "[image: chart.png]"


def test_markers_no_reference_names_are_readable(tmp_path):
    """An answer of an export that holds no ``content_references`` for its
    markers: an entity reads as its name, any other marker as
    ``[cite: turn0search0, …]``; never the private-use characters."""
    import json

    conversation = json.loads(SAMPLE.read_text(encoding="utf-8"))[0]
    answer = conversation["mapping"]["a1"]["message"]
    answer["metadata"].pop("content_references")
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([conversation]), encoding="utf-8")
    text = [e for e in sessionport.read(str(source)) if e["type"] == "message"][-1]["text"]
    assert text.startswith("The **ADX** line ADX rises in a trend [cite: turn0search0, turn0search1]. ")
    assert "[filecite: turn0file0]" in text and "【12†L3-L9】" in text  # an old mark with no reference stays as written
    assert not any("\ue200" <= ch <= "\ue206" for ch in text)


def test_the_older_marks_of_an_attributed_span_are_dropped_and_the_span_kept(tmp_path):
    import json

    conversation = json.loads(SAMPLE.read_text(encoding="utf-8"))[0]
    answer = conversation["mapping"]["a1"]["message"]
    answer["metadata"].pop("content_references")
    answer["content"]["parts"] = ["\ue203Open the Insert menu, then Equation.\ue204\ue206\n\n1. \ue203**Insert** → `Equation`.\ue204"]
    source = tmp_path / "conversations.json"
    source.write_text(json.dumps([conversation]), encoding="utf-8")
    text = [e for e in sessionport.read(str(source)) if e["type"] == "message"][-1]["text"]
    assert text == "Open the Insert menu, then Equation.\n\n1. **Insert** → `Equation`."
