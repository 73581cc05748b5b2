"""Regular expressions compiled on first use.

The detectors hold about 150 regexes; compiling them all when the package
is imported cost ~10 ms of every ``redact`` run, while most of them only
run on the few strings the screen (:mod:`.screen`) sends to the full
detectors.  A :class:`LazyPattern` stands in for a compiled pattern and
compiles it the first time one of its methods is looked up.
"""

from __future__ import annotations

import re

# What callers read from a pattern; copied onto the stand-in once compiled.
_ATTRIBUTES = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "flags", "groups", "groupindex", "scanner")


class LazyPattern:
    """Like ``re.compile(pattern, flags)``, compiled when first used.  After
    that, its methods are plain attributes of the instance (the compiled
    pattern's bound methods), so a look-up costs what it did before."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str):
        # only called for attributes not set yet: compile, then copy them all
        if name.startswith("__") or name == "_flags":
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for attribute in _ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r})"


def lazy(pattern: str | bytes, flags: int = 0) -> LazyPattern:
    """Where a module would write ``re.compile(pattern, flags)``."""
    return LazyPattern(pattern, flags)
