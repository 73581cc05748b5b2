"""The title Codex shows for a rollout, from a byte scan (see
:mod:`sessionport.title_scan`): the last ``thread_name_updated`` event's
``thread_name``, as the reader takes it (``end.title``)."""

from __future__ import annotations

import re

from sessionport.title_scan import last_title

_PATTERN = re.compile(rb'\n\{"timestamp":"[^"\n]{0,64}",(?:"ordinal":\d{1,20},)?"type":"event_msg","payload":\{"type":"thread_name_updated"')


def _pick(record: dict, title: str | None) -> str | None:
    payload = record.get("payload")
    name = payload.get("thread_name") if isinstance(payload, dict) else None
    return name if isinstance(name, str) and name else title


def title_scan(path: str) -> str | None:
    return last_title(path, _PATTERN, _pick, None)
