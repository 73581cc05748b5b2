"""What ``inspect --usage`` needs of a Codex rollout: its identity and its
token totals, read from the ``token_count`` lines alone.

A rollout's token totals live in its ``event_msg``/``token_count`` lines
(under a tenth of its bytes) and its identity in the ``session_meta`` line
that opens it.  The scan reads the file in blocks
(:func:`sessionport.jsonl.iter_line_blocks`), finds each ``"token_count"``
literal (and any ``"session_meta"``) with one literal-prefixed regex
search per hit, as fast as ``bytes.find``, and takes the line around it
as the reader would take it: cleaned by the reader's :class:`LineCleaner`
(BOM, CRLF, NUL padding, the depth and length bounds, at the same line
numbers), its head matched by the reader's ``_HEAD``
(a literal nested inside another record's object is not a token count),
its totals read from the bytes by the reader's ``token_count_bytes`` into the
reader's :class:`TokenTotals`, and the line parsed only when the bytes do
not decide (another key order, a torn last line, no readable total).  A
quote inside a JSON string is escaped, so the literal never matches inside
a string.  The input's last line, when it has no newline, is always read,
so a torn line or NUL padding at the end is reported as the full read
reports it.  A line's number is counted only when it is reported (with
``bytes.count`` over the file up to it, from where the last count
stopped): counting every block's newlines would cost a fifth of the scan.

The lines without the literal are never looked at: not parsed, not held
to the depth bound, their unknown types not reported.  ``sessionport
validate`` or a full ``inspect`` checks them.  (A record that spells its
type with ``\\u`` escapes is not found either; Codex never writes one.)

Whatever the bytes cannot settle is read by the full census instead, from
the start, with nothing reported twice: a rollout with a second
``session_meta`` (resumed or forked: its copied history goes to
``inherited_usage``), a first line that is not a ``session_meta``
envelope, a token count in a shape other than the envelope's, the
single-document and pre-envelope eras, and any input that is not a plain
file on disk (stdin, a compressed file, a URL).
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from typing import BinaryIO

import orjson

from sessionport.context import MAX_REPORTED_PLACES, ReadContext
from sessionport.io import MAGIC, text_encoding
from sessionport.jsondoc import first_significant_byte
from sessionport.jsonl import _WHITESPACE, MAX_DEPTH, LineCleaner, iter_line_blocks, line_too_deep, parse_line, refuse_long_line
from sessionport.model import end_event, session_event
from sessionport.summary import SessionSummary, Summarizer
from sessionport.formats.codex.meta import meta_metadata
from sessionport.formats.codex.reader import _is_document
from sessionport.formats.codex.rollout import _HEAD, token_count_bytes
from sessionport.formats.codex.usage import TokenTotals

# Both literals in one pass (a regex with a literal prefix scans as fast as
# one ``bytes.find``); a session_meta after the first line: not decided here.
_LITERALS = re.compile(rb'"(token_count|session_meta|thread_name_updated)"')
_META = b"session_meta"
# The session's title, renamed: the last one is the title inspect reports.
_NAMED = b"thread_name_updated"
_NAMED_KEY = (b"event_msg", _NAMED)
_TOKEN_KEY = (b"event_msg", b"token_count")


class _Undecided(Exception):
    """The scan met something only the full census settles."""


def usage_census(stream: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    """The ``inspect`` summaries of a Codex input, exact in its identity and
    token usage only (see the module's doc)."""
    from sessionport.formats.codex.exec_json import starts_exec_stream

    path = None if starts_exec_stream(stream) else _plain_file(stream, ctx)
    if path is not None:
        shadow = dataclasses.replace(ctx, warnings=[], bad_places=[], bad_count=0, on_warning=_silent)
        try:
            with open(path, "rb", buffering=0) as handle:  # read in blocks: no buffer between
                summaries = _scan(handle, shadow)
        except _Undecided:
            pass  # nothing of the scan was reported: the census reads it all
        else:
            for message in shadow.warnings:
                ctx.warn(message)
            ctx.bad_count += shadow.bad_count
            room = MAX_REPORTED_PLACES - len(ctx.bad_places)
            ctx.bad_places.extend(shadow.bad_places[: max(room, 0)])
            return summaries
    from sessionport.formats.codex.census import census  # msgspec and the reader's census: only now

    return census(stream, ctx)


def _silent(message: str) -> None:
    pass


def _plain_file(stream: BinaryIO, ctx: ReadContext) -> str | None:
    """The path to scan: an uncompressed envelope-era rollout on disk."""
    if not ctx.path or first_significant_byte(stream) != b"{" or _is_document(stream):
        return None
    try:
        if not stat.S_ISREG(os.stat(ctx.path).st_mode):
            return None  # a named pipe or a device: read once, by the census
        with open(ctx.path, "rb") as handle:
            magic = handle.read(8)
    except OSError:
        return None
    if any(magic.startswith(signature) for signature, _ in MAGIC) or text_encoding(magic):
        return None  # the file's bytes are not the text read
    return ctx.path


def _scan(handle: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    cleaner = LineCleaner(ctx)
    limit = cleaner.limit
    totals = TokenTotals()
    numbers = _LineNumbers(handle.name)
    meta: dict | None = None
    title: str | None = None
    offset = 0  # where in the file the block's start is
    search = _LITERALS.search
    head_match = _HEAD.match
    try:
        for block, start, end in iter_line_blocks(handle, ctx):
            if end < 0:  # a line longer than the limit, refused as the line reader refuses it
                refuse_long_line(block, limit, numbers.line_at(offset), ctx)
                raise _Undecided  # with --skip-bad: where the next lines are is not known here
            if meta is None:
                stop = block.find(b"\n", start, end)
                meta = _session_meta(block[start : end if stop == -1 else stop], stop != -1, cleaner)
                offset += (end if stop == -1 else stop + 1) - start
                start = end if stop == -1 else stop + 1
            base = offset - start  # the file offset of block[0]
            pos = start
            while True:
                found = search(block, pos, end)
                if found is None:
                    break
                literal = found.group(1)
                if literal == _META:
                    raise _Undecided  # a resumed or forked rollout's copied history
                hit = found.start()
                head = block.rfind(b"\n", start, hit) + 1 or start
                stop = block.find(b"\n", hit, end)
                complete = stop != -1
                if not complete:
                    stop = end
                pos = stop + 1
                if literal == _NAMED:
                    title = _thread_name(block[head:stop], complete, title)
                    continue
                if complete:
                    # The usual line, inlined (what _token_line does first):
                    # "{" to "}" (a CR aside), so nothing for the cleaner to
                    # strip or report, and few enough brackets.
                    last = stop - 1 if block[stop - 1] == 13 else stop
                    if block[head] == 123 and block[last - 1] == 125 and last - head <= limit:
                        line = block[head:last]
                        if line.count(b"{") + line.count(b"[") <= MAX_DEPTH:
                            match = head_match(line)
                            if match is not None:
                                if match.group(2, 3) != _TOKEN_KEY:
                                    continue  # another record, the literal nested in it
                                if token_count_bytes(line, totals):
                                    continue
                _token_line(block[head:stop], base + head, complete, cleaner, totals, numbers)
            if end == len(block) and block[end - 1 : end] != b"\n":
                # The input's last line has no newline: read, as the reader reads it.
                head = block.rfind(b"\n", start, end) + 1 or start
                if head >= pos:
                    _token_line(block[head:end], base + head, False, cleaner, totals, numbers)
            offset += end - start
    finally:
        numbers.close()
    if meta is None:
        raise _Undecided  # an empty file: the census says what it holds
    summarizer = Summarizer()
    session_id = meta.get("id") if isinstance(meta.get("id"), str) else None
    metadata = meta_metadata(meta)
    metadata["codexEra"] = "envelope"
    summarizer.take(
        session_event(
            "codex",
            sessionId=session_id,
            cwd=meta.get("cwd") if isinstance(meta.get("cwd"), str) else None,
            createdAt=meta.get("timestamp") if isinstance(meta.get("timestamp"), str) else None,
            metadata=metadata,
        )
    )
    summarizer.take(end_event(usage=totals.usage(), lastRequestUsage=totals.last_request(), title=title))
    return summarizer.sessions


def _thread_name(raw: bytes, complete: bool, title: str | None) -> str | None:
    """The title after a line holding the ``thread_name_updated`` literal:
    its ``thread_name`` when it is that event, as the reader takes it; a
    line the bytes do not settle (not the plain shape, not JSON) goes to
    the census."""
    line = raw[:-1] if raw[-1:] == b"\r" else raw
    match = _HEAD.match(line) if complete else None
    if match is None:
        if complete and line[:1] == b"{" and b'"payload":{"type":"thread_name_updated"' not in line:
            return title  # another record, the literal nested in it
        raise _Undecided
    if match.group(2, 3) != _NAMED_KEY:
        return title
    try:
        payload = orjson.loads(line).get("payload")
    except (orjson.JSONDecodeError, AttributeError):
        raise _Undecided from None
    name = payload.get("thread_name") if isinstance(payload, dict) else None
    return name if isinstance(name, str) and name else title


class _LineNumbers:
    """The number of the line at a file offset, counted only when a line
    needs its number (a warning, a bad record): the newlines before it are
    counted in the file, from where the last count stopped, so a scan that
    reports nothing counts none and one that reports many counts each byte
    once."""

    __slots__ = ("path", "handle", "offset", "lines")

    def __init__(self, path: str) -> None:
        self.path = path
        self.handle: BinaryIO | None = None
        self.offset = 0
        self.lines = 0

    def line_at(self, offset: int) -> int:
        if self.handle is None:
            self.handle = open(self.path, "rb")
        handle = self.handle
        handle.seek(self.offset)
        while self.offset < offset:
            piece = handle.read(min(_COUNT_PIECE, offset - self.offset))
            if not piece:
                break
            self.lines += piece.count(b"\n")
            self.offset += len(piece)
        return self.lines + 1

    def close(self) -> None:
        if self.handle is not None:
            self.handle.close()


_COUNT_PIECE = 1 << 20


def _session_meta(raw: bytes, complete: bool, cleaner: LineCleaner) -> dict:
    """The payload of the first line, a ``session_meta`` envelope (else the
    census reads the file)."""
    if not complete or len(raw) > cleaner.limit:
        raise _Undecided
    line = cleaner.clean(raw, 1)
    if line is None:
        raise _Undecided
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        raise _Undecided from None
    payload = record.get("payload") if record.__class__ is dict else None
    if record.__class__ is not dict or record.get("type") != "session_meta" or payload.__class__ is not dict:
        raise _Undecided
    return payload


def _token_line(raw: bytes, offset: int, complete: bool, cleaner: LineCleaner, totals: TokenTotals, numbers: _LineNumbers) -> None:
    """One line holding the literal (``offset`` where it starts in the
    file), taken as ``RolloutReader.run`` takes it."""
    if complete and len(raw) <= cleaner.limit:
        # The usual line: what LineCleaner.clean makes of it when it has
        # nothing to report (no NUL padding, not too deep), so no number
        # is needed unless the bytes do not decide.
        line = raw.strip(_WHITESPACE)
        # (the brackets counted as line_too_deep counts them, without a copy)
        if line and line[:1] != b"\x00" and line[-1:] != b"\x00" and (line.count(b"{") + line.count(b"[") <= MAX_DEPTH or not line_too_deep(line)):
            match = _HEAD.match(line)
            if match is not None:
                if match.group(2, 3) != _TOKEN_KEY:
                    return  # another record, the literal nested in it
                if token_count_bytes(line, totals):
                    return
    line_no = numbers.line_at(offset)
    if len(raw) > cleaner.limit:
        cleaner.too_long(raw, line_no)
        return
    line = cleaner.clean(raw, line_no)
    if line is None:
        return
    match = _HEAD.match(line) if complete else None
    if match is not None:
        if match.group(2, 3) != _TOKEN_KEY:
            return
        if token_count_bytes(line, totals):
            return
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        record = parse_line(line, line_no, complete, cleaner.ctx)
    del line
    if record is None:
        return
    if record.__class__ is not dict:
        cleaner.ctx.bad_record(f"expected a JSON object, found a JSON {type(record).__name__}", line=line_no)
        return
    payload = record.get("payload")
    kind = record.get("type")
    if payload.__class__ is not dict or kind.__class__ is not str:
        raise _Undecided  # not an envelope: the reader's other rules decide it
    if kind == "event_msg" and payload.get("type") == "token_count":
        info = payload.get("info")
        if isinstance(info, dict):
            totals.add_usage(info.get("total_token_usage"), info.get("last_token_usage"))
    elif kind == "session_meta":
        raise _Undecided
