"""``chatgpt-export``: a ChatGPT data export, one session per conversation.

Accepted inputs:

- the export ``.zip`` itself: its ``conversations.json`` or its shards
  ``conversations-000.json``, ``conversations-001.json``, ... are read in
  name order straight from the archive, never extracted to disk;
- ``conversations.json`` (a JSON array of conversations) or one shard;
- one conversation object, or ``{"conversations": [...]}``.

The array is streamed with ijson's C backend one conversation at a time, so
memory is bounded by the largest single conversation, never by the export.
A conversation is a tree; it is held whole while its current branch is
linearized (the one bounded look-ahead of this format).
"""

from __future__ import annotations

import os
import re
import zipfile
import zlib
from typing import Any, BinaryIO, Callable, Iterator

import ijson

from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.io import open_input, spool_to_file
from sessionport.jsondoc import MAX_DEPTH, _slices, first_significant_byte, iter_chunks, refuse_many_values, walk_document
from sessionport.jsonl import max_line_values
from sessionport.registry import Importer
from sessionport.formats.chatgpt.assets import ExportAssets, with_images
from sessionport.formats.chatgpt.conversation import ConversationReader
from sessionport.formats.chatgpt.sniff import ZIP_MAGIC, sniff

MEMBER = re.compile(r"(?:^|/)conversations(?:-\d+)?\.json$")
# Real conversations nest about ten levels; see _array_items.
MAX_BALANCE = MAX_DEPTH
_START_MAP, _START_ARRAY, _END_MAP, _END_ARRAY = (("start_map", None), ("start_array", None), ("end_map", None), ("end_array", None))


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


Reopen = Callable[[], "tuple[BinaryIO, Callable[[], None]]"]


class _NulGuard:
    """Stops the input at its first NUL byte and says whether only NULs follow.

    A file preallocated and then cut short by a crash ends in NUL padding;
    JSON never holds a raw NUL byte, so everything from the first one on
    is damage: a tail when only NULs follow, otherwise damage in the middle.
    """

    found: str | None = None  # None, "tail" or "middle"

    def cut(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            at = chunk.find(b"\x00")
            if at < 0:
                yield chunk
                continue
            if at:
                yield chunk[:at]
            clean = not chunk[at:].strip(b"\x00")
            if clean:
                clean = all(not more.strip(b"\x00") for more in chunks)
            self.found = "tail" if clean else "middle"
            return


def _array_items(stream: BinaryIO, ctx: ReadContext, reopen: Reopen | None = None) -> Iterator[tuple[int, Any]]:
    """The elements of a top-level array, each as soon as it is complete.

    Only ijson's C item builder runs (no Python-level token loop: three
    times faster than following every token).  Its memory grows with the
    square of the nesting depth, so the input is fed in slices with a
    bounded number of brackets, and the bracket balance since the last
    completed conversation is checked before each slice.  Brackets inside
    strings blur that count; when it passes the bound and the input can be
    opened again, the rest is read by :func:`walk_document`, which follows
    every token and knows the true depth.

    Brackets inside strings can also hide nesting from that count (a string
    of closing brackets, then as many real opening ones), so ijson's basic
    event parser runs beside the builder and the true depth is counted from
    its events (list counts in C, no Python loop over them); past
    MAX_DEPTH the read stops before the builder's cost can grow.
    """
    items = ijson.sendable_list()
    coro = ijson.items_coro(items, "item", use_float=True)
    events = ijson.sendable_list()
    depth_coro = ijson.basic_parse_coro(events, use_float=True)
    depth = 0
    count = 0
    balance = 0
    # events since the last conversation was complete: what the builder holds
    held = 0
    limit = max_line_values(ctx)
    error: Exception | None = None
    nul = _NulGuard()
    for piece in _slices(nul.cut(iter_chunks(stream, ctx))):
        balance += piece.count(b"[") + piece.count(b"{") - piece.count(b"]") - piece.count(b"}")
        if balance > MAX_BALANCE:
            if reopen is not None:
                yield from _exact_items(reopen, ctx, skip=count)
                return
            ctx.bad_record(
                f"conversation {count + 1} nests brackets more than {MAX_BALANCE} levels deep",
                path=f"[{count}]",
                hint="no export nests this deep; the file is damaged or not a ChatGPT export",
            )
            return
        try:
            coro.send(piece)
            depth_coro.send(piece)  # after: the builder's error names the place
        except ijson.JSONError as exc:
            error = exc
        depth += events.count(_START_MAP) + events.count(_START_ARRAY) - events.count(_END_MAP) - events.count(_END_ARRAY)
        held += len(events)
        del events[:]
        if held > limit and not items:
            refuse_many_values(f"[{count}]", ctx, limit, f"conversation {count + 1}")
        if depth > MAX_DEPTH + 1:  # the export's own array is one level
            from sessionport.errors import DataError

            raise DataError(
                ctx.name,
                f"JSON nested deeper than {MAX_DEPTH} levels, in conversation {count + 1}",
                path=f"[{count}]",
                hint="no export nests this deep; the file is damaged or not a ChatGPT export",
            )
        if items:
            balance = held = 0
        for item in items:
            yield count, item
            count += 1
        del items[:]
        if error is not None:
            break
    else:
        try:
            coro.close()
        except ijson.JSONError as exc:
            error = exc
        for item in items:
            yield count, item
            count += 1
        del items[:]
    if nul.found == "middle":
        ctx.bad_record(
            f"a NUL byte inside the export, in or after conversation {count + 1}",
            path=f"[{count}]",
            hint="the file is damaged; JSON never holds raw NUL bytes",
        )
        return
    padding = ", then NUL padding (a crash while it was written)" if nul.found == "tail" else ""
    if error is None:
        if padding:
            ctx.damaged_tail(f"the export ends in NUL padding after conversation {count} (a crash while it was written)")
        return
    reason = _reason(error)
    if "premature EOF" in reason or "Incomplete" in reason:
        ctx.damaged_tail(f"the export ends early, inside conversation {count + 1} ({count} complete conversation(s) were read){padding}")
    else:
        ctx.bad_record(
            f"invalid JSON in or after conversation {count + 1}: {reason}",
            path=f"[{count}]",
            hint="the file is not valid JSON; check it with `python -m json.tool`",
        )


def _exact_items(reopen: Reopen, ctx: ReadContext, skip: int) -> Iterator[tuple[int, Any]]:
    """The array's elements from a fresh read of the input, after the first ``skip``."""
    stream, close = reopen()
    try:
        index = 0
        for kind, value in walk_document(stream, ctx):
            if kind == "item":
                if index >= skip:
                    yield index, value
                index += 1
    finally:
        close()


def _reopen_path(ctx: ReadContext) -> Reopen | None:
    path = ctx.path
    if not path:
        return None

    def reopen():
        inp = open_input(path)
        return inp.stream, inp.close

    return reopen


def iter_conversations(stream: BinaryIO, ctx: ReadContext, reopen: Reopen | None = None) -> Iterator[tuple[str, int, Any]]:
    """``(json path, index, conversation)`` for each conversation of one JSON document."""
    if first_significant_byte(stream) == b"[":
        for index, item in _array_items(stream, ctx, reopen):
            yield f"[{index}]", index, item
        return
    index = 0
    for kind, value in walk_document(stream, ctx, ("conversations",)):
        if kind == "item":
            yield f"conversations[{index}]", index, value
            index += 1
        elif kind == "end" and index == 0 and isinstance(value, dict):
            if "mapping" in value:
                yield "$", 0, value
            else:
                ctx.bad_record(
                    "expected a conversation (an object with a mapping) or a list of them",
                    path="$",
                    hint="name the format with --from if detection picked the wrong one",
                )


def _events(stream: BinaryIO, ctx: ReadContext, seen: set[str] | None, reopen: Reopen | None, assets: ExportAssets | None = None) -> Iterator[dict]:
    if assets is not None:
        yield from with_images(_events(stream, ctx, seen, reopen), assets, ctx.warn)
        return
    for where, index, conversation in iter_conversations(stream, ctx, reopen):
        if not isinstance(conversation, dict):
            ctx.bad_record(f"conversation {index + 1} is a {type(conversation).__name__}, not an object", path=where)
            continue
        if seen is not None:
            key = conversation.get("conversation_id") or conversation.get("id")
            if isinstance(key, str):
                if key in seen:
                    ctx.warn(f"{where}: conversation {key} was already read from an earlier file of the export; skipped")
                    continue
                seen.add(key)
        try:
            yield from ConversationReader(conversation, where, ctx, index).events()
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            # A shape no rule foresaw: report this conversation, keep the others.
            ctx.bad_record(f"conversation {index + 1} could not be read: {type(exc).__name__}: {exc}", path=where)
    ctx.report_unknown()  # once per type for the whole file


def _members(archive: zipfile.ZipFile, ctx: ReadContext) -> list[zipfile.ZipInfo]:
    members = sorted(
        (info for info in archive.infolist() if not info.is_dir() and MEMBER.search(info.filename)),
        key=lambda info: info.filename,
    )
    if not members:
        names = ", ".join(info.filename for info in archive.infolist()[:8]) or "nothing"
        raise DataError(
            ctx.name,
            f"the zip archive holds no conversations.json or conversations-NNN.json (it holds {names})",
            hint="is this a ChatGPT data export? Name the format with --from if it is another one",
        )
    return members


def _reopen_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Reopen:
    def reopen():
        member = archive.open(info)
        return member, member.close

    return reopen


def _read_zip(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    handle = ctx.open_seekable() if ctx.open_seekable is not None else spool_to_file(stream)
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise DataError(ctx.name, f"is not a readable zip archive: {exc}", hint="the download may be incomplete; download the export again") from None
    outer_name = ctx.name
    seen: set[str] = set()
    assets = ExportAssets.of_zip(archive) if ctx.options.get("keep_images") else None
    with archive:
        for info in _members(archive, ctx):
            ctx.name = f"{outer_name}:{info.filename}"
            try:
                with archive.open(info) as member:
                    yield from _events(member, ctx, seen, _reopen_member(archive, info), assets)
            except (zipfile.BadZipFile, EOFError, zlib.error, RuntimeError, NotImplementedError, OSError) as exc:
                raise DataError(
                    ctx.name,
                    f"cannot be read from the zip archive: {exc}",
                    hint="the archive may be damaged or encrypted; unpack it with another tool and convert conversations.json",
                ) from None
            finally:
                ctx.name = outer_name


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    head = stream.peek(4)[:4] if hasattr(stream, "peek") else b""
    if head in ZIP_MAGIC:
        yield from _read_zip(stream, ctx)
    else:
        # the export's folder holds the images its conversations name
        assets = ExportAssets.of_folder(os.path.dirname(os.path.abspath(ctx.path))) if ctx.path and ctx.options.get("keep_images") else None
        yield from _events(stream, ctx, None, _reopen_path(ctx), assets)


IMPORTER = Importer(
    name="chatgpt-export",
    description="ChatGPT data export: the .zip, conversations.json or a conversations-NNN.json shard (one session per conversation)",
    read=read,
    sniff=sniff,
    patterns=("conversations*.json", "*.zip"),
    needs_seekable=True,
    versions=("2023 export", "2024 export", "2025 export", "split export (conversations-NNN.json)", "2025-2026 export (sonic_webpage, app_pairing_content, computer_output, citable_code_output)"),
)
