"""``gemini``: a generateContent request body the Gemini API accepts as history.

``{"contents": [...], "systemInstruction": {"parts": [...]}}``, written
incrementally, one Content per line:

- user text goes in ``user`` turns, assistant text and thinking (as
  ``{"text", "thought": true}`` parts) in ``model`` turns; consecutive
  messages of one role share one turn;
- a tool call is a ``functionCall`` part of a ``model`` turn, and its result
  a ``functionResponse`` part of the ``user`` turn right after it, as the API
  demands.  A message that arrives while calls still wait for their results
  is held back (at most ``MAX_DEFERRED`` messages) until they come; a call
  whose result never comes gets an ``{"error": ...}`` response, and a result
  without an open call becomes user text, both counted in a warning;
- ``functionResponse.response`` must be an object: plain output is wrapped as
  ``{"output": text}`` (``{"error": text}`` when the result is an error);
- system messages, wherever they occur, go to ``systemInstruction``.
"""

from __future__ import annotations

from collections import Counter
from typing import BinaryIO, Iterable

from sessionport.context import WriteContext
from sessionport.gemini_turns import GeminiTurns
from sessionport.registry import Exporter

def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    counts: Counter = Counter()
    session: GeminiTurns | None = None
    for event in events:
        kind = event.get("type")
        if kind == "message":
            if session is None:
                session = GeminiTurns(out, counts)
            session.message(event)
        elif kind == "session" and session is None:
            session = GeminiTurns(out, counts)
    if session is None:
        session = GeminiTurns(out, counts)
    session.finish()
    if counts:
        ctx.warn("gemini: " + "; ".join(f"{n} {what}" for what, n in counts.items()))


EXPORTER = Exporter(
    name="gemini",
    description="Gemini API generateContent body: contents (user/model turns) and systemInstruction",
    write=write,
    cannot_carry=("media", "timestamps", "usage", "responses items"),
    extension=".json",
)
