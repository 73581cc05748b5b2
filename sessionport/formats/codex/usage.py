"""Session token totals from Codex ``token_count`` events.

``info.total_token_usage`` is cumulative, but repeated verbatim, sometimes
absent (``info: null``) and sometimes reset to a small value mid-file (after
an interrupt, a resume or a review).  Each reset starts a new segment; the
session total is the sum of the last total of every segment.  For a file whose
totals never reset, that is simply its last total.

Token counts are a large share of a rollout's lines, so the reader hands
over the raw line with the ``total_tokens`` it read from the bytes; a line is
parsed only when its totals are needed (the last line of a segment).
"""

from __future__ import annotations

from typing import Any

import orjson

USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")
# The totals summed: the usage, and the tokens written to the prompt cache
# (0.153+), which the end event carries beside the usage.
_TOTAL_KEYS = (*USAGE_KEYS, "cache_write_input_tokens")


def usage_of(total: Any, keys: tuple[str, ...] = USAGE_KEYS) -> dict[str, int]:
    if not isinstance(total, dict):
        return {}
    return {k: v for k in keys if isinstance(v := total.get(k), int) and not isinstance(v, bool)}


def _usage_of_line(line: bytes) -> dict[str, int]:
    try:
        record = orjson.loads(line)
        return usage_of(record["payload"]["info"]["total_token_usage"], _TOTAL_KEYS)
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return {}


class TokenTotals:
    __slots__ = ("base", "last", "last_total", "resets", "request")

    def __init__(self) -> None:
        self.base: dict[str, int] = {}
        self.last: dict[str, int] | bytes | None = None  # usage, or the line holding it
        self.last_total = -1
        self.resets = 0
        # ``last_token_usage`` of the last count (what the last request used),
        # or the line holding it
        self.request: Any = None

    def add_line(self, total_tokens: int, line: bytes) -> None:
        # _segment inlined: called for every token count line
        if total_tokens < self.last_total:
            self._new_segment()
        self.last_total = total_tokens
        self.last = self.request = line

    def add_usage(self, total: Any, last: Any = None) -> None:
        usage = usage_of(total, _TOTAL_KEYS)
        if usage:
            self._segment(usage.get("total_tokens", 0))
            self.last = usage
            self.request = usage_of(last)

    def last_request(self) -> dict[str, int] | None:
        """What the last request used (``last_token_usage``), the figure Codex
        compares with the context window when a thread is resumed."""
        request = self.request
        if isinstance(request, bytes):
            try:
                request = usage_of(orjson.loads(request)["payload"]["info"]["last_token_usage"])
            except (orjson.JSONDecodeError, KeyError, TypeError):
                request = {}
        return request or None

    def _segment(self, total_tokens: int) -> None:
        if total_tokens < self.last_total:
            self._new_segment()
        self.last_total = total_tokens

    def _new_segment(self) -> None:
        """The totals went back: the last ones close a segment."""
        self.resets += 1
        for key, value in self._last_usage().items():
            self.base[key] = self.base.get(key, 0) + value

    def _last_usage(self) -> dict[str, int]:
        last = self.last
        if isinstance(last, bytes):
            last = self.last = _usage_of_line(last)
        return last or {}

    def _summed(self) -> dict[str, int]:
        result = dict(self.base)
        for key, value in self._last_usage().items():
            result[key] = result.get(key, 0) + value
        return result

    def usage(self) -> dict[str, int] | None:
        if self.last is None:
            return None
        result = self._summed()
        return {k: result[k] for k in USAGE_KEYS if k in result} or None

    def cache_writes(self) -> int | None:
        """The session's ``cache_write_input_tokens`` (0.153+), summed like
        the usage; None when the counts have none."""
        if self.last is None:
            return None
        return self._summed().get("cache_write_input_tokens")
