"""ChatGPT data exports: the ``.zip``, ``conversations.json`` or its shards.

Each conversation is a tree of nodes (``mapping``); one conversation is
buffered at a time and becomes one session.
"""

from sessionport.registry import lazy_parts

_PARTS = {
    "IMPORTER": ("sessionport.formats.chatgpt.reader", "IMPORTER"),
}
__all__ = list(_PARTS)

__getattr__ = lazy_parts(_PARTS)
