"""The title Claude Code shows for a session file, from a byte scan (see
:mod:`sessionport.title_scan`): its ``summary``, ``ai-title`` and
``custom-title`` records, ranked as the reader ranks them (the last of the
highest kind: a rename, then a generated title, then a summary).  Claude
Code writes each with its ``type`` first; one written otherwise is left to
the reader."""

from __future__ import annotations

import re

from sessionport.title_scan import last_title
from sessionport.formats.claude_code.records import TITLE_RANK, TITLE_TYPES

_PATTERN = re.compile(rb'\n\{"type":"(?:summary|ai-title|custom-title)"')


def _pick(record: dict, best: tuple[int, str | None]) -> tuple[int, str | None]:
    rtype = record.get("type")
    text = record.get(TITLE_TYPES.get(rtype, ""))  # type: ignore[arg-type]
    if not isinstance(text, str) or not text:
        return best
    rank = TITLE_RANK[rtype]  # type: ignore[index]
    return (rank, text) if rank >= best[0] else best


def title_scan(path: str) -> str | None:
    return last_title(path, _PATTERN, _pick, (-1, None))[1]
