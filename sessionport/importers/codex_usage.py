"""Session token totals from Codex ``token_count`` events.

``info.total_token_usage`` is cumulative, but repeated verbatim, sometimes
absent (``info: null``) and sometimes reset to a small value mid-file (after
an interrupt, a resume or a review).  Each reset starts a new segment; the
session total is the sum of the last total of every segment.  For a file whose
totals never reset, that is simply its last total.
"""

from __future__ import annotations

from typing import Any

USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


class TokenTotals:
    __slots__ = ("base", "last", "resets")

    def __init__(self) -> None:
        self.base: dict[str, int] = {}
        self.last: dict[str, int] | None = None
        self.resets = 0

    def add(self, total: Any) -> None:
        if not isinstance(total, dict):
            return
        current = {k: v for k in USAGE_KEYS if isinstance(v := total.get(k), int)}
        if not current:
            return
        last = self.last
        if last is not None and current.get("total_tokens", 0) < last.get("total_tokens", 0):
            self.resets += 1
            for key, value in last.items():
                self.base[key] = self.base.get(key, 0) + value
        self.last = current

    def usage(self) -> dict[str, int] | None:
        if self.last is None:
            return None
        result = dict(self.base)
        for key, value in self.last.items():
            result[key] = result.get(key, 0) + value
        return {k: result[k] for k in USAGE_KEYS if k in result}
