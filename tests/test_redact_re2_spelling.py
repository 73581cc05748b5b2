"""The long alternations that RE2 compiles (``redaction.re2_spelling``) find
what their ``re`` patterns find."""

from __future__ import annotations

import random
import re

import pytest

from sessionport.redaction import keywords, rules
from sessionport.redaction.re2_spelling import _re2

re2 = pytest.importorskip("re2", reason="google-re2 is not installed")


def _words(pattern: str) -> list[str]:
    return sorted(set(re.findall(r"[a-z][a-z0-9_]+", pattern)))


def test_the_non_secret_names_are_the_same_in_both_spellings():
    compiled = _re2(keywords._NOT_SECRET_SEARCH.spelling)
    assert compiled is not None
    words = _words(keywords._NOT_SECRET.pattern) + _words(keywords._STRONG.pattern) + ["author", "authoriz", "authorize", "authorizer", "authori", "authorz", "iz"]
    rng = random.Random(3)
    names = set(words)
    for word in words:
        for other in rng.sample(words, 6):
            names.update((f"{word}_{other}", f"{other}_{word}", f"{word}{other}", f"x_{word}", f"{word}_x", f"{word}s", f"is_{word}", f"{word}_enabled"))
    names.update(f"{a}{b}" for a in ("author", "my_author", "authors") for b in ("", "i", "iz", "izer", "ity", "_iz", "x", "ix", "ization"))
    assert len(names) > 5000
    for name in sorted(names):
        assert bool(compiled.search(name)) == bool(keywords._NOT_SECRET.search(name)), name


def test_the_vendor_trigger_literals_are_found_alike():
    compiled = _re2(rules._TRIGGER_FIND.spelling)
    assert compiled is not None
    literals = rules._LITERALS
    rng = random.Random(5)
    filler = "abcXYZ019_-./+=:~"
    texts = []
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(1, 6)):
            literal = rng.choice(literals)
            if rng.random() < 0.3:
                literal = literal[rng.randint(0, len(literal) - 1) :]  # a tail that may overlap the next
            parts.append(literal + "".join(rng.choice(filler) for _ in range(rng.randint(0, 4))))
        texts.append("".join(parts))
    for text in texts + ["\n".join(literals), "".join(literals)]:
        assert compiled.findall(text) == rules._TRIGGER_SCAN.findall(text), text
        assert bool(compiled.search(text)) == bool(rules._TRIGGER_SCAN.search(text))


def test_a_spelling_re2_cannot_take_falls_back_to_re_quietly(capfd):
    from sessionport.lazy import lazy
    from sessionport.redaction.re2_spelling import Re2OrRe

    pattern = Re2OrRe("author(?!iz)", lazy("author(?!iz)"))
    assert pattern.search("authority") and not pattern.search("authorize")
    assert capfd.readouterr().err == ""
