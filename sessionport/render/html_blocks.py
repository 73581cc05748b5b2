"""HTML fragments of the viewer, one message at a time.

Every piece of transcript text goes through :func:`esc` (``html.escape`` with
``quote=True``) before it reaches the page, in element text and attribute
values alike, or, for message Markdown, through the renderer of
:mod:`sessionport.render.markup` (raw HTML off, links only to http, https and
mailto); element ids are generated here, never taken from the transcript.
"""

from __future__ import annotations

import re

from sessionport.render.markup import render_markdown  # markdown-it-py itself loads on first use
from sessionport.render.session import format_time
from sessionport.render.text import EMPHASIS as _EMPHASIS, clean_text, trim_lines
from sessionport.render.tools import DIFF_LINE_RULES, ToolView, diff_line_class, first_line as _first_line

_LANG = re.compile(r"[^\w+#.-]")
OPEN_DIFF_LINES = 40
TOOL_CLASS = {"shell": "sh", "diff": "diff", "json": "json", "text": "out"}


# Anything esc changes: markup characters, CR, ESC and the other controls.
_PLAIN = re.compile(r"[&<>\"'\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]").search
_LONG = 48  # past this length a text skips the scan (see esc)


def esc(value: object) -> str:
    """Text (or any value) as HTML text or a quoted attribute value: what
    ``html.escape(text, quote=True)`` gives, inlined (this runs for every
    line of a diff and most pieces of a page)."""
    text = value if value.__class__ is str else str(value)
    if len(text) <= _LONG and _PLAIN(text) is None:  # most ids, labels and short texts: one scan, nothing to do
        return text
    # A longer text (a tool output, a command) skips that scan, which takes
    # about 50 instructions a character: clean_text finds control
    # characters at the byte level and the substring tests (memchr) below
    # the markup characters, many times faster.
    text = clean_text(text)
    # Each replace is guarded by a substring test: the test stops at the
    # first hit, where a replace of an absent character still counts
    # through the whole text (tool outputs run to megabytes).
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "'" in text:
        text = text.replace("'", "&#x27;")
    return text


def plain_block(text: str, css: str = "out") -> str:
    return f'<pre class="{css}">{esc(text)}</pre>'


def _diff_block(body: str) -> str:
    if "\r" not in body and "\x1b" not in body:
        # escaping adds or removes no line end, and keeps the characters
        # that give a line its class: classes can be read off the escaped text
        return '<pre class="diff">' + _diff_runs(esc(body)) + "</pre>"
    if "\r" in body:
        # esc turns a CR into a line end: escape line by line
        raw_lines = body.split("\n")
        escaped = [esc(line) for line in raw_lines]
    else:
        # stripping terminal codes may change how a line starts: classes
        # come from the raw lines
        raw_lines, escaped = body.split("\n"), esc(body).split("\n")
    out = []
    for raw, line in zip(raw_lines, escaped):
        css = diff_line_class(raw)
        out.append(f'<span class="{css}">{line}</span>' if css else line)
    return '<pre class="diff">' + "\n".join(out) + "</pre>"


# Consecutive added (or removed) lines, the bulk of a new file or a patch,
# are wrapped together: the run's end is found by one regex scan (a line end
# not followed by another such line) and its lines are wrapped by one
# replace, instead of a Python step per line.  Per first character: the
# prefix that makes a line a file header instead, the run's end, the opening
# tag and what goes between two lines of the run.
def _run_rule(char: str) -> tuple:
    header, _, css = DIFF_LINE_RULES[char]
    run_end = re.compile(rf"\n(?!{re.escape(char)}(?!{re.escape(header[1:])}))").search
    return header, run_end, f'<span class="{css}">', f'</span>\n<span class="{css}">'


_DIFF_RUNS = {char: _run_rule(char) for char in "+-"}
_CLASSED = frozenset(DIFF_LINE_RULES)  # first characters a line's class depends on
_CLASSED_LINE = re.compile("\n[" + re.escape("".join(DIFF_LINE_RULES)) + "]").search


def _diff_runs(text: str) -> str:
    """The lines of an escaped diff, each wrapped in a span of its class."""
    runs = _DIFF_RUNS
    out = []
    pos = 0
    while True:
        run = runs.get(text[pos : pos + 1])
        if run is not None and not text.startswith(run[0], pos):
            found = run[1](text, pos)
            stop = found.start() if found else len(text)
            out.append(run[2] + text[pos:stop].replace("\n", run[3]) + "</span>")
            if found is None:
                break
            pos = stop + 1
            continue
        if run is None and text[pos : pos + 1] not in _CLASSED:
            # lines without a class (context lines, empty lines) up to the
            # next line that may have one: one piece, by one scan
            found = _CLASSED_LINE(text, pos)
            if found is None:
                out.append(text[pos:])
                break
            stop = found.start()
            out.append(text[pos:stop])
            pos = stop + 1
            continue
        end = text.find("\n", pos)
        line = text[pos:] if end < 0 else text[pos:end]
        css = diff_line_class(line)
        out.append(f'<span class="{css}">{line}</span>' if css else line)
        if end < 0:
            break
        pos = end + 1
    return "\n".join(out)


def anchor(dom_id: str, source_id: object = None, css: str = "anchor") -> str:
    title = esc(f"message id {source_id}") if source_id is not None else "link to this message"
    return f'<a class="{css}" href="#{dom_id}" title="{title}">#</a>'


def side_anchor(dom_id: str, source_id: object) -> str:
    """:func:`anchor` for a message without a heading."""
    return anchor(dom_id, source_id, "anchor side")


def message_head(label: str, timestamp: object, dom_id: str, source_id: object) -> str:
    when = ""
    if timestamp is not None:
        when = f'<time datetime="{esc(timestamp)}">{esc(format_time(timestamp))}</time>'
    return f'<div class="msg-head"><span class="who">{esc(label)}</span>{when}{anchor(dom_id, source_id)}</div>'


def collapsed(label: str, inner: str, extra: str = "") -> str:
    """A closed ``<details>`` whose label is transcript-free or escaped."""
    return f'<details><summary>{esc(label)}{extra}</summary>{inner}</details>'


def gist(text: str, limit: int = 140) -> str:
    """The first line of a text, for a collapsed block's label (escaped)."""
    end = text.find("\n")
    line = (text if end < 0 else text[:end]).strip(" *#_")
    if not line and end >= 0:  # a first line of only markup: look further (rare)
        line = next((l.strip(" *#_") for l in text.split("\n") if l.strip(" *#_")), "")
    if "*" in line or "_" in line or "`" in line:  # the label is plain text: no Markdown marks
        line = _EMPHASIS.sub("", line)
    if len(line) > limit:
        line = line[: limit - 1] + "…"
    return f'<span class="gist">{esc(line)}</span>' if line else ""


def facts_list(pairs: list[tuple[str, str]]) -> str:
    return '<dl class="facts">' + "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in pairs) + "</dl>"


# -- rendered Markdown, tool units, commands ----------------------------------

LONG_OUTPUT_LINES = 30


def markdown_block(text: str, css: str = "md") -> str:
    """A message's Markdown rendered (see :mod:`sessionport.render.markup`)."""
    if not text or text.isspace():
        return '<p class="empty">(empty message)</p>'
    return f'<div class="{css}">{render_markdown(clean_text(text))}</div>'


def tool_input_html(view: ToolView) -> str:
    """The input of a call, shown by what it is."""
    kind = view.kind
    if kind == "shell":
        return f'<pre class="sh"><span class="prompt">$ </span>{esc(view.body)}</pre>'
    if kind == "diff":
        return _diff_block(view.body)
    if kind == "read":
        detail = f' <span class="range">{esc(view.detail)}</span>' if view.detail else ""
        return f'<p class="path"><span class="what">read</span> <code>{esc(view.body)}</code>{detail}</p>'
    if kind == "markdown":
        return markdown_block(view.body, "md plan")
    if kind == "code":
        from sessionport.render.markup import highlight

        code = clean_text(view.body)
        lit = highlight(code, _LANG.sub("", view.detail)) or esc(code)
        return f'<div class="md"><pre><code>{lit}</code></pre></div>'
    if view.body.strip():
        return plain_block(view.body, TOOL_CLASS[kind])
    return '<p class="empty">(no input)</p>'


def output_html(text: str, max_output: int | None) -> tuple[tuple[str, ...], int]:
    """A tool output block (collapsed when long), as pieces to write one after
    another (outputs run to megabytes: each join would copy them), and its
    line count."""
    if not text:
        return ('<p class="empty">(no output)</p>',), 0
    lines = text.count("\n") + 1  # count_lines, inlined
    if max_output is None:
        body, cut = text, 0
    else:
        body, cut = trim_lines(text, max_output)
    after = "</pre>"
    if cut:
        after += f'<p class="cut">… {cut:,} more line{"s" if cut != 1 else ""} cut (--max-output {max_output})</p>'
    escaped = esc(body)
    if lines > LONG_OUTPUT_LINES:
        first = _first_line(text)[:160]
        if not (escaped is body and body is text):  # a part of a text that needs no escaping needs none
            first = esc(first)
        before = f'<details class="long"><summary><span class="lines">{lines:,} lines</span><span class="brief">{first}</span></summary><pre class="out">'
        return (before, escaped, after + "</details>"), lines
    return ('<pre class="out">', escaped, after), lines


def unit_summary(name: str, brief: str, error: bool, lines: int, answered: bool) -> str:
    badge = '<span class="badge err">error</span>' if error else ""
    size = f'<span class="lines">{lines:,} line{"s" if lines != 1 else ""}</span>' if lines > 1 else ""
    waiting = "" if answered else '<span class="lines">no result</span>'
    return f'<summary><span class="badge">{esc(name)}</span><span class="brief">{esc(brief)}</span>{badge}{size}{waiting}</summary>'


def result_head(dom_id: str, error: bool, note: str = "") -> str:
    """The opening of a result inside its call's unit (closed by ``</div>``)."""
    label = "error" if error else "output"
    return f'<div class="tool-out{" error" if error else ""}" id="{dom_id}"><div class="out-head"><span class="badge">{label}</span>{note}{anchor(dom_id)}</div>'


def command_html(label: str, args: str, output: str = "", error: str = "", shell: bool = False) -> str:
    chip = f'<span class="chip{" shell" if shell else ""}">{esc(label)}</span>'
    if args:
        chip += f' <code class="args">{esc(args)}</code>'
    parts = [f'<div class="cmd">{chip}</div>']
    if output:
        parts.append(plain_block(output, "out cmd-out"))
    if error:
        parts.append(plain_block(error, "out cmd-err"))
    return "".join(parts)


def images_html(message: dict) -> str:
    """The images a message carries, inline (``--images embed``), each checked
    by :mod:`sessionport.render.images`; a refused one says why."""
    from sessionport.model import human_size
    from sessionport.render.images import images_of

    parts = []
    for n, image in enumerate(images_of(message), 1):
        if image.ok:
            label = esc(f"image {n} ({image.mime}, {human_size(len(image.data or b''))})")
            parts.append(f'<img alt="{label}" title="{label}" src="{image.data_url()}">')
        else:
            parts.append(f'<p class="cut">image {n} not shown: {esc(image.reason)}</p>')
    return f'<div class="media">{"".join(parts)}</div>' if parts else ""
