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


# -- every API's reference, written for every API -----------------------------
# A reference as each reader keeps it (meta.mediaRef), and what each writer
# makes of it: its own API's part as it was, the same URL or OpenAI file id
# in another API's part, or nothing (the placeholder text stays) where the
# name means nothing there (another vendor's file id, a URL the API takes
# no file by).
IMG, PDF, PDF_LINK = "https://example.com/chart.png", "https://example.com/spec.pdf", "https://example.com/download?id=7"
REFS = {
    "anthropic image": {"type": "image", "reference": {"type": "url", "url": IMG}},
    "anthropic document": {"type": "document", "reference": {"type": "url", "url": PDF}, "title": "spec.pdf"},
    "anthropic file id": {"type": "document", "reference": {"type": "file", "file_id": "file_011CPMxVD3fHLUhvTqtsQA5w"}},
    "ai-sdk image": {"type": "image", "image": IMG, "mediaType": "image/png"},
    "ai-sdk pdf": {"type": "file", "data": PDF_LINK, "mediaType": "application/pdf", "filename": "spec.pdf"},
    "chat image": {"type": "image_url", "image_url": {"url": IMG, "detail": "low"}},
    "chat file id": {"type": "file", "file": {"file_id": "file-Kb6X7f8YDBsVxRyzXhfiyZ"}},
    "responses image": {"type": "input_image", "image_url": IMG, "detail": "high"},
    "responses file id": {"type": "input_file", "file_id": "file-Kb6X7f8YDBsVxRyzXhfiyZ"},
    "responses file url": {"type": "input_file", "file_url": PDF},
}
_A_IMG = {"type": "image", "source": {"type": "url", "url": IMG}}
_A_PDF = {"type": "document", "source": {"type": "url", "url": PDF}}
_R_FILE = {"type": "input_file", "file_id": "file-Kb6X7f8YDBsVxRyzXhfiyZ"}
EXPECTED = {
    "anthropic-messages": {
        "anthropic image": _A_IMG,
        "anthropic document": {**_A_PDF, "title": "spec.pdf"},
        "anthropic file id": {"type": "document", "source": {"type": "file", "file_id": "file_011CPMxVD3fHLUhvTqtsQA5w"}},
        "ai-sdk image": _A_IMG,
        "ai-sdk pdf": {"type": "document", "source": {"type": "url", "url": PDF_LINK}},  # a PDF by its media type
        "chat image": _A_IMG,
        "chat file id": None,
        "responses image": _A_IMG,
        "responses file id": None,
        "responses file url": _A_PDF,
    },
    "openai-chat": {
        "anthropic image": {"type": "image_url", "image_url": {"url": IMG}},
        "anthropic document": None,  # Chat Completions takes no file by URL
        "anthropic file id": None,
        "ai-sdk image": {"type": "image_url", "image_url": {"url": IMG}},
        "ai-sdk pdf": None,
        "chat image": REFS["chat image"],
        "chat file id": REFS["chat file id"],
        "responses image": {"type": "image_url", "image_url": {"url": IMG, "detail": "high"}},
        "responses file id": {"type": "file", "file": {"file_id": "file-Kb6X7f8YDBsVxRyzXhfiyZ"}},
        "responses file url": None,
    },
    "openai-responses": {
        "anthropic image": {"type": "input_image", "image_url": IMG, "detail": "auto"},
        "anthropic document": {"type": "input_file", "file_url": PDF},
        "anthropic file id": None,
        "ai-sdk image": {"type": "input_image", "image_url": IMG, "detail": "auto"},
        "ai-sdk pdf": {"type": "input_file", "file_url": PDF_LINK},
        "chat image": {"type": "input_image", "image_url": IMG, "detail": "low"},
        "chat file id": _R_FILE,  # the same Files API
        "responses image": REFS["responses image"],
        "responses file id": REFS["responses file id"],
        "responses file url": REFS["responses file url"],
    },
}
_TEXT_TYPES = ("text", "input_text")


def _referenced(fmt: str, ref: dict) -> dict | None:
    """What ``fmt``'s writer made of a user message holding ``ref``: the
    part it wrote for it, or None when only text was written."""
    placeholder = "[file: named by a reference]"
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "openai-chat", "sessionId": "s1"},
        {"type": "message", "role": "user", "text": "look at this", "meta": {"kind": "text"}},
        {"type": "message", "role": "user", "text": placeholder, "meta": {"kind": "text", "attachment": "file", "mediaRef": ref}},
        {"type": "message", "role": "assistant", "text": "seen", "meta": {"kind": "text"}},
        {"type": "end"},
    ]
    out = io.BytesIO()
    write_events(events, out, format=fmt, context=WriteContext(on_warning=lambda m: None))
    document = orjson.loads(out.getvalue())
    assert_api_valid(fmt, document)
    items = document["messages"] if "messages" in document else document["input"]
    content = items[0]["content"]
    if isinstance(content, str):
        assert placeholder in content
        return None
    parts = [p for p in content if p.get("type") not in _TEXT_TYPES]
    if not parts:
        assert any(placeholder in (p.get("text") or "") for p in content)  # the name is still there, as text
        return None
    assert len(parts) == 1
    return parts[0]


@pytest.mark.parametrize("fmt", sorted(EXPECTED))
@pytest.mark.parametrize("shape", sorted(REFS))
def test_each_api_reference_is_written_for_each_api(fmt, shape):
    assert _referenced(fmt, REFS[shape]) == EXPECTED[fmt][shape]


def test_each_kept_shape_is_read_as_what_it_names():
    from sessionport.formats.providers.media_refs import read_ref

    named = {shape: read_ref(ref) for shape, ref in REFS.items()}
    assert {shape: (ref.api, ref.kind, ref.url, ref.file_id, ref.vendor) for shape, ref in named.items()} == {
        "anthropic image": ("anthropic", "image", IMG, None, "anthropic"),
        "anthropic document": ("anthropic", "document", PDF, None, "anthropic"),
        "anthropic file id": ("anthropic", "document", None, "file_011CPMxVD3fHLUhvTqtsQA5w", "anthropic"),
        "ai-sdk image": ("ai-sdk", "image", IMG, None, None),
        "ai-sdk pdf": ("ai-sdk", "document", PDF_LINK, None, None),
        "chat image": ("openai-chat", "image", IMG, None, "openai"),
        "chat file id": ("openai-chat", "document", None, "file-Kb6X7f8YDBsVxRyzXhfiyZ", "openai"),
        "responses image": ("openai-responses", "image", IMG, None, "openai"),
        "responses file id": ("openai-responses", "document", None, "file-Kb6X7f8YDBsVxRyzXhfiyZ", "openai"),
        "responses file url": ("openai-responses", "document", PDF, None, "openai"),
    }
    # a URL that is not a web URL names nothing another API can fetch
    assert read_ref({"type": "image_url", "image_url": {"url": "gs://bucket/chart.png"}}).url is None
    assert read_ref({"type": "mystery"}) is None
    assert read_ref({"fileData": {"fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc", "mimeType": "image/png"}})[:2] == ("gemini", "image")


@pytest.mark.parametrize("shape, expected", [
    ("ai-sdk image", REFS["ai-sdk image"]),
    ("ai-sdk pdf", REFS["ai-sdk pdf"]),
    ("chat image", {"type": "image", "image": IMG}),
    ("responses image", {"type": "image", "image": IMG}),
    ("anthropic image", {"type": "image", "image": IMG}),
    ("responses file url", {"type": "file", "data": PDF, "mediaType": "application/pdf"}),
    ("chat file id", None),
    ("anthropic file id", None),
])
def test_roo_code_history_gets_each_reference_as_an_ai_sdk_part(shape, expected):
    """A Roo Code session written back as its versioned history (AI SDK
    parts) takes an image URL or a PDF's URL of any API."""
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "anthropic-messages", "sessionId": "t1",
         "metadata": {"client": "roo-code", "historyVersion": 2}},
        {"type": "message", "role": "user", "text": "[file: named by a reference]", "meta": {"kind": "text", "mediaRef": REFS[shape]}},
        {"type": "message", "role": "assistant", "text": "seen", "meta": {"kind": "text"}},
        {"type": "end"},
    ]
    out = io.BytesIO()
    write_events(events, out, format="anthropic-messages", context=WriteContext(on_warning=lambda m: None))
    history = orjson.loads(out.getvalue())
    assert history["version"] == 2
    content = history["messages"][0]["content"]
    parts = [p for p in content if p.get("type") != "text"]
    assert parts == ([expected] if expected is not None else [])
