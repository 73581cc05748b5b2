"""Token usage of Claude Code logs, counted once per API message.

Claude Code writes one API response as several lines (one content block
each) that share ``message.id``; every line repeats ``usage`` and the later
ones may have grown (``output_tokens``).  The right count is the *last*
value per ``message.id``, never the sum over lines.

:class:`UsageGrouper` holds back the events from the first line of an API
message until the message is over, then puts its final usage on the last
event of that message (``meta.usage``) and releases them, in file order.
A message is over when an assistant line of another message arrives, a real
user prompt arrives, the input ends, or the look-ahead bound is reached.

The bound: at most ``MAX_HELD_EVENTS`` events or ``MAX_HELD_CHARS``
characters of text are held.  Past it the message is closed early with the
usage seen so far; if more of its lines arrive later, only the growth is
added (to the end total, and as ``meta.usage`` on the later part), so totals
stay exact.  Finished message ids are remembered for the last
``REMEMBERED_IDS`` messages; a message whose lines are further apart than
that would be counted twice (never seen in real files, where the chunks of
one message are at most a few dozen lines apart).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

MAX_HELD_EVENTS = 512
MAX_HELD_CHARS = 8 << 20
REMEMBERED_IDS = 4096

SHARED_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "total_tokens")


def _int(value: Any) -> int:
    if type(value) is int:
        return value if value > 0 else 0
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value == value and value >= 0:
        return int(value)
    return 0


def shared_usage(raw: Any) -> tuple[int, int, int, int] | None:
    """``(input incl. cache, cache read, cache creation, output)`` of an
    Anthropic usage object, or None when it is not one."""
    if not isinstance(raw, dict):
        return None
    fresh = _int(raw.get("input_tokens"))
    creation = _int(raw.get("cache_creation_input_tokens"))
    read = _int(raw.get("cache_read_input_tokens"))
    return fresh + creation + read, read, creation, _int(raw.get("output_tokens"))


def usage_dict(values: tuple[int, int, int, int]) -> dict[str, int]:
    inp, read, creation, out = values
    return {
        "input_tokens": inp,
        "cached_input_tokens": read,
        "output_tokens": out,
        "total_tokens": inp + out,
        "cache_creation_input_tokens": creation,
    }


def _minus(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, int, int, int]:
    return tuple(x - y for x, y in zip(a, b))  # type: ignore[return-value]


_ZERO = (0, 0, 0, 0)


class UsageGrouper:
    """Orders events and attaches per-message usage; see the module doc."""

    def __init__(self) -> None:
        self.open_id: Any = None
        self.open_usage: tuple[int, int, int, int] | None = None
        self.base: tuple[int, int, int, int] = _ZERO
        self.reopened = False
        self.last_event: dict | None = None
        self.held: list[dict] = []
        self.held_chars = 0
        self.finished: OrderedDict[Any, tuple[int, int, int, int]] = OrderedDict()
        self.total = [0, 0, 0, 0]
        self.messages_with_usage = 0
        self.api_messages = 0

    def assistant(self, message_id: Any, raw_usage: Any, events: list[dict]) -> list[dict]:
        """Events of one assistant line; returns the events now safe to emit."""
        out: list[dict] = []
        if message_id is None or message_id != self.open_id:
            out = self.close()
            self._open(message_id)
        usage = shared_usage(raw_usage)
        if usage is not None:
            self.open_usage = usage
        if events:
            self.last_event = events[-1]
            self._hold(events)
        if self._over_bound():
            out.extend(self.close())
        return out

    def other(self, events: list[dict], ends_turn: bool = False) -> list[dict]:
        """Events of any other line (tool results, prompts, system lines)."""
        if self.open_id is None and not self.held:
            return events
        if ends_turn:
            out = self.close()
            out.extend(events)
            return out
        self._hold(events)
        if self._over_bound():
            return self.close()
        return []

    def close(self) -> list[dict]:
        """Finish the open message: attach its usage, release held events."""
        if self.open_usage is not None:
            final = self.open_usage
            delta = _minus(final, self.base)
            for i in range(4):
                self.total[i] += delta[i]
            if not self.reopened:
                self.messages_with_usage += 1
            if self.last_event is not None and (not self.reopened or any(delta)):
                meta = self.last_event.setdefault("meta", {})
                meta["usage"] = usage_dict(delta)
            if self.open_id is not None:
                self.finished[self.open_id] = final
                self.finished.move_to_end(self.open_id)
                if len(self.finished) > REMEMBERED_IDS:
                    self.finished.popitem(last=False)
        held = self.held
        self.held, self.held_chars = [], 0
        self.open_id, self.open_usage, self.last_event, self.base = None, None, None, _ZERO
        self.reopened = False
        return held

    def _open(self, message_id: Any) -> None:
        self.open_id = message_id
        previous = self.finished.pop(message_id, None) if message_id is not None else None
        if previous is None:
            self.api_messages += 1
            self.base, self.reopened = _ZERO, False
        else:
            self.base, self.reopened = previous, True
            self.open_usage = previous

    def _over_bound(self) -> bool:
        return len(self.held) > MAX_HELD_EVENTS or self.held_chars > MAX_HELD_CHARS

    def _hold(self, events: list[dict]) -> None:
        self.held.extend(events)
        for event in events:
            self.held_chars += len(event.get("text") or "")

    def totals(self) -> dict[str, int] | None:
        if not self.messages_with_usage:
            return None
        return usage_dict(tuple(self.total))  # type: ignore[arg-type]
