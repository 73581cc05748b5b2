"""What the readable exporters make of a transcript's content, in HTML and
Markdown alike: message Markdown, tool calls paired with their results,
Claude Code commands, tool inputs by kind, images, subagent links, token
figures, and text that must not break out (fences, bidi overrides)."""

from __future__ import annotations

import base64
import re
import subprocess
import sys

import pytest

import sessionport
from sessionport.model import end_event, message_event, session_event
from sessionport.render import pairing
from sessionport.render.commands import command_title, is_caveat, parse_command
from sessionport.render.markdown_blocks import message_markdown, safe_markdown

from conftest import FIXTURES, run_cli
from test_html import assert_nothing_injected, audit, message_ids


def html(events, **options) -> str:
    return sessionport.dumps(events, format="html", **options).decode("utf-8")


def md(events, **options) -> str:
    return sessionport.dumps(events, format="markdown", **options).decode("utf-8")


def call(call_id, name="Bash", tool_input=None, **meta):
    return message_event("tool", f"{name}: x", toolName=name, toolCallId=call_id, toolInput=tool_input if tool_input is not None else {"command": f"echo {call_id}"}, meta={"kind": "tool_use", **meta})


def result(call_id, text, error=False, **meta):
    return message_event("tool", text, toolCallId=call_id, isError=error or None, meta={"kind": "tool_result", **meta})


def units_of(page: str) -> dict[str, str]:
    """Each tool-call article's HTML, by its call id."""
    units = {}
    for article in re.findall(r'<article class="msg tool call.*?</article>', page, re.S):
        found = re.search(r"call id ([^<]+)</p>", article)
        if found:
            units[found.group(1)] = article
    return units


# -- message Markdown ------------------------------------------------------------


def test_assistant_markdown_is_rendered_and_code_highlighted_once():
    text = "### Summary\n\n**Session Summary:** done\n\n- item one\n- ~~old~~ new\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\ndef f():\n    return 1\n```"
    events = [session_event("t"), message_event("user", "plain prompt"), message_event("assistant", text), message_event("assistant", "think **hard**", meta={"kind": "thinking"})]
    page = html(events)
    parsed = audit(page)
    assert_nothing_injected(parsed)
    assert "<h3>Summary</h3>" in page and "<strong>Session Summary:</strong>" in page
    assert "<li><s>old</s> new</li>" in page and "<td>1</td>" in page
    assert '<span class="k">def</span>' in page  # Pygments
    assert "<strong>hard</strong>" in page  # thinking is Markdown too
    assert "**" not in parsed.all_text and "###" not in parsed.all_text
    style = parsed.styles[0]
    assert style.count(".md pre .k{") + style.count(".md pre .k {") == 2  # light and dark, once each


def test_math_delimiters_keep_their_backslashes():
    # ChatGPT writes math between \( \) and \[ \]; CommonMark's escape would
    # drop the backslashes and leave brackets that no longer say "math".
    text = "The mean is \\( E[|x-y|] \\) and\n\\[\nE = \\int_0^1 x\\,dx\n\\]\nwith `\\(code\\)`, \\*literal\\* and \\\\( one backslash"
    page = html([session_event("t"), message_event("user", "q"), message_event("assistant", text)])
    parsed = audit(page)
    assert_nothing_injected(parsed)
    assert "\\( E[|x-y|] \\)" in parsed.all_text
    assert "\\[" in parsed.all_text and "\\]" in parsed.all_text
    assert "x\\,dx" in parsed.all_text  # inside math every backslash stays
    inline = html([session_event("t"), message_event("user", "q"), message_event("assistant", "so \\(a_1 * b_2 * c_3\\) and \\( <b>x</b> \\)")])
    assert "\\(a_1 * b_2 * c_3\\)" in audit(inline).all_text and "<em>" not in inline
    assert_nothing_injected(audit(inline))
    assert "<code>\\(code\\)</code>" in page  # code spans as written
    assert "*literal*" in parsed.all_text and "<em>" not in page  # other escapes unchanged
    assert "\\\\(" not in parsed.all_text and " \\( one backslash" in parsed.all_text


def test_links_are_only_http_https_and_mailto_and_never_load():
    attacks = "[a](javascript:alert(1)) [b](JAVASCRIPT:alert(2)) [c](&#106;avascript:alert(3)) [d]: data:text/html,x\n\n[d] <data:text/html,x> ![i](http://img.example/x.png) [m](mailto:a@b.example) [h](https://ok.example/p) bare https://bare.example/q."
    page = html([session_event("t"), message_event("assistant", attacks)])
    parsed = audit(page)
    assert_nothing_injected(parsed)
    hrefs = [a["href"] for t, a in parsed.tags if t == "a" and not a["href"].startswith("#")]
    assert hrefs == ["http://img.example/x.png", "mailto:a@b.example", "https://ok.example/p", "https://bare.example/q"]
    assert all(a.get("rel") == "nofollow noopener noreferrer" for t, a in parsed.tags if t == "a" and not a["href"].startswith("#"))
    assert "[image: i]" in parsed.all_text  # an image is a link to it, never loaded
    assert not [t for t, _ in parsed.tags if t == "img"]


def test_plain_text_skips_the_parser_with_the_same_result():
    from sessionport.render.markup import _MARKUP, _plain_paragraphs, parser

    samples = ["one line", "two\nlines", "para one\n\npara two\n\n\nthree", 'quotes "x" and \'y\' and 100% (ok)?', "ünïcödé text, a=b"]
    for text in samples:
        assert _MARKUP.search(text) is None
        assert _plain_paragraphs(text) == parser().render(text)


def test_a_text_that_is_one_strong_span_skips_the_parser_with_the_same_result():
    import random

    from sessionport.render.markup import _whole_strong, parser, render_markdown

    alphabet = "ab Z9(.!?)*_\"'<&:/ \n#-`\t1ü"
    rng = random.Random(11)
    fast = 0
    for _ in range(20000):
        text = "**" + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10))) + "**"
        assert render_markdown(text) == parser().render(text), text
        fast += _whole_strong(text) is not None
    assert fast > 500  # the fast path was taken, and agreed with the parser each time
    assert _whole_strong("**Planning the fix**") == "<p><strong>Planning the fix</strong></p>\n"


def test_strong_headings_skip_the_parser_with_the_same_result():
    import random

    from sessionport.render.markup import parser, render_markdown

    words = "the a to of and in is 3 x9 \"q\" 'a' (b) ok! what? a=b 100% end. done,".split()
    rng = random.Random(7)
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(1, 16)):
            word, roll = rng.choice(words), rng.random()
            if roll < 0.15:
                word = f"**{word}**"
            elif roll < 0.2:
                word = f"**{word} {rng.choice(words)}**"
            elif roll < 0.23:
                word = "**" + word if roll < 0.215 else word + "**"
            parts += [word, rng.choice([" ", " ", "\n", "\n\n"])]
        text = "".join(parts).strip()
        assert render_markdown(text) == parser().render(text), text


# -- calls and results ------------------------------------------------------------


def test_parallel_calls_get_their_results_out_of_order():
    events = [session_event("t"), message_event("user", "go"), call("A"), call("B"), call("C"), result("C", "out C"), result("A", "out A"), result("B", "err B", error=True), message_event("assistant", "done")]
    page = html(events)
    units = units_of(page)
    assert list(units) == ["A", "B", "C"]  # in the order of the calls
    for key in "ABC":
        assert f"out {key}" in units[key] or f"err {key}" in units[key]
        assert sum(f"{x} {k}" in units[key] for x in ("out", "err") for k in "ABC") == 1
    assert 'class="badge err">error' in units["B"] and "tool call error" in units["B"]
    assert len(message_ids(audit(page))) == 9 - 1  # every message has its element
    text = md(events)
    order = [text.index(s) for s in ("echo A", "out A", "echo B", "err B", "echo C", "out C", "done")]
    assert order == sorted(order)
    assert "**Result (error):** `B`" in text


def test_a_result_right_after_its_call_reads_as_one_held_behind_another():
    """A call answered at once is written in one step; the same call and
    result held behind an earlier waiting call go through the queue: the
    unit reads the same either way, its headings made once per tool name."""
    at = {"timestamp": "2025-06-01T09:00:04.123Z"}
    direct = md([session_event("t"), message_event("user", "go", **at), call("A"), result("A", "out A"), call("B"), result("B", "out B")])
    held = md([session_event("t"), message_event("user", "go", **at), call("Z"), call("A"), result("A", "out A"), call("B"), result("B", "out B"), result("Z", "out Z")])
    unit = "**Tool call:** `Bash` · `A`\n\n```sh\necho A\n```\n\n**Result:** `A`\n\n```text\nout A\n```\n\n"
    assert unit in direct and unit in held
    assert direct.index("out A") < direct.index("echo B")
    assert held.index("out Z") < held.index("echo A")  # Z's unit first, in the order of the calls
    assert "## User · 2025-06-01 09:00:04 UTC\n\n" in direct


def test_unmatched_calls_and_results_stay_visible():
    events = [session_event("t"), call("lonely"), result("nobody", "orphan output"), message_event("assistant", "after")]
    page = html(events)
    assert "no result in the transcript" in units_of(page)["lonely"]
    assert "orphan output" in audit(page).all_text and "after" in audit(page).all_text
    text = md(events)
    assert "echo lonely" in text and "orphan output" in text


def test_waiting_is_bounded_and_a_late_result_links_to_its_call(monkeypatch):
    monkeypatch.setattr(pairing, "MAX_HELD", 5)
    events = [session_event("t"), call("early"), *[message_event("assistant", f"filler {i}") for i in range(8)], result("early", "late output")]
    page = html(events)
    assert "no result in the transcript" in units_of(page)["early"]
    early = re.search(r'<article class="msg tool call" id="(s1-m\d+)"', page).group(1)
    assert f'href="#{early}">result of the call above' in page
    assert page.index("filler 0") > page.index("echo early")


def test_a_new_prompt_writes_the_calls_still_waiting():
    sink: list[str] = []
    from sessionport.render.markdown import MarkdownWriter
    from sessionport.render.options import RenderOptions

    writer = MarkdownWriter(sink.append, RenderOptions())
    writer.start(session_event("t"))
    writer.message(call("w"))
    assert not any("echo w" in s for s in sink)  # held for its result
    writer.message(message_event("user", "next prompt"))
    assert any("echo w" in s for s in sink)


# -- commands ----------------------------------------------------------------------


CONTEXT = "<command-name>/context</command-name>\n            <command-message>context</command-message>\n            <command-args></command-args>"


def test_claude_code_commands_become_chips_with_their_output():
    events = [
        session_event("claude-code"),
        message_event("user", "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>", meta={"injected": True}),
        message_event("user", CONTEXT),
        message_event("user", "<local-command-stdout>Context Usage 33%</local-command-stdout>"),
        message_event("user", "<bash-input>ls -la</bash-input>"),
        message_event("user", "<bash-stdout>a.txt</bash-stdout><bash-stderr>warn</bash-stderr>"),
        message_event("user", "<command-name>model</command-name><command-args>opus</command-args>"),
        message_event("user", "a real prompt <command-name>x</command-name> in text"),
    ]
    page = html(events)
    parsed = audit(page)
    assert_nothing_injected(parsed)
    assert '<span class="chip">/context</span>' in page
    article = re.search(r'<article class="msg user command".*?</article>', page, re.S).group(0)
    assert "Context Usage 33%" in article  # the output inside the command's card
    assert '<span class="chip shell">! ls -la</span>' in page and "a.txt" in page and "warn" in page
    assert '<span class="chip">/model</span> <code class="args">opus</code>' in page
    assert "Local command caveat" in parsed.all_text
    assert "<command-name>" not in parsed.all_text.replace("a real prompt <command-name>x</command-name> in text", "")
    assert len(message_ids(parsed)) == len(events) - 1
    text = md(events)
    assert "**Command:** `/context`\n\n```text\nContext Usage 33%\n```" in text
    assert "**Command:** `! ls -la`" in text and "*stderr:*" in text
    assert "**Command:** `/model` `opus`" in text
    assert "&lt;command-name>" not in text.replace("a real prompt &lt;command-name>x&lt;/command-name> in text", "")


def test_command_parsing_takes_only_messages_made_of_command_tags():
    assert parse_command(CONTEXT).name == "/context"
    assert parse_command("<local-command-stdout></local-command-stdout>").kind == "output"
    assert parse_command("hello <command-name>x</command-name>") is None
    assert parse_command("<command-name>x</command-name> and more") is None
    assert command_title(CONTEXT) == "/context"
    assert is_caveat("<local-command-caveat>Caveat: x</local-command-caveat>")
    assert is_caveat("Caveat: The messages below were generated by the user while running local commands. DO NOT respond")
    assert not is_caveat("Caveat emptor")
    assert command_title("just text") is None


# -- tool inputs by kind -------------------------------------------------------------


def test_tool_inputs_are_shown_by_kind():
    plan = "## Plan\n\n1. **Read** the code\n2. Fix it"
    events = [
        session_event("t"),
        call("r", "Read", {"file_path": "/src/a.py", "offset": 10, "limit": 20}),
        result("r", "file text"),
        call("p", "ExitPlanMode", {"plan": plan}),
        call("t", "Task", {"description": "Find the bug", "prompt": "Look for **the bug** in `a.py`", "subagent_type": "general-purpose"}),
        call("c", "python", {"code": "import os\nprint(os.getcwd())"}),
        call("j", "WebFetch", {"url": "https://x.org", "n": 1}),
    ]
    page = html(events)
    assert_nothing_injected(audit(page))
    units = units_of(page)
    assert "<code>/src/a.py</code>" in units["r"] and "lines 10–29" in units["r"]
    assert "<h2>Plan</h2>" in units["p"] and "<strong>Read</strong>" in units["p"]
    assert "general-purpose: Find the bug" in units["t"] and "<strong>the bug</strong>" in units["t"]
    assert '<span class="kn">import</span>' in units["c"]
    assert "{\n  &quot;url&quot;: &quot;https://x.org&quot;,\n  &quot;n&quot;: 1\n}" in units["j"]
    text = md(events)
    assert "Read `/src/a.py` (lines 10–29)" in text
    assert "<summary>Input</summary>\n\n## Plan" in text
    assert "```python\nimport os\nprint(os.getcwd())\n```" in text


# -- images ------------------------------------------------------------------------------

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(24)).decode()


def with_images(*media):
    return [session_event("t"), {**message_event("user", "[image: image/png, 32 B]"), "media": list(media)}, end_event()]


def test_images_are_placeholders_unless_embedded_and_only_real_raster_images():
    events = with_images(
        {"type": "image", "mediaType": "image/png", "data": PNG},
        {"type": "image", "mediaType": "image/svg+xml", "data": base64.b64encode(b"<svg onload='x'/>").decode()},
        {"type": "image", "mediaType": "image/png", "data": base64.b64encode(b"<script>x</script>").decode()},
        {"type": "image", "mediaType": "image/png", "data": "!!not base64!!"},
    )
    assert "<img" not in html(events)  # default: the placeholder text only
    page = html(events, images="embed")
    imgs = re.findall(r"<img [^>]*>", page)
    assert len(imgs) == 1 and f'src="data:image/png;base64,{PNG}"' in imgs[0]
    assert "image 2 not shown: image/svg+xml is not shown" in page
    assert "image 3 not shown: its bytes are not image/png" in page
    assert "image 4 not shown: not valid base64" in page
    text = md(events, images="embed")
    assert f"](data:image/png;base64,{PNG})" in text and text.count("data:image") == 1


def test_oversized_images_are_refused(monkeypatch):
    from sessionport.render import images

    monkeypatch.setattr(images, "MAX_IMAGE_BYTES", 16)
    page = html(with_images({"type": "image", "mediaType": "image/png", "data": PNG}), images="embed")
    assert "<img" not in page and "larger than" in page


def test_markdown_writes_images_beside_the_document(tmp_path):
    source = tmp_path / "s.jsonl"
    import orjson

    source.write_bytes(b"\n".join(orjson.dumps({**e, "schema": "sessionport/v1"} if e["type"] == "session" else e) for e in with_images({"type": "image", "mediaType": "image/png", "data": PNG})) + b"\n")
    out = tmp_path / "notes" / "doc.md"
    out.parent.mkdir()
    done = run_cli("convert", str(source), "--to", "markdown", "--images", str(tmp_path / "notes" / "img"), "-o", str(out))
    assert done.returncode == 0, done.stderr.decode()
    from sessionport.render.images import image_name

    name = image_name(1, "png", base64.b64decode(PNG))
    assert (tmp_path / "notes" / "img" / name).read_bytes() == base64.b64decode(PNG)
    assert f"](<img/{name}>)" in out.read_text()
    done = run_cli("convert", str(source), "--to", "html", "--images", str(tmp_path / "pics"), "-o", str(tmp_path / "x.html"))
    assert done.returncode == 2 and b"a directory of images is for Markdown" in done.stderr


def test_claude_code_keeps_image_bytes_only_when_asked():
    from conftest import corpus_files

    files = [p for p in corpus_files("claude-code") if "image" in p.name]
    if not files:
        pytest.skip("no Claude Code corpus file with images")
    plain = list(sessionport.read(str(files[0])))
    assert not any("media" in e for e in plain)
    kept = list(sessionport.read(str(files[0]), options={"keep_images": True}))
    media = [m for e in kept for m in e.get("media", [])]
    assert media and all(m["mediaType"].startswith("image/") for m in media)
    assert [e.get("text") for e in plain] == [e.get("text") for e in kept]
    page = html(kept, images="embed")
    assert page.count("<img ") == len(media)


# -- subagents ---------------------------------------------------------------------------


def test_subagents_are_linked_to_the_calls_that_spawned_them():
    prompt = "Set up the project"
    events = [
        session_event("claude-code", sessionId="main", metadata={"subagents": ["a1"]}),
        call("task1", "Task", {"description": "Setup", "prompt": prompt}),
        message_event("user", prompt, meta={"kind": "text", "sidechain": True}),
        message_event("assistant", "sub done", meta={"kind": "text", "sidechain": True}),
        result("task1", "agent finished", spawnedAgentId="a1"),
        end_event(),
        session_event("claude-code", sessionId="agent-a1", metadata={"agentId": "a1", "parentToolCallId": "task1"}),
        message_event("user", "inside the agent"),
        end_event(),
    ]
    page = html(events)
    unit = units_of(page)["task1"]
    call_dom = re.search(r'id="(s1-m\d+)"', unit).group(1)
    assert "subagent run ↓" in unit and "↑ spawned by this call" in page  # inline sidechain
    anchor = re.search(r'href="#(agent-[0-9a-f]{16})">subagent session', unit).group(1)
    assert f'id="{anchor}">Subagent session · <a href="#{call_dom}">spawned by this call' in page
    text = md(events)
    assert f"[Subagent session ↓](#{anchor})" in text and f'<a id="{anchor}"></a>' in text


def test_a_subagent_whose_session_is_not_in_the_stream_is_named_not_linked():
    events = [
        session_event("claude-code", sessionId="main", metadata={"subagents": ["a1"]}),
        call("task1", "Task", {"description": "Setup", "prompt": "one"}),
        result("task1", "agent finished", spawnedAgentId="a1"),
        call("task2", "Task", {"description": "Other", "prompt": "two"}),
        result("task2", "agent finished", spawnedAgentId="a2"),
        end_event(),
    ]
    page = html(events)
    anchors = re.findall(r'href="#(agent-[0-9a-f]{16})"', page)
    assert len(anchors) == 1  # a1 is announced as following: linked
    assert "subagent a2: its session is not in this document" in audit(page).all_text
    text = md(events)
    assert text.count("[Subagent session ↓](#agent-") == 1
    assert "*Subagent `a2`: its session is not in this document*" in text


FIXTURE_PROJECT = FIXTURES / "claude-code" / "project" / "5a1c2e3f-0000-4000-8000-000000000002.jsonl"


@pytest.mark.parametrize("to", ["html", "markdown"])
def test_subagent_links_of_a_real_project_point_only_at_sessions_in_the_output(to, tmp_path):
    from conftest import corpus_path

    sources = [FIXTURE_PROJECT]
    real = corpus_path("claude-code", "11_cc-2.1.114_project", "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
    if real.exists():
        sources.append(real)  # one subagent transcript kept beside it, five calls whose transcripts are absent
    for source in sources:
        for extra in ((), ("--no-subagents",)):
            out = tmp_path / f"out.{to}"
            done = run_cli("convert", str(source), "--to", to, *extra, "-q", "-o", str(out))
            assert done.returncode == 0, done.stderr.decode()
            text = out.read_text()
            targets = set(re.findall(r'href="#(agent-[0-9a-f]{16})"|\]\(#(agent-[0-9a-f]{16})\)', text))
            targets = {a or b for a, b in targets}
            ids = set(re.findall(r'id="(agent-[0-9a-f]{16})"', text))
            assert targets <= ids, (source.name, extra, targets - ids)
            if extra:
                assert not targets and "its session is not in this document" in text
            else:
                assert targets  # the subagent transcript beside the session is linked


# -- token figures ------------------------------------------------------------------------


def test_token_figures_say_whether_they_cover_the_whole_session_or_what_was_kept():
    def answer(text, api_id, tokens):
        return message_event("assistant", text, meta={"kind": "text", "messageId": api_id, "usage": {"input_tokens": tokens, "output_tokens": 10}})

    whole = {"input_tokens": 300, "output_tokens": 20}
    full = [session_event("t"), answer("a", "m1", 100), answer("a2", "m1", 100), answer("b", "m2", 200), end_event(usage=whole)]
    text = md(full)
    assert "tokens for the whole session: 300 in, 20 out*" in text and "here:" not in text
    kept = [e for e in full if e.get("text") != "b"]  # what filter would leave
    text = md(kept)
    assert "tokens for the whole session: 300 in, 20 out · tokens in the 2 messages here: 100 in, 10 out" in text
    page = html(kept)
    assert "tokens in the 2 messages here: 100 in, 10 out" in audit(page).all_text


# -- text that must not break out -----------------------------------------------------------


BREAKOUTS = [
    "Look:\n    ```\n<img src=x onerror=alert(1)>\n```\nafter",
    "A list:\n- item\n  ```\n<!-- \n  ```\n",
    "```\ncode\n```\u00a0\n<img src=x onerror=alert(2)>\n",
    "> quote\n> ```\n<script>alert(3)</script>\n",
    "[x](javascript&colon;alert(4)) [y](&#106;avascript:alert(5)) [z](<javascript:alert(6)>)",
    "[r]: javascript:alert(7)\n\n[r] and [s][r]\n\n> [q]:\n>   javascript:alert(8)\n\n[q]",
    "- [l]: data:text/html,x\n\n[l]",
    "~~~\n<b>in code</b>\n~~~~\n<img src=x onerror=alert(9)>",
    "<!--",
    "1. one\n\n       ```\n   <div onclick=x>\n",
]


@pytest.mark.parametrize("text", BREAKOUTS, ids=range(len(BREAKOUTS)))
def test_a_message_cannot_break_out_of_its_place_in_markdown(text):
    from markdown_it import MarkdownIt

    out = message_markdown(text)
    assert safe_markdown(out)
    doc = md([session_event("t"), message_event("user", text), message_event("user", "LATER MESSAGE")])
    renderer = MarkdownIt("commonmark", {"html": True})
    rendered = renderer.render(doc)
    assert "LATER MESSAGE" in rendered and "End of session" in rendered
    assert not re.search(r"<(img|script|div|b)[\s>]", rendered)
    assert 'href="javascript' not in rendered.lower() and 'href="data' not in rendered.lower()
    try:
        import cmarkgfm
    except ImportError:
        return
    gfm = cmarkgfm.github_flavored_markdown_to_html(doc, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    assert "LATER MESSAGE" in gfm and not re.search(r"<(img|script|div|b)[\s>]", gfm)
    assert 'href="javascript' not in gfm.lower()


def test_bidi_overrides_are_replaced_in_html_and_markdown():
    events = [session_event("x", title="report\u202etxt.exe"), message_event("user", "run: rm -rf \u202e/ emoh/~\u202c now \u2066iso\u2069"), call("c\u202e", "Bash", {"command": "ls \u202egpj.exe"}), end_event()]
    for out in (html(events), md(events), md(events, front_matter=True)):
        assert not re.search("[\u202a-\u202e\u2066-\u2069]", out)
        assert "\ufffd" in out


def test_rendering_libraries_load_only_when_a_page_is_written():
    code = "import sys, sessionport.render.html, sessionport.render.markdown; print(any(m.split('.')[0] in ('markdown_it', 'pygments') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_corpus_hostile_fixture_still_renders_safely_with_images_embedded():
    import orjson

    events = [orjson.loads(line) for line in (FIXTURES / "html" / "hostile.jsonl").read_bytes().splitlines() if line.strip()]
    assert_nothing_injected(audit(html(events, images="embed")))


def test_the_kept_highlighting_stylesheet_is_what_pygments_makes():
    from sessionport.render.highlight_css import CSS
    from sessionport.render.markup import generate_highlight_css

    assert CSS == generate_highlight_css(), "run: python -m sessionport.render.markup > sessionport/render/highlight_css.py"


def test_a_selection_that_drops_the_subagent_session_leaves_no_link_to_it(tmp_path):
    out = tmp_path / "page.html"
    links = {}
    for selection in (("--session", "5a1c2e3f"), ("--session", "5a1c2e3f", "--session", "agent-abc")):
        done = run_cli("convert", str(FIXTURE_PROJECT), *selection, "--to", "html", "-q", "-o", str(out))
        assert done.returncode == 0, done.stderr.decode()
        text = out.read_text()
        targets = set(re.findall(r'href="#(agent-[0-9a-f]{16})"', text))
        assert targets <= set(re.findall(r'id="(agent-[0-9a-f]{16})"', text))
        links[len(selection)] = targets
    assert not links[2] and links[4]  # the parent alone: named as text; with its subagent: linked
