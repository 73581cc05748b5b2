"""An estimated API cost from token usage and the model's list price.

The trace's ``cost`` is "estimated API cost".  sessionport knows token
counts (``input_tokens`` includes cached input; Claude Code adds
``cache_creation_input_tokens``) and the model name, so the estimate is
tokens times the provider's public list price per million tokens.  Prices
change: this table holds list prices as published in late 2025, and a
model it does not know leaves the cost unknown rather than guessed.
"""

from __future__ import annotations

from typing import Any

# model name fragment -> (input, output, cached input read, cache write) in USD per million tokens.
# Longer fragments are tried first, so "gpt-5-mini" wins over "gpt-5".
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4-5": (5.0, 25.0, 0.50, 6.25),
    "claude-opus-4": (15.0, 75.0, 1.50, 18.75),
    "claude-sonnet-4": (3.0, 15.0, 0.30, 3.75),
    "claude-3-7-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-3-5-sonnet": (3.0, 15.0, 0.30, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.10, 1.25),
    "claude-3-5-haiku": (0.80, 4.0, 0.08, 1.0),
    "gpt-5-codex": (1.25, 10.0, 0.125, 0.0),
    "gpt-5-mini": (0.25, 2.0, 0.025, 0.0),
    "gpt-5-nano": (0.05, 0.40, 0.005, 0.0),
    "gpt-5": (1.25, 10.0, 0.125, 0.0),
    "gpt-4.1-mini": (0.40, 1.60, 0.10, 0.0),
    "gpt-4.1": (2.0, 8.0, 0.50, 0.0),
    "o4-mini": (1.10, 4.40, 0.275, 0.0),
    "o3": (2.0, 8.0, 0.50, 0.0),
    "codex-mini": (1.50, 6.0, 0.375, 0.0),
    "gemini-2.5-pro": (1.25, 10.0, 0.31, 0.0),
    "gemini-2.5-flash": (0.30, 2.50, 0.075, 0.0),
}
_BY_LENGTH = sorted(PRICES, key=len, reverse=True)


def price_of(model: str | None) -> tuple[float, float, float, float] | None:
    if not isinstance(model, str):
        return None
    name = model.lower()
    for fragment in _BY_LENGTH:
        if fragment in name:
            return PRICES[fragment]
    return None


def _count(usage: dict, key: str) -> float:
    value = usage.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0.0


def usage_cost(usage: Any, model: str | None) -> float | None:
    """USD for one usage record priced as ``model``; None when either is unknown."""
    price = price_of(model)
    if price is None or not isinstance(usage, dict):
        return None
    if not any(_count(usage, k) for k in ("input_tokens", "output_tokens")):
        return None
    per_input, per_output, per_read, per_write = price
    cached = _count(usage, "cached_input_tokens")
    written = _count(usage, "cache_creation_input_tokens")
    fresh = max(_count(usage, "input_tokens") - cached - written, 0.0)
    total = fresh * per_input + cached * per_read + written * (per_write or per_input) + _count(usage, "output_tokens") * per_output
    return total / 1_000_000


def format_cost(dollars: float) -> str:
    return f"${dollars:.2f}"
