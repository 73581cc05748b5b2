"""Markdown building blocks that no transcript text can break out of.

- Inline values (titles, tool names, ids, metadata) are either backslash-
  escaped or put in a code span whose backtick run is longer than any run
  inside.
- Message prose keeps its Markdown, but raw HTML outside code is turned into
  text (``<`` becomes ``&lt;``), link targets that are not plainly http,
  https or mailto URLs are broken up, reference definitions are made text,
  and code blocks are found as a CommonMark parser finds them (a fence it
  does not close gets one of ours), so nothing in one message can swallow or
  restyle the rest of the document; a message that still fails
  :func:`safe_markdown` is written as a plain text block.
- Tool input and output go in fenced blocks whose fence is longer than any
  backtick run inside.
"""

from __future__ import annotations

import re

from sessionport.render.text import clean_text, fence_for, holds_any, longest_run, split_code_spans

_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~!&])")
_RAW_HTML = re.compile(r"<(?=[A-Za-z/!?])")
# A link target is left as a link only when it is literally an http, https
# or mailto URL or an in-page anchor: entities (``&#106;avascript:``),
# escapes and every other scheme or relative path break the link up.
_LINK_TARGET = re.compile(r"\]\((?!\s*<?\s*(?:[Hh][Tt][Tt][Pp][Ss]?://|[Mm][Aa][Ii][Ll][Tt][Oo]:|#))")
# A reference definition (``[x]: javascript:...``) defines a link target
# elsewhere: one at the start of a line (after quote and list markers) is
# made text.
_REFERENCE_DEFINITION = re.compile(r"^([ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)*)\[(?=[^\]\n]*\]:)", re.M)


# Text without terminal escape codes or other control characters (they are
# invisible and upset renderers) and with one kind of line end: the text
# module's clean_text, which finds the usual text (nothing to do) in one scan.
clean = clean_text


_INLINE_ESCAPES = str.maketrans({char: "\\" + char for char in "\\`*_[]<>#|~!&"})


def inline(text: str) -> str:
    """``text`` as literal inline Markdown on one line: each character of
    :data:`_INLINE_SPECIAL` backslash-escaped (by ``str.translate``, when
    the scan finds one: a ``re.sub`` with a group reference expands its
    template in Python for every match)."""
    text = " ".join(clean(text).split())
    return text.translate(_INLINE_ESCAPES) if _INLINE_SPECIAL.search(text) is not None else text


# What code_span has to deal with: whitespace, backticks, controls (ESC, CR).
_SPAN_WORK = re.compile(r"[\s`\x00-\x1f\x7f\u202a-\u202e\u2066-\u2069]").search


def code_span(text: str) -> str:
    """``text`` as a code span on one line, whatever backticks it holds."""
    if text and _SPAN_WORK(text) is None:  # ids, names, paths: the usual case
        return f"`{text}`"
    text = " ".join(clean(text).split()) or " "
    ticks = "`" * (longest_run(text) + 1)
    pad = " " if text[0] == "`" or text[-1] == "`" or text.startswith(" ") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(body: str, lang: str = "", before: str = "", after: str = "") -> str:
    """``body`` as a fenced block, between ``before`` and ``after`` (joined
    here in one step: tool outputs run to megabytes, each join copies)."""
    body = clean(body)
    fence = fence_for(body)
    return f"{before}{fence}{lang}\n{body}\n{fence}\n{after}"


def _prose(text: str) -> str:
    if "`" not in text:  # no code span: the usual message, one piece
        return _neutralise(text)
    out = []
    for is_code, piece in split_code_spans(text):
        if is_code:
            out.append(code_span(piece) if "\n" in piece else _respan(piece))
        else:
            out.append(_neutralise(piece))
    return "".join(out)


def _neutralise(piece: str) -> str:
    """Prose outside code: raw HTML and autolinks made text, links that are
    not plainly http(s)/mailto broken up, reference definitions made text."""
    if "<" in piece:
        piece = _RAW_HTML.sub("&lt;", piece)
    if "](" in piece:
        piece = _LINK_TARGET.sub("]\\(", piece)
    if "]:" in piece:
        piece = _REFERENCE_DEFINITION.sub(r"\1\\[", piece)
    return piece


def _respan(piece: str) -> str:
    ticks = "`" * (longest_run(piece) + 1)
    pad = " " if piece.startswith("`") or piece.endswith("`") else ""
    return f"{ticks}{pad}{piece}{pad}{ticks}"


def message_markdown(text: str) -> str:
    """A message's own Markdown, made safe to embed (see module doc)."""
    text = clean(text)
    # no fence can open: one prose segment (a fence character is looked
    # for first: memchr, several times faster than a search for the run)
    if ("`" not in text or "```" not in text) and ("~" not in text or "~~~" not in text):
        out = _neutralise(text) if "`" not in text else _prose(text)  # _prose's own first test, without its call
    else:
        out = _with_fences(text)
    if _needs_check(out) and not safe_markdown(out):
        return fenced(text, "text").rstrip("\n")
    return out


def _with_fences(text: str) -> str:
    """Prose made safe around the code blocks a CommonMark parser finds
    (raw HTML off: the structure the prose has once its ``<`` are text), an
    indented or list-item fence included.  A fence is kept as written when
    it is plainly closed; otherwise its content gets a fence of our own."""
    from sessionport.render.markup import block_parser

    lines = text.split("\n")
    parts: list[str] = []
    pos = 0
    for token in block_parser().parse(text):
        if token.type not in ("fence", "code_block") or not token.map:
            continue
        start, end = token.map
        if start < pos:
            continue
        if start > pos:
            parts.append(_prose("\n".join(lines[pos:start])))
        block = lines[start:end]
        if token.type == "code_block" or _plainly_closed(block, token.markup):
            parts.append("\n".join(block))
        else:
            lang = token.info.split()[0] if token.info.strip() else ""
            parts.append(fenced(token.content.rstrip("\n"), re.sub(r"[^\w+.-]", "", lang)).rstrip("\n"))
        pos = end
    if pos < len(lines):
        parts.append(_prose("\n".join(lines[pos:])))
    return "\n".join(parts)


def _plainly_closed(block: list[str], markup: str) -> bool:
    """A fence opened at the start of a line (at most three spaces in) and
    closed by a line of the same indentation and at least as many fence
    characters followed only by spaces or tabs."""
    if len(block) < 2 or not markup:
        return False
    opener, closer = block[0], block[-1]
    indent = opener[: len(opener) - len(opener.lstrip(" "))]
    if len(indent) > 3 or not opener.startswith(indent + markup):
        return False
    rest = closer[len(indent):] if closer.startswith(indent) else None
    if rest is None or rest[:1] != markup[0]:
        return False
    body = rest.rstrip(" \t")
    return len(body) >= len(markup) and body == markup[0] * len(body)


# What a renderer could take for markup that the checks above must have made
# safe: HTML, links, entities, fences.
_needs_check = holds_any("`[<&~")
_NEEDS_CHECK = _needs_check.search

_SENTINEL = "sessionport-end-of-message"


def safe_markdown(markdown: str) -> bool:
    """Whether ``markdown``, rendered by a CommonMark renderer that lets
    raw HTML through, holds no HTML, no link or image other than http(s)/
    mailto or an anchor, and leaves what follows it outside any block."""
    from sessionport.render.markup import html_parser, allowed_link

    tokens = html_parser().parse(markdown + "\n\n" + _SENTINEL + "\n")
    if len(tokens) < 3 or tokens[-2].type != "inline" or tokens[-2].content != _SENTINEL or tokens[-2].level != 1:
        return False
    for token in tokens:
        if token.type == "html_block":
            return False
        for child in token.children or ():
            if child.type == "html_inline":
                return False
            if child.type in ("link_open", "image"):
                target = str(child.attrGet("href") or child.attrGet("src") or "")
                if not (target.startswith("#") or allowed_link(target)):
                    return False
    return True


def details(summary: str, body: str) -> str:
    """A collapsed block; ``summary`` must already be inline-safe."""
    return f"<details>\n<summary>{summary}</summary>\n\n{body.rstrip()}\n\n</details>\n"


def summary_text(text: str) -> str:
    """Text for inside ``<summary>``: HTML-escaped, on one line."""
    return " ".join(clean(text).split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def command_markdown(command, output) -> str:
    """A Claude Code command (``/context``, ``! ls``) and what it printed;
    either may be None."""
    parts = []
    if command is not None:
        line = f"**Command:** {code_span(command.label)}"
        if command.args:
            line += f" {code_span(command.args)}"
        parts.append(line + "\n\n")
    if output is not None:
        if command is None:
            parts.append("**Command output:**\n\n")
        if output.stdout:
            parts.append(fenced(output.stdout, "text", "", "\n"))
        if output.stderr:
            parts.append(fenced(output.stderr, "text", "*stderr:*\n\n", "\n"))
    return "".join(parts)
