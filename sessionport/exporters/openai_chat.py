"""``openai-chat``: one Chat Completions request document ``{"messages": [...]}``.

Each assistant turn is one assistant message (its texts, then its
``tool_calls`` with ``arguments`` as a JSON string), followed by one
``role: "tool"`` message per call, before anything else; ids are
synthesized where the source has none.  System messages stay in place
(``developer`` where the source said so).  Chat Completions has no field for
reasoning: thinking is dropped and counted.  See docs/formats/openai-chat.md.
"""

from __future__ import annotations

from typing import BinaryIO, Iterable

from ..context import WriteContext
from ..registry import Exporter
from .provider_document import RequestDocument
from .provider_turns import MISSING_RESULT_TEXT, Part, Turn, TurnStats, iter_turns, orphan_text, arguments_of


def _content(texts: list[str]) -> str | list[dict]:
    if len(texts) == 1:
        return texts[0]
    return [{"type": "text", "text": t} for t in texts]


def _system_role(part: Part) -> str:
    meta = (part.event or {}).get("meta") or {}
    return "developer" if meta.get("sourceRole") == "developer" else "system"


class _Writer:
    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        self.doc = RequestDocument(out, "messages")
        self.ctx = ctx
        self.stats = TurnStats()
        self.model: str | None = None
        self.thinking_dropped = 0

    def turn(self, turn: Turn) -> None:
        if self.model and not self.doc.opened:
            self.doc.open({"model": self.model})
        if turn.role == "system":
            for part in turn.parts:
                if part.event and part.event.get("text"):
                    self.doc.item({"role": _system_role(part), "content": part.event["text"]})
        elif turn.role == "assistant":
            self.assistant(turn)
        else:
            self.user(turn)

    def assistant(self, turn: Turn) -> None:
        texts, calls = [], []
        for part in turn.parts:
            event = part.event or {}
            if part.kind == "tool_use":
                calls.append({"id": part.call_id, "type": "function", "function": {"name": part.name or "unknown_tool", "arguments": arguments_of(event)}})
            elif part.kind == "thinking":
                self.thinking_dropped += 1
            elif event.get("text"):
                texts.append(event["text"])
        if not texts and not calls:
            return
        message: dict = {"role": "assistant"}
        if texts:
            message["content"] = _content(texts)
        if calls:
            message["tool_calls"] = calls
        self.doc.item(message)

    def user(self, turn: Turn) -> None:
        texts = []
        for part in turn.parts:
            event = part.event or {}
            if part.kind == "tool_result":
                self.doc.item({"role": "tool", "tool_call_id": part.call_id, "content": event.get("text", "")})
            elif part.kind == "missing_result":
                self.doc.item({"role": "tool", "tool_call_id": part.call_id, "content": MISSING_RESULT_TEXT})
            elif part.kind == "orphan_result":
                texts.append(orphan_text(part))
            elif event.get("text"):
                texts.append(event["text"])
        if texts:
            self.doc.item({"role": "user", "content": _content(texts)})

    def close(self) -> None:
        self.doc.close({"model": self.model or self.stats.model})
        self.stats.warn_all(self.ctx.warn)
        if self.thinking_dropped:
            self.ctx.warn(f"{self.thinking_dropped} thinking message(s) dropped: Chat Completions has no place for reasoning")


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    writer = _Writer(out, ctx)
    for kind, value in iter_turns(events, id_prefix="call_sp", stats=writer.stats):
        if kind == "session":
            model = (value.get("metadata") or {}).get("model")
            writer.model = model if isinstance(model, str) else None
        elif kind == "turn":
            writer.turn(value)
    writer.close()


EXPORTER = Exporter(
    name="openai-chat",
    description="OpenAI Chat Completions request: {messages: [...]} with assistant tool_calls and role tool results",
    write=write,
    extension=".json",
)
