"""The title a session is shown by, found in its file before it is read.

Apps record a session's title late: Claude Code appends ``custom-title``
(the user's /rename) and ``ai-title`` records as the session goes, Codex a
``thread_name_updated`` event, Gemini CLI a ``$set`` of ``summary``.  The
readable exporters write a session's heading when its session event comes,
before any of these is read, so for an input that is a plain file on disk
:func:`stream.read <sessionport.pipeline.stream.read>` asks the importer's
``title_scan`` for the title first.  A scan looks at bytes, not records: the
file is read in blocks, each line the format's title-record pattern
matches (a regex over the block's whole lines) is parsed, and no other line
is.  A quote inside a JSON string is escaped, so a pattern of keys and
quotes never matches inside a string; the parsed record is still checked.
Memory holds a block and the line it ends inside; a line longer than
:data:`TITLE_LINE` is passed over (the reader still
gives that title, in ``end.title``, which the exporters then name in a note
at the session's end).
"""

from __future__ import annotations

import re
from typing import Callable, Iterator, TypeVar

import orjson

BLOCK = 1 << 20
TITLE_LINE = 1 << 20

T = TypeVar("T")


def title_lines(path: str, pattern: re.Pattern) -> Iterator[bytes]:
    """The lines of the file at ``path`` that ``pattern`` matches (each
    once; a pattern starting with ``\\n`` matches at a line's start, the
    first line's too)."""
    with open(path, "rb", buffering=0) as handle:
        # the line the last block ended inside; at first a newline, for a
        # pattern that starts with one (a literal start: a fast search)
        tail = b"\n"
        skipping = False  # inside a line longer than TITLE_LINE
        while True:
            chunk = handle.read(BLOCK)
            if not chunk:
                if tail and not skipping and pattern.search(tail):
                    yield tail[1:] if tail[:1] == b"\n" else tail  # the last line, without its newline
                return
            if skipping:
                cut = chunk.find(b"\n")
                if cut == -1:
                    continue
                chunk, skipping = chunk[cut:], False  # from the newline: the next line's start
            buf = tail + chunk if tail else chunk
            end = buf.rfind(b"\n") + 1  # buf[:end]: whole lines
            done = 0
            for match in pattern.finditer(buf, 0, end):
                if match.start() < done:
                    continue  # another match on a line already given
                start = buf.rfind(b"\n", 0, match.start() + 1) + 1
                done = buf.find(b"\n", start, end)
                if done - start <= TITLE_LINE:
                    yield buf[start:done]
            # from the last newline on: a match may start at it
            tail = buf[end - 1 :] if end else buf
            if len(tail) > TITLE_LINE:
                tail, skipping = b"", True


def last_title(path: str, pattern: re.Pattern, pick: Callable[[dict, T], T], state: T) -> T:
    """``pick(record, state)`` over the parsed title lines, in file order."""
    for line in title_lines(path, pattern):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # the reader reports it
        if isinstance(record, dict):
            state = pick(record, state)
    return state
