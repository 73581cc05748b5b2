"""Images and documents a provider request names by a URL or a Files API id
hold no bytes: the reader keeps the part (``meta.mediaRef``), the writer of
the same API writes it back as it was, a URL crosses to the other API, and
the loss report counts only the media whose bytes are left out."""

from __future__ import annotations

import io
import json

import orjson
import pytest

import sessionport
from sessionport.context import WriteContext
from sessionport.pipeline.stream import write_events

from conftest import FIXTURES, run_cli
from test_provider_roundtrip import assert_api_valid

ANTHROPIC = FIXTURES / "anthropic-messages" / "media-references.json"
RESPONSES = FIXTURES / "openai-responses" / "media-references.json"


def _write(source, fmt: str) -> dict:
    out = io.BytesIO()
    write_events(list(sessionport.read(str(source))), out, format=fmt, context=WriteContext(on_warning=lambda m: None))
    document = orjson.loads(out.getvalue())
    assert_api_valid(fmt, document)
    return document


def test_references_are_kept_in_meta():
    events = [e for e in sessionport.read(str(ANTHROPIC)) if e["type"] == "message"]
    refs = [e["meta"]["mediaRef"] for e in events if "mediaRef" in e["meta"]]
    blocks = json.loads(ANTHROPIC.read_text())["messages"][0]["content"][1:5]
    # the source is under "reference", a key redaction reads ("source" names a format, which it passes by)
    assert [{"type": r["type"], "source": r["reference"], **{k: v for k, v in r.items() if k not in ("type", "reference")}} for r in refs] == blocks
    spec = next(e for e in events if e["meta"].get("mediaRef", {}).get("title") == "spec.pdf")
    assert "file_011CPMxVD3fHLUhvTqtsQA5w" in spec["text"]  # the file id is named beside the title
    events = [e for e in sessionport.read(str(RESPONSES)) if e["type"] == "message"]
    refs = [e["meta"]["mediaRef"] for e in events if "mediaRef" in e["meta"]]
    assert refs == json.loads(RESPONSES.read_text())["input"][0]["content"][1:5]


@pytest.mark.parametrize("source, fmt, key", [(ANTHROPIC, "anthropic-messages", "messages"), (RESPONSES, "openai-responses", "input")])
def test_the_same_api_gets_its_references_back(source, fmt, key):
    original = json.loads(source.read_text())[key][0]["content"]
    written = _write(source, fmt)[key][0]["content"]
    assert written[1:5] == original[1:5]
    assert written[5]["type"] in ("text", "input_text")  # inline bytes: the placeholder, as before


def test_urls_cross_to_the_other_api():
    written = _write(ANTHROPIC, "openai-responses")["input"][0]["content"]
    assert written[1] == {"type": "input_image", "image_url": "https://example.com/chart.png", "detail": "auto"}
    assert written[4] == {"type": "input_file", "file_url": "https://example.com/spec.pdf"}
    assert written[2]["type"] == "input_text"  # an Anthropic file id names nothing at OpenAI
    written = _write(RESPONSES, "anthropic-messages")["messages"][0]["content"]
    assert written[1] == {"type": "image", "source": {"type": "url", "url": "https://example.com/chart.png"}}
    assert written[4] == {"type": "document", "source": {"type": "url", "url": "https://example.com/spec.pdf"}}


def test_the_loss_report_counts_only_media_without_a_name(tmp_path):
    done = run_cli("convert", str(ANTHROPIC), "--to", "anthropic-messages", "-o", str(tmp_path / "a.json"))
    assert done.returncode == 0, done.stderr
    assert b"the bytes of 1 image(s) or document(s)" in done.stderr


CHAT = FIXTURES / "openai-chat" / "media-references.json"


def test_chat_completions_references_come_back_and_cross_to_the_other_apis():
    original = json.loads(CHAT.read_text())["messages"][0]["content"]
    written = _write(CHAT, "openai-chat")["messages"][0]["content"]
    assert written[1:3] == original[1:3]
    assert written[3]["type"] == "text"  # inline bytes: the placeholder
    responses = _write(CHAT, "openai-responses")["input"][0]["content"]
    assert responses[1] == {"type": "input_image", "image_url": "https://example.com/chart.png", "detail": "high"}
    assert responses[2] == {"type": "input_file", "file_id": "file-Kb6X7f8YDBsVxRyzXhfiyZ"}
    anthropic = _write(CHAT, "anthropic-messages")["messages"][0]["content"]
    assert anthropic[1] == {"type": "image", "source": {"type": "url", "url": "https://example.com/chart.png"}}
    # and back from the Responses API
    chat = _write(RESPONSES, "openai-chat")["messages"][0]["content"]
    assert chat[1] == {"type": "image_url", "image_url": {"url": "https://example.com/chart.png", "detail": "high"}}
    assert chat[3] == {"type": "file", "file": {"file_id": "file-Kb6X7f8YDBsVxRyzXhfiyZ"}}


def test_an_ai_sdk_file_named_by_a_link_is_no_chat_completions_file_part(tmp_path):
    """A Roo Code history's AI SDK file part ({type: "file", data: URL}) and
    a Chat Completions file part share the type "file": the Chat Completions
    writer took the first for its own and wrote it as it was, a part the API
    refuses.  Chat Completions takes no file by URL: its placeholder text
    stays; an AI SDK image named by a link still becomes an image_url."""
    source = tmp_path / "api_conversation_history.json"
    source.write_text(json.dumps({"version": 2, "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "read these"},
            {"type": "file", "data": "https://example.com/spec.pdf", "mediaType": "application/pdf", "filename": "spec.pdf"},
            {"type": "image", "image": "https://example.com/chart.png", "mediaType": "image/png"},
        ], "ts": 1767600000000},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "ts": 1767600001000},
    ]}))
    content = _write(source, "openai-chat")["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "read these"}
    assert content[1]["type"] == "text" and "https://example.com/spec.pdf" in content[1]["text"]
    assert content[2] == {"type": "image_url", "image_url": {"url": "https://example.com/chart.png"}}
