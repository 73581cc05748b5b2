"""The ``markdown`` exporter: layout, fence safety, hostile text, options,
front matter, several sessions and streaming.

Where markdown-it-py (a CommonMark renderer) is installed, outputs are also
rendered with raw HTML allowed, as GitHub, Obsidian or a static site would,
to prove that transcript text neither escapes its code blocks nor becomes
markup.  The golden file ``fixtures/markdown/two-sessions.md`` and the README
sample ``docs/images/markdown-sample.md`` are rewritten by running with
``SESSIONPORT_REGEN=1``; review the change with ``git diff``.
"""

from __future__ import annotations

import os
import re
import tracemalloc

import orjson
import pytest

import sessionport
from sessionport.context import WriteContext
from sessionport.render import markdown as md_exporter
from sessionport.render.markdown_frontmatter import yaml_quote
from sessionport.render.markdown_blocks import code_span
from sessionport.render.commands import parse_command
from sessionport.model import end_event, message_event, session_event
from sessionport.render.text import longest_run

from conftest import FIXTURES, ROOT

TWO_SESSIONS = FIXTURES / "markdown" / "two-sessions.jsonl"
GOLDEN = FIXTURES / "markdown" / "two-sessions.md"
SAMPLE = ROOT / "docs" / "images" / "markdown-sample.md"
HOSTILE = FIXTURES / "html" / "hostile.jsonl"
REGEN = os.environ.get("SESSIONPORT_REGEN") == "1"


def load(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def render(events, **options) -> str:
    return sessionport.dumps(events, format="markdown", **options).decode("utf-8")


def commonmark(text: str) -> str:
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (test extra) renders the output as CommonMark")
    return markdown_it.MarkdownIt("commonmark", {"html": True}).render(text)


def fence_contents(text: str) -> list[str]:
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (test extra) renders the output as CommonMark")
    return [t.content for t in markdown_it.MarkdownIt("commonmark").parse(text) if t.type == "fence"]


def check_golden(path, text: str) -> None:
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with SESSIONPORT_REGEN=1"
    assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run with SESSIONPORT_REGEN=1 and review git diff"


# -- layout ----------------------------------------------------------------


def test_two_sessions_match_the_golden_document():
    check_golden(GOLDEN, render(load(TWO_SESSIONS)))


def test_readme_sample_is_current():
    events = load(TWO_SESSIONS)
    second = [i for i, e in enumerate(events) if e["type"] == "session"][1]
    check_golden(SAMPLE, render(events[:second], max_output=3))


def test_sessions_and_turns_have_headings_with_metadata_and_a_closing_summary():
    text = render(load(TWO_SESSIONS))
    assert "# Add a \\-\\-since filter to the ledger CLI" not in text  # '-' needs no escape
    assert "# Add a --since filter to the ledger CLI\n" in text
    assert "- **Directory:** `/home/dev/ledger`" in text
    assert "- **Model:** `gpt-5-codex`" in text
    assert "## User · 2025-09-16 10:02:15 UTC" in text
    assert "## Assistant · 2025-09-16 10:02:19 UTC" in text
    assert "*End of session: 9 messages · 2025-09-16 10:02:15 UTC → 10:02:41 UTC (26 s) · model gpt-5-codex · tokens for the whole session: 48,210 in (41,984 cached), 1,893 out (1,024 reasoning)*" in text


def test_tool_calls_read_as_shell_diff_and_json():
    text = render(load(TWO_SESSIONS))
    assert "```sh\nrg -n \"def list_cmd\" -S\n```" in text  # argv ["bash","-lc",script] -> script
    assert "```diff\n*** Begin Patch\n*** Update File: ledger/cli.py\n" in text
    assert "-  return total;\n+  return total * (1 - discount);" in text
    other = render([session_event("t"), message_event("tool", "", toolName="WebFetch", toolInput={"url": "https://x.org", "n": 1}, meta={"kind": "tool_use"})])
    assert '```json\n{\n  "url": "https://x.org",\n  "n": 1\n}\n```' in other


def test_several_sessions_get_a_table_of_contents_that_links_to_them():
    text = render(load(TWO_SESSIONS))
    toc, body = text.split('<a id="session-1"></a>', 1)
    assert toc.startswith("# 2 sessions\n\n## Contents\n\n1. [Add a --since filter to the ledger CLI](#session-1) — codex · 9 messages")
    assert "2. [Fix the failing cart test](#session-2)" in toc
    assert '<a id="session-2"></a>' in body
    single = render(load(TWO_SESSIONS)[:11])
    assert "## Contents" not in single and single.startswith('<a id="session-1"></a>')


# -- text that tries to break out ------------------------------------------


def test_fences_are_longer_than_any_backtick_run_inside():
    nasty = "a\n```\nclosing attempt\n````\n`````` six"
    events = [
        session_event("t"),
        message_event("tool", "", toolName="Bash", toolInput={"command": "echo '```'"}, meta={"kind": "tool_use"}),
        message_event("tool", nasty, toolCallId="c", meta={"kind": "tool_result"}),
        message_event("user", "after"),
    ]
    text = render(events)
    assert "```````text\n" + nasty + "\n```````\n" in text
    assert longest_run(nasty) == 6
    contents = fence_contents(text)
    assert nasty + "\n" in contents and "echo '```'\n" in contents
    assert "<p>after</p>" in commonmark(text)


def test_an_unclosed_fence_in_a_message_is_closed_there():
    events = [session_event("t"), message_event("assistant", "look:\n```python\nprint(1)"), message_event("user", "next question")]
    text = render(events)
    assert fence_contents(text) == ["print(1)\n"]
    assert "<h2>User" in commonmark(text)


def test_hostile_text_never_becomes_markup():
    events = load(HOSTILE)
    text = render(events)
    # checks on the Markdown itself, then on how a renderer reads it
    assert "Hi &lt;script>alert('x')&lt;/script> and &lt;img src=x onerror=\"alert(9)\">" in text
    assert "[click]\\(javascript:alert(10))" in text
    assert "# \\</title\\>\\<script\\>alert(5)\\</script\\>" in text
    assert "&lt;/details>&lt;script>alert(18)&lt;/script>" in text
    html = commonmark(text)
    assert not re.search(r"<(script|img|svg|style|textarea|iframe|b)\b", html), "raw HTML passed through"
    assert not re.search(r"<[^>]+\son\w+\s*=", html), "an event handler attribute passed through"
    assert "javascript:" not in "".join(re.findall(r'href="[^"]*"', html))
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in html
    # the text of tool output is kept exactly, inside one code block
    assert "`````\n```\n</details></pre><script>alert(23)</script>\n````\n" in fence_contents(text)
    assert html.count("<details>") == html.count("</details>")
    # backtick runs in tool names and ids stay inside their code spans
    assert "<code>``` `x` ````</code> · <code>`````</code>" in html


def test_yaml_front_matter_is_safe_for_any_title():
    yaml = pytest.importorskip("yaml", reason="PyYAML checks the front matter")
    title = 'a "quoted" \\ title\n---\nkey: injected\u2028# not a comment \ufeff\x85: x'
    events = [session_event("codex", sessionId="id: 1", title=title, createdAt="2025-09-16T10:02:11.481Z"), message_event("user", "hi")]
    text = render(events, front_matter=True)
    assert text.startswith("---\n")
    block = text.split("---\n", 2)[1]
    data = yaml.safe_load(block)
    assert data == {"title": " ".join(title.split()), "date": "2025-09-16T10:02:11.481Z", "source": "codex", "id": "id: 1", "tags": ["sessionport", "codex"]}
    assert yaml.safe_load(yaml_quote(title)) == title


def test_front_matter_of_several_sessions_describes_the_document():
    yaml = pytest.importorskip("yaml", reason="PyYAML checks the front matter")
    text = render(load(TWO_SESSIONS), front_matter=True)
    data = yaml.safe_load(text.split("---\n", 2)[1])
    assert data["title"] == "2 sessions" and data["sessions"] == 2
    assert data["tags"] == ["sessionport", "claude-code", "codex"]
    assert data["date"] == "2025-06-01T09:00:00Z"


# -- options ---------------------------------------------------------------


def test_thinking_and_injected_context_are_collapsed():
    text = render(load(TWO_SESSIONS))
    assert "<details>\n<summary>Thinking</summary>\n\n**Planning the change**" in text
    assert "<details>\n<summary>Injected context (user, 3 lines)</summary>\n\n```text\n<system-reminder>" in text


def test_no_thinking_no_tools_no_injected_leave_them_out():
    text = render(load(TWO_SESSIONS), no_thinking=True, no_tools=True, no_injected=True)
    for gone in ("Thinking", "Tool call", "Result", "system-reminder", "pytest"):
        assert gone not in text
    assert "Add a `--since DATE` option" in text and "Fixed: the discount" in text
    assert "9 messages (2 shown)" in text


def test_max_output_trims_and_says_how_much():
    events = [session_event("t"), message_event("tool", "\n".join(f"line {i}" for i in range(50)), toolCallId="c", meta={"kind": "tool_result"})]
    text = render(events, max_output=5)
    assert "line 4\n```" in text and "line 5" not in text
    assert "*… 45 more lines cut (--max-output 5)*" in text


def test_cli_accepts_the_markdown_options(tmp_path):
    from conftest import run_cli

    out = tmp_path / "t.md"
    done = run_cli("convert", str(TWO_SESSIONS), "--to", "markdown", "--front-matter", "--no-thinking", "--max-output", "2", "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("---\ntitle: \"2 sessions\"") and "Thinking" not in text
    assert "*… 1 more line cut (--max-output 2)*" in text


def test_messages_without_a_session_and_an_empty_stream():
    assert "orphan" in render([message_event("user", "orphan")])
    assert render([]) == ""


# -- streaming -------------------------------------------------------------


class Sink:
    def __init__(self) -> None:
        self.size = 0

    def write(self, data) -> int:
        self.size += len(data)
        return len(data)


def peak_memory(messages: int) -> tuple[int, int]:
    def events():
        for n in range(2):
            yield session_event("bench", sessionId=f"s{n}", title=f"session {n}")
            for i in range(messages):
                yield message_event("assistant" if i % 2 else "user", f"message {i} " + "y" * 2000)
            yield end_event(usage={"output_tokens": 1})

    sink = Sink()
    tracemalloc.start()
    try:
        md_exporter.write(events(), sink, WriteContext())
        return tracemalloc.get_traced_memory()[1], sink.size
    finally:
        tracemalloc.stop()


def test_memory_stays_flat_on_a_large_stream(monkeypatch):
    # The body goes through a spool that stays in memory up to SPOOL_MEMORY;
    # with a small threshold, a stream four times larger needs no more memory.
    monkeypatch.setattr(md_exporter, "SPOOL_MEMORY", 256 << 10)
    small_peak, small_size = peak_memory(300)
    big_peak, big_size = peak_memory(1200)
    assert big_size > 4_500_000 and big_size > 3.9 * small_size
    assert big_peak < small_peak * 1.2 + 100_000, f"peak {small_peak} -> {big_peak} bytes as the output grew {small_size} -> {big_size}"
    assert big_peak < 3_000_000


# -- real files, through whatever importers are registered -----------------

OUR_HTML = re.compile(r'^(<details>|</details>|<summary>[^<]*</summary>|<a id="(?:session-\d+|agent-[0-9a-f]{16}|prompts?-\d+(?:-\d+)?)">|</a>|<a id="session-\d+"></a>)$')


def corpus_params(fmt: str) -> list:
    from conftest import corpus_files

    files = [p for p in corpus_files(fmt) if p.suffix in (".jsonl", ".json", ".zst") and p.stat().st_size > 0]
    return [pytest.param(fmt, p, id=p.name) for p in files] or [pytest.param(fmt, None, id=f"{fmt}-no-corpus")]


def read_corpus(fmt: str, path):
    from sessionport.registry import get_registry

    if path is None:
        pytest.skip(f"no {fmt} files in the shared corpus")
    if fmt not in get_registry().importer_names():
        pytest.skip(f"the {fmt} importer is not registered yet")
    return list(sessionport.read(str(path), format=fmt))


@pytest.mark.parametrize("fmt,path", corpus_params("codex") + corpus_params("claude-code"))
def test_real_sessions_render_with_every_prompt_and_no_raw_html(fmt, path):
    from sessionport.render.markdown_blocks import message_markdown

    events = read_corpus(fmt, path)
    text = render(events)
    prompts = [e["text"] for e in events if e["type"] == "message" and e["role"] == "user" and (e.get("meta") or {}).get("kind", "text") == "text" and not (e.get("meta") or {}).get("injected") and e["text"].strip()]
    for prompt in prompts:
        command = parse_command(prompt)
        if command is None:
            assert message_markdown(prompt).strip() in text
        elif command.kind == "command":
            assert f"**Command:** {code_span(command.label)}" in text
    assert "command-name>" not in prose_of(text), "a Claude Code command shown as raw tags"
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (test extra) renders the output as CommonMark")
    tokens = markdown_it.MarkdownIt("commonmark", {"html": True}).parse(text)
    raw = [t.content.strip() for t in tokens if t.type == "html_block"]
    raw += [c.content for t in tokens if t.children for c in t.children if c.type == "html_inline"]
    for block in raw:
        for piece in block.split("\n"):
            assert OUR_HTML.match(piece.strip()) or not piece.strip(), f"raw HTML from the transcript: {piece[:200]!r}"


def prose_of(markdown: str) -> str:
    """The document's text outside code blocks (tool outputs may quote
    anything, a file holding command tags included)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark", {"html": True}).parse(markdown)
    return "\n".join(t.content for t in tokens if t.type not in ("fence", "code_block"))


ODD_EVENTS = [
    {"type": "session", "source": None, "title": 5, "sessionId": ["x"], "metadata": "not an object", "createdAt": 1e300},
    {"type": "message", "role": "assistant", "text": None, "meta": "kind"},
    {"type": "message", "role": "weird", "text": "x", "meta": {"kind": 7, "model": ["m"]}, "timestamp": -1e20},
    {"type": "message", "role": "tool", "text": "t", "toolName": 3, "toolInput": {"command": [1, 2]}, "meta": {"kind": "tool_use"}},
    {"type": "message", "role": "tool", "toolInput": {"n": 2**70, "o": object()}, "meta": {"kind": "tool_use"}},
    {"type": "message", "role": "tool", "text": "", "toolInput": "*** Begin Patch\n*** End Patch", "meta": {"kind": "tool_use"}},
    {"type": "end", "usage": {"input_tokens": "many", "output_tokens": True}, "skipped": {"a": "b"}, "notes": "not a list"},
    {"type": "unknown-event"},
]


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_malformed_events_render_without_crashing(fmt):
    data = sessionport.dumps(ODD_EVENTS, format=fmt, front_matter=True) if fmt == "markdown" else sessionport.dumps(ODD_EVENTS, format=fmt)
    text = data.decode()
    assert "Session 1" in text and "*** Begin Patch" in text
    assert "1180591620717411303424" in text  # the huge int, shown by repr


def test_filter_stage_keeps_its_own_no_thinking_flag():
    # The readable exporters' --no-thinking must not take the filter stage's.
    from conftest import run_cli

    done = run_cli("filter", str(TWO_SESSIONS), "--no-thinking")
    assert done.returncode == 0, done.stderr
    kinds = [(orjson.loads(line).get("meta") or {}).get("kind") for line in done.stdout.splitlines()]
    assert "thinking" not in kinds and "tool_use" in kinds


def test_subagent_turns_are_labelled():
    events = [session_event("claude-code"), message_event("user", "main"), message_event("user", "sub", meta={"sidechain": True}), message_event("assistant", "main answer")]
    text = render(events)
    assert text.index("## User\n") < text.index("## User · subagent\n") < text.index("## Assistant\n")
