"""Splitting transcript text the way both readable exporters need it.

Message text is usually Markdown written by a model or a person.  The
exporters find its fenced code blocks (so Markdown can close a fence left
open, and HTML can show it as a code block), its inline code spans (so
markup outside code can be neutralised), and its ``http(s)`` URLs (the only
links the HTML viewer makes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import BinaryIO, Iterator

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_BACKTICKS = re.compile(r"`+")
# Stop at whitespace, quotes and angle brackets; trailing punctuation is
# trimmed below so "see https://x.y/z." links to https://x.y/z.
URL = re.compile(r"https?://[^\s<>\"'`\x00-\x1f\x7f]+", re.IGNORECASE)
_URL_TRAILING = ".,;:!?)]}*_"
# Terminal colour and cursor codes in captured command output: CSI
# sequences (ESC [ ... final byte) and OSC sequences (ESC ] ... BEL or ST).
_TERMINAL_CODES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")


@dataclass
class Segment:
    """A run of prose, or one fenced code block (``code`` true)."""

    code: bool
    text: str
    info: str = ""
    opener: str = ""  # the fence lines as written, for Markdown to keep
    closer: str = ""
    closed: bool = True


def longest_run(text: str, char: str = "`") -> int:
    """The longest run of ``char`` in ``text``.  Probes with substring
    searches (C speed) rather than a loop over characters: tool outputs of
    megabytes pass through here."""
    if char not in text:
        return 0
    best = 1
    probe = char * 2
    while probe in text:
        best += 1
        if best >= 16:  # a pathological run: one regex pass instead of many probes
            return max(map(len, re.findall(re.escape(char) + "+", text)))
        probe += char
    return best


def fence_for(text: str) -> str:
    """A backtick fence longer than any backtick run in ``text``."""
    return "`" * max(3, longest_run(text) + 1)


def split_fences(text: str) -> Iterator[Segment]:
    """Prose and fenced code blocks of ``text``, in order.

    A fence opens on a line of three or more backticks or tildes and closes
    on a line of at least as many of the same character; a block still open
    at the end is reported with ``closed=False``.
    """
    if ("`" not in text or "```" not in text) and ("~" not in text or "~~~" not in text):  # no fence can open: all prose
        yield Segment(False, text)
        return
    prose: list[str] = []
    code: list[str] = []
    fence = ""
    opener = info = ""
    for line in text.split("\n"):
        if fence:
            stripped = line.strip()
            if stripped and stripped[0] == fence[0] and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                yield Segment(True, "\n".join(code), info, opener, line, True)
                code, fence = [], ""
            else:
                code.append(line)
            continue
        match = _FENCE_OPEN.match(line)
        if match and not (match["fence"][0] == "`" and "`" in match["info"]):
            if prose:
                yield Segment(False, "\n".join(prose))
                prose = []
            fence, opener, info = match["fence"], line, match["info"].strip()
            continue
        prose.append(line)
    if fence:
        yield Segment(True, "\n".join(code), info, opener, "", False)
    elif prose:
        yield Segment(False, "\n".join(prose))


def split_code_spans(prose: str) -> Iterator[tuple[bool, str]]:
    """``(is_code, text)`` pieces of prose; a code span keeps its backticks
    out of ``text`` (CommonMark: a run of n backticks closes at the next run
    of exactly n)."""
    if "`" not in prose:
        if prose:
            yield False, prose
        return
    runs = list(_BACKTICKS.finditer(prose))
    pos = 0
    i = 0
    while i < len(runs):
        start = runs[i]
        width = len(start.group())
        close = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == width), None)
        if close is None:
            i += 1
            continue
        end = runs[close]
        if start.start() > pos:
            yield False, prose[pos : start.start()]
        body = prose[start.end() : end.start()]
        if len(body) > 2 and body[0] == " " and body[-1] == " " and body.strip():
            body = body[1:-1]
        yield True, body
        pos = end.end()
        i = close + 1
    if pos < len(prose):
        yield False, prose[pos:]


def split_urls(text: str) -> Iterator[tuple[bool, str]]:
    """``(is_url, text)`` pieces: only http and https URLs are URLs."""
    if "://" not in text:
        if text:
            yield False, text
        return
    pos = 0
    for match in URL.finditer(text):
        url = match.group()
        while url and url[-1] in _URL_TRAILING:
            # keep a closing paren that belongs to the URL: (see https://x/a_(b))
            if url[-1] == ")" and url.count("(") >= url.count(")"):
                break
            url = url[:-1]
        if len(url) <= len("https://"):
            continue
        if match.start() > pos:
            yield False, text[pos : match.start()]
        yield True, url
        pos = match.start() + len(url)
    if pos < len(text):
        yield False, text[pos:]


def strip_terminal_codes(text: str) -> str:
    """``text`` without ANSI escape sequences, which a reader would see as
    garbage; other characters are untouched."""
    return _TERMINAL_CODES.sub("", text) if "\x1b" in text else text


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F])


# Bidirectional embeddings, overrides and isolates (U+202A..U+202E,
# U+2066..U+2069) reorder what follows them on screen: "gpj.exe" can be made
# to read "exe.jpg".  They are replaced like control characters; the marks
# U+200E/U+200F, which reorder nothing by themselves, are kept.
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile("[" + BIDI_CONTROLS + "]")


_CONTROL_CHARS = tuple(map(chr, _CONTROL_BYTES))
# Each control byte made a space, every other byte kept: a text's bytes
# come out of ``translate`` equal to themselves exactly when it holds none.
_CONTROL_TABLE = bytes(0x20 if byte in _CONTROL_BYTES else byte for byte in range(256))
# From this length a text is searched for each control character in turn
# (memchr, a fraction of an instruction a character, 30 searches) instead of
# translated (about 10 instructions a character, no fixed cost to speak of).
_PROBE_FROM = 1024


def holds_any(chars: str, probe_from: int = 80):
    """A test of whether a text holds any of ``chars`` (commonest first):
    a regex class scan for a short text, and from ``probe_from`` characters
    on a search for each (memchr) instead, as the scan takes about 50
    instructions a character.  The scan is the test's ``search``."""
    search = re.compile("[" + "".join(map(re.escape, chars)) + "]").search

    def holds(text: str) -> bool:
        if len(text) < probe_from:
            return search(text) is not None
        for char in chars:
            if char in text:
                return True
        return False

    holds.search = search
    return holds


def has_controls(text: str) -> bool:
    """Whether ``text`` holds a control character other than tab and line
    ends (what :func:`replace_controls` replaces, bidi controls aside).
    Looked for at the byte level, where in UTF-8 these characters are only
    ever themselves: a regex scan takes about 50 instructions a character."""
    if len(text) < _PROBE_FROM:
        data = text.encode("utf-8", "surrogatepass")
        return data.translate(_CONTROL_TABLE) != data
    for char in _CONTROL_CHARS:
        if char in text:
            return True
    return False


def has_bidi(text: str) -> bool:
    """Whether ``text`` holds a bidi control (a search per character: none
    can be in a text of Latin-1 characters, which each search knows at once)."""
    for char in BIDI_CONTROLS:
        if char in text:
            return True
    return False


def replace_controls(text: str) -> str:
    """``text`` with control characters other than tab and line ends, and
    bidi override characters, made U+FFFD (see :func:`has_controls`); bidi
    characters are looked for only in non-ASCII text."""
    if not text.isascii() and has_bidi(text):
        text = _BIDI.sub("\ufffd", text)
    return _CONTROL.sub("\ufffd", text) if has_controls(text) else text


_NEEDS_CLEANING = re.compile("[\x00-\x08\x0b-\x1f\x7f" + BIDI_CONTROLS + "]").search
_SHORT = 48  # up to this length one regex scan costs less than the tests below


def clean_text(text: str) -> str:
    """Text without terminal escape codes, control or bidi override
    characters, and with one kind of line end: what both readable
    exporters show of any transcript text."""
    if len(text) <= _SHORT:
        if _NEEDS_CLEANING(text) is None:  # one scan, nothing to do
            return text
    elif "\r" not in text and not has_controls(text) and (text.isascii() or not has_bidi(text)):
        return text  # the usual text: nothing to do (ESC is a control character)
    if "\x1b" in text:
        text = strip_terminal_codes(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return replace_controls(text)


# Markdown's emphasis and code marks, left out of one-line labels
EMPHASIS = re.compile(r"\*{1,3}|(?<!\w)_{1,3}|_{1,3}(?!\w)|`+")


def plain_label(text: str) -> str:
    """The start of a text on one line without Markdown's emphasis and code
    marks, for a table of contents (escaped where it is written)."""
    label = " ".join(text[:400].split())
    return EMPHASIS.sub("", label) if "*" in label or "_" in label or "`" in label else label


def count_lines(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def trim_lines(text: str, max_lines: int | None) -> tuple[str, int]:
    """The first ``max_lines`` lines of ``text`` and how many were cut."""
    if not max_lines or not text:
        return text, 0
    end = -1
    for _ in range(max_lines):
        end = text.find("\n", end + 1)
        if end < 0:
            return text, 0
    rest = text[end + 1 :]
    if not rest:
        return text[:end], 0
    return text[:end], rest.count("\n") + 1


class ChunkedWriter:
    """Text gathered in pieces and encoded and written to ``out`` in chunks
    of about ``chunk`` characters: one encode and one write per piece (a
    message, a heading) cost more than the rest of a short message's markup."""

    def __init__(self, out: BinaryIO, chunk: int) -> None:
        self.out = out
        self.chunk = chunk
        self.parts: list[str] = []
        self.size = 0

    def emit(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size > self.chunk:
            self.flush()

    def emit_all(self, pieces: list[str]) -> None:
        """:meth:`emit` of each piece in turn, in one step (a tool call and
        its result come in half a dozen pieces)."""
        self.parts.extend(pieces)
        self.size += sum(map(len, pieces))
        if self.size > self.chunk:
            self.flush()

    def flush(self) -> None:
        parts = self.parts
        if parts:
            # str.isascii reads a flag: testing the pieces costs less than
            # joining a chunk that is then not used
            if all(map(str.isascii, parts)):
                data = "".join(parts).encode("utf-8", "replace")
            else:
                # UTF-8 encoding copies ASCII text at memory speed but takes
                # a step per character for the rest (30 times slower), and
                # one "·" in a heading makes the whole chunk "the rest":
                # encoded piece by piece, only the pieces that are not ASCII
                # take the slow path.  Encoding works per code point, so
                # the bytes are the same.  str.encode mapped over the pieces
                # runs without a Python step per piece; it is strict, which
                # gives the bytes "replace" gives unless a piece holds a lone
                # surrogate (then it is done again with "replace").
                try:
                    data = b"".join(map(str.encode, parts))
                except UnicodeEncodeError:
                    data = b"".join([part.encode("utf-8", "replace") for part in parts])
            # emptied first: a failed write is not retried by a final flush
            parts.clear()
            self.size = 0
            self.out.write(data)
