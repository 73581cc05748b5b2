"""Markdown building blocks that no transcript text can break out of.

- Inline values (titles, tool names, ids, metadata) are either backslash-
  escaped or put in a code span whose backtick run is longer than any run
  inside.
- Message prose keeps its Markdown, but raw HTML outside code is turned into
  text (``<`` becomes ``&lt;``), link targets with a scheme other than http,
  https or mailto are broken up, and a code fence left open is closed, so
  nothing in one message can swallow or restyle the rest of the document.
- Tool input and output go in fenced blocks whose fence is longer than any
  backtick run inside.
"""

from __future__ import annotations

import re

from sessionport.render.text import replace_controls, fence_for, longest_run, split_code_spans, split_fences, strip_terminal_codes

_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~!&])")
_RAW_HTML = re.compile(r"<(?=[A-Za-z/!?])")
_LINK_TARGET = re.compile(r"\]\((?=\s*<?\s*(?![Hh][Tt][Tt][Pp][Ss]?:|[Mm][Aa][Ii][Ll][Tt][Oo]:)[A-Za-z][A-Za-z0-9+.\-]*:)")


def clean(text: str) -> str:
    """Text without terminal escape codes or other control characters (they
    are invisible and upset renderers) and with one kind of line end."""
    if "\x1b" in text:  # tested here too: clean runs for nearly every piece of a document
        text = strip_terminal_codes(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return replace_controls(text)


def inline(text: str) -> str:
    """``text`` as literal inline Markdown on one line."""
    return _INLINE_SPECIAL.sub(r"\\\1", " ".join(clean(text).split()))


# What code_span has to deal with: whitespace, backticks, controls (ESC, CR).
_SPAN_WORK = re.compile(r"[\s`\x00-\x1f\x7f]").search


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
        if "<" in text:
            text = _RAW_HTML.sub("&lt;", text)
        if "](" in text:
            text = _LINK_TARGET.sub("]\\(", text)
        return text
    out = []
    for is_code, piece in split_code_spans(text):
        if is_code:
            out.append(code_span(piece) if "\n" in piece else _respan(piece))
        else:
            piece = _RAW_HTML.sub("&lt;", piece)
            out.append(_LINK_TARGET.sub("]\\(", piece))
    return "".join(out)


def _respan(piece: str) -> str:
    ticks = "`" * (longest_run(piece) + 1)
    pad = " " if piece.startswith("`") or piece.endswith("`") else ""
    return f"{ticks}{pad}{piece}{pad}{ticks}"


def message_markdown(text: str) -> str:
    """A message's own Markdown, made safe to embed (see module doc)."""
    text = clean(text)
    if "```" not in text and "~~~" not in text:  # no fence can open: one prose segment
        return _prose(text)
    parts = []
    for segment in split_fences(text):
        if not segment.code:
            parts.append(_prose(segment.text))
        elif segment.closed:
            lines = [segment.opener, segment.text, segment.closer] if segment.text else [segment.opener, segment.closer]
            parts.append("\n".join(lines))
        else:
            # An unclosed fence would turn the rest of the document into code.
            lang = segment.info.split()[0] if segment.info else ""
            parts.append(fenced(segment.text, re.sub(r"[^\w+.-]", "", lang)).rstrip("\n"))
    return "\n".join(parts)


def details(summary: str, body: str) -> str:
    """A collapsed block; ``summary`` must already be inline-safe."""
    return f"<details>\n<summary>{summary}</summary>\n\n{body.rstrip()}\n\n</details>\n"


def summary_text(text: str) -> str:
    """Text for inside ``<summary>``: HTML-escaped, on one line."""
    return " ".join(clean(text).split()).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
