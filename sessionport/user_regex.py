"""Regular expressions given on the command line, run in linear time.

``--grep``, ``--title``, ``redact --pattern`` and ``--allow`` take a pattern
from the user and run it over every message of a transcript.  Python's
``re`` backtracks: ``(a+)+$`` over a line of 50 ``a`` takes longer than the
universe has existed, and a transcript holds such lines (minified code, base64).
RE2 (google-re2) matches in time linear in the text, whatever the pattern; a
pattern it cannot run (backreferences, lookarounds, possessive or atomic
groups, ``(?x)``) is a usage error naming the option.

Python's ``\\w``, ``\\d`` and ``\\s`` match any script's letters, digits and
spaces; RE2's match ASCII only.  :func:`_unicode_classes` spells them with
Unicode properties before RE2 compiles the pattern, so ``\\w+`` still
matches ``café``.  ``\\b`` and ``\\W`` inside ``[...]`` stay ASCII-based.

>>> compile_user(r"(a+)+$", "--grep").search("a" * 50 + "b") is None
True
>>> compile_user(r"(?i)CAF\\w", "--title").contains("¿café?")
True
>>> compile_user(r"\\w+", "--grep").search("¿café?").group()
'café'
>>> compile_user(r"x(?P<s>\\d+)", "--pattern").span_of(compile_user(r"x(?P<s>\\d+)", "--pattern").search("ax12"), "s")
(2, 4)
"""

from __future__ import annotations

from typing import Iterator

from sessionport.errors import UsageError

_WORD = r"\p{L}\p{N}_"
_SPACE = r"\s\x0b\x{1c}-\x{1f}\x{85}\p{Z}"
# outside a class / inside one (None: left as it is, ASCII)
_CLASSES = {
    "w": ("[" + _WORD + "]", _WORD),
    "W": ("[^" + _WORD + "]", None),
    "d": (r"\p{Nd}", r"\p{Nd}"),
    "D": (r"\P{Nd}", r"\P{Nd}"),
    "s": ("[" + _SPACE + "]", _SPACE),
    "S": ("[^" + _SPACE + "]", None),
}


def _unicode_classes(pattern: str) -> str:
    """``pattern`` with Python's Unicode meaning of ``\\w \\W \\d \\D \\s \\S``
    written as RE2 Unicode properties."""
    if "\\" not in pattern:
        return pattern
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            escaped = pattern[i + 1]
            outside, inside = _CLASSES.get(escaped, (None, None))
            replacement = inside if in_class else outside
            out.append(replacement if replacement is not None else pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if char == "[" and pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                if end != -1:
                    out.append(pattern[i : end + 2])
                    i = end + 2
                    continue
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            out.append(char)
            i += 1
            # a ']' first in a class (after an optional '^') is a literal
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append("]")
                i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


class UserPattern:
    """A compiled user pattern with the parts of ``re.Pattern`` the stages
    use: ``search``, ``finditer``, ``groups``, ``groupindex``, ``pattern``.
    A match's groups may be named (``span("s")``), as with ``re``."""

    __slots__ = ("pattern", "_compiled", "_source", "_test", "groups", "groupindex")

    def __init__(self, pattern: str, compiled, source: str = "") -> None:
        self.pattern = pattern
        self._compiled = compiled
        self._source = source
        self._test = None
        self.groups = compiled.groups
        self.groupindex = dict(compiled.groupindex)

    def contains(self, text: str) -> bool:
        """Whether the pattern matches anywhere in ``text``: what ``--grep``
        and ``--title`` ask of every message.  The wrapper's ``search``
        builds a match object and maps offsets back to characters (about
        25 us a call); this asks RE2 alone, without captures (about 4 us)."""
        test = self._test
        if test is None:
            test = self._test = _tester(self._source) or (lambda data: self._compiled.search(data.decode("utf-8", "replace")) is not None)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            data = _encodable(text).encode("utf-8")
        return test(data)

    def search(self, text: str):
        try:
            return self._compiled.search(text)
        except UnicodeEncodeError:
            return self._compiled.search(_encodable(text))

    def finditer(self, text: str) -> Iterator["_Match"]:
        matches = self._compiled.finditer(text)
        try:
            first = next(matches, None)  # the text is encoded here
        except UnicodeEncodeError:
            matches = self._compiled.finditer(_encodable(text))
            first = next(matches, None)
        if first is None:
            return
        names = self.groupindex
        yield _Match(first, names)
        for match in matches:
            yield _Match(match, names)

    def span_of(self, match, group: int | str = 0) -> tuple[int, int]:
        if isinstance(group, str):
            group = self.groupindex[group]
        return match.span(group)

    def __repr__(self) -> str:
        return f"UserPattern({self.pattern!r})"


_SURROGATE = None


def _encodable(text: str) -> str:
    """``text`` with each lone surrogate (no UTF-8 holds one, and RE2 reads
    UTF-8) as U+FFFD: one code point for one, so match positions stay."""
    global _SURROGATE
    if _SURROGATE is None:
        import re

        _SURROGATE = re.compile("[\ud800-\udfff]")
    return _SURROGATE.sub("\ufffd", text)


class _Match:
    __slots__ = ("_match", "_names")

    def __init__(self, match, names: dict[str, int]) -> None:
        self._match = match
        self._names = names

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self._match.span(self._names[group] if isinstance(group, str) else group)

    def group(self, group: int | str = 0):
        return self._match.group(self._names[group] if isinstance(group, str) else group)

    def start(self, group: int | str = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self.span(group)[1]


def _tester(source: str):
    """A function of UTF-8 bytes saying whether ``source`` matches in them,
    from RE2's own matcher (None when this google-re2 does not expose it)."""
    import re2

    options = _options()
    options.never_capture = True
    try:
        regexp = re2.compile(source, options)._regexp
        match, unanchored, null = regexp.Match, re2._Anchor.UNANCHORED, -1
    except AttributeError:
        return None

    def test(data: bytes) -> bool:
        return match(unanchored, data, 0, len(data))[0][0] != null

    return test


def _options():
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 logs each error to stderr itself otherwise
    return options


def compile_user(pattern: str, option: str, *, ignore_case: bool = False) -> UserPattern:
    """``pattern`` (given to ``option``) compiled by RE2, or a usage error
    naming the option, the pattern and what RE2 found."""
    import re2

    source = _unicode_classes(pattern)
    if ignore_case:
        source = "(?i)" + source
    try:
        compiled = re2.compile(source, _options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise UsageError(
            f"{option} {pattern!r} is not a valid regular expression for RE2 ({reason}); "
            "sessionport runs patterns with RE2, in time linear in the text, so backreferences (\\1), "
            "lookarounds ((?=...), (?<!...)), atomic and possessive groups and (?x) are not supported: "
            "write the pattern without them"
        ) from None
    return UserPattern(pattern, compiled, source)


def compile_any(patterns, option: str, *, ignore_case: bool = False) -> UserPattern:
    """One pattern matching where any of ``patterns`` matches; each is
    checked on its own first, so an error names the one at fault."""
    patterns = list(patterns)
    for pattern in patterns:
        compile_user(pattern, option, ignore_case=ignore_case)
    if len(patterns) == 1:
        return compile_user(patterns[0], option, ignore_case=ignore_case)
    return compile_user("|".join(f"(?:{p})" for p in patterns), option, ignore_case=ignore_case)
