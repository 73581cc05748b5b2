"""The ``html`` exporter: escaping, self-containment, options and streaming.

The page is parsed with the standard library's HTML parser (as a browser
tokenizes it) and audited: only our own script and style, no event-handler
attributes, no link that is not http(s) or an in-page anchor, nothing that
loads from the network.  ``test_html_browser.py`` repeats the audit on the
DOM a real browser builds.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tracemalloc
import html as html_lib
from html.parser import HTMLParser

import orjson
import pytest

import sessionport
from sessionport.render import html as html_exporter
from sessionport.render.html_assets import JS, page_css
from sessionport.model import end_event, message_event, session_event
from sessionport.render.text import strip_terminal_codes
from sessionport.render.commands import parse_command

from conftest import FIXTURES

HOSTILE = FIXTURES / "html" / "hostile.jsonl"
TWO_SESSIONS = FIXTURES / "markdown" / "two-sessions.jsonl"
# Elements the viewer itself writes, and those rendered Markdown may hold
# (formatting only: nothing that loads, runs or takes input); anything else
# came from a transcript.
OUR_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "div", "small", "input", "button", "span", "main",
    "section", "h1", "h2", "a", "dl", "dt", "dd", "details", "summary", "article", "time", "pre", "code", "p",
    "footer", "nav", "ol", "li", "script", "aside",
}
MARKDOWN_TAGS = {"ul", "h3", "h4", "h5", "h6", "strong", "em", "blockquote", "table", "thead", "tbody", "tr", "th", "td", "s", "br", "hr"}
OUR_TAGS |= MARKDOWN_TAGS


def load(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


class Audit(HTMLParser):
    """Tags, attributes and text of a page, as an HTML tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)
        else:
            self.text.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


def audit(page: str) -> Audit:
    parser = Audit()
    parser.feed(page)
    parser.close()
    return parser


def assert_nothing_injected(parsed: Audit, *, browser: bool = False) -> None:
    tags = [t for t, _ in parsed.tags]
    assert tags.count("script") == 1, "only the viewer's own script may exist"
    assert tags.count("style") == 1
    unexpected = set(tags) - OUR_TAGS
    if browser:
        unexpected -= {"tbody"}
    assert not unexpected, f"transcript text became markup: {unexpected}"
    for tag, attrs in parsed.tags:
        for name, value in attrs.items():
            assert not name.startswith("on"), f"event handler attribute {name}={value!r} on <{tag}>"
            assert name not in ("src", "srcdoc", "formaction", "style", "background"), f"{name} on <{tag}>"
            if name == "href":
                assert value.startswith("#") or re.match(r"https?://|mailto:", value), f"unsafe href {value!r}"
                if not value.startswith("#"):
                    assert tag == "a" and attrs.get("rel") == "nofollow noopener noreferrer"


def render(events, **options) -> str:
    return sessionport.dumps(events, format="html", **options).decode("utf-8")


# -- escaping --------------------------------------------------------------


def test_hostile_transcript_is_shown_literally_and_never_as_markup():
    page = render(load(HOSTILE))
    parsed = audit(page)
    assert_nothing_injected(parsed)
    text = parsed.all_text
    for literal in (
        "<script>alert('x')</script>",
        '<img src=x onerror="alert(9)">',
        "[click](javascript:alert(10))",
        "</textarea></details></pre><script>alert(12)</script>",
        "<img src=x onerror=alert(19)>",  # a tool name
        '"><script>alert(20)</script>',  # a tool call id
        "</pre><script>alert(24)</script>",  # a shell command
        "+<script>alert(25)</script>",  # a diff line
        "<svg onload=alert(7)>",  # metadata
        "<script>alert(26)</script>",  # an end note
        "<style>body{display:none}</style>",
        "``` `x` ````",  # backticks in a tool name
    ):
        assert literal in text, f"{literal!r} is not shown literally"
    # attribute values carrying transcript text stay inside their quotes
    titles = [a.get("title", "") for t, a in parsed.tags if t == "a" and "anchor" in a.get("class", "")]
    assert any('x" onmouseover="alert(16)' in t for t in titles)
    times = [a["datetime"] for t, a in parsed.tags if t == "time"]
    assert '"><script>alert(15)</script>' in times


def test_only_http_urls_become_links():
    events = [session_event("test"), message_event("user", "see https://example.com/a_(b). and javascript:alert(1) and http://x.org/q?a=1&b=2, ftp://f.example/x")]
    parsed = audit(render(events))
    hrefs = [a["href"] for t, a in parsed.tags if t == "a" and not a["href"].startswith("#")]
    assert hrefs == ["https://example.com/a_(b)", "http://x.org/q?a=1&b=2"]


def test_page_references_nothing_over_the_network():
    page = render(load(TWO_SESSIONS) + load(HOSTILE))
    parsed = audit(page)
    for tag, attrs in parsed.tags:
        assert "src" not in attrs and "srcset" not in attrs and "data" not in attrs
        if tag != "a":
            assert "href" not in attrs, f"<{tag} href> loads a resource"
        assert tag not in ("link", "img", "iframe", "object", "embed", "base", "form")
    for css in parsed.styles:
        assert "@import" not in css and "url(" not in css
    for js in parsed.scripts:
        assert not re.search(r"fetch\(|XMLHttpRequest|import\(|https?:", js)
    # the only absolute URLs are the user's own links, shown as text too
    for url in re.findall(r"https?://[^\s\"'<>]+", page):
        assert url in parsed.all_text


def test_content_security_policy_allows_only_our_own_blocks():
    parsed = audit(render(load(TWO_SESSIONS)))
    policy = next(a["content"] for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in policy
    for body, directive in ((parsed.scripts[0], "script-src"), (parsed.styles[0], "style-src")):
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in policy
    assert parsed.scripts[0] == JS and parsed.styles[0] == page_css()


# -- what is shown ---------------------------------------------------------


MESSAGE_ID = re.compile(r"s\d+-m\d+")


def messages_of(parsed: Audit) -> list[dict]:
    return [a for t, a in parsed.tags if t == "article"]


def message_ids(parsed: Audit) -> list[str]:
    """Every message's element id: an article, or inside its call's unit (a
    result, a command's output)."""
    return [a["id"] for t, a in parsed.tags if MESSAGE_ID.fullmatch(a.get("id") or "")]


def test_every_message_has_its_own_anchor():
    events = load(TWO_SESSIONS)
    parsed = audit(render(events))
    ids = message_ids(parsed)
    assert len(ids) == sum(e["type"] == "message" for e in events)
    assert len(set(ids)) == len(ids)
    assert ids[:2] == ["s1-m1", "s1-m2"]
    hrefs = {a["href"] for t, a in parsed.tags if t == "a"}
    assert {f"#{i}" for i in ids} <= hrefs, "every message links to itself"
    assert {"#s1", "#s2"} <= hrefs


def test_tool_calls_read_as_commands_and_diffs():
    page = render(load(TWO_SESSIONS))
    assert '<span class="prompt">$ </span>pytest -q</pre>' in page
    assert '<span class="add">+    p_list.add_argument(&quot;--since&quot;, type=date.fromisoformat,</span>' in page
    assert '<span class="del">-  return total;</span>' in page
    assert "<details class=\"unit\" open><summary><span class=\"badge\">Edit</span>" in page


def test_several_sessions_get_a_sidebar_and_one_session_none():
    two = audit(render(load(TWO_SESSIONS)))
    nav = [a for t, a in two.tags if t == "nav"]
    assert len(nav) == 1
    assert "Add a --since filter to the ledger CLI" in two.all_text.split("2 sessions")[-1]
    events = load(TWO_SESSIONS)
    second = [i for i, e in enumerate(events) if e["type"] == "session"][1]
    single = render(events[:second])
    assert "<nav" not in single


def test_options_leave_out_thinking_tools_and_injected():
    events = load(TWO_SESSIONS)
    full = audit(render(events))
    kinds = [a["data-kind"] for a in messages_of(full)]
    assert {"thinking", "tool_use", "injected"} <= set(kinds)
    assert any(a.get("class", "").startswith("tool-out") for t, a in full.tags)  # results inside their calls' units
    bare = audit(render(events, no_thinking=True, no_tools=True, no_injected=True))
    assert {a["data-kind"] for a in messages_of(bare)} == {"text"}
    assert len(messages_of(bare)) == 4
    assert "8 messages (2 shown)" in bare.all_text


def test_injected_context_is_collapsed_by_default():
    page = render(load(TWO_SESSIONS))
    assert re.search(r'<article class="msg note injected"[^>]*><a class="anchor side"[^>]*>#</a><details><summary>Injected context', page)


def test_max_output_trims_and_says_how_much():
    events = [session_event("t"), message_event("tool", "\n".join(f"line {i}" for i in range(100)), toolCallId="c", meta={"kind": "tool_result"})]
    parsed = audit(render(events, max_output=10))
    assert "line 9" in parsed.all_text and "line 10" not in parsed.all_text
    assert "… 90 more lines cut (--max-output 10)" in parsed.all_text


def test_messages_without_a_session_event_and_an_empty_stream():
    parsed = audit(render([message_event("user", "orphan")]))
    assert "orphan" in parsed.all_text
    empty = audit(render([]))
    assert "This stream holds no sessions." in empty.all_text
    assert_nothing_injected(empty)


# -- streaming -------------------------------------------------------------


class CountingSink(io.RawIOBase):
    def __init__(self) -> None:
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.size += len(data)
        return len(data)


def big_stream(messages: int, size: int, seen: list | None = None):
    yield session_event("bench", sessionId="big")
    for i in range(messages):
        if seen is not None:
            seen.append(i)
        yield message_event("assistant" if i % 2 else "user", f"message {i} " + "x" * size, timestamp=f"2025-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z")
    yield end_event(usage={"input_tokens": 1})


def test_page_is_written_while_the_stream_is_read():
    sink = CountingSink()
    seen: list = []
    sizes = []

    def events():
        for n, event in enumerate(big_stream(2000, 200, seen)):
            if n in (1000, 2000):
                sizes.append(sink.size)
            yield event

    html_exporter.write(events(), sink, sessionport.context.WriteContext())
    assert 0 < sizes[0] < sizes[1] < sink.size


def peak_of_page(messages: int) -> tuple[int, int]:
    sink = CountingSink()
    tracemalloc.start()
    try:
        html_exporter.write(big_stream(messages, 2000), sink, sessionport.context.WriteContext())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, sink.size


def test_memory_stays_flat_on_a_large_stream():
    # the libraries a page needs (markdown-it-py, Pygments, their tables) are
    # loaded once, by a first small page: what is measured is what grows
    html_exporter.write(big_stream(3, 10), CountingSink(), sessionport.context.WriteContext())
    peak, size = peak_of_page(2500)
    assert size > 5_000_000
    # the table of contents keeps at most 500 prompts, the rest is streamed
    assert peak < 900_000, f"peak {peak} bytes for an {size}-byte page"
    double, double_size = peak_of_page(5000)
    assert double_size > 2 * size - 100_000
    assert double < peak + 100_000, f"twice the messages: peak {double} bytes against {peak}"


def test_cli_writes_html_with_options(tmp_path):
    from conftest import run_cli

    out = tmp_path / "t.html"
    done = run_cli("convert", str(TWO_SESSIONS), "--to", "html", "--no-tools", "--max-output", "5", "-o", str(out))
    assert done.returncode == 0, done.stderr
    parsed = audit(out.read_text())
    assert "tool_use" not in {a["data-kind"] for a in messages_of(parsed)}


# -- real files, through whatever importers are registered -----------------


def corpus_params(fmt: str) -> list:
    from conftest import corpus_files

    files = [p for p in corpus_files(fmt) if p.suffix in (".jsonl", ".json", ".zst") and p.stat().st_size > 0]
    return [pytest.param(fmt, p, id=p.name) for p in files] or [pytest.param(fmt, None, id=f"{fmt}-no-corpus")]


@pytest.mark.parametrize("fmt,path", corpus_params("codex") + corpus_params("claude-code"))
def test_real_sessions_render_every_message_and_prompt(fmt, path):
    from sessionport.registry import get_registry

    if path is None:
        pytest.skip(f"no {fmt} files in the shared corpus")
    if fmt not in get_registry().importer_names():
        pytest.skip(f"the {fmt} importer is not registered yet")
    events = list(sessionport.read(str(path), format=fmt))
    parsed = audit(render(events))
    assert_nothing_injected(parsed)
    assert len(message_ids(parsed)) == sum(e["type"] == "message" for e in events)
    shown = words_of(parsed.all_text)
    for e in events:
        if e["type"] == "message" and e["role"] == "user" and not (e.get("meta") or {}).get("injected") and e["text"].strip():
            command = parse_command(e["text"])
            prompt = e["text"] if command is None else " ".join((command.name, command.args, command.stdout))
            # shown without colour codes, ordered lists numbered by the browser
            prompt = re.sub(r"(?m)^[ \t]*\d{1,9}[.)](?=\s)", "", strip_terminal_codes(prompt))
            assert words_of(prompt) in shown


def words_of(text: str) -> str:
    """Letters and digits of a text: what rendered Markdown keeps of it
    (markup characters, spacing and entities aside)."""
    return "".join(ch for ch in html_lib.unescape(text) if ch.isalnum())


def test_subagent_messages_get_their_own_turns_and_a_marker():
    events = [
        session_event("claude-code"),
        message_event("user", "main prompt"),
        message_event("user", "subagent prompt", meta={"kind": "text", "sidechain": True}),
        message_event("assistant", "subagent answer", meta={"kind": "text", "sidechain": True}),
        message_event("assistant", "main answer"),
    ]
    parsed = audit(render(events))
    classes = [a["class"] for a in messages_of(parsed)]
    assert classes == ["msg user", "msg user sidechain", "msg assistant sidechain", "msg assistant"]
    assert "User · subagent" in parsed.all_text and "Assistant · subagent" in parsed.all_text


def test_edits_open_at_once_but_whole_new_files_stay_collapsed():
    events = [
        session_event("claude-code"),
        message_event("tool", "", toolName="Edit", toolInput={"file_path": "a.py", "old_string": "a", "new_string": "b"}, meta={"kind": "tool_use"}),
        message_event("tool", "", toolName="Write", toolInput={"file_path": "b.py", "content": "x = 1\n"}, meta={"kind": "tool_use"}),
    ]
    page = render(events)
    assert '<details class="unit" open><summary><span class="badge">Edit</span>' in page
    assert '<details class="unit"><summary><span class="badge">Write</span><span class="brief">b.py (new content)</span>' in page
