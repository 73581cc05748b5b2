"""``codex``: OpenAI Codex CLI rollouts, every era.

- the early TypeScript CLI: one JSON document ``{"session": {...}, "items":
  [ResponseItem...]}`` (``rollout-*.json``), streamed with ijson;
- the Rust pre-envelope JSONL: a bare header line ``{id, timestamp,
  instructions, git}``, bare items and ``{"record_type":"state"}`` lines;
- the envelope JSONL: ``{timestamp, [ordinal,] type, payload}`` lines starting
  with ``session_meta`` (``.jsonl.zst`` is decompressed by the input layer).

The era is told from the first bytes; see ``docs/formats/codex.md``.
"""

from __future__ import annotations

import re
from typing import BinaryIO, Iterator

from sessionport.context import ReadContext
from sessionport.jsondoc import first_significant_byte, head_tokens, walk_document
from sessionport.jsonl import BOM, first_json_line
from sessionport.model import end_event, session_event
from sessionport.registry import Importer, Option
from sessionport.formats.codex.items import ItemConverter, looks_injected
from sessionport.formats.codex.meta import meta_metadata
from sessionport.formats.codex.rollout import read_rollout

_ENVELOPE_HEAD = re.compile(rb'\s*\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"([a-z_]+)","payload":\{')
_ITEM_TYPES = frozenset(("message", "reasoning", "function_call", "function_call_output", "local_shell_call"))


def sniff(head: bytes) -> int:
    try:
        return _sniff(head)
    except Exception:  # a sniffer never raises, whatever the bytes
        return 0


def _sniff(head: bytes) -> int:
    if head.startswith(BOM):
        head = head[3:]
    first = first_json_line(head)
    if isinstance(first, dict):
        if isinstance(first.get("session"), dict) and isinstance(first.get("items"), list):
            return 85  # a TypeScript-era document written on one line
        payload = first.get("payload")
        if isinstance(payload, dict) and "timestamp" in first:
            kind = first.get("type")
            if kind == "session_meta":
                return 95
            if kind in ("response_item", "event_msg", "turn_context", "compacted"):
                return 70  # a rollout without its first line
            return 0
        if "id" in first and "timestamp" in first and "type" not in first and "role" not in first:
            if "instructions" in first or "git" in first:
                return 85
            return 40 if _later_lines_are_items(head) else 0
        return 0
    match = _ENVELOPE_HEAD.match(head)
    if match:  # a first line longer than the head (huge base instructions)
        return 90 if match.group(1) == b"session_meta" else 65
    return _sniff_document(head)


def _later_lines_are_items(head: bytes) -> bool:
    for line in head.split(b"\n")[1:4]:
        if b'"record_type"' in line[:40] or any(f'"type":"{t}"'.encode() in line[:60] for t in _ITEM_TYPES):
            return True
    return False


def _sniff_document(head: bytes) -> int:
    """The TypeScript-era document: ``{"session": {...}, "items": [...]}``."""
    if not head.lstrip()[:1] == b"{":
        return 0
    top: set[str] = set()
    session_keys: set[str] = set()
    for prefix, event, value in head_tokens(head):  # a cut head: what was read is enough
        if event == "map_key":
            if prefix == "":
                top.add(value)
            elif prefix == "session":
                session_keys.add(value)
    if "session" in top and session_keys >= {"id", "timestamp"}:
        return 85 if "items" in top or "instructions" in session_keys else 60
    if top and top <= {"session", "items"} and "items" in top:
        return 50
    return 0


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    if first_significant_byte(stream) == b"{" and _is_document(stream):
        yield from read_document(stream, ctx)
    else:
        yield from read_rollout(stream, ctx)


def _is_document(stream: BinaryIO) -> bool:
    """A JSONL rollout's first line is a complete object; the document's is
    only ``{`` (it is pretty-printed) or spans the whole file."""
    head = stream.peek(1 << 16)[: 1 << 16]
    if head.startswith(BOM):
        head = head[3:]
    first_line = head.lstrip().split(b"\n", 1)[0].strip()
    if first_line == b"{":
        return True
    first = first_json_line(head)
    if isinstance(first, dict):
        return "items" in first and "payload" not in first
    return first is None and _sniff_document(head) > 0


def read_document(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    items = ItemConverter()
    if ctx.options.get("keep_images"):
        items.keep_images()
    items.on_unknown = ctx.unknown
    items.on_unknown_part = lambda name: ctx.unknown(name, what="content part")
    started = False
    count = 0
    for kind, value in walk_document(stream, ctx, keys=("items",)):
        if kind == "start":
            if started:
                continue
            started = True
            yield _document_session(value)
        elif kind == "item":
            count += 1
            if not isinstance(value, dict):
                ctx.bad_record(f"expected an item object, found a JSON {type(value).__name__}", path=f"items[{count - 1}]")
                continue
            for event in items.convert(value, None):
                if event["role"] == "user" and looks_injected(event["text"]):
                    event.setdefault("meta", {})["injected"] = True
                yield event
    if not started:
        yield _document_session({})
    skipped = dict(items.skipped) or None
    counts = dict(items.counts)
    if items.pending:
        counts["callsWithoutOutput"] = len(items.pending)
    yield end_event(counts=counts or None, skipped=skipped, unknown=ctx.report_unknown() or None)


def _document_session(header: dict) -> dict:
    session = header.get("session") if isinstance(header.get("session"), dict) else {}
    metadata = meta_metadata(session)
    metadata["codexEra"] = "typescript"
    sid = session.get("id")
    created = session.get("timestamp")
    return session_event(
        "codex",
        sessionId=sid if isinstance(sid, str) else None,
        createdAt=created if isinstance(created, str) else None,
        metadata=metadata,
    )


IMPORTER = Importer(
    name="codex",
    description="OpenAI Codex CLI rollouts (rollout-*.jsonl, .jsonl.zst, early rollout-*.json), every era",
    read=read,
    sniff=sniff,
    patterns=("rollout-*.jsonl", "rollout-*.jsonl.zst", "rollout-*.json"),
    census="sessionport.formats.codex.census:census",
    options=(
        Option(
            name="skip_inherited",
            flags=("--skip-inherited",),
            help="Codex: leave out the history a resumed or forked rollout copied from its parent.",
            is_flag=True,
        ),
    ),
    versions=("TypeScript CLI (rollout-*.json)", "pre-envelope JSONL (2025-08)", "0.34.0", "0.36.0", "0.40.0", "0.46.0", "0.132.0", "0.137.0", "0.141.0", "0.146.0"),
)
