"""Text from transcripts made safe to show.

Transcripts hold what their tools printed and what their users pasted:
ANSI colour codes, OSC sequences (OSC 0 sets the window title, OSC 52
writes the clipboard, OSC 8 makes hyperlinks), a carriage return that lets a
line overwrite the one before, and Unicode bidi controls (U+202E and the
isolates) that reorder what is displayed, so ``rm -rf \u202e/ emoh/~``
reads as something else.  Printed raw to a terminal these act; this module
is the one place that knows which characters are unsafe and how to show
them instead.

For the terminal (what ``inspect``, ``ls``, warnings and errors print):

- :func:`terminal` -- the text with every unsafe character shown as a
  visible escape (``\\x1b``, ``\\u202e``): nothing acts, nothing is hidden,
  and the reader sees that the transcript held it.
- :func:`terminal_json` -- JSON text (bytes) with the same characters as
  ``\\u`` escapes, so the JSON value is unchanged and the output still parses.

For other writers (Markdown, HTML), which neutralise in their own syntax:

- :data:`BIDI_CONTROLS` -- the bidi formatting characters.
- :data:`UNSAFE` -- a pattern (compiled on first use) matching one unsafe character
  (C0 controls but tab and newline, DEL, C1 controls, bidi controls, the
  line and paragraph separators).
- :func:`escape_char` -- how :func:`terminal` shows one such character.
- :func:`strip_escapes` -- text without terminal escape sequences (CSI,
  OSC and the other ESC sequences) and the unsafe characters left after
  them, for a plain rendering of coloured tool output.

All functions take and return ``str`` (``terminal_json``: bytes), return
the very same object when there is nothing to change, and cost one regex
search for clean text.
"""

from __future__ import annotations

import re

from sessionport.lazy import lazy

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_OTHERS = "".join(sorted(BIDI_CONTROLS)) + "\u2028\u2029"  # and the line and paragraph separators

# Tab and newline are left to the caller (see ``terminal``).
UNSAFE = lazy("[\x00-\x08\x0b-\x1f\x7f-\x9f" + _OTHERS + "]")
_UNSAFE_OR_NEWLINE = lazy("[\x00-\x08\x0a-\x1f\x7f-\x9f" + _OTHERS + "]")
_UNSAFE_OR_TAB = lazy("[\x00-\x09\x0b-\x1f\x7f-\x9f" + _OTHERS + "]")
_UNSAFE_OR_EITHER = lazy("[\x00-\x1f\x7f-\x9f" + _OTHERS + "]")
# The same characters in UTF-8 JSON text, but the C0 controls (escaped by
# every JSON writer): DEL, C1 (C2 80-9F), U+061C, U+200E/F, U+2028/9,
# U+202A-E, U+2066-9.
_JSON_UNSAFE = lazy(rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8\xa9\xaa-\xae]|\xe2\x81[\xa6-\xa9]")

# ESC [ ... final byte (CSI), ESC ] ... BEL or ESC \ (OSC), ESC P/X/^/_ ...
# ESC \ (DCS, SOS, PM, APC), and two-byte ESC sequences; their C1 forms too.
_ESCAPE_SEQUENCE = lazy(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)"
    r"|\x1b[ -/]*[0-~]",
    re.S,
)


def escape_char(char: str) -> str:
    """``\\x1b`` for a character below U+0100, ``\\u202e`` above."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _escape(match: re.Match) -> str:
    return escape_char(match.group())


def terminal(text: str, *, newlines: bool = False, tabs: bool = True) -> str:
    """``text`` safe to print to a terminal: control, escape and bidi
    characters shown as visible escapes.  With ``newlines``, line breaks are
    kept (multi-line output); without, they are escaped too, so one field
    stays on one line.  Without ``tabs``, tabs are escaped (for
    tab-separated columns)."""
    if newlines:
        pattern = UNSAFE if tabs else _UNSAFE_OR_TAB
    else:
        pattern = _UNSAFE_OR_NEWLINE if tabs else _UNSAFE_OR_EITHER
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


def terminal_json(data: bytes) -> bytes:
    """JSON text (UTF-8) with DEL, C1, bidi and separator characters written
    as ``\\u`` escapes: the same JSON value, safe on a terminal.  (JSON
    writers already escape the C0 controls.)"""
    if _JSON_UNSAFE.search(data) is None:
        return data
    return _JSON_UNSAFE.sub(lambda m: b"\\u%04x" % ord(m.group().decode("utf-8")), data)


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences, and without the control
    and bidi characters that remain (tab and newline are kept)."""
    if UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub("", _ESCAPE_SEQUENCE.sub("", text))
