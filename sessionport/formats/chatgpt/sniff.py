"""How a ChatGPT data export (the .zip, conversations.json or one
conversation) is told from its first bytes.

Apart from the reader, so that detecting the format of an input imports no
reader but the one that reads it.
"""

from __future__ import annotations

from sessionport.lazy import lazy

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
# The key as JSON writes it, not an escaped quote inside some string.  The
# literal comes first and the look-behind after it: a pattern that starts
# with a look-behind is tried at every byte of the head (about 10 M
# instructions for 64 KB of another format), one that starts with a literal
# only where the literal is.
_MAPPING_KEY = lazy(rb'"mapping"(?<=(?<!\\)"mapping")\s*:\s*[{n]')
_NODE_KEYS = (b'"current_node"', b'"children"', b'"author"', b'"parent"')


def sniff(head: bytes) -> int:
    if head[:4] in ZIP_MAGIC:
        # Local headers name the first members; the export's usual first
        # members are conversations.json or its shards.
        return 85 if b"conversations" in head else 30
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if start[:1] not in (b"[", b"{"):
        return 0
    if not _MAPPING_KEY.search(head):
        # A first conversation whose mapping starts past the head.
        return 50 if b'"current_node"' in head and (b'"conversation_id"' in head or b'"create_time"' in head) else 0
    return 90 if any(key in head for key in _NODE_KEYS) else 60
