"""Grouping a sessionport stream into provider turns with unbroken tool pairing.

Provider APIs want what a transcript does not always hold: every tool call
answered by a result in the very next turn, results that name their call,
and nothing (not even a system message) between a call and its result.
:func:`iter_turns` turns events into :class:`Turn` objects that guarantee
it, for the Anthropic and OpenAI exporters alike:

- Consecutive assistant-side events (text, thinking, tool calls) form one
  assistant turn; consecutive user-side events (user text, tool results)
  one user turn.  Only one turn is held at a time.
- A call without an id gets a synthesized one; a result without an id
  answers the oldest open call of the same tool name (else the oldest).
- A call still unanswered when its user turn closes gets a ``missing``
  result part (the exporter writes :data:`MISSING_RESULT_TEXT`).
- A result whose call is not open becomes an ``orphan`` part, written as
  plain user text naming the call, never as a dangling tool result.
- A system message that arrives while calls are open is held until their
  results have been written.
- Sub-agent messages inlined in the main thread (``meta.sidechain``, Claude
  Code 1.0.x) are left out and counted: they would split a call from its
  result, and a request holds one thread.  Sub-agent *sessions* (their own
  session event) are exported like any session.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import orjson

from sessionport.formats.providers.content import MISSING_RESULT_TEXT

# At most this many results wait for the rest of their answer's calls.
HELD_RESULTS = 256

__all__ = [
    "MISSING_RESULT_TEXT",
    "Part",
    "arguments_of",
    "call_name",
    "Turn",
    "TurnStats",
    "iter_turns",
    "meta_of",
    "orphan_text",
    "result_output",
    "side_of",
    "system_role",
    "text_content",
    "user_text",
]


@dataclass
class Part:
    """One piece of a turn: ``kind`` is text, thinking, tool_use,
    tool_result, missing_result or orphan_result."""

    kind: str
    event: dict | None
    call_id: str | None = None
    name: str | None = None


@dataclass
class Turn:
    role: str  # system | assistant | user
    parts: list[Part] = field(default_factory=list)
    leading: bool = False  # a system turn before any conversation


@dataclass
class TurnStats:
    synthesized_ids: int = 0
    missing_results: int = 0
    orphan_results: int = 0
    sidechain: int = 0
    model: str | None = None

    def warn_all(self, warn: Callable[[str], None]) -> None:
        if self.synthesized_ids:
            warn(f"{self.synthesized_ids} tool call id(s) were missing and have been synthesized")
        if self.missing_results:
            warn(f"{self.missing_results} tool call(s) had no recorded result; a placeholder result was written for each")
        if self.orphan_results:
            warn(f"{self.orphan_results} tool result(s) had no matching call; written as user text")
        if self.sidechain:
            warn(
                f"{self.sidechain} sub-agent message(s) inlined in the main thread (meta.sidechain) left out: "
                "a provider request holds one thread"
            )


def arguments_of(event: dict) -> str:
    """The JSON-string ``arguments`` of a call: its structured input, or the
    raw text the source held when that was not a JSON object."""
    tool_input = event.get("toolInput")
    raw = (event.get("meta") or {}).get("rawArguments")
    if tool_input is None and isinstance(raw, str):
        return raw
    return orjson.dumps(tool_input if tool_input is not None else {}).decode()


def meta_of(part: Part) -> dict:
    return (part.event or {}).get("meta") or {}


def call_name(part: Part) -> str:
    """The name written for a call; the APIs reject an empty one."""
    return part.name or "unknown_tool"


def system_role(part: Part) -> str:
    """``developer`` for a system message that came from one, else ``system``."""
    return "developer" if meta_of(part).get("sourceRole") == "developer" else "system"


def result_output(part: Part) -> str | None:
    """The output to write for a result part (the placeholder text for a
    ``missing_result``), or None for a part that is not a result."""
    if part.kind == "tool_result":
        return (part.event or {}).get("text", "")
    if part.kind == "missing_result":
        return MISSING_RESULT_TEXT
    return None


def user_text(part: Part) -> str:
    """The text of a user-side part that is not a result: an orphan result
    as text naming its call, else the message text ("" when it has none)."""
    if part.kind == "orphan_result":
        return orphan_text(part)
    return (part.event or {}).get("text") or ""


def text_content(texts: list[str], part_type: str) -> str | list[dict]:
    """One text as a plain string, several as a list of typed text parts."""
    if len(texts) == 1:
        return texts[0]
    return [{"type": part_type, "text": t} for t in texts]


def orphan_text(part: Part) -> str:
    """A result whose call is unknown, as user text that names the call."""
    event = part.event or {}
    label = part.name or part.call_id or "an unknown call"
    return f"[tool result for {label}]\n{event.get('text', '')}"


def side_of(event: dict) -> tuple[str, str]:
    """(turn role, part kind) of a message event."""
    role = event.get("role")
    kind = (event.get("meta") or {}).get("kind", "text")
    if role == "tool" or kind in ("tool_use", "tool_result"):
        if kind == "tool_use" or (kind != "tool_result" and ("toolName" in event or "toolInput" in event)):
            return "assistant", "tool_use"
        return "user", "tool_result"
    if role == "assistant":
        return "assistant", "thinking" if kind == "thinking" else "text"
    if role == "system":
        return "system", "text"
    return "user", "text"


class _Builder:
    def __init__(self, normalize_id: Callable[[str], str], id_prefix: str, stats: TurnStats) -> None:
        self.normalize_id = normalize_id
        self.id_prefix = id_prefix
        self.stats = stats
        self.counter = itertools.count(1)
        self.current: Turn | None = None
        self.pending: dict[str, Part] = {}  # open calls by their source id (or new id)
        self.held: list[dict] = []
        self.started = False
        # Calls of the assistant turn being built, in order; they become
        # open (``pending``) when that turn closes.
        self._turn_calls: list[tuple[str, Part]] = []
        # Look-ups that a search of those two would cost per call or result
        # (40,000 unanswered calls took 37 s): the keys of ``_turn_calls``,
        # and the keys of ``pending`` by tool name, oldest first.
        self._turn_keys: set[str] = set()
        self._pending_by_name: dict[str | None, dict[str, None]] = {}
        # The API message the calls of the assistant turn came in (Claude
        # Code's ``meta.messageId``), and the results held while more of
        # its calls may follow: Claude Code 2.1.9x writes a parallel call's
        # result as soon as the tool ends, before the answer's next call.
        self._turn_message: str | None = None
        self._held_results: list[dict] = []
        self._held_keys: set[str] = set()

    def _new_id(self) -> str:
        self.stats.synthesized_ids += 1
        return f"{self.id_prefix}{next(self.counter):04d}"

    def feed(self, event: dict) -> Iterator[Turn]:
        side, kind = side_of(event)
        model = (event.get("meta") or {}).get("model")
        if self.stats.model is None and isinstance(model, str):
            self.stats.model = model
        if side == "system":
            yield from self._system(event)
            return
        if self._held_results:
            if kind == "tool_result" and self._answers_turn(event):
                yield from self._hold_result(event)
                return
            if side != "assistant" or not self._same_message(event):
                yield from self._release_results()
        elif kind == "tool_result" and self._turn_message is not None and self.current is not None and self.current.role == "assistant" and self._answers_turn(event):
            yield from self._hold_result(event)
            return
        if self.current is None or self.current.role != side:
            yield from self._flush()
            self.current = Turn(side)
        self.started = True
        turn = self.current
        if kind == "tool_use":
            raw = event.get("toolCallId")
            if isinstance(raw, str) and raw and raw not in self.pending and raw not in self._turn_keys:
                call_id = self.normalize_id(raw)
            else:
                call_id, raw = self._new_id(), None
            part = Part("tool_use", event, call_id, event.get("toolName") or None)
            turn.parts.append(part)
            self._turn_calls.append((raw or call_id, part))
            self._turn_keys.add(raw or call_id)
            message = (event.get("meta") or {}).get("messageId")
            self._turn_message = message if isinstance(message, str) and message else None
        elif kind == "tool_result":
            turn.parts.append(self._result(event))
        else:
            turn.parts.append(Part(kind, event))

    def _answers_turn(self, event: dict) -> bool:
        """Whether a result answers a call of the assistant turn being built."""
        raw = event.get("toolCallId")
        return isinstance(raw, str) and raw in self._turn_keys and raw not in self._held_keys

    def _same_message(self, event: dict) -> bool:
        message = (event.get("meta") or {}).get("messageId")
        return message is not None and message == self._turn_message

    def _hold_result(self, event: dict) -> Iterator[Turn]:
        self._held_results.append(event)
        self._held_keys.add(event["toolCallId"])
        if len(self._held_keys) >= len(self._turn_keys) or len(self._held_results) > HELD_RESULTS:
            yield from self._release_results()  # every call answered: the answer is whole

    def _release_results(self) -> Iterator[Turn]:
        """The assistant turn, then a user turn holding the results held."""
        held, self._held_results, self._held_keys = self._held_results, [], set()
        yield from self._flush()
        self.current = Turn("user")
        self.started = True
        for event in held:
            self.current.parts.append(self._result(event))

    def _result(self, event: dict) -> Part:
        raw = event.get("toolCallId")
        key = None
        if isinstance(raw, str) and raw in self.pending:
            key = raw
        elif not raw:
            name = event.get("toolName")
            key = next(iter(self._pending_by_name.get(name) or ()), None) if name else None
            if key is None and self.pending:
                key = next(iter(self.pending))
        if key is None:
            self.stats.orphan_results += 1
            return Part("orphan_result", event, raw if isinstance(raw, str) else None, event.get("toolName"))
        call = self.pending.pop(key)
        self._pending_by_name.get(call.name, {}).pop(key, None)
        return Part("tool_result", event, call.call_id, call.name)

    def _system(self, event: dict) -> Iterator[Turn]:
        if not self.started:
            if self.current is None:
                self.current = Turn("system", leading=True)
            self.current.parts.append(Part("text", event))
            return
        assistant_calls = self.current is not None and self.current.role == "assistant" and self._turn_calls
        if self.pending or assistant_calls:
            self.held.append(event)
            return
        if self.current is None or self.current.role != "system":
            yield from self._flush()
            self.current = Turn("system")
        self.current.parts.append(Part("text", event))

    def _flush(self) -> Iterator[Turn]:
        turn, self.current = self.current, None
        if turn is None:
            return
        if turn.role == "assistant":
            for key, part in self._turn_calls:
                earlier = self.pending.get(key)  # a synthesized id a source's call held as its own
                if earlier is not None and earlier.name != part.name:
                    self._pending_by_name.get(earlier.name, {}).pop(key, None)
                self.pending[key] = part
                self._pending_by_name.setdefault(part.name, {})[key] = None
            self._turn_calls = []
            self._turn_keys = set()
            self._turn_message = None
            yield turn
            return
        if turn.role == "user":
            results = [p for p in turn.parts if p.kind == "tool_result"]
            for part in self.pending.values():
                self.stats.missing_results += 1
                results.append(Part("missing_result", None, part.call_id, part.name))
            self.pending = {}
            self._pending_by_name = {}
            turn.parts = results + [p for p in turn.parts if p.kind != "tool_result"]
            yield turn
            yield from self._release_held()
            return
        yield turn

    def _release_held(self) -> Iterator[Turn]:
        if self.held:
            held, self.held = self.held, []
            yield Turn("system", [Part("text", e) for e in held])

    def finish(self) -> Iterator[Turn]:
        if self._held_results:
            yield from self._release_results()
        yield from self._flush()
        if self.pending:
            self.current = Turn("user")
            yield from self._flush()
        yield from self._release_held()


def iter_turns(
    events: Iterable[dict],
    *,
    normalize_id: Callable[[str], str] = lambda raw: raw,
    id_prefix: str = "call_sp",
    stats: TurnStats | None = None,
) -> Iterator[tuple[str, object]]:
    """Yield ``("session", event)``, ``("turn", Turn)``... and ``("end", event)``."""
    builder = _Builder(normalize_id, id_prefix, stats or TurnStats())
    for event in events:
        kind = event.get("type")
        if kind == "message":
            if (event.get("meta") or {}).get("sidechain") is True:
                builder.stats.sidechain += 1
                continue
            for turn in builder.feed(event):
                yield "turn", turn
        elif kind == "session":
            yield "session", event
        elif kind == "end":
            for turn in builder.finish():
                yield "turn", turn
            yield "end", event
    for turn in builder.finish():
        yield "turn", turn
