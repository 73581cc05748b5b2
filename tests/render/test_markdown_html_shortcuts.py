"""The readable exporters' shortcuts give what the general code gives.

Markdown and HTML rendering take cheaper paths for the usual inputs (plain
UTC stamps, edits with no line in common, text without markup characters);
each test here feeds both kinds of input and compares against the general
result computed independently.
"""

from __future__ import annotations

import difflib
import html
from datetime import timezone

import pytest

from sessionport.render.html_blocks import esc
from sessionport.render.session import format_time, parse_time
from sessionport.render.text import replace_controls
from sessionport.render.tools import _edit_diff, patch_files


def general_time(value):
    moment = parse_time(value)
    return str(value) if moment is None else moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


@pytest.mark.parametrize(
    "stamp",
    [
        "2025-06-01T09:00:04Z",
        "2025-06-01T09:00:04.123Z",
        "2025-06-01T09:00:04.123456Z",
        "2025-06-01T09:00:04.123456789Z",
        "2025-06-01T09:00:04.12Z",  # a length only newer Pythons parse: left to the parser
        "2024-02-29T23:59:59Z",
        "2023-02-29T10:00:00Z",  # no such day: shown as written
        "2025-13-01T00:00:00Z",
        "2025-01-01T24:00:00Z",
        "0999-01-01T00:00:00Z",  # strftime writes a short year
        "2025-06-01T09:00:04.12aZ",
        "2025-06-01T09:00:04.Z",
        "2025-06-01 09:00:04Z",
        "2025-06-01T09:00:04+02:00",
    ],
)
def test_turn_times_match_a_full_parse(stamp):
    assert format_time(stamp) == general_time(stamp)


@pytest.mark.parametrize(
    "old,new",
    [
        ("a", "b"),
        ("", "x"),
        ("same", "same"),
        ("one\ntwo\nthree", "four\nfive"),
        ("keep\nold", "keep\nnew"),  # a line in common: difflib decides
        ("x\ny\nz", "x\ny\nz"),
        ("\n".join(map(str, range(300))), "\n".join(f"n{i}" for i in range(250))),
    ],
)
def test_edit_diffs_match_difflib(old, new):
    expected = list(difflib.unified_diff(old.split("\n"), new.split("\n"), lineterm="", n=3))[2:] or ["@@ no change @@"]
    assert "\n".join(_edit_diff("f.py", old, new)) == "\n".join(expected)


@pytest.mark.parametrize("seed", range(3))
def test_edit_diffs_with_lines_in_common_match_difflib(seed):
    """Edits sharing lines (the hunks difflib's matcher finds), with empty
    lines, repeated lines, insertions and deletions at either end."""
    import random

    rng = random.Random(seed)
    words = ["", "a", "b", "}", "    return x", "x = 1", " ", "c"]
    for _ in range(1500):
        old = [rng.choice(words) for _ in range(rng.randint(0, 30))]
        new = list(old)
        for _ in range(rng.randint(0, 6)):
            at = rng.randint(0, len(new))
            if new and rng.random() < 0.5:
                del new[min(at, len(new) - 1)]
            else:
                new.insert(at, rng.choice(words + ["new", "line"]))
        old_text, new_text = "\n".join(old), "\n".join(new)
        expected = list(difflib.unified_diff(old_text.split("\n"), new_text.split("\n"), lineterm="", n=3))[2:] or ["@@ no change @@"]
        assert "\n".join(_edit_diff("f.py", old_text, new_text)) == "\n".join(expected), (old_text, new_text)


def test_patch_files_lists_every_named_file_in_order():
    patch = "*** Update File: a.py\n+x\n*** Add File:  b.txt \n+++ b/c d\n+++ a/skip\n*** Delete File: e\r\n*** End Patch"
    assert patch_files(patch) == ["a.py", "b.txt", "c d", "e"]
    assert patch_files("") == []
    assert patch_files("+++ b/first") == ["first"]


@pytest.mark.parametrize("text", ["plain", "", "tab\tand\nline", "bell\x07", "nul\x00 and del\x7f", "é\x1f" * 300, "x" * 2000 + "\x0b"])
def test_control_characters_are_replaced_at_any_length(text):
    expected = "".join("\ufffd" if (ord(c) < 32 and c not in "\t\n\r") or c == "\x7f" else c for c in text)
    assert replace_controls(text) == expected


@pytest.mark.parametrize("text", ["plain words", "a < b > c & \"d\" 'e'", "only '", "<<<>>>", "&amp;"])
def test_escaping_matches_html_escape(text):
    assert esc(text) == html.escape(text, quote=True)


@pytest.mark.parametrize(
    "text",
    ["one paragraph\nsecond line", "\n\nleading lines\n\n", "a (b) \"c\" 'd'", "émoji 🎉 ok", "x\n\n\n\ny", "**Heading** then text\n\nmore"],
)
def test_plain_prose_renders_like_the_markdown_parser(text):
    # the shortcut (nothing Markdown could act on) gives what the parser gives
    from sessionport.render.markup import parser, render_markdown

    assert render_markdown(text) == parser().render(text)
