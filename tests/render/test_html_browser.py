"""The HTML viewer in a real browser (headless Chromium).

``chromium --headless --dump-dom`` prints the DOM after the page's scripts
ran.  The tests check that the DOM holds every message, that our script ran
under the page's Content Security Policy, and that a hostile transcript
injected no element, attribute or link and is shown as literal text.  They
skip when no Chromium binary is installed (Debian: ``apt-get install -y
chromium``).  Every corpus file is opened too: its commands shown as chips,
its Markdown rendered, each tool call with its result in one unit.
``SESSIONPORT_REGEN=1`` also rewrites the README screenshot
``docs/images/html-viewer.png`` and the screenshots of three real sessions
(``docs/images/html-claude-code.png``, ``-codex.png``, ``-chatgpt.png``).
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import tempfile
import threading
from html.parser import HTMLParser
from pathlib import Path

import orjson
import pytest

import sessionport
from sessionport.registry import get_registry

from conftest import CORPUS, FIXTURES, ROOT, requires_corpus
from sessionport.render.commands import parse_command
from test_html import assert_nothing_injected, audit, message_ids, words_of

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
    assert len(message_ids(parsed)) == len(messages)
    assert [a["id"] for a in articles[:2]] == ["s1-m1", "s1-m2"]
    # our script ran under the CSP: it revealed the filter box, filtered and counted
    assert 'id="controls" hidden' not in dom
    assert "3 sessions" in parsed.all_text
    # a result is inside its call's article: the filter shows or hides both
    shown = [a for a in articles if "hide" not in a["class"].split()]
    # the prompt, thinking, the test run (its output names the discount), the
    # edit and the answer of the cart session
    assert [a["id"] for a in shown] == ["s2-m2", "s2-m3", "s2-m4", "s2-m6", "s2-m8"]
    assert f"5 of {len(articles)} entries" in parsed.all_text
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
    shown_words = words_of(text)
    for message in messages:
        first = words_of(message["text"].split("\n", 1)[0])
        if first and not (message.get("meta") or {}).get("kind") == "tool_use":
            assert first[:60] in shown_words


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
    assert len(message_ids(parsed)) == sum(e["type"] == "message" for e in events)
    shown = words_of(parsed.all_text)
    for prompt in prompts:
        assert words_of(prompt) in shown


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


# -- every corpus file in the browser ------------------------------------------


class Structure(HTMLParser):
    """What a reader sees of a page's DOM: the visible text of rendered
    Markdown (outside code) and of message cards, and for each tool-call
    unit its call id and whether a result is inside it."""

    VOID = {"br", "hr", "img", "input", "meta", "wbr", "link"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []
        self.prose: list[str] = []  # the assistant's Markdown (answers, thinking) outside code
        self.cards: list[str] = []  # text of user/assistant cards, code included
        self.units: list[dict] = []

    def _inside(self, css: str) -> bool:
        return any(css in classes.split() for _, classes in self.stack)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = attrs.get("class") or ""
        if tag == "article" and "call" in classes.split():
            self.units.append({"id": attrs.get("id"), "call_id": None, "result": False})
        if "tool-out" in classes.split() and self.units:
            self.units[-1]["result"] = True
        if tag not in self.VOID:
            self.stack.append((tag, classes))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        tags = {t for t, _ in self.stack}
        if self._inside("md") and not tags & {"code", "pre"} and (self._inside("assistant") or self._inside("thinking")):
            self.prose.append(data)
        if self._inside("bubble"):
            self.cards.append(data)
        if self.units and self._inside("cut") and data.startswith("call id "):
            self.units[-1]["call_id"] = data[len("call id "):]


def corpus_events(folder: str) -> list[dict]:
    from conftest import corpus_files

    events: list[dict] = []
    for path in corpus_files(folder):
        if path.is_file() and path.stat().st_size > 0 and path.suffix in (".json", ".jsonl"):
            events += list(sessionport.read(str(path)))
    return events


@needs_chromium
@requires_corpus
@pytest.mark.parametrize("folders", [("claude-code",), ("codex",), ("chatgpt", "gemini", "openai")], ids="-".join)
def test_every_corpus_file_reads_as_a_conversation_in_the_browser(folders, tmp_path):
    # one page per source (a browser start is the slow part): every file of
    # the folders, each a session of its own
    events = [e for folder in folders for e in corpus_events(folder)]
    if not events:
        pytest.skip(f"no corpus files in {folders}")
    dom = dump_dom(write_page(events, tmp_path / "corpus.html"))
    parsed = audit(dom)
    assert_nothing_injected(parsed, browser=True)
    assert len(message_ids(parsed)) == sum(e["type"] == "message" for e in events)
    page = Structure()
    page.feed(dom)
    cards = "".join(page.cards)
    assert "<command-name>" not in cards and "<local-command-stdout>" not in cards, "a command shown as raw tags"
    prose = "".join(page.prose)
    assert "**" not in prose, "Markdown emphasis shown literally"
    assert not re.search(r"(?m)^\s*#{1,6} ", prose), "a Markdown heading shown literally"
    # every call whose result is in the file has it inside its own unit
    answered = {e.get("toolCallId") for e in events if e["type"] == "message" and (e.get("meta") or {}).get("kind") == "tool_result"}
    calls = [u for u in page.units if u["call_id"] is not None]
    assert calls, "no tool call found on the page"
    for unit in calls:
        if unit["call_id"] in answered:
            assert unit["result"], f"call {unit['call_id']} ({unit['id']}) shown without its result"


# -- Markdown-borne attacks ----------------------------------------------------------

MARKDOWN_ATTACKS = [
    "[x](javascript:document.body.setAttribute('data-pwned','1'))",
    "[y](JaVaScRiPt:document.body.setAttribute('data-pwned','2')) [z](&#106;avascript:document.body.setAttribute('data-pwned','3'))",
    "[r]: javascript:document.body.setAttribute('data-pwned','4')\n\nsee [r]",
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','5')\"> inside **Markdown**",
    "<data:text/html,<script>document.body.setAttribute('data-pwned','6')</script>> and <javascript:alert(1)>",
    "![tracker]({base}/pixel.png) ![js](javascript:document.body.setAttribute('data-pwned','7'))",
    "<iframe src=\"{base}/frame\"></iframe> <link rel=stylesheet href=\"{base}/x.css\"> <svg onload=\"document.body.setAttribute('data-pwned','8')\">",
    "```html\n<script>document.body.setAttribute('data-pwned','9')</script>\n```\n\n    <script>document.body.setAttribute('data-pwned','10')</script>",
    "| a | <script>document.body.setAttribute('data-pwned','11')</script> |\n|---|---|\n| [t](vbscript:x) | ~~<b onmouseover=x>~~ |",
    "<!-- everything after this must stay visible",
]


class Recorder(threading.Thread):
    """A local HTTP server counting every request a page makes."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        import http.server

        requests = self.requests = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                requests.append(self.path)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def run(self) -> None:
        self.server.serve_forever()


@needs_chromium
def test_markdown_borne_attacks_run_nothing_and_load_nothing(tmp_path):
    recorder = Recorder()
    recorder.start()
    try:
        events = load(HOSTILE)
        events.insert(-1 if events[-1]["type"] == "end" else len(events), {"type": "message", "role": "user", "text": "placeholder"})
        attacks = []
        for i, text in enumerate(MARKDOWN_ATTACKS):
            text = text.replace("{base}", recorder.base)
            attacks.append({"type": "message", "role": "user" if i % 2 else "assistant", "text": text, "meta": {"kind": "text"}})
            attacks.append({"type": "message", "role": "assistant", "text": text, "meta": {"kind": "thinking"}})
            attacks.append({"type": "message", "role": "tool", "text": "", "toolName": "ExitPlanMode", "toolCallId": f"p{i}", "toolInput": {"plan": text}, "meta": {"kind": "tool_use"}})
        attacks.append({"type": "message", "role": "user", "text": "LAST MESSAGE STAYS VISIBLE", "meta": {"kind": "text"}})
        events = [e for e in events if e.get("text") != "placeholder"] + [{"type": "session", "source": "attack", "sessionId": "md"}, *attacks, {"type": "end"}]
        page = write_page(events, tmp_path / "attacks.html")
        dom = chromium("--dump-dom", "--virtual-time-budget=2000", page.as_uri()).decode("utf-8")
    finally:
        recorder.server.shutdown()
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0], "a transcript's script ran"
    parsed = audit(dom)
    assert_nothing_injected(parsed, browser=True)
    assert recorder.requests == [], f"the page loaded {recorder.requests}"
    assert "LAST MESSAGE STAYS VISIBLE" in parsed.all_text
    hrefs = [a["href"] for t, a in parsed.tags if t == "a" and "href" in a]
    assert all(h.startswith("#") or h.startswith(("http://", "https://", "mailto:")) for h in hrefs)
    assert not [t for t, _ in parsed.tags if t in ("img", "iframe", "link", "svg", "object", "embed")]


# -- screenshots of real sessions -----------------------------------------------------

REAL_SHOTS = {
    "claude-code": (("claude-code", "06_cc-2.0.55_a7da6a22_interleaved-msgid.jsonl"), "html-claude-code.png"),
    "codex": (("codex", "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl"), "html-codex.png"),
    "chatgpt": (("chatgpt", "chatgpt2graph_examples_conversations.json"), "html-chatgpt.png"),
}
REAL_SHOT_SIZE = (1280, 900)


def shot_window(events: list[dict], before: int = 3, count: int = 14) -> list[dict]:
    """The first session of ``events``, from a few messages before its first
    answered tool call on: a screenful that shows a prompt, rendered
    Markdown and a tool unit (a session's own start is mostly injected
    context)."""
    session = next(e for e in events if e["type"] == "session")
    messages = [e for e in events[events.index(session) + 1 :] if e["type"] == "message"]
    answered = {e.get("toolCallId") for e in messages if (e.get("meta") or {}).get("kind") == "tool_result"}
    first = next((i for i, e in enumerate(messages) if (e.get("meta") or {}).get("kind") == "tool_use" and e.get("toolCallId") in answered), None)
    start = 0 if first is None else max(0, first - before)
    def prompt(i: int) -> bool:
        message = messages[i]
        return message["role"] == "user" and not (message.get("meta") or {}).get("injected") and parse_command(message["text"]) is None

    start = next((i for i in [*range(start, (first or 0) + 1), *range(start, -1, -1)] if prompt(i)), start)
    return [session, *messages[start : start + count], {"type": "end"}]


def test_screenshots_of_real_sessions_are_small_pngs():
    for _, name in REAL_SHOTS.values():
        shot = SCREENSHOT.parent / name
        assert shot.exists(), f"{shot} is missing: run the browser tests with SESSIONPORT_REGEN=1"
        assert shot.stat().st_size < 250_000
        assert png_size(shot) == REAL_SHOT_SIZE


@needs_chromium
@requires_corpus
@pytest.mark.skipif(not REGEN, reason="the screenshots are remade only with SESSIONPORT_REGEN=1 (a browser start per image)")
@pytest.mark.parametrize("source", sorted(REAL_SHOTS))
def test_screenshot_of_a_real_session(source, tmp_path):
    parts, name = REAL_SHOTS[source]
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"corpus file {path} is missing")
    events = shot_window(list(sessionport.read(str(path))))
    page = write_page(events, tmp_path / "real.html")
    # the first two tool units opened, as a reader would click them
    text = page.read_text(encoding="utf-8").replace('<details class="unit">', '<details class="unit" open>', 2)
    page.write_text(text, encoding="utf-8")
    target = page.as_uri()
    shot = tmp_path / "shot.png"
    width, height = REAL_SHOT_SIZE
    chromium(f"--screenshot={shot}", f"--window-size={width},{height}", "--hide-scrollbars", target)
    assert png_size(shot) == REAL_SHOT_SIZE
    shutil.copyfile(shot, SCREENSHOT.parent / name)
