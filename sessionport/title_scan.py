"""The title a session is shown by, found in its file before it is read.

Apps record a session's title late: Claude Code appends ``custom-title``
(the user's /rename) and ``ai-title`` records as the session goes, Codex a
``thread_name_updated`` event, Gemini CLI a ``$set`` of ``summary``.  The
readable exporters write a session's heading when its session event comes,
before any of these is read, so for an input that is a plain file on disk
:func:`stream.read <sessionport.pipeline.stream.read>` asks the importer's
``title_scan`` for the title first.  A scan looks at bytes, not records: the
file is read in blocks, each line that starts with one of the format's
title-record prefixes (a regex, anchored on the newline before it) is
parsed, and no other line is.  Memory holds a block and one such line; a
title line longer than :data:`TITLE_LINE` is passed over (the reader still
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


def title_lines(path: str, prefix: re.Pattern, overlap: int) -> Iterator[bytes]:
    """The lines of the file at ``path`` that ``prefix`` matches at their
    start (``prefix`` begins with ``\\n``; ``overlap``: the most bytes a
    match spans)."""
    with open(path, "rb", buffering=0) as handle:
        buf = b"\n"  # the first line has no newline before it
        while True:
            chunk = handle.read(BLOCK)
            eof = not chunk
            buf += chunk
            keep = max(len(buf) - overlap, 0)
            for match in prefix.finditer(buf):
                start = match.start() + 1
                end = buf.find(b"\n", start)
                if end == -1:
                    if not eof and len(buf) - start <= TITLE_LINE:
                        keep = match.start()  # the rest of the line comes with the next block
                        break
                    end = len(buf)
                if end - start <= TITLE_LINE:
                    yield buf[start:end]
                keep = max(keep, end)
            if eof:
                return
            buf = buf[keep:]


def last_title(path: str, prefix: re.Pattern, overlap: int, pick: Callable[[dict, T], T], state: T) -> T:
    """``pick(record, state)`` over the parsed title lines, in file order."""
    for line in title_lines(path, prefix, overlap):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue  # the reader reports it
        if isinstance(record, dict):
            state = pick(record, state)
    return state
