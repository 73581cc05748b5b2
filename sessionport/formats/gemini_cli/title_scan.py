"""The title gemini-cli shows for a session log, from a byte scan (see
:mod:`sessionport.title_scan`): the last ``summary`` its metadata lines and
``$set`` updates record, as the reader takes it (the session's title, or
``end.title`` when it comes after the first line)."""

from __future__ import annotations

import re

from sessionport.title_scan import last_title

_PATTERN = re.compile(rb'\n\{"(?:\$set":\{|sessionId":)')


def _pick(record: dict, title: str | None) -> str | None:
    update = record.get("$set") if "$set" in record else record
    summary = update.get("summary") if isinstance(update, dict) else None
    return summary if isinstance(summary, str) and summary else title


def title_scan(path: str) -> str | None:
    return last_title(path, _PATTERN, _pick, None)
