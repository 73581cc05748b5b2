"""What ``inspect`` needs of a Codex rollout, without parsing what it never counts.

The census is the reader itself (:class:`RolloutReader`, its loop, every
record handler, the pairing of prompts, calls and results, the inherited
history and the end event), summarized as ``inspect`` summarizes any
read.  One step differs: a ``response_item`` line of a type the item
converter knows is decoded by msgspec into a typed envelope that declares
only the payload fields the reader's state and a summary use; the rest of
the payload (call arguments, patch inputs, shell outputs, encrypted
reasoning: most of a rollout's bytes) is skipped unparsed.  The reader
then handles that partial item as it handles any other, so a message's
role, kind, tool, model and timestamp, and every pairing rule, are the
reader's; only texts and metadata no summary reads come out empty.

While nothing waits in the reader (no user prompt looking for its pair,
no shell result held, no copied history), the commonest items (assistant
and developer messages, reasoning, function and custom tool calls and
their outputs) are not even handed back: the census counts their message
itself and keeps the converter's state as the reader does (the model, the
calls waiting for an output through ``ItemConverter.open_call`` and
``close_call``, unknown content parts through ``content_text``).  Any other
item type, or a common one while something waits, takes the reader's
handling.

Every other line (another record type, a new item type, a line msgspec
rejects or that is not valid UTF-8, anything before the session starts)
is parsed by the reader in full, so a change to the reader's handling
reaches the census with no change here.  ``tests/formats/test_census.py``
checks that both give the same ``inspect --json`` on every corpus file,
fixture, generated and adversarial rollout.

Payload fields kept: ``type``, ``role``, ``phase``, ``content`` (message
texts decide prompts and injected context; their part types are reported
when unknown), ``summary`` (reasoning: whether it holds text), ``name``,
``call_id``, ``id`` (call pairing, mirrored searches and images),
``result`` (an image generation's result makes a message).
"""

from __future__ import annotations

from typing import Any, BinaryIO

import msgspec

from sessionport.context import ReadContext
from sessionport.jsondoc import first_significant_byte
from sessionport.summary import SessionSummary, Summarizer, summarize
from sessionport.typed_decode import DECODE_ERRORS, decodable
from sessionport.formats.codex.items import _HANDLERS, content_text
from sessionport.formats.codex.reader import _is_document, read_document
from sessionport.formats.codex.rollout import RolloutReader


class Item(msgspec.Struct):
    type: Any = None
    role: Any = None
    phase: Any = None
    content: Any = None
    summary: Any = None
    name: Any = None
    call_id: Any = None
    id: Any = None
    result: Any = None


class Envelope(msgspec.Struct):
    payload: Item
    timestamp: Any = None
    type: Any = None


_decode = msgspec.json.Decoder(Envelope).decode
_asdict = msgspec.structs.asdict
# The item types the converter has a handler for; any other goes to the
# reader's full parse (and its unknown-type policy).
PARTIAL_TYPES = {name.encode(): name for name in _HANDLERS}
_FIELDS = Item.__struct_fields__


_OUTPUTS = frozenset(("function_call_output", "custom_tool_call_output"))
_CALLS = frozenset(("function_call", "custom_tool_call"))
_RESULT = ("tool", "tool_result", None, None)
_SYSTEM = ("system", "text", None, None)


class RolloutCensus(RolloutReader):
    """:class:`RolloutReader` with the partial parse of known items."""

    def __init__(self, ctx: ReadContext) -> None:
        super().__init__(ctx)
        self.decoded = 0  # lines taken by the typed decode (tests read it)
        self.counted = 0  # of these, the ones counted here, never handed back
        self.out = Summarizer()
        # Messages counted here: (role, kind, tool, model) -> how many beyond
        # the first, which went through SessionSummary.count when it was
        # seen (so counters keep their first-seen order); added, with the
        # earliest and latest timestamps, when the input ends.
        self.tally: dict[tuple, int] = {}
        self.tally_session: SessionSummary | None = None
        self.low: str | None = None
        self.high: str | None = None

    def partial_item(self, line: bytes, payload_type: bytes | None) -> dict | None:
        name = PARTIAL_TYPES.get(payload_type)
        if name is None:
            return None
        if not decodable(line):
            return None
        try:
            record = _decode(line)
        except DECODE_ERRORS:
            return None  # the reader's parse reports it, or reads what msgspec would not
        item = record.payload
        # A repeated key: what orjson keeps is what counts.
        if record.type != "response_item" or item.type != name:
            return None
        self.decoded += 1
        # While nothing waits in the reader, the common items are counted
        # here (see the module's doc); else the reader handles the item.
        if not (self.queue or self.recent_prompts or self.inherit_from is not None or self.exec_held or self.exec_written):
            items = self.items
            if name in _CALLS:
                tool = str(item.name or "unknown")
                items.open_call(item.call_id, tool)
                items.counts["toolCalls"] += 1
                message = ("tool", "tool_use", tool, items.model or None)
            elif name in _OUTPUTS:
                items.close_call(item.call_id)
                items.counts["toolResults"] += 1
                message = _RESULT
            elif name == "reasoning":
                if not content_text(item.summary) and not content_text(item.content):
                    self.counted += 1
                    return False  # no text: no message
                items.counts["thinking"] += 1
                message = ("assistant", "thinking", None, items.model or None)
            elif name == "message" and (item.role == "assistant" or item.role == "developer" or item.role == "system"):
                content_text(item.content, items.on_unknown_part)
                items.counts["messages"] += 1
                message = ("assistant", "text", None, items.model or None) if item.role == "assistant" else _SYSTEM
            else:
                message = None
            if message is not None:
                self.last_compaction = False
                self.counted += 1
                stamp = record.timestamp
                if stamp.__class__ is str:
                    if self.high is None:
                        self.low = self.high = stamp
                    elif stamp > self.high:
                        self.high = stamp
                    elif stamp < self.low:
                        self.low = stamp
                seen = self.tally.get(message)
                if seen is None:
                    self._introduce(message, stamp)
                else:
                    self.tally[message] = seen + 1
                return False
        payload = {field: value for field in _FIELDS if (value := getattr(item, field)) is not None}
        return {"timestamp": record.timestamp, "type": "response_item", "payload": payload}

    def _introduce(self, message: tuple, stamp: Any) -> None:
        session = self.out.current
        if self.tally_session is not session:
            self._close_tally()
            self.tally_session = session
        session.count(*message, stamp if stamp.__class__ is str else None)
        self.tally[message] = 0

    def _close_tally(self) -> None:
        """Add what was tallied to the session it was counted into."""
        session = self.tally_session
        if session is not None:
            for (role, kind, tool, model), extra in self.tally.items():
                if extra:
                    session.messages += extra
                    session.roles[role] += extra
                    session.kinds[kind] += extra
                    if tool:
                        session.tools[tool] += extra
                    if model:
                        session.models[model] += extra
            for stamp in (self.low, self.high):
                if stamp is not None:
                    if session.first is None or stamp < session.first:
                        session.first = stamp
                    if session.last is None or stamp > session.last:
                        session.last = stamp
        self.tally.clear()
        self.tally_session, self.low, self.high = None, None, None

    def summarize(self, stream: BinaryIO) -> list[SessionSummary]:
        take = self.out.take
        for event in self.run(stream):
            take(event)
        self._close_tally()
        return self.out.sessions


def census(stream: BinaryIO, ctx: ReadContext) -> list[SessionSummary]:
    """The ``inspect`` summaries of a Codex input (see the module's doc)."""
    if first_significant_byte(stream) == b"{" and _is_document(stream):
        # The early single-document era is small and rare: its full read.
        return summarize(read_document(stream, ctx))
    return RolloutCensus(ctx).summarize(stream)
