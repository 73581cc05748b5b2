"""How a Gemini API history (a list of Content, a generateContent request,
recorded traffic) is told from its first bytes.

Apart from the reader, so that detecting the format of an input imports no
reader but the one that reads it.
"""

from __future__ import annotations

from sessionport.lazy import lazy

_CONTENT_START = lazy(rb'^\s*\[\s*\{\s*"(role|parts)"\s*:')
_PARTS_KEY = lazy(rb'"parts"\s*:\s*\[')
_CONTENTS_KEY = lazy(rb'"contents"\s*:\s*\[')
_INTERACTIONS_KEY = lazy(rb'"interactions"\s*:\s*\[')


def sniff(head: bytes) -> int:
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if start.startswith(b"["):
        if _CONTENT_START.match(start) and _PARTS_KEY.search(start[:8192]):
            return 80
        return 0
    if not start.startswith(b"{"):
        return 0
    if b'"projectHash"' in head or b'"sessionport/v1"' in head[:4096]:
        return 0  # gemini-cli sessions and portable documents hold parts too
    if _INTERACTIONS_KEY.search(head) and b'"request_body"' in head:
        if b"generativelanguage.googleapis.com" not in head and b'"candidates"' not in head:
            return 0
        # Recorded traffic that continues on another provider is that
        # provider's conversation (its last request holds the whole history).
        if b"api.openai.com" in head or b"api.anthropic.com" in head or b'"choices"' in head:
            return 20
        return 70
    if _CONTENTS_KEY.search(start[:8192]) and _PARTS_KEY.search(start):
        return 85
    return 0
