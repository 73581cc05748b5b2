"""The HTML viewer in a real browser (headless Chromium).

``chromium --headless --dump-dom`` prints the DOM after the page's scripts
ran.  The tests check that the DOM holds every message, that our script ran
under the page's Content Security Policy, and that a hostile transcript
injected no element, attribute or link and is shown as literal text.  They
skip when no Chromium binary is installed (Debian: ``apt-get install -y
chromium``).  ``SESSIONPORT_REGEN=1`` also rewrites the README screenshot
``docs/images/html-viewer.png``.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import orjson
import pytest

import sessionport
from sessionport.registry import get_registry

from conftest import CORPUS, FIXTURES, ROOT, requires_corpus
from test_html import assert_nothing_injected, audit

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")) if p), None)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary found (Debian: apt-get install -y chromium)")

HOSTILE = FIXTURES / "html" / "hostile.jsonl"
TWO_SESSIONS = FIXTURES / "markdown" / "two-sessions.jsonl"
SCREENSHOT = ROOT / "docs" / "images" / "html-viewer.png"
SCREENSHOT_SIZE = (1280, 800)
REGEN = os.environ.get("SESSIONPORT_REGEN") == "1"
CODEX_ROLLOUT = CORPUS / "codex" / "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl"


def chromium(*args: str, timeout: float = 90) -> bytes:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [
                CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
                f"--user-data-dir={profile}", *args,
            ],
            capture_output=True,
            timeout=timeout,
        )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout


def dump_dom(page: Path) -> str:
    return chromium("--dump-dom", page.as_uri()).decode("utf-8")


def load(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def write_page(events, path: Path, **options) -> Path:
    path.write_bytes(sessionport.dumps(events, format="html", **options))
    return path


@needs_chromium
def test_browser_dom_holds_every_message_and_injects_nothing(tmp_path):
    # One page with both fixtures: a browser start is the slow part.
    events = load(TWO_SESSIONS) + load(HOSTILE)
    page = write_page(events, tmp_path / "page.html")
    # ?q= opens the page filtered, which exercises the filter script too
    dom = chromium("--dump-dom", page.as_uri() + "?q=DISCOUNT").decode("utf-8")
    parsed = audit(dom)
    articles = [a for t, a in parsed.tags if t == "article"]
    messages = [e for e in events if e["type"] == "message"]
    assert len(articles) == len(messages)
    assert [a["id"] for a in articles[:2]] == ["s1-m1", "s1-m2"]
    # our script ran under the CSP: it revealed the filter box, filtered and counted
    assert 'id="controls" hidden' not in dom
    assert "3 sessions" in parsed.all_text
    matching = {e["text"] for e in messages if "discount" in (e["text"] + orjson.dumps(e.get("toolInput")).decode()).lower()}
    shown = [a for a in articles if "hide" not in a["class"].split()]
    assert len(shown) == len(matching) == 5
    assert f"5 of {len(messages)} messages" in parsed.all_text
    sections = {a["id"]: a["class"] for t, a in parsed.tags if t == "section"}
    assert sections == {"s1": "session hide", "s2": "session", "s3": "session hide"}
    assert_nothing_injected(parsed, browser=True)
    text = parsed.all_text
    for literal in (
        "<script>alert('x')</script>",
        '<img src=x onerror="alert(9)">',
        "</textarea></details></pre><script>alert(12)</script>",
        "<img src=x onerror=alert(19)>",
        '"><script>alert(20)</script>',
        "</pre><script>alert(24)</script>",
    ):
        assert literal in text
    for message in messages:
        first = " ".join(message["text"].split("\n", 1)[0].replace("`", "").split())
        if first and not (message.get("meta") or {}).get("kind") == "tool_use":
            assert first[:60] in " ".join(text.replace("`", "").split())


@needs_chromium
@requires_corpus
def test_browser_shows_every_prompt_of_a_real_codex_rollout(tmp_path):
    if "codex" not in get_registry().importer_names():
        pytest.skip("the codex importer is not registered yet")
    if not CODEX_ROLLOUT.exists():
        pytest.skip(f"corpus file {CODEX_ROLLOUT} is missing")
    events = list(sessionport.read(str(CODEX_ROLLOUT)))
    prompts = [e["text"] for e in events if e["type"] == "message" and e["role"] == "user" and not (e.get("meta") or {}).get("injected") and e["text"].strip()]
    assert prompts
    dom = dump_dom(write_page(events, tmp_path / "codex.html"))
    parsed = audit(dom)
    assert len([1 for t, a in parsed.tags if t == "article"]) == sum(e["type"] == "message" for e in events)
    shown = " ".join(parsed.all_text.replace("`", "").split())
    for prompt in prompts:
        assert " ".join(prompt.replace("`", "").split()) in shown


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_readme_screenshot_is_a_small_png():
    assert SCREENSHOT.exists(), "docs/images/html-viewer.png is missing: run the browser tests with SESSIONPORT_REGEN=1"
    assert SCREENSHOT.stat().st_size < 150_000
    assert png_size(SCREENSHOT) == SCREENSHOT_SIZE


@needs_chromium
@pytest.mark.skipif(not REGEN, reason="the README screenshot is remade only with SESSIONPORT_REGEN=1 (a browser start per image)")
def test_screenshot_tooling_makes_the_readme_image(tmp_path):
    page = write_page(load(TWO_SESSIONS), tmp_path / "viewer.html")
    shot = tmp_path / "viewer.png"
    width, height = SCREENSHOT_SIZE
    chromium(f"--screenshot={shot}", f"--window-size={width},{height}", "--hide-scrollbars", page.as_uri())
    assert png_size(shot) == SCREENSHOT_SIZE
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, SCREENSHOT)
