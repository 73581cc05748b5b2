"""What a terminal or an escaper put between the characters of a secret,
removed before matching and mapped back afterwards.

``bat --color=always .env``, ``jq -C``, ``grep --color`` and ``ls --color``
wrap names, operators and values in SGR colour codes, so
``DB_PASSWORD\\x1b[0m\\x1b[38;5;203m=\\x1b[0m...`` has no ``=`` next to its
name; the Markdown and HTML writers drop the codes later and show the clean
secret.  JSON printed with ``ensure_ascii`` or by JavaScript spells
characters as ``\\u0041``, an HTML page or an HTML-escaped log
spells quotes as ``&quot;``, and a URL spells the ``+``, ``/`` and ``=`` of
a token as ``%2B``, ``%2F``, ``%3D``.  :func:`normalise` returns the text a reader
sees (escape sequences removed, ``\\uXXXX`` and character references decoded) with, for each of its
characters, the position it came from, so a finding in the clean text
covers the whole original range, escape codes included.
"""

from __future__ import annotations

from bisect import bisect_right

from sessionport.lazy import lazy

# ESC written raw or as a literal escape (\x1b, \u001b, \033, \e), then a CSI
# sequence (colours, cursor), an OSC string (titles, hyperlinks) or a
# two-character escape.
_ESC = r"(?:\x1b|\x9b|\\x1[bB]|\\u001[bB]|\\033|\\e)"
SEQUENCE = lazy(
    _ESC + r"(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\\]*(?:\x07|\x1b\\|\\x07|\\u0007|\\a|\\x1b\\\\)?|[@-Z^_])"
    # \u0041, also escaped once or twice more (JSON printed inside JSON)
    r"|\\{1,3}u(?P<hex>[0-9a-fA-F]{4})"
    # HTML character references, as a fetched page or an HTML-escaped log
    # spells quotes and punctuation (&quot;password&quot;: &quot;...)
    r"|&(?:(?P<named>quot|apos|amp|lt|gt)|#(?P<dec>[0-9]{1,7})|#[xX](?P<xhex>[0-9a-fA-F]{1,6}));"
    # percent-encoded punctuation, as URLs, query strings and form bodies
    # spell the "+", "/", "=", ":", "@", "&" of a token, a password or a
    # nested URL (?next=https%3A%2F%2F...%3Ftoken%3D...)
    r"|%(?P<pct>2[0-9A-Fa-f]|3[A-Fa-f]|40|5[BbDdEeFf]|7[BbCcDdEe])"
)
TRIGGERS = ("\x1b", "\x9b", "\\x1", "\\u", "\\033", "\\e", "&quot;", "&apos;", "&amp;", "&lt;", "&gt;", "&#")
PERCENT = lazy(r"%(?:2[0-9A-Fa-f]|3[A-Fa-f]|40|5[BbDdEeFf]|7[BbCcDdEe])")
_NAMED = {"quot": '"', "apos": "'", "amp": "&", "lt": "<", "gt": ">"}


def needed(text: str) -> bool:
    """Whether ``text`` may hold something :func:`normalise` removes."""
    if "\x1b" in text or "\x9b" in text:
        return True
    if "&" in text and ";" in text and any(t in text for t in TRIGGERS[6:]):
        return True
    if "%" in text and PERCENT.search(text):
        return True
    return "\\" in text and ("\\u" in text or "\\x1" in text or "\\033" in text or "\\e" in text)


class Origin:
    """Where each character of the clean text came from, kept as one entry
    per segment (not per character), so a huge text with one colour code
    costs a few entries, not a list as long as the text."""

    def __init__(self) -> None:
        self.clean: list[int] = []  # where each segment starts in the clean text
        self.original: list[int] = []  # ... and in the original
        self.escapes: dict[int, int] = {}  # clean index of a decoded \uXXXX -> end of the escape

    def add(self, clean: int, original: int) -> None:
        self.clean.append(clean)
        self.original.append(original)

    def position(self, index: int) -> int:
        k = bisect_right(self.clean, index) - 1
        return self.original[k] + (index - self.clean[k])


def normalise(text: str, *, percent: bool = True) -> tuple[str, Origin] | None:
    """(clean text, where its characters came from), or None when there
    is nothing to remove; percent escapes are decoded unless ``percent``
    is false."""
    parts: list[str] = []
    origin = Origin()
    size = 0  # of the clean text so far
    position = 0
    changed = False
    for match in SEQUENCE.finditer(text):
        start, end = match.span()
        code = match.group("hex")
        replacement = ""
        head = match.group(0)[0]
        if head == "%":
            if not percent:
                continue
            replacement = chr(int(match.group("pct"), 16))
        elif head == "&":
            replacement = _reference(match)
            if not replacement:
                continue  # not a character (&#0;, beyond U+10FFFF, a surrogate): left as it is
        elif code is not None:
            value = int(code, 16)
            if 0xD800 <= value <= 0xDFFF:
                continue  # a surrogate half: leave the escape as it is
            if value != 0x1B:
                replacement = chr(value)
            else:
                # \u001b starts a sequence that the next match may not see
                # as one: consume a following CSI here
                tail = SEQUENCE.match("\x1b" + text[end : end + 64])
                if tail is not None and tail.end() > 1:
                    end += tail.end() - 1
        if start > position:
            origin.add(size, position)
            parts.append(text[position:start])
            size += start - position
        if replacement:
            origin.add(size, start)
            origin.escapes[size] = end
            parts.append(replacement)
            size += 1
        position = end
        changed = True
    if not changed:
        return None
    if position < len(text):
        origin.add(size, position)
        parts.append(text[position:])
        size += len(text) - position
    origin.add(size, len(text))
    return "".join(parts), origin


def _reference(match) -> str:
    """The character an HTML character reference stands for ("" for none)."""
    named = match.group("named")
    if named is not None:
        return _NAMED[named]
    digits = match.group("dec")
    value = int(digits) if digits is not None else int(match.group("xhex"), 16)
    if value == 0 or value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return ""
    return chr(value)


def original_span(origin: Origin, start: int, end: int, text: str) -> tuple[int, int]:
    """The span of ``text`` that clean characters ``start:end`` came from,
    escape sequences inside it included."""
    first = origin.position(start)
    if end <= start:
        return first, first
    last = end - 1
    if last in origin.escapes:
        return first, origin.escapes[last]  # a decoded \uXXXX stands for its whole escape
    return first, origin.position(last) + 1
