"""What the census fast paths share when they decode a record with msgspec.

A census decodes the commonest lines into typed records that declare only
the fields a summary reads (see ``formats/claude_code/census.py`` and
``formats/codex/census.py``); any line this cannot read the same way as
the reader's orjson parse goes back to the reader, whose parse reports it.
"""

from __future__ import annotations

import msgspec

# msgspec stops at a nesting depth below orjson's limit with RecursionError.
DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def decodable(line: bytes) -> bool:
    """Whether msgspec reads ``line`` as orjson does: msgspec does not check
    the UTF-8 of the strings it skips, orjson rejects it (and the reader
    then replaces bad bytes with a warning)."""
    if line.isascii():
        return True
    try:
        line.decode()
    except UnicodeDecodeError:
        return False
    return True
