"""The readable exporters' fast paths give what the general code gives.

Each shortcut (long ASCII texts escaped without the regex scan, a chunk
encoded piece by piece, inline Markdown escaped by ``str.translate``, the
first line found without a copy) is checked against the plain definition
it replaces on random texts built from the characters that matter to it:
markup characters, every control character, line ends, bidi overrides,
Unicode whitespace, non-ASCII letters; short texts and texts past the
length where the shortcut starts.
"""

from __future__ import annotations

import html
import io
import random
import re

import pytest

from sessionport.render.html_blocks import esc
from sessionport.render.markdown_blocks import _INLINE_SPECIAL, clean, inline
from sessionport.render.text import BIDI_CONTROLS, ChunkedWriter, clean_text, replace_controls, strip_terminal_codes
from sessionport.render.tools import first_line

CONTROLS = [chr(c) for c in range(0x20)] + ["\x7f"]
ALPHABET = (
    list("abc XYZ 019") * 6
    + list("&<>\"'\\`*_[]#|~!")
    + CONTROLS
    + ["\r\n", "\x1b[31m", "\x1b]0;t\x07"]
    + list(BIDI_CONTROLS)
    + ["é", "·", "…", "\u00a0", "\u2028", "\u3000", "\x85", "\ud800", "😀"]
)
SEEDS = range(4)


def _texts(seed: int, count: int = 3000, ascii_only: bool = False):
    rng = random.Random(seed)
    alphabet = [c for c in ALPHABET if c.isascii()] if ascii_only else ALPHABET
    for _ in range(count):
        # around the 256 characters where the long-text path starts
        size = rng.choice((0, 1, 5, 40, 250, 256, 257, 300, 2000))
        yield "".join(rng.choice(alphabet) for _ in range(size))


def _plain_text(text: str) -> str:
    """What both exporters show of a text, by its definition."""
    if "\x1b" in text:
        text = strip_terminal_codes(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return replace_controls(text)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ascii_only", [False, True])
def test_esc_is_html_escape_of_the_cleaned_text(seed: int, ascii_only: bool) -> None:
    for text in _texts(seed, ascii_only=ascii_only):
        assert esc(text) == html.escape(_plain_text(text), quote=True), repr(text)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("ascii_only", [False, True])
def test_clean_text_and_markdown_clean_are_the_definition(seed: int, ascii_only: bool) -> None:
    for text in _texts(seed, ascii_only=ascii_only):
        expected = _plain_text(text)
        assert clean_text(text) == expected, repr(text)
        assert clean(text) == expected, repr(text)


@pytest.mark.parametrize("seed", SEEDS)
def test_inline_escapes_as_the_regex_did(seed: int) -> None:
    for text in _texts(seed, count=2000):
        expected = _INLINE_SPECIAL.sub(r"\\\1", " ".join(_plain_text(text).split()))
        assert inline(text) == expected, repr(text)


@pytest.mark.parametrize("seed", SEEDS)
def test_first_line_is_the_first_line_of_the_stripped_text(seed: int) -> None:
    rng = random.Random(seed)
    pieces = ["a", "b c", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028", "\u3000", "é", "\x00"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        stripped = text.strip()
        end = stripped.find("\n")
        assert first_line(text) == (stripped if end < 0 else stripped[:end]), repr(text)


@pytest.mark.parametrize("seed", SEEDS)
def test_chunked_writer_bytes_are_the_whole_text_encoded(seed: int) -> None:
    """Pieces encoded one by one (a chunk that is not all ASCII) give the
    bytes of the joined text, lone surrogates and chunk boundaries included."""
    rng = random.Random(seed)
    pieces = ["ascii text\n", "·", "…", "x" * 500, "\ud83d", "\ude00", "é" * 30, "", "<b>"]
    for _ in range(300):
        parts = [rng.choice(pieces) for _ in range(rng.randint(0, 40))]
        out = io.BytesIO()
        writer = ChunkedWriter(out, rng.choice((1, 64, 1 << 16)))
        i = 0
        while i < len(parts):  # pieces one by one and several in one step
            step = rng.randint(1, 5)
            if step == 1:
                writer.emit(parts[i])
            else:
                writer.emit_all(parts[i : i + step])
            i += step
        writer.flush()
        assert out.getvalue() == "".join(parts).encode("utf-8", "replace")


def test_long_ascii_output_with_controls_is_escaped_and_replaced() -> None:
    """A tool output past the long-text length holding every kind of
    character esc deals with: markup escaped, controls made U+FFFD."""
    text = ("line <a href='x'>&\"\x00\x07\x0b\x7f\ttab\n" * 20) + "end"
    out = esc(text)
    assert "<" not in out and ">" not in out and "'" not in out and '"' not in out
    assert re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", out) is None
    assert out.count("\ufffd") == 20 * 4 and out.count("\t") == 20 and out.count("\n") == 20


def _sized_texts(seed: int, count: int = 600):
    """Texts around the lengths where a character-set test switches from one
    regex scan to byte-level tests or a search per character, with at most
    a few characters of interest (the usual text has none)."""
    rng = random.Random(seed)
    plain = [c for c in ALPHABET if c.isalnum() or c == " "] + ["\n", "\t", "é", "·", "😀"]
    for _ in range(count):
        size = rng.choice((47, 48, 49, 79, 80, 81, 1023, 1024, 1025, 3000))
        chars = [rng.choice(plain) for _ in range(size)]
        for _ in range(rng.choice((0, 0, 1, 2))):
            chars[rng.randrange(size)] = rng.choice(ALPHABET)
        yield "".join(chars)


@pytest.mark.parametrize("seed", SEEDS)
def test_character_set_tests_agree_with_their_regex(seed: int) -> None:
    from sessionport.render.markdown_blocks import _NEEDS_CHECK, _needs_check
    from sessionport.render.markup import _MARKUP_CHARS, _markup_chars
    from sessionport.render.text import _BIDI, _CONTROL, has_bidi, has_controls

    for text in _sized_texts(seed):
        assert has_controls(text) == (_CONTROL.search(text) is not None), repr(text)
        assert has_bidi(text) == (_BIDI.search(text) is not None), repr(text)
        assert _markup_chars(text) == (_MARKUP_CHARS(text) is not None), repr(text)
        assert _needs_check(text) == (_NEEDS_CHECK(text) is not None), repr(text)
        expected = _plain_text(text)
        assert clean_text(text) == expected, repr(text)
        assert esc(text) == html.escape(expected, quote=True), repr(text)


@pytest.mark.parametrize("seed", SEEDS)
def test_diff_runs_wrap_each_line_in_its_class(seed: int) -> None:
    """Runs of added, removed and unclassed lines are wrapped (or passed)
    together: the same as each line wrapped in its class alone."""
    from sessionport.render.html_blocks import _diff_runs
    from sessionport.render.tools import diff_line_class

    rng = random.Random(seed)
    starts = ["+", "-", "*", "@", " ", "", "+++ ", "--- ", "*** ", "@@ ", "++", "--", "**", "x", "&lt;"]
    for _ in range(3000):
        lines = [rng.choice(starts) + rng.choice(("", "a", " b c", "+", "-", "@")) for _ in range(rng.randint(0, 12))]
        text = "\n".join(lines)
        expected = "\n".join(f'<span class="{diff_line_class(line)}">{line}</span>' if diff_line_class(line) else line for line in text.split("\n"))
        assert _diff_runs(text) == expected, repr(text)
