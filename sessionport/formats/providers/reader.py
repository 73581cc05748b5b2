"""The reading loop shared by the provider message-list importers.

Each provider importer subclasses :class:`ProviderReader` and says how one
list item becomes events; this loop streams the document with ijson
(``walk_document``: one item in memory at a time), decides from the first
item whether the document is a message list or recorded API traffic
(:mod:`.provider_cassette`), and frames each conversation with its session
and end events.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, BinaryIO, Iterator

from sessionport.context import ReadContext
from sessionport.jsondoc import walk_document
from sessionport.jsonl import iter_records
from sessionport.model import end_event, session_event
from sessionport.formats.providers.cassette import Conversation, RecordedTraffic, is_interaction
from sessionport.formats.providers.content import MISSING_RESULT_TEXT
from sessionport.formats.providers.sniff import conversation_lines


EMPTY = "message without content"
# Where each provider reader keeps a part it does not know (OpenAI, Anthropic, Gemini).
UNKNOWN_PART_KEYS = frozenset(("part", "block", "geminiPart"))


class ProviderReader:
    source = ""
    keys: tuple[str, ...] = ("messages",)

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.model: str | None = None
        self.messages = 0
        self.skipped: Counter = Counter()
        self.notes: list[str] = []
        self.first_empty: str | None = None

    # -- what a format defines -------------------------------------------
    def traffic(self) -> RecordedTraffic:
        raise NotImplementedError

    def header_events(self, header: dict) -> Iterator[dict]:
        """Messages held by document keys (a system prompt, instructions)."""
        return iter(())

    def item_events(self, item: Any, index: int) -> Iterator[dict]:
        raise NotImplementedError

    def tail_events(self, document: dict, items_seen: int) -> Iterator[dict]:
        """Messages held by keys found after the list (or with no list)."""
        return iter(())

    def session_metadata(self, header: dict) -> dict:
        """The request's ``model``, also remembered for the messages."""
        if isinstance(header.get("model"), str):
            self.model = header["model"]
            return {"model": header["model"]}
        return {}

    def placeholder_result(self, text: str, what: str) -> bool:
        """Whether ``text`` is the result a provider exporter wrote for a call
        that had none; such a result is dropped and counted as ``what``."""
        if text == MISSING_RESULT_TEXT:
            self.skipped[what] += 1
            return True
        return False

    # -- the loop ----------------------------------------------------------
    def session(self, header: dict, session_id: str | None = None, created: str | None = None) -> dict:
        metadata = self.session_metadata(header)
        return session_event(self.source, sessionId=session_id or self.default_session_id(), createdAt=created, metadata=metadata)

    def default_session_id(self) -> str | None:
        path = self.ctx.path
        if not path:
            return None
        return os.path.splitext(os.path.basename(path))[0]

    def end(self) -> dict:
        empty = self.skipped.get(EMPTY)
        if empty:
            self.ctx.warn(
                f"{empty} message(s) without content were left out (the first at {self.first_empty}); "
                "they hold no text or part that this format defines"
            )
        self.first_empty = None
        event = end_event(
            counts={"messages": self.messages},
            skipped=dict(self.skipped) or None,
            notes=list(self.notes) or None,
            unknown=self.ctx.report_unknown() or None,
        )
        self.messages, self.skipped, self.notes = 0, Counter(), []
        return event

    def counted(self, events: Iterator[dict]) -> Iterator[dict]:
        for event in events:
            self.messages += 1
            self.note_unknown(event)
            yield event

    def note_unknown(self, event: dict) -> None:
        """A part or block of a type the format's reader does not know is
        kept as a placeholder (``[type]``) holding the whole part in its
        ``meta``; it is also counted under the one policy for the unknown
        (reported once per type, an error with ``--strict``)."""
        meta = event.get("meta")
        if type(meta) is dict and (UNKNOWN_PART_KEYS & meta.keys()):
            text = event.get("text")
            name = text[1:-1] if isinstance(text, str) and text[:1] == "[" and text[-1:] == "]" else "part"
            self.ctx.unknown(name, what="content block", path=self.history_key())

    def item(self, item: Any, index: int) -> Iterator[dict]:
        """The events of one list item, counted.  An object that gives none
        and was neither skipped nor reported by the format (a message
        without ``content``, an empty reply) is counted as
        ``message without content`` and warned about at the end."""
        produced = False
        accounted = sum(self.skipped.values()) + self.ctx.bad_count
        for event in self.item_events(item, index):
            produced = True
            self.messages += 1
            self.note_unknown(event)
            yield event
        if not produced and isinstance(item, dict) and sum(self.skipped.values()) + self.ctx.bad_count == accounted:
            self.skipped[EMPTY] += 1
            if self.first_empty is None:
                self.first_empty = f"{self.history_key()}[{index}]"

    def read(self, stream: BinaryIO) -> Iterator[dict]:
        head = stream.peek(1 << 20) if hasattr(stream, "peek") else b""
        if conversation_lines(head, self.keys):
            yield from self.read_lines(stream)
            return
        yield from self.read_document(stream)

    def read_lines(self, stream: BinaryIO) -> Iterator[dict]:
        """One conversation per line: each line is its own session."""
        number = 0
        base = self.default_session_id()
        for line_no, value in iter_records(stream, self.ctx):
            key = next((k for k in self.keys if isinstance(value, dict) and isinstance(value.get(k), list)), None)
            if key is None:
                self.ctx.bad_record(f"expected an object with a {self.keys[0]} list on this line", line=line_no)
                continue
            number += 1
            header = {k: v for k, v in value.items() if k != key}
            yield self.session(header, session_id=f"{base}#{number}" if base else str(number))
            yield from self.counted(self.header_events(header))
            for index, item in enumerate(value[key]):
                yield from self.item(item, index)
            self.notes.append(f"line {line_no} of a file with one conversation per line")
            yield self.end()

    def read_document(self, stream: BinaryIO) -> Iterator[dict]:
        mode: str | None = None
        header: dict = {}
        traffic = self.traffic()
        index = 0
        conversations = 0
        ended = False
        for kind, value in walk_document(stream, self.ctx, self.keys + ("interactions",)):
            if kind == "start":
                header = value
            elif kind == "item":
                if mode is None:
                    mode = "traffic" if is_interaction(value) else "messages"
                    if mode == "messages":
                        yield self.session(header)
                        yield from self.counted(self.header_events(header))
                if mode == "traffic":
                    done = traffic.add(value) if is_interaction(value) else None
                    if done is not None:
                        conversations += 1
                        yield from self.conversation(done, conversations)
                else:
                    yield from self.item(value, index)
                index += 1
            else:
                ended = True
                if mode == "traffic":
                    break
                if mode is None:
                    yield self.session(value)
                    yield from self.counted(self.header_events(value))
                else:
                    late = {k: v for k, v in value.items() if k not in header}
                    yield from self.counted(self.header_events(late))
                yield from self.counted(self.tail_events(value, index))
                yield self.end()
        if mode == "traffic":
            done = traffic.finish()
            if done is not None:
                conversations += 1
                yield from self.conversation(done, conversations)
            if conversations == 0:
                self.ctx.bad_record(
                    f"this recording of API traffic holds no {self.source} request",
                    path="interactions",
                    hint="name the format of its requests with --from",
                )
        elif mode == "messages" and not ended:
            yield self.end()

    def conversation(self, conv: Conversation, number: int) -> Iterator[dict]:
        """One conversation of recorded traffic: the request's history, then
        the reply."""
        request = {k: v for k, v in conv.request.items() if k != self.history_key()}
        base = self.default_session_id()
        session_id = f"{base}#{number}" if base and number > 1 else base
        yield self.session(request, session_id=session_id)
        yield from self.counted(self.header_events(request))
        for index, item in enumerate(conv.history):
            yield from self.item(item, index)
        for index, item in enumerate(conv.reply):
            yield from self.item(item, len(conv.history) + index)
        self.notes.append(
            f"recorded API traffic: the history of request {conv.interactions} of this conversation and its reply"
        )
        yield self.end()

    def history_key(self) -> str:
        return self.keys[0]
