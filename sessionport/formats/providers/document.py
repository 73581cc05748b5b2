"""Writing one provider request document incrementally.

``{"model": ..., "system": ..., "messages": [`` goes out when the first
message is ready, each message is written as soon as its turn is complete,
and keys only known at the end (a model first named late) follow the array:
JSON object key order does not matter to the APIs.  Memory holds one turn.

:class:`TurnWriter` is what the provider exporters' writers share: the
document, the turn statistics, the session's model, the loop that feeds them
turns and the common end of the document.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Iterable


from sessionport import jsonout
from sessionport.context import WriteContext
from sessionport.formats.providers.turns import Turn, TurnStats, iter_turns


class RequestDocument:
    def __init__(self, out: BinaryIO, array_key: str) -> None:
        self.out = out
        self.array_key = array_key
        self.opened = False
        self.items = 0
        self.head_keys: set[str] = set()

    def open(self, head: dict) -> None:
        if self.opened:
            return
        body = jsonout.dumps({k: v for k, v in head.items() if v is not None})
        key = jsonout.dumps(self.array_key)
        self.out.write(body[:-1] + (b"," if len(body) > 2 else b"") + key + b":[")
        self.head_keys = {k for k, v in head.items() if v is not None}
        self.opened = True

    def item(self, value: dict) -> None:
        if not self.opened:
            self.open({})
        self.out.write((b"\n" if self.items == 0 else b",\n") + jsonout.dumps(value))
        self.items += 1

    def close(self, tail: dict | None = None) -> None:
        if not self.opened:
            self.open({})
        self.out.write(b"\n]" if self.items else b"]")
        for key, value in (tail or {}).items():
            if value is not None and key not in self.head_keys:
                self.out.write(b"," + jsonout.dumps(key) + b":" + jsonout.dumps(value))
        self.out.write(b"}\n")


class TurnWriter:
    """Base of a provider exporter's writer: subclasses write each turn and
    close with their own warnings after :meth:`close_document`."""

    def __init__(self, out: BinaryIO, ctx: WriteContext, array_key: str) -> None:
        self.doc = RequestDocument(out, array_key)
        self.ctx = ctx
        self.stats = TurnStats()
        self.model: str | None = None

    def turn(self, turn: Turn) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.close_document()

    def close_document(self) -> None:
        """End the document (a model first named by a message goes in its
        tail) and warn about what pairing the turns changed."""
        self.doc.close({"model": self.model or self.stats.model})
        self.stats.warn_all(self.ctx.warn)

    def write(self, events: Iterable[dict], **turn_options: Any) -> None:
        """The whole stream: each session's model, every turn, then the end."""
        for kind, value in iter_turns(events, stats=self.stats, **turn_options):
            if kind == "session":
                model = (value.get("metadata") or {}).get("model")
                self.model = model if isinstance(model, str) else None
            elif kind == "turn":
                self.turn(value)
        self.close()
