"""The title Qwen Code shows for a session log, from a byte scan (see
:mod:`sessionport.title_scan`): the last ``system`` record of subtype
``custom_title``, its ``systemPayload.customTitle``, as the reader takes it
(``end.title``)."""

from __future__ import annotations

import re

from sessionport.title_scan import last_title

# Qwen Code writes the record's envelope first (uuid, parentUuid, ...), its
# subtype after the type: matched anywhere in the line, the record checked.
_PATTERN = re.compile(rb'"subtype":"custom_title"')


def _pick(record: dict, title: str | None) -> str | None:
    if record.get("type") != "system" or record.get("subtype") != "custom_title":
        return title
    payload = record.get("systemPayload")
    name = payload.get("customTitle") if isinstance(payload, dict) else None
    return name if isinstance(name, str) and name else title


def title_scan(path: str) -> str | None:
    return last_title(path, _PATTERN, _pick, None)
