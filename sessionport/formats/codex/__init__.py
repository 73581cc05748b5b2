"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` (or ``.jsonl.zst``).

JSONL of ``session_meta``, ``turn_context``, ``response_item`` and ``event_msg``
records (the early era wrote one JSON document); the same content is often
recorded twice, as a response item and as an event, and is counted once.
"""

from sessionport.registry import lazy_parts

_PARTS = {
    "IMPORTER": ("sessionport.formats.codex.reader", "IMPORTER"),
    "EXPORTER": ("sessionport.formats.codex.writer", "EXPORTER"),
}
__all__ = list(_PARTS)

__getattr__ = lazy_parts(_PARTS)
