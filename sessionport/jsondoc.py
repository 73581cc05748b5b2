"""Streaming the items of large JSON documents with ijson's C backend.

Many formats are one JSON document whose bulk is a single array (``messages``,
``contents``, ``events``, or the document itself is a list), wrapped in a few
small header keys.  :func:`walk_document` reads such a document once, in
chunks, and yields the header, then each array item, then what followed the
array, without ever holding more than one item.

Two ijson coroutines are fed the same chunks: ``items_coro`` builds the items
in C, and ``parse_coro`` supplies the token stream that tells where the
header ends, where each item is complete, and what trails the array.  The
tokens inside items are skipped with a prefix test, which costs far less
than building the items in Python.
"""

from __future__ import annotations

import codecs
import io
import os
import re
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

from sessionport.lazy import lazy
from sessionport.context import ReadContext
from sessionport.jsonl import BOM, MAX_DEPTH, MAX_LINE_VALUES_ENV, max_line_values

CHUNK = 1 << 20
MAX_CHUNK = 256 << 20
_SCALARS = frozenset(("string", "number", "boolean", "null"))
_COMPLETES = frozenset(("end_map", "end_array", "string", "number", "boolean", "null"))


def iter_chunks(stream: BinaryIO, ctx: ReadContext) -> Iterator[bytes]:
    """Chunks of the stream as valid UTF-8 (invalid bytes replaced, once reported).

    Lone UTF-16 surrogate escapes become ``\\ufffd``, counted in one warning.
    A chunk in which every quote is escaped is, in practice, the inside of
    one long string, and the next chunk is read twice as big (up to
    ``MAX_CHUNK``): ijson scans a string token from its start again at each
    chunk fed while the token is incomplete, so with a fixed chunk size one
    huge string costs time in the square of its length; with growing chunks
    the cost is linear.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    replacing = False
    first = True
    size = CHUNK
    surrogates = _LoneSurrogates()
    from sessionport.jsonl import max_line_size

    # A string is bounded as a JSONL line is (--max-line-size): ijson holds
    # it whole, and Python's copies of it besides (a 600 KB gzip of one
    # 600 MB string took 3.8 GB).  Counted as the bytes of the chunks in a
    # row that hold no unescaped quote.
    limit = max_line_size(ctx)
    quote_free = offset = 0
    while True:
        chunk = stream.read(size)
        if first:
            first = False
            if chunk.startswith(BOM):
                chunk = chunk[3:]
        if not chunk:
            rest = surrogates.finish()
            if surrogates.replaced:
                ctx.warn(f"{surrogates.replaced} lone UTF-16 surrogate escape(s) (a string cut inside an emoji?) replaced with U+FFFD")
            if rest:
                yield rest
            return
        if not replacing:
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                replacing = True
                ctx.warn(f"invalid UTF-8 near byte {exc.start} of a chunk replaced with U+FFFD")
                decoder = codecs.getincrementaldecoder("utf-8")("replace")
        if replacing:
            chunk = decoder.decode(chunk).encode("utf-8")
        offset += len(chunk)
        if len(chunk) >= size and chunk.count(b'"') == chunk.count(b'\\"'):
            quote_free += len(chunk)
            if quote_free > limit:
                _refuse_long_string(ctx, limit, offset - quote_free)
            size = min(size * 2, MAX_CHUNK, max(CHUNK, limit - quote_free + 1))
        else:
            size = CHUNK
            quote_free = 0
        chunk = surrogates.feed(chunk)
        if chunk:  # (an empty send would end ijson's input)
            yield chunk


def _refuse_long_string(ctx: ReadContext, limit: int, start: int) -> None:
    from sessionport.errors import DataError
    from sessionport.jsonl import MAX_LINE_ENV, human_bytes

    raise DataError(
        ctx.name,
        f"a string (or a run of text without a quote) of more than {human_bytes(limit)} from about byte {start:,}, "
        "the limit for one line or string (--max-line-size): it would be held whole",
        hint=f"no real transcript holds a string this long; raise the limit with --max-line-size or {MAX_LINE_ENV} if the file is genuine",
    )


# A surrogate escape with an even number of backslashes before it (so not
# itself escaped), and the low half that completes it, if there is one.
_SURROGATE = lazy(rb"(?<!\\)((?:\\\\)*)(\\u[dD][89a-fA-F][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?")
_HIGH = lazy(rb"\\u[dD][89abAB][0-9a-fA-F]{2}")


class _LoneSurrogates:
    """Replaces lone UTF-16 surrogate escapes with ``\\ufffd`` in a stream of
    chunks (ijson would turn each into ``?`` without a word).  An escape cut
    between two chunks is held back and joined to the next."""

    def __init__(self) -> None:
        self.replaced = 0
        self._held = b""

    def feed(self, chunk: bytes) -> bytes:
        if self._held:
            chunk, self._held = self._held + chunk, b""
        # From the first backslash of the last 18 bytes: an escape cut in
        # two, or a high half whose low half may follow, waits for the next
        # chunk; an escape (6 bytes) and its pair before that are complete.
        cut = chunk.find(b"\\", max(len(chunk) - 18, 0))
        if cut >= 0:
            if cut >= 6 and _HIGH.match(chunk, cut - 6, cut):
                cut -= 6  # the high half just before a held-back low half
            while cut > 0 and chunk[cut - 1] == 0x5C:
                cut -= 1
            chunk, self._held = chunk[:cut], chunk[cut:]
        if b"\\ud" in chunk or b"\\uD" in chunk:
            chunk = _SURROGATE.sub(self._fix, chunk)
        return chunk

    def finish(self) -> bytes:
        held, self._held = self._held, b""
        return _SURROGATE.sub(self._fix, held) if held else held

    def _fix(self, match: re.Match) -> bytes:
        high = int(match.group(2)[2:], 16) <= 0xDBFF
        if match.group(3) is not None and high:
            return match.group(0)  # a proper pair
        # A lone half; a low half after a low half is lone too.
        halves = 1 if match.group(3) is None else 2
        self.replaced += halves
        return match.group(1) + b"\\ufffd" * halves


def first_significant_byte(stream: BinaryIO) -> bytes:
    """Peek at the first non-blank byte without consuming anything."""
    head = stream.peek(4096) if hasattr(stream, "peek") else b""
    if head.startswith(BOM):
        head = head[3:]
    stripped = head.lstrip(b" \t\r\n")
    return stripped[:1]


# ijson builds a prefix string per token, so memory and time grow with the
# square of the nesting depth.  Feeding pieces with at most SLICE_OPENERS
# opening brackets each, and checking the depth after each, bounds that:
# within one piece depth can grow by at most SLICE_OPENERS, so no value
# deeper than MAX_DEPTH + SLICE_OPENERS (192) is ever built.  Real data has
# a few thousand brackets per MiB, so its pieces stay tens of KiB.
SLICE_OPENERS = 64
_OPENERS = frozenset(("start_map", "start_array"))
_RUN = lazy(rb"(?:[^\[{]*[\[{]){%d}" % SLICE_OPENERS)
_CLOSERS = frozenset(("end_map", "end_array"))


class Slicer:
    """Cuts chunks into pieces that are safe to feed ijson (see above).

    Brackets inside strings count as openers too, so a long string full of
    brackets would be cut into tiny pieces, and ijson scans an unfinished
    string token again at every piece: quadratic.  The consumer therefore
    reports after each piece whether the parser produced tokens
    (:meth:`produced`).  A piece with openers that produced none was inside a
    string; everything up to the next quote is then still inside it (no
    bracket there can nest) and goes as one piece.
    """

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self.chunks = chunks
        self.in_string = False
        self._had_openers = False

    def produced(self, tokens: bool) -> None:
        """Whether the last piece fed made the parser emit tokens."""
        if tokens:
            self.in_string = False
        elif self._had_openers:
            self.in_string = True

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            openers = chunk.count(b"[") + chunk.count(b"{")
            if openers <= SLICE_OPENERS:
                self._had_openers = False  # a small count proves nothing about strings
                yield chunk
                continue
            view = memoryview(chunk)
            start, end_of_chunk = 0, len(chunk)
            while start < end_of_chunk:
                if self.in_string:
                    quote = chunk.find(b'"', start)
                    end = end_of_chunk if quote < 0 else quote
                    if end > start:
                        self._had_openers = False
                        yield bytes(view[start:end])
                        start = end
                        continue
                # Cut after exactly SLICE_OPENERS openers (not at even byte
                # offsets: a dense run of brackets would then land in one piece).
                run = _RUN.match(chunk, start)
                end = run.end() if run is not None else end_of_chunk
                piece = bytes(view[start:end])
                self._had_openers = run is not None or b"[" in piece or b"{" in piece
                yield piece
                start = end


def _slices(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Depth-safe pieces for a consumer that cannot report tokens."""
    return iter(Slicer(chunks))


def head_tokens(head: bytes, max_depth: int = MAX_DEPTH) -> Iterator[tuple[str, str, Any]]:
    """ijson's ``(prefix, event, value)`` tokens of a document's first bytes,
    for format sniffers: the one depth-bounded way to parse a head.

    The head may be cut anywhere: the tokens stop quietly where it is cut
    or where the JSON breaks, and where nesting passes ``max_depth``
    (ijson's cost grows with the square of the depth, so a tiny file of
    brackets could otherwise take gigabytes).
    """
    import ijson  # imported when a document is parsed, not by every reader at start

    if head.startswith(BOM):
        head = head[3:]
    tokens = ijson.sendable_list()
    parser = ijson.parse_coro(tokens, use_float=True)
    slicer = Slicer((head,))
    depth = 0
    for piece in slicer:
        try:
            parser.send(piece)
        except ijson.JSONError:
            broken = True
        else:
            broken = False
        slicer.produced(bool(tokens))
        for token in tokens:
            event = token[1]
            if event in _OPENERS:
                depth += 1
                if depth > max_depth:
                    return
            elif event in _CLOSERS:
                depth -= 1
            yield token
        del tokens[:]
        if broken:
            return


def check_depth(prefix: str, ctx: ReadContext) -> None:
    """Raise a DataError naming the path when ``prefix`` (ijson's path of the
    last token fed) is nested deeper than :data:`MAX_DEPTH`.  Called after
    each piece of a :class:`Slicer`."""
    if len(prefix) > MAX_DEPTH and prefix.count(".") >= MAX_DEPTH:
        from sessionport.errors import DataError

        raise DataError(
            ctx.name,
            f"JSON nested deeper than {MAX_DEPTH} levels",
            path=_path(prefix[:60]) + "...",
            hint="no transcript nests this deep; the file is damaged or not a transcript",
        )


def refuse_many_values(prefix: str, ctx: ReadContext, limit: int, what: str | None = None) -> None:
    """Raise a DataError for an item of a JSON document (a message, a
    conversation) holding more than ``limit`` keys and values, at ijson's
    ``prefix``: built, each is a Python object of about 55 bytes, and a
    compressed document of a few hundred kilobytes (the same small block
    again and again) would otherwise take gigabytes."""
    from sessionport.errors import DataError

    raise DataError(
        ctx.name,
        f"{what or 'one item of this JSON document (a message, an entry)'} holds more than {limit:,} keys and values, the limit per item: "
        f"built, each would be a Python object (more than {limit * 55 >> 20:,} MB for them)",
        path=_path(prefix[:200]),
        hint=f"no real transcript holds this many in one message; raise the limit with {MAX_LINE_VALUES_ENV}=N if the file is genuine",
    )


def _path(prefix: str) -> str:
    """ijson's ``a.item.b`` prefix as a readable JSON path ``a[].b``."""
    return (prefix or "$").replace(".item", "[]")


# A document this size or smaller is read again to name the value yajl
# refused (it says "integer overflow", not which one nor where).
LOCATE_LIMIT = 64 << 20
_BIG_INTEGER = lazy(rb"-?[0-9]{19,}")


def _locate_refused_value(ctx, reason: str) -> tuple[str, str, str] | None:
    """For a number out of range or a ``NaN``/``Infinity`` in a plain JSON
    file on disk: the error naming the value and its exact JSON path, as
    for a JSON Lines line; None when it cannot be found cheaply."""
    if not ("overflow" in reason or "invalid char" in reason):
        return None
    path = getattr(ctx, "path", None)
    try:
        if not path or os.path.getsize(path) > LOCATE_LIMIT:
            return None
        with open(path, "rb") as f:
            data = f.read(LOCATE_LIMIT + 1)
    except (OSError, TypeError, ValueError):
        return None
    if data[:3] == b"\xef\xbb\xbf":
        data = data[3:]
    if data.lstrip()[:1] not in (b"{", b"["):
        return None  # compressed, or not the text that was parsed
    from sessionport.jsonl import describe_refused_value

    if "integer overflow" in reason:
        for match in _BIG_INTEGER.finditer(data):
            if not data[: match.start()].rstrip().endswith((b":", b",", b"[")):
                continue
            # more than 20 digits is out of range whatever they are, and
            # Python refuses int() of more than 4,300 (a ValueError)
            if len(match.group().lstrip(b"-")) <= 20 and -(2**63) <= int(match.group()) < 2**64:
                continue
            token = match.group().decode()
            shown = token if len(token) <= 40 else token[:20] + "..." + token[-8:]
            return (
                f"the integer {shown} is out of range for this JSON reader (beyond 64 bits)",
                path_at(data[: match.start()]),
                "replace the value (null, or a number in range)",
            )
        return None
    import orjson

    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return describe_refused_value(exc)
    return None


def path_at(head: bytes, max_depth: int = 128) -> str:
    """The JSON path (``messages[3].tokens``) of the value that begins where
    ``head``, the start of a JSON text, ends; for an error's message.  Read
    with ijson's basic events (no prefix strings: linear in ``head``); past
    ``max_depth`` levels the path is cut with ``...``."""
    import ijson

    stack: list[list] = []  # [key or None] for an object, [index] for an array
    deep = 0

    def step() -> None:
        if stack and isinstance(stack[-1][0], int):
            stack[-1][0] += 1

    try:
        for event, value in ijson.basic_parse(io.BytesIO(head), use_float=True):
            if event == "map_key":
                if not deep:
                    stack[-1][0] = value
            elif event in ("start_map", "start_array"):
                if not deep:
                    step()
                if len(stack) >= max_depth or deep:
                    deep += 1
                else:
                    stack.append([None] if event == "start_map" else [-1])
            elif event in ("end_map", "end_array"):
                if deep:
                    deep -= 1
                elif stack:
                    stack.pop()
            elif not deep:
                step()
    except Exception:  # the head ends inside the value: what was read is the path
        pass
    if stack and isinstance(stack[-1][0], int):
        stack[-1][0] += 1  # the value at the cut is the next element
    path = "$"
    for (part,) in stack:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part is not None:
            path += f".{part}" if part.isidentifier() else f"[{json_quote(part)}]"
    return path + ("..." if deep else "")


def json_quote(text: str) -> str:
    import orjson

    return orjson.dumps(text).decode()


def walk_document(
    stream: BinaryIO,
    ctx: ReadContext,
    keys: tuple[str, ...] = (),
    *,
    docs_in_array: bool = False,
) -> Iterator[tuple[str, Any]]:
    """Yield ``("start", header)``, ``("item", value)``..., ``("end", document)``.

    - A top-level list is the item array itself (unless ``docs_in_array``,
      where each element is a document, walked in turn).
    - A top-level object holds the items under the first of ``keys`` whose
      value is an array; the other keys are its header.  ``header`` holds
      the keys seen before the array; the ``end`` document holds every key
      but the array, so keys that follow the array are not lost.  ``start``
      is yielded once per document, even when no array was found.
    """
    first = first_significant_byte(stream)
    if first == b"[" and not docs_in_array:
        item_prefixes = {"item": None}
        doc_prefix = None
    elif first == b"[":
        item_prefixes = {f"item.{k}.item": k for k in keys}
        doc_prefix = "item"
    else:
        item_prefixes = {f"{k}.item": k for k in keys}
        doc_prefix = ""

    import ijson

    tokens = ijson.sendable_list()
    queues = {p: ijson.sendable_list() for p in item_prefixes}
    coros = [ijson.items_coro(queues[p], p, use_float=True) for p in item_prefixes]
    parser = ijson.parse_coro(tokens, use_float=True)
    taken = dict.fromkeys(item_prefixes, 0)

    if doc_prefix is None:
        yield "start", {}
    state = _DocState(doc_prefix, item_prefixes)
    error: Exception | None = None
    limit = max_line_values(ctx)
    # tokens since the last item or document was complete: what the
    # builders hold (see refuse_many_values)
    held = 0
    try:
        slicer = Slicer(iter_chunks(stream, ctx))
        for piece in slicer:
            try:
                parser.send(piece)
                for coro in coros:
                    coro.send(piece)
            except ijson.JSONError as exc:
                error = exc
            slicer.produced(bool(tokens))
            if tokens:
                check_depth(tokens[-1][0], ctx)
            held += len(tokens)
            for found in state.consume(tokens, queues, taken):
                if found[0] != "start":
                    held = 0
                yield found
            if held > limit:
                refuse_many_values(state.last_prefix, ctx, limit)
            del tokens[:]
            for prefix, queue in queues.items():
                del queue[: taken[prefix]]
                taken[prefix] = 0
            if error:
                break
        if error is None:
            try:
                parser.close()
                for coro in coros:
                    coro.close()
            except ijson.JSONError as exc:
                error = exc
            yield from state.consume(tokens, queues, taken)
    finally:
        tokens.clear()
    if error is not None:
        where = _path(state.last_prefix)
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        if "premature EOF" in reason:
            ctx.damaged_tail(f"the JSON document ends early, inside {where}")
        else:
            located = _locate_refused_value(ctx, reason)
            if located is not None:
                problem, path, hint = located
                ctx.bad_record(problem, path=path, hint=hint)
                return
            several = "trailing garbage" in reason and where == "$"
            ctx.bad_record(
                f"invalid JSON inside {where}: {reason}",
                path=where,
                hint=(
                    "more JSON follows the first document, as in JSON Lines (one value per line); this format is "
                    "one JSON document: join the values into one array (jq -s . FILE) or name the format with --from"
                    if several
                    else "the file is not valid JSON; check it with `python -m json.tool`"
                ),
            )
        return
    if doc_prefix is None:
        yield "end", {}
    elif not state.docs_seen:
        ctx.bad_record(
            "expected a JSON object or array at the top level",
            path="$",
            hint="name the format with --from if detection picked the wrong one",
        )


class _DocState:
    """Follows the token stream of one or more documents."""

    def __init__(self, doc_prefix: str | None, item_prefixes: dict[str, Any]) -> None:
        self.doc_prefix = doc_prefix
        self.item_prefixes = item_prefixes
        self.array_prefixes = {p[: -len(".item")]: p for p in item_prefixes}
        # item prefix of the array being read; a bare list is read from the start
        self.active: str | None = "item" if doc_prefix is None else None
        self.builder: ijson.ObjectBuilder | None = None
        self.started = False
        self.array_done = False
        self.last_prefix = ""
        self.docs_seen = 0

    def consume(self, tokens, queues, taken) -> Iterator[tuple[str, Any]]:
        doc_prefix = self.doc_prefix
        for prefix, event, value in tokens:
            self.last_prefix = prefix
            active = self.active
            if active is not None:
                if prefix == active:
                    if event in _COMPLETES:
                        queue = queues[active]
                        index = taken[active]
                        if index < len(queue):
                            taken[active] = index + 1
                            yield "item", queue[index]
                    continue
                if prefix.startswith(active) and prefix[len(active) : len(active) + 1] == ".":
                    continue
            if doc_prefix is None:
                continue  # a bare list: only its items matter
            if event == "start_array" and not self.array_done and prefix in self.array_prefixes and self.builder is not None:
                self.active = self.array_prefixes[prefix]
                self.started = True
                # The array's key never reaches the builder, so the header
                # and the final document hold every key but the array.
                yield "start", self._header()
                continue
            if event == "end_array" and self.active is not None and prefix == self.active[: -len(".item")]:
                self.active = None
                self.array_done = True
                continue
            if prefix == doc_prefix and event == "start_map":
                import ijson

                self.builder = ijson.ObjectBuilder()
                self.started = False
                self.array_done = False
                self.docs_seen += 1
            if self.builder is None:
                continue
            self.builder.event(event, value)
            if prefix == doc_prefix and event == "end_map":
                document = self.builder.value
                self.builder = None
                if not self.started:
                    yield "start", dict(document)
                yield "end", document

    def _header(self) -> dict:
        return dict(self.builder.value) if self.builder is not None else {}
