"""``--keep-images`` for every format that holds image bytes: Codex
``input_image`` data URLs, Gemini CLI and Gemini ``inlineData``, Anthropic
``image`` blocks, OpenAI Chat ``image_url`` and Responses ``input_image``
data URLs, and ChatGPT export images found beside ``conversations.json`` or
in the export zip.  Each fixture holds one real 1x1 PNG; the program is run
as a user runs it."""

from __future__ import annotations

import base64
import re
import shutil
import zipfile

import pytest

import sessionport
from conftest import FIXTURES, run_cli
from sessionport.render.images import image_name

PIXEL = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
ANTHROPIC_PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

SOURCES = {
    "codex": FIXTURES / "images" / "codex-input-image.jsonl",
    "gemini-cli": FIXTURES / "images" / "gemini-cli-inline-image.jsonl",
    "gemini": FIXTURES / "gemini" / "request.json",
    "anthropic-messages": FIXTURES / "anthropic-messages" / "request.json",
    "openai-chat": FIXTURES / "openai-chat" / "conversation.json",
    "openai-responses": FIXTURES / "openai-responses" / "input.json",
}


def chatgpt_export(folder):
    """The ChatGPT fixture as an export folder: conversations.json and the
    image its message points to (``file-service://file-abc``), named as
    exports name uploads."""
    folder.mkdir()
    shutil.copy(FIXTURES / "chatgpt-export" / "conversations.json", folder / "conversations.json")
    (folder / "file-abc-chart.png").write_bytes(PIXEL)
    return folder / "conversations.json"


def images_in(page: str) -> list[bytes]:
    return [base64.b64decode(data) for data in re.findall(r'<img [^>]*src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)]


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_each_format_carries_its_images_when_asked(name, tmp_path):
    source = SOURCES[name]
    plain = list(sessionport.read(str(source)))
    assert not any("media" in e for e in plain)  # the default: no bytes in the stream
    kept = list(sessionport.read(str(source), options={"keep_images": True}))
    media = [m for e in kept for m in e.get("media", [])]
    assert len(media) == 1 and media[0]["type"] == "image" and media[0]["mediaType"] == "image/png"
    assert base64.b64decode(media[0]["data"])[:8] == b"\x89PNG\r\n\x1a\n"
    # the text is the same either way: the placeholder stays
    assert [e.get("text") for e in plain] == [e.get("text") for e in kept]

    page = tmp_path / "page.html"
    done = run_cli("convert", str(source), "--keep-images", "--to", "html", "--images", "embed", "-o", str(page))
    assert done.returncode == 0, done.stderr.decode()
    shown = images_in(page.read_text())
    assert len(shown) == 1 and shown[0] == base64.b64decode(media[0]["data"])

    doc = tmp_path / "notes" / "doc.md"
    doc.parent.mkdir()
    done = run_cli("convert", str(source), "--keep-images", "--to", "markdown", "--images", str(tmp_path / "notes" / "img"), "-o", str(doc))
    assert done.returncode == 0, done.stderr.decode()
    name = image_name(1, "png", base64.b64decode(media[0]["data"]))
    assert re.fullmatch(r"image-0001-[0-9a-f]{16}\.png", name)
    assert (tmp_path / "notes" / "img" / name).read_bytes() == base64.b64decode(media[0]["data"])
    assert f"](<img/{name}>)" in doc.read_text()


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_without_keep_images_the_placeholder_is_all_that_shows(name, tmp_path):
    page = tmp_path / "page.html"
    done = run_cli("convert", str(SOURCES[name]), "--to", "html", "--images", "embed", "-o", str(page))
    assert done.returncode == 0, done.stderr.decode()
    text = page.read_text()
    assert "<img" not in text and "[image: image/png" in text


def test_chatgpt_export_images_come_from_the_export_folder_and_zip(tmp_path):
    conversations = chatgpt_export(tmp_path / "export")
    kept = list(sessionport.read(str(conversations), options={"keep_images": True}))
    media = [m for e in kept for m in e.get("media", [])]
    assert [base64.b64decode(m["data"]) for m in media] == [PIXEL]
    page = tmp_path / "page.html"
    done = run_cli("convert", str(conversations), "--keep-images", "--to", "html", "--images", "embed", "-o", str(page))
    assert done.returncode == 0, done.stderr.decode()
    assert images_in(page.read_text()) == [PIXEL]

    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(conversations, "conversations.json")
        zf.writestr("file-abc-chart.png", PIXEL)
    done = run_cli("convert", str(archive), "--keep-images", "--to", "html", "--images", "embed", "-o", str(page))
    assert done.returncode == 0, done.stderr.decode()
    assert images_in(page.read_text()) == [PIXEL]
    assert not any("media" in e for e in sessionport.read(str(archive)))


def test_chatgpt_export_files_that_are_not_raster_images_are_not_carried(tmp_path):
    conversations = chatgpt_export(tmp_path / "export")
    # named like the image, but its bytes are SVG (script can hide there)
    (tmp_path / "export" / "file-abc-chart.png").write_bytes(b"<svg xmlns='http://www.w3.org/2000/svg' onload='x'/>")
    kept = list(sessionport.read(str(conversations), options={"keep_images": True}))
    assert not any("media" in e for e in kept)
    (tmp_path / "export" / "file-abc-chart.png").unlink()
    assert not any("media" in e for e in sessionport.read(str(conversations), options={"keep_images": True}))


def test_a_refused_image_of_another_format_says_why(tmp_path):
    source = tmp_path / "rollout.jsonl"
    png = base64.b64encode(PIXEL).decode()
    svg = base64.b64encode(b"<svg onload='alert(1)'/>").decode()
    source.write_text(SOURCES["codex"].read_text().replace(f"data:image/png;base64,{png}", f"data:image/svg+xml;base64,{svg}"))
    page = tmp_path / "page.html"
    done = run_cli("convert", str(source), "--keep-images", "--to", "html", "--images", "embed", "-o", str(page))
    assert done.returncode == 0, done.stderr.decode()
    out = page.read_text()
    assert "<img" not in out and svg not in out
    assert "image 1 not shown: image/svg+xml is not shown (PNG, JPEG, GIF and WebP only)" in out


def test_remote_image_urls_are_never_fetched():
    # a real Chat Completions cassette whose image is an https URL
    from conftest import corpus_path

    path = corpus_path("openai", "pydanticai_chat_image_url_tool_response.json")
    if not path.exists():
        pytest.skip("corpus not available (../shared/corpus)")
    kept = list(sessionport.read(str(path), options={"keep_images": True}))
    assert not any("media" in e for e in kept)
    assert any("[image: https://" in (e.get("text") or "") for e in kept)
