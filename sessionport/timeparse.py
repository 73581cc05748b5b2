"""Points in time given on the command line and found in transcripts.

A user writes ``--since 2026-01-05``, ``--since 2026-01-05T10:00Z`` or
``--since 3d``; a transcript carries ISO 8601 strings (``...Z`` or with an
offset) or, in a few formats, epoch seconds or milliseconds.  Everything is
turned into an aware UTC :class:`datetime` so comparisons never mix naive and
aware values.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

_RELATIVE = r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d|day|w|wk)s?\s*(?:ago)?\s*$"
_UNIT_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400, "day": 86400, "w": 604800, "wk": 604800}
# Epoch values above this are milliseconds (year 33658 in seconds).
_MS_THRESHOLD = 1e12


def _from_iso(text: str) -> datetime | None:
    value = text.strip()
    if not value:
        return None
    if value[-1] in "zZ":
        value = value[:-1] + "+00:00"
    # Python 3.10's fromisoformat wants exactly 3 or 6 fraction digits.
    match = re.match(r"^(.*?[T ]\d\d:\d\d:\d\d)\.(\d+)(.*)$", value)
    if match:
        head, fraction, tail = match.groups()
        value = f"{head}.{(fraction + '000000')[:6]}{tail}"
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def parse_user_time(text: str, *, now: datetime | None = None) -> datetime:
    """An aware UTC datetime from a command-line value.

    Relative values (``90m``, ``2h``, ``3d``, ``1w``, optionally followed by
    ``ago``) count back from ``now``.  ISO 8601 values without an offset are
    taken as local time, which is what a person typing a date means.
    Raises ``ValueError`` with a readable message otherwise.
    """
    now = now or datetime.now(timezone.utc)
    match = re.match(_RELATIVE, text, re.I)  # re caches it; nothing compiled at import
    if match:
        amount, unit = float(match.group(1)), match.group(2).lower()
        try:
            return now - timedelta(seconds=amount * _UNIT_SECONDS[unit])
        except (OverflowError, ValueError):  # before year 1, or beyond what a float holds
            raise ValueError(f"{text!r} reaches back before the year 1; give a smaller age or a date") from None
    parsed = _from_iso(text)
    if parsed is None:
        raise ValueError(
            f"{text!r} is not a time; use ISO 8601 (2026-01-05, 2026-01-05T10:00Z) "
            "or a relative age such as 90m, 2h, 3d, 1w"
        )
    if parsed.tzinfo is None:
        parsed = parsed.astimezone()  # local time of this machine
    return parsed.astimezone(timezone.utc)


_TIME_TYPE = None


def click_time_type():
    """The click parameter type of every ``--since``/``--until``: the value is
    parsed while the command line is, so a bad one is a usage error (exit 2)
    with :func:`parse_user_time`'s message, whichever command it is given to."""
    global _TIME_TYPE
    if _TIME_TYPE is None:
        import click

        class UserTime(click.ParamType):
            name = "time"

            def convert(self, value, param, ctx):
                if isinstance(value, datetime):
                    return value
                try:
                    return parse_user_time(str(value))
                except ValueError as exc:
                    self.fail(str(exc), param, ctx)

        _TIME_TYPE = UserTime()
    return _TIME_TYPE


def parse_event_time(value: object) -> datetime | None:
    """An aware UTC datetime from a transcript timestamp, or None when it
    cannot be read.  Naive ISO values are taken as UTC (transcripts write
    UTC); numbers are epoch seconds or milliseconds."""
    if isinstance(value, str):
        parsed = _from_iso(value)
        if parsed is None:
            return None
        if parsed.tzinfo is None:
            return parsed.replace(tzinfo=timezone.utc)
        return parsed.astimezone(timezone.utc) if parsed.utcoffset() else parsed
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > _MS_THRESHOLD else value
        try:
            return datetime.fromtimestamp(seconds, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    return None


def epoch_millis(value: object) -> int | None:
    """An event's time as milliseconds since the epoch (the ``ts`` Cline and
    Roo Code keep on each message), None when it has none."""
    moment = parse_event_time(value)
    return int(moment.timestamp() * 1000) if moment is not None else None


def utc_millis(moment: datetime) -> str:
    """``2025-09-16T04:47:58.370Z``: UTC with milliseconds, as Codex and
    Gemini CLI write their timestamps (a naive moment is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
