"""Long alternations compiled by RE2 where it gives what ``re`` gives.

Python's ``re`` takes milliseconds to compile an alternation of a few
hundred names or literals (the non-secret names, the vendor trigger
literals: about 11 ms together), and every ``redact`` run that meets a
dict key or a token run pays it.  RE2 compiles the same in a tenth of a
millisecond and builds its automaton as it reads.  For a pattern with no
look-arounds and no back-references, RE2's matches are ``re``'s: both are
leftmost-first, alternatives tried in order.  A pattern is handed here
only in such a spelling; without google-re2 the ``re`` pattern is used.
"""

from __future__ import annotations

import re
from typing import Any

from sessionport.lazy import LazyPattern


class Re2OrRe:
    """Stands in for ``fallback`` (a :class:`LazyPattern`), compiled by RE2
    from ``spelling`` (the same language, in RE2's syntax) on first use."""

    def __init__(self, spelling: str, fallback: LazyPattern) -> None:
        self.spelling = spelling
        self.fallback = fallback

    def __getattr__(self, name: str) -> Any:
        # only called until the methods are set: compile, then copy them
        if name.startswith("__") or name in ("spelling", "fallback"):
            raise AttributeError(name)
        compiled = _re2(self.spelling)
        if compiled is None:
            compiled = self.fallback
        for attribute in ("search", "findall"):
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)


# What RE2 does not take: look-arounds and back-references.  Such a
# spelling is never handed to RE2, which would write its parse error on
# stderr before raising.
_NOT_RE2 = re.compile(r"\(\?<?[=!]|\\[1-9]")


def _re2(pattern: str):
    if _NOT_RE2.search(pattern):
        return None
    try:
        import re2
    except ImportError:
        return None
    try:
        return re2.compile(pattern)
    except Exception:  # an older binding: the re pattern does the same
        return None
