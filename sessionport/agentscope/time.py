"""Timestamps and durations as an AgentScope trace shows them.

Transcripts carry ISO 8601 strings in several spellings (``Z`` or an
offset, 3 to 9 fraction digits) or epoch numbers; the trace wants readable
strings such as ``12m 48s``.  Unparseable values are never guessed at.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

_FRACTION = re.compile(r"(\.\d{1,6})\d*")


def parse_timestamp(value: object) -> datetime | None:
    """An aware datetime for an ISO string or epoch seconds/milliseconds, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or len(value) < 10:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    # Python 3.10 accepts at most 6 fraction digits; Codex writes 3, others 9.
    text = _FRACTION.sub(lambda m: m.group(1), text, count=1)
    try:
        parsed = datetime.fromisoformat(text.replace(" ", "T", 1))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed


def format_duration(milliseconds: float | None) -> str | None:
    """``350ms``, ``24s``, ``1m 03s``, ``2h 05m``; None for a negative or unknown span."""
    if milliseconds is None or milliseconds < 0:
        return None
    if milliseconds < 1000:
        return f"{int(round(milliseconds))}ms"
    seconds = int(round(milliseconds / 1000))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m {seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def span_ms(start: datetime | None, end: datetime | None) -> float | None:
    if start is None or end is None:
        return None
    return (end - start).total_seconds() * 1000


def run_stamp(moment: datetime) -> str:
    """``2026-06-04-184100``: the ``<timestamp>`` of ``run-session-<timestamp>``, in UTC."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d-%H%M%S")


def iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
