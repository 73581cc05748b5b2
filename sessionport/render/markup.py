"""Message Markdown as safe HTML, one message at a time.

User and assistant text and thinking are Markdown written by a model or a
person.  They are rendered with markdown-it-py (CommonMark plus tables and
strikethrough) with raw HTML switched off, so ``<script>`` in a message is
text; links are made only for ``http``, ``https`` and ``mailto`` targets
(every other scheme, however spelled, stays text) and carry
``rel="nofollow noopener noreferrer"``; a Markdown image is shown as a link
to it, never loaded.  Bare ``http(s)`` URLs become links as before.  Fenced
code is highlighted by Pygments (its stylesheet is part of the page's one
inline stylesheet, see :func:`highlight_css`).

markdown-it-py and Pygments are imported on the first message rendered,
never at start-up.  Text with nothing Markdown could act on (most short
prose) skips the parser: :func:`_plain_paragraphs` writes what the parser
would.
"""

from __future__ import annotations

import functools
import re

from sessionport.render.text import URL, holds_any, split_urls

ALLOWED_SCHEMES = ("http:", "https:", "mailto:")
# Past this size a code block is shown without highlighting: Pygments takes
# about a second per megabyte.
HIGHLIGHT_LIMIT = 40_000
# Characters and line starts that can make Markdown of plain text.  Without
# any of them the text is paragraphs of lines, written directly.
# The scan runs over every message, in pieces the regex engine runs fast:
# one set of characters (an alternation of patterns is tried at every
# position, several times slower), "://" as a substring, and the line starts
# only in text that has a line end; spaces before line ends and the first
# line are tested apart.
_MARKUP_LINES = re.compile(r"\n(?:[ #=+-]|\d{1,9}[.)])").search
_FIRST_LINE = re.compile(r"[ #=+-]|\d{1,9}[.)]").match


# The characters, the commonest first.
_markup_chars = holds_any("*`_[]<>&|~\\\t")
_MARKUP_CHARS = _markup_chars.search


def _has_markup(text: str) -> bool | None:
    """Whether anything in ``text`` could be Markdown (None: nothing)."""
    if (
        _markup_chars(text)
        or "://" in text
        or ("\n" in text and _MARKUP_LINES(text) is not None)
        or _FIRST_LINE(text) is not None
        or " \n" in text
        or text.endswith(" ")
    ):
        return True
    return None


class _Markup:
    search = staticmethod(_has_markup)


_MARKUP = _Markup()
_BLANK_RUN = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def _clean_url(url: str) -> str:
    return url.strip().lower()


def allowed_link(url: str) -> bool:
    """Whether a link target (already entity-decoded and normalised by the
    parser) may become a link: http, https and mailto only."""
    return _clean_url(url).startswith(ALLOWED_SCHEMES)


@functools.lru_cache(maxsize=64)
def _lexer(lang: str):
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except (ClassNotFound, ValueError):
        return None


@functools.lru_cache(maxsize=1)
def _formatter():
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


def highlight(code: str, lang: str, attrs: str = "") -> str:
    """Highlighted HTML of ``code`` (spans only), or "" to leave it plain."""
    if not lang or len(code) > HIGHLIGHT_LIMIT:
        return ""
    lexer = _lexer(lang.lower()[:40])
    if lexer is None:
        return ""
    from pygments import highlight as pyg_highlight

    return pyg_highlight(code, lexer, _formatter())


HIGHLIGHT_SCOPE = ".md pre"


def generate_highlight_css() -> str:
    """Pygments' token colours for code in rendered Markdown, light and dark
    (only the token rules: the block's own background is the page's)."""
    from pygments.formatters import HtmlFormatter

    def rules(style: str) -> str:
        css = HtmlFormatter(style=style).get_style_defs(HIGHLIGHT_SCOPE)
        keep = [line.split(" /*")[0] for line in css.splitlines() if line.startswith(HIGHLIGHT_SCOPE + " .") and ".hll" not in line]
        return "".join(keep)

    return rules("default") + "@media (prefers-color-scheme:dark){" + rules("github-dark") + "}"


def highlight_css() -> str:
    """:func:`generate_highlight_css`, as generated once and kept in
    ``highlight_css.py`` (importing Pygments' styles costs every page 40 ms
    of start-up; a test checks the kept copy against the installed Pygments:
    ``python -m sessionport.render.markup > sessionport/render/highlight_css.py``
    regenerates it)."""
    from sessionport.render.highlight_css import CSS

    return CSS


def _link_open(self, tokens, idx, options, env):
    token = tokens[idx]
    token.attrSet("rel", "nofollow noopener noreferrer")
    token.attrSet("target", "_blank")
    return self.renderToken(tokens, idx, options, env)


def _image(self, tokens, idx, options, env):
    """An image as a link to it (the page loads nothing); its alt text shown."""
    from markdown_it.common.utils import escapeHtml

    token = tokens[idx]
    src = token.attrGet("src") or ""
    alt = self.renderInlineAsText(token.children or [], options, env) or "image"
    label = f"[image: {escapeHtml(alt)}]"
    if not allowed_link(src):
        return escapeHtml(label)
    return f'<a href="{escapeHtml(src)}" rel="nofollow noopener noreferrer" target="_blank">{label}</a>'


def _linkify(state) -> None:
    """Bare http(s) URLs in text (outside links and code) become links."""
    from markdown_it.token import Token

    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children = block.children
        if not any(t.type == "text" and "://" in t.content for t in children):
            continue
        out = []
        depth = 0
        for token in children:
            if token.type == "link_open":
                depth += 1
            elif token.type == "link_close":
                depth -= 1
            if token.type != "text" or depth or "://" not in token.content:
                out.append(token)
                continue
            for is_url, piece in split_urls(token.content):
                if not is_url:
                    text = Token("text", "", 0)
                    text.content = piece
                    out.append(text)
                    continue
                opener = Token("link_open", "a", 1)
                opener.attrs = {"href": state.md.normalizeLink(piece)}
                opener.markup, opener.info = "linkify", "auto"
                text = Token("text", "", 0)
                text.content = piece
                out += [opener, text, Token("link_close", "a", -1)]
        block.children = out


_TEX_DELIMITERS = frozenset("()[]")
_TEX_CLOSERS = {"(": "\\)", "[": "\\]"}


def _tex_delimiter(state, silent: bool) -> bool:
    """Math between ``\\( \\)`` or ``\\[ \\]`` (how ChatGPT and other assistants
    write it) kept as written.  CommonMark would drop the backslashes of the
    delimiters and of ``\\,`` and read ``_`` and ``*`` inside as emphasis; the
    math is shown as its LaTeX source, line breaks kept.  A lone delimiter
    keeps its backslash too."""
    pos = state.pos
    src = state.src
    if src[pos] != "\\" or pos + 1 >= state.posMax or src[pos + 1] not in _TEX_DELIMITERS:
        return False
    closer = _TEX_CLOSERS.get(src[pos + 1])
    end = src.find(closer, pos + 2, state.posMax) if closer else -1
    stop = end + 2 if end >= 0 else pos + 2
    if not silent:
        for n, line in enumerate(src[pos:stop].split("\n")):
            if n:
                state.push("softbreak", "br", 0)
            if line:
                token = state.push("text", "", 0)
                token.content = line
    state.pos = stop
    return True


@functools.lru_cache(maxsize=1)
def parser():
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "highlight": highlight})
    md.enable(["table", "strikethrough"])
    md.inline.ruler.before("escape", "tex_delimiters", _tex_delimiter)
    md.validateLink = allowed_link
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    md.core.ruler.push("bare_urls", _linkify)
    return md


@functools.lru_cache(maxsize=1)
def block_parser():
    """Block structure only (no inline pass), raw HTML off."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False})
    md.disable(["inline"])
    return md


@functools.lru_cache(maxsize=1)
def html_parser():
    """A CommonMark parser as permissive as Obsidian's: raw HTML on, every
    link kept, to check what a Markdown document would become there."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True})
    md.enable(["table", "strikethrough"])
    md.validateLink = lambda url: True
    return md


def _plain_paragraphs(text: str) -> str:
    """What the parser gives for text :data:`_MARKUP` finds nothing in."""
    if "\n" not in text:  # one line: one paragraph
        return "<p>" + (text.replace('"', "&quot;") if '"' in text else text) + "</p>\n" if text else ""
    out = []
    for para in _BLANK_RUN.split(text.strip("\n")):
        if para:
            out.append("<p>" + para.replace('"', "&quot;").replace("\n", "<br />\n") + "</p>\n")
    return "".join(out)


# ``**strong**`` after a space, a tab or a line start, opening before a
# letter, digit or "(", closing after one of those or ".!?)" and before a
# space, a line end or sentence punctuation: what CommonMark reads as strong
# emphasis whatever surrounds it.  Reasoning summaries are headed this way,
# and with nothing else to parse they skip the parser too.
_STRONG_OPEN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789(")
_STRONG_CLOSE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.!?)")
_STRONG_BEFORE = frozenset(" \t\n")
_STRONG_AFTER = frozenset(" \t\n.,;:!?")


def _mark_strong(text: str) -> str | None:
    """``text`` with each ``**strong**`` span's marks made \\x01 and \\x02,
    or None when any ``**`` is not such a mark (the parser decides then).
    Found with ``str.find``: a regex for it costs more than the rest of a
    short message's rendering."""
    out = []
    pos = 0
    find = text.find
    while True:
        start = find("**", pos)
        if start < 0:
            break
        end = find("**", start + 2)
        if end < 0:
            return None
        inner = text[start + 2 : end]
        if (start and text[start - 1] not in _STRONG_BEFORE) or not inner or "*" in inner or "\n" in inner:
            return None
        if inner[0] not in _STRONG_OPEN or inner[-1] not in _STRONG_CLOSE or (end + 2 < len(text) and text[end + 2] not in _STRONG_AFTER):
            return None
        out += (text[pos:start], "\x01", inner, "\x02")
        pos = end + 2
    out.append(text[pos:])
    return "".join(out)


def _whole_strong(text: str) -> str | None:
    """What the parser gives for a text that is one ``**strong**`` span
    with nothing else to parse (a Codex reasoning summary is most often its
    bold title alone), else None: what :func:`_mark_strong` and
    :func:`_plain_paragraphs` would make of it, without their steps."""
    inner = text[2:-2]
    if (
        inner
        and "*" not in inner
        and "\n" not in inner
        and inner[0] in _STRONG_OPEN
        and inner[-1] in _STRONG_CLOSE
        and not _markup_chars(inner)
        and "://" not in inner
    ):
        return "<p><strong>" + (inner.replace('"', "&quot;") if '"' in inner else inner) + "</strong></p>\n"
    return None


def render_markdown(text: str) -> str:
    """``text`` (already free of control and bidi characters) as HTML."""
    if text[:2] == "**" and text[-2:] == "**" and len(text) > 4:
        whole = _whole_strong(text)
        if whole is not None:
            return whole
    if _has_markup(text) is None:
        return _plain_paragraphs(text)
    if "**" in text:
        # \x01 and \x02 cannot be in the text: control characters were replaced
        marked = _mark_strong(text)
        if marked is not None and _has_markup(marked) is None:
            return _plain_paragraphs(marked).replace("\x01", "<strong>").replace("\x02", "</strong>")
    return parser().render(text)


__all__ = ["render_markdown", "highlight_css", "allowed_link", "URL"]


if __name__ == "__main__":
    print('"""Pygments\' token colours for rendered Markdown: generated by')
    print("``python -m sessionport.render.markup > sessionport/render/highlight_css.py``.\"\"\"")
    print()
    print(f"CSS = {generate_highlight_css()!r}")
