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
:data:`TITLE_LINE` is passed over, and of a file larger than twice
:data:`WINDOW` only the two ends are read, so the scan costs at most
about 16 MiB of reading whatever the file's size (the reader still gives a
title it does not find, in ``end.title``, which the exporters then name in
a note at the session's end).
"""

from __future__ import annotations

import functools
import os
import re
from typing import BinaryIO, Callable, Iterator, TypeVar

import orjson

BLOCK = 1 << 20
TITLE_LINE = 1 << 20
# A file larger than twice this is scanned at its two ends only: the
# session's first stretch (where Codex names a thread after its first
# turn) and its last (where Claude Code and Gemini CLI append titles, and
# Claude Code writes its title records again when a session is closed or
# resumed: its own session list reads the last 64 KiB).  A title recorded
# only in between is the reader's ``end.title``, named in the end note.
WINDOW = 8 << 20

T = TypeVar("T")


@functools.lru_cache(maxsize=16)
def required_literals(pattern: re.Pattern) -> tuple[bytes, ...] | None:
    """Byte strings one of which every match of ``pattern`` holds (None:
    none found): its longest run of literal bytes outside any group or
    repeat, or such a run followed by each literal start of an alternation.
    A block without any of them has no match, and ``bytes.find`` rules that
    out several times faster than the regex engine's scan for the
    pattern's first bytes (which, such as ``\n{"type":"``, start many
    lines)."""
    try:
        from re import _parser  # Python 3.11 on
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_parse as _parser  # type: ignore[no-redef]
    if not isinstance(pattern.pattern, bytes) or pattern.flags & re.IGNORECASE:
        return None
    try:
        items = list(_parser.parse(pattern.pattern, pattern.flags))
    except Exception:  # an engine's private parser: anything it does not take, no shortcut
        return None
    literal, branch = _parser.LITERAL, _parser.BRANCH
    best: tuple[bytes, ...] | None = None
    run = bytearray()

    def offer(found: tuple[bytes, ...]) -> None:
        nonlocal best
        if min(map(len, found)) > (min(map(len, best)) if best else 0):
            best = found

    for op, arg in items:
        if op == literal:
            run.append(arg)
            continue
        if op == branch:
            starts = []
            for alternative in arg[1]:
                lead = bytearray(run)
                for sub_op, sub_arg in alternative:
                    if sub_op != literal:
                        break
                    lead.append(sub_arg)
                starts.append(bytes(lead))
            offer(tuple(starts))
        elif run:
            offer((bytes(run),))
        run = bytearray()
    if run:
        offer((bytes(run),))
    return best if best and min(map(len, best)) >= 4 else None


def title_lines(path: str, pattern: re.Pattern) -> Iterator[bytes]:
    """The lines of the file at ``path`` that ``pattern`` matches (each
    once; a pattern starting with ``\\n`` matches at a line's start, the
    first line's too), in file order: every line of a file up to twice
    :data:`WINDOW`, else those of its first and last :data:`WINDOW` bytes."""
    with open(path, "rb", buffering=0) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= 2 * WINDOW:
            yield from _lines(handle, pattern, None, inside=False)
            return
        yield from _lines(handle, pattern, WINDOW, inside=False)
        # the byte before the window: a newline there makes the window's
        # first line a whole one
        handle.seek(size - WINDOW - 1)
        yield from _lines(handle, pattern, None, inside=True)


def _lines(handle: BinaryIO, pattern: re.Pattern, budget: int | None, *, inside: bool) -> Iterator[bytes]:
    """The matching lines from ``handle``'s position on; ``inside``: that
    position is inside a line, passed over.  With a ``budget``, the lines
    that start in that many bytes, the last one finished."""
    # the line the last block ended inside; at first a newline, for a
    # pattern that starts with one (a literal start: a fast search)
    literals = required_literals(pattern)
    tail = b"" if inside else b"\n"
    skipping = inside  # inside a line longer than TITLE_LINE, or the window's first
    taken = 0
    while True:
        chunk = handle.read(BLOCK if budget is None else min(BLOCK, budget - taken))
        if not chunk:
            if tail and not skipping and pattern.search(tail):
                yield tail[1:] if tail[:1] == b"\n" else tail  # the last line, without its newline
            return
        taken += len(chunk)
        if skipping:
            cut = chunk.find(b"\n")
            if cut == -1:
                if budget is not None and taken >= budget:
                    return
                continue
            chunk, skipping = chunk[cut:], False  # from the newline: the next line's start
        buf = tail + chunk if tail else chunk
        end = buf.rfind(b"\n") + 1  # buf[:end]: whole lines
        # lines without any of the literals every match holds: none matches
        if literals is None or any(buf.find(literal, 0, end) != -1 for literal in literals):
            yield from _matching_lines(buf, end, pattern)
        # from the last newline on: a match may start at it
        tail = buf[end - 1 :] if end else buf
        if len(tail) > TITLE_LINE:
            tail, skipping = b"", True
        if budget is not None and taken >= budget:
            if not skipping:
                yield from _finish(handle, pattern, tail)
            return


def _matching_lines(buf: bytes, end: int, pattern: re.Pattern) -> Iterator[bytes]:
    """The lines of ``buf[:end]`` (whole lines) that ``pattern`` matches."""
    done = 0
    for match in pattern.finditer(buf, 0, end):
        if match.start() < done:
            continue  # another match on a line already given
        start = buf.rfind(b"\n", 0, match.start() + 1) + 1
        done = buf.find(b"\n", start, end)
        if done - start <= TITLE_LINE:
            yield buf[start:done]


def _finish(handle: BinaryIO, pattern: re.Pattern, tail: bytes) -> Iterator[bytes]:
    """The line a window ends inside (``tail`` so far), when it matches."""
    while len(tail) <= TITLE_LINE + 1:
        chunk = handle.read(BLOCK)
        cut = chunk.find(b"\n")
        if cut != -1 or not chunk:
            line = tail + (chunk[:cut] if chunk else b"")
            if len(line) <= TITLE_LINE + 1 and pattern.search(line):
                yield line[1:] if line[:1] == b"\n" else line
            return
        tail += chunk


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
