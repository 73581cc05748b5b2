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

from typing import BinaryIO, Iterator

from sessionport.context import ReadContext
from sessionport.jsondoc import first_significant_byte, walk_document
from sessionport.jsonl import BOM, first_json_line
from sessionport.model import end_event, session_event
from sessionport.registry import Importer, Option
from sessionport.formats.codex.exec_json import read_exec_stream, starts_exec_stream
from sessionport.formats.codex.items import ItemConverter, looks_injected
from sessionport.formats.codex.meta import meta_metadata
from sessionport.formats.codex.rollout import read_rollout
from sessionport.formats.codex.sniff import _sniff_document, sniff


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    # The reader's own generator, not one delegating to it: every event
    # passes through each generator level on its way out.
    if first_significant_byte(stream) == b"{" and _is_document(stream):
        return read_document(stream, ctx)
    if starts_exec_stream(stream):
        return read_exec_stream(stream, ctx)
    return read_rollout(stream, ctx)


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
    usage="sessionport.formats.codex.usage_scan:usage_census",
    title_scan="sessionport.formats.codex.title_scan:title_scan",
    options=(
        Option(
            name="skip_inherited",
            flags=("--skip-inherited",),
            help="Codex: leave out the history a resumed or forked rollout copied from its parent.",
            is_flag=True,
        ),
    ),
    versions=("TypeScript CLI (rollout-*.json)", "pre-envelope JSONL (2025-08)", "0.34.0", "0.36.0", "0.39.0", "0.40.0", "0.46.0", "0.47.0", "0.132.0", "0.137.0", "0.141.0", "0.146.0", "0.149.0", "0.153.4", "0.154.0", "0.160.0", "0.161.0", "0.171.0", "codex exec --json (0.171.0)"),
)
