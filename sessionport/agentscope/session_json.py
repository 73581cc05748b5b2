"""``session-json``: loose tool-call logs, read as AgentScope's Session JSON adapter reads them.

Accepted shapes: a JSON array of entries; an object holding the entries
under the first of ``events, messages, actions, entries, toolCalls,
tool_calls, steps``; or JSON Lines with one entry per line (optionally a
first line holding only session keys such as ``title`` and ``agent``).
Field rules: :mod:`.session_json_fields`; session keys and detection:
:mod:`.session_json_header`; the mapping table: docs/formats/session-json.md.

Streaming: documents are walked with ijson, one entry at a time.  The
session event waits for at most the first 8 entries (the agent is inferred
from them).  When an object's title keys do not come before its entries
array, the converted messages are spooled to a temporary file until the
document ends, so the session event can carry the title; memory stays flat.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.io import spool_file
from sessionport.jsondoc import first_significant_byte, walk_document
from sessionport.jsonl import BOM, iter_records
from sessionport.model import end_event, message_event
from sessionport.registry import Importer
from sessionport.agentscope.session_json_fields import entry_messages
from sessionport.agentscope.session_json_header import (
    ENTRY_KEYS,
    HEADER_KEYS,
    INFERENCE_SAMPLE,
    TITLE_KEYS,
    build_session,
    file_name,
    sniff,
)

PEEK = 1 << 16
NO_ACTION_HINT = (
    "session-json reads entries that name a tool (tool, toolName, name, type, function.name) or carry a "
    "command, file or diff; name the right format with --from if this is another kind of file"
)


class _Assembler:
    """Turns entries into events and puts the session event in front of them."""

    def __init__(self, ctx: ReadContext, header: dict, shape: str, *, wait_for_header: bool) -> None:
        self.ctx = ctx
        self.header = header
        self.shape = shape
        self.sample: list[Any] = []
        self.pending: list[dict] = []
        self.spool = spool_file() if wait_for_header else None
        self.session_sent = False
        self.known_calls: set[str] = set()
        self.entries = 0
        self.actions = 0
        self.results = 0
        self.skipped: Counter[str] = Counter()
        self.first_timestamp: str | None = None

    def entry(self, value: Any) -> Iterator[dict]:
        if len(self.sample) < INFERENCE_SAMPLE:
            self.sample.append(value)
        messages, skipped = entry_messages(value, self.entries, self.known_calls)
        self.entries += 1
        if skipped:
            self.skipped[skipped] += 1
        for message in messages:
            if message["meta"]["kind"] == "tool_use":
                self.actions += 1
                self.first_timestamp = self.first_timestamp or message.get("timestamp")
            else:
                self.results += 1
        if self.session_sent:
            yield from messages
        elif self.spool is not None:
            for message in messages:
                self.spool.write(orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE))
        else:
            self.pending.extend(messages)
            if self.entries >= INFERENCE_SAMPLE:
                yield from self._send_session(self.header)

    def _send_session(self, header: dict) -> Iterator[dict]:
        self.session_sent = True
        name = file_name(self.ctx.name, self.ctx.path)
        yield build_session(header, self.sample, self.first_timestamp, name, self.shape)
        pending, self.pending = self.pending, []
        yield from pending
        if self.spool is not None:
            self.spool.seek(0)
            for line in self.spool:
                yield orjson.loads(line)
            self.spool.close()
            self.spool = None

    def finish(self, header: dict | None = None) -> Iterator[dict]:
        if header is not None:
            self.header = header
        if self.actions == 0:
            self._no_action()
        left_out = sum(self.skipped.values())
        if left_out:
            kinds = ", ".join(f"{name} x{n}" for name, n in self.skipped.most_common(5))
            more = ", ..." if len(self.skipped) > 5 else ""
            self.ctx.warn(f"{left_out} of {self.entries} entries name no tool call this format reads and were left out ({kinds}{more}); counted in the end event's skipped")
        if not self.session_sent:
            yield from self._send_session(self.header)
        summary = self.header.get("summary")
        if isinstance(summary, str) and summary.strip():
            yield message_event("assistant", summary, meta={"kind": "summary"})
        counts = {"entries": self.entries, "actions": self.actions, "results": self.results}
        yield end_event(counts=counts, skipped=dict(self.skipped) or None)

    def _no_action(self) -> None:
        if self.entries == 0:
            keys = ", ".join(list(self.header)[:10]) or "none"
            problem = (
                "expected a JSON array of tool-call entries, an object with one of the arrays "
                f"{', '.join(ENTRY_KEYS)}, or one entry per line; found no entries (top-level keys: {keys})"
            )
        else:
            kinds = ", ".join(f"{name} x{n}" for name, n in self.skipped.most_common(5))
            problem = f"no supported tool-call action found in {self.entries} entries (skipped: {kinds})"
        raise DataError(self.ctx.name, problem, hint=NO_ACTION_HINT)


def _looks_like_lines(stream: BinaryIO) -> bool:
    """One JSON object per line, rather than one (possibly pretty-printed) document."""
    head = stream.peek(PEEK)[:PEEK] if hasattr(stream, "peek") else b""
    if head.startswith(BOM):
        head = head[3:]
    head = head.lstrip(b" \t\r\n")
    first, sep, rest = head.partition(b"\n")
    if not sep or not rest.strip():
        return False
    try:
        value = orjson.loads(first.decode("utf-8", "replace"))
    except orjson.JSONDecodeError:
        return False
    # A document cannot go on after a complete object on its first line.
    return isinstance(value, dict)


def _read_lines(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    assembler: _Assembler | None = None
    for _, value in iter_records(stream, ctx):
        if assembler is None:
            header: dict = {}
            if isinstance(value, dict) and HEADER_KEYS & value.keys() and not entry_messages(value, 0, set())[0]:
                header = value  # a first line holding only session keys
                value = None
            assembler = _Assembler(ctx, header, "jsonl", wait_for_header=False)
            if value is None:
                continue
        yield from assembler.entry(value)
    if assembler is None:
        assembler = _Assembler(ctx, {}, "jsonl", wait_for_header=False)
    yield from assembler.finish()


def _read_document(stream: BinaryIO, ctx: ReadContext, top: bytes) -> Iterator[dict]:
    assembler: _Assembler | None = None
    shape = "array" if top == b"[" else "object"
    for kind, value in walk_document(stream, ctx, ENTRY_KEYS):
        if kind == "start":
            header = value if isinstance(value, dict) else {}
            titled = any(isinstance(header.get(k), str) for k in TITLE_KEYS)
            assembler = _Assembler(ctx, header, shape, wait_for_header=shape == "object" and not titled)
        elif kind == "item":
            assert assembler is not None
            yield from assembler.entry(value)
        else:
            assert assembler is not None
            document = value if isinstance(value, dict) else {}
            if shape == "object" and assembler.entries == 0:
                # A single entry on its own, not wrapped in an array.
                has_array = any(k in document for k in ENTRY_KEYS)
                if not has_array and entry_messages(document, 0, set())[0]:
                    assembler.header, assembler.shape = {}, "entry"
                    yield from assembler.entry(document)
                    document = {}
            yield from assembler.finish(document if shape == "object" else None)
            return
    if assembler is not None:  # the document was cut off; what was read still counts
        yield from assembler.finish()


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    top = first_significant_byte(stream)
    if top == b"{" and _looks_like_lines(stream):
        yield from _read_lines(stream, ctx)
    elif top in (b"{", b"["):
        yield from _read_document(stream, ctx, top)
    elif not top:
        raise DataError(ctx.name, "the input is empty; expected a JSON array, a JSON object or JSON Lines")
    else:
        raise DataError(
            ctx.name,
            f"expected a JSON array, a JSON object or one JSON object per line, found {top.decode('latin-1')!r}",
            line=1,
            hint=NO_ACTION_HINT,
        )


IMPORTER = Importer(
    name="session-json",
    description="loose tool-call logs of any agent (AgentScope's Session JSON adapter): JSON array, object or JSONL",
    read=read,
    sniff=sniff,
    patterns=("*.json", "*.jsonl"),
)
