"""Gemini CLI sessions: ``~/.gemini/tmp/<project>/chats/session-*.json[l]`` and checkpoints.

The legacy form is one JSON document with a ``messages`` array; the current
form is append-only JSONL.  Message parts are Gemini API parts
(:mod:`sessionport.gemini_parts`, shared with the ``gemini`` format).
"""

from sessionport.registry import lazy_parts

_PARTS = {
    "IMPORTER": ("sessionport.formats.gemini_cli.reader", "IMPORTER"),
    "EXPORTER": ("sessionport.formats.gemini_cli.writer", "EXPORTER"),
}
__all__ = list(_PARTS)

__getattr__ = lazy_parts(_PARTS)
