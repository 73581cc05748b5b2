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
    if type(raw) is not dict:
        return None
    fresh = _int(raw.get("input_tokens"))
    creation = _int(raw.get("cache_creation_input_tokens"))
    read = _int(raw.get("cache_read_input_tokens"))
    return fresh + creation + read, read, creation, _int(raw.get("output_tokens"))


def thinking_tokens(raw: Any) -> int | None:
    """The thinking share of ``output_tokens`` (``output_tokens_details.
    thinking_tokens``, written by 2.1.2xx), or None when the line has none."""
    details = raw.get("output_tokens_details") if type(raw) is dict else None
    if type(details) is not dict or "thinking_tokens" not in details:
        return None
    value = details["thinking_tokens"]
    return _int(value) if isinstance(value, (int, float)) else None


def usage_dict(values: tuple[int, int, int, int], thinking: int | None = None) -> dict[str, int]:
    inp, read, creation, out = values
    if thinking is None:
        return {
            "input_tokens": inp,
            "cached_input_tokens": read,
            "output_tokens": out,
            "total_tokens": inp + out,
            "cache_creation_input_tokens": creation,
        }
    return {
        "input_tokens": inp,
        "cached_input_tokens": read,
        "output_tokens": out,
        "reasoning_output_tokens": thinking,
        "total_tokens": inp + out,
        "cache_creation_input_tokens": creation,
    }


_ZERO = (0, 0, 0, 0)


class UsageGrouper:
    """Orders events and attaches per-message usage; see the module doc."""

    def __init__(self) -> None:
        self.open_id: Any = None
        # The usage of the open message is only needed when it closes, and
        # only its last value counts: the raw object of the latest line is
        # kept and read once, at close.  ``open_usage`` is what an earlier
        # part of a reopened message counted.
        self.open_raw: dict | None = None
        self.open_usage: tuple[int, int, int, int] | None = None
        self.base: tuple[int, int, int, int] = _ZERO
        self.reopened = False
        self.last_event: dict | None = None
        self.held: list[dict] = []
        self.held_chars = 0
        self.finished: OrderedDict[Any, tuple[int, int, int, int]] = OrderedDict()
        self.total = [0, 0, 0, 0]
        # Thinking tokens (a share of the output), only where lines report
        # them: None until one does.  ``thinking_base`` is what an earlier
        # part of a reopened message counted; ``finished_thinking`` the last
        # count of each finished message that had one.
        self.total_thinking: int | None = None
        self.thinking_base = 0
        self.finished_thinking: OrderedDict[Any, int] = OrderedDict()
        self.messages_with_usage = 0
        self.api_messages = 0

    def assistant(self, message_id: Any, raw_usage: Any, events: list[dict]) -> list[dict] | tuple:
        """Events of one assistant line; returns the events now safe to emit."""
        # Runs once per assistant line: holding is written out here rather
        # than in a helper, and a line that continues the open message
        # returns the shared empty tuple instead of a new list.
        if message_id is None or message_id != self.open_id:
            out: list[dict] | tuple = self.close()
            self._open(message_id)
        else:
            out = ()
        if type(raw_usage) is dict:
            self.open_raw = raw_usage
        if events:
            self.last_event = events[-1]
            # The bound can only be crossed by holding more: no test otherwise.
            if self._hold(events):
                out = [*out, *self.close()]
        return out

    def assistant_event(self, message_id: Any, raw_usage: Any, event: dict) -> list[dict] | tuple:
        """:meth:`assistant` for a line of one event (most lines)."""
        if message_id is None or message_id != self.open_id:
            out: list[dict] | tuple = self.close()
            self._open(message_id)
        else:
            out = ()
        if type(raw_usage) is dict:
            self.open_raw = raw_usage
        self.last_event = event
        held = self.held
        held.append(event)
        chars = self.held_chars = self.held_chars + len(event["text"])
        if len(held) > MAX_HELD_EVENTS or chars > MAX_HELD_CHARS:
            out = [*out, *self.close()]
        return out

    def other_event(self, event: dict) -> list[dict] | tuple:
        """:meth:`other` for a line of one event that does not end a turn."""
        held = self.held
        if self.open_id is None and not held:
            return [event]
        held.append(event)
        chars = self.held_chars = self.held_chars + len(event["text"])
        if len(held) > MAX_HELD_EVENTS or chars > MAX_HELD_CHARS:
            return self.close()
        return ()

    def other(self, events: list[dict], ends_turn: bool = False) -> list[dict] | tuple:
        """Events of any other line (tool results, prompts, system lines)."""
        held = self.held
        if self.open_id is None and not held:
            return events
        if ends_turn:
            out = self.close()
            out += events
            return out
        if self._hold(events):
            return self.close()
        return ()

    def _hold(self, events: list[dict]) -> bool:
        """Hold ``events`` back; True when the look-ahead bound is crossed."""
        held = self.held
        held += events
        chars = self.held_chars
        for event in events:
            chars += len(event["text"])
        self.held_chars = chars
        return len(held) > MAX_HELD_EVENTS or chars > MAX_HELD_CHARS

    def close(self) -> list[dict]:
        """Finish the open message: attach its usage, release held events."""
        raw = self.open_raw
        if raw is None:
            final = self.open_usage
        else:
            # shared_usage written out for the usual counts (ints, none
            # negative); anything else through it.
            fresh = raw.get("input_tokens")
            creation = raw.get("cache_creation_input_tokens")
            read = raw.get("cache_read_input_tokens")
            output = raw.get("output_tokens")
            if (
                type(fresh) is int and type(creation) is int and type(read) is int and type(output) is int
                and fresh >= 0 and creation >= 0 and read >= 0 and output >= 0
            ):
                final = (fresh + creation + read, read, creation, output)
            else:
                final = shared_usage(raw)
        if final is not None:
            base = self.base
            if base is _ZERO:
                delta = final
            else:
                delta = (final[0] - base[0], final[1] - base[1], final[2] - base[2], final[3] - base[3])
            total = self.total
            total[0] += delta[0]
            total[1] += delta[1]
            total[2] += delta[2]
            total[3] += delta[3]
            thinking = thinking_tokens(raw) if raw is not None else None
            if thinking is not None:
                thinking_delta = thinking - self.thinking_base
                self.total_thinking = (self.total_thinking or 0) + thinking_delta
            else:
                thinking_delta = None
            if not self.reopened:
                self.messages_with_usage += 1
            if self.last_event is not None and (not self.reopened or any(delta) or thinking_delta):
                meta = self.last_event.setdefault("meta", {})
                meta["usage"] = usage_dict(delta, thinking_delta)
            if self.open_id is not None:
                # _open took this id out of ``finished``: it goes in last.
                finished = self.finished
                finished[self.open_id] = final
                if len(finished) > REMEMBERED_IDS:
                    finished.popitem(last=False)
                if thinking is not None:
                    seen = self.finished_thinking
                    seen[self.open_id] = thinking
                    if len(seen) > REMEMBERED_IDS:
                        seen.popitem(last=False)
        held = self.held
        self.held, self.held_chars = [], 0
        self.open_id, self.open_raw, self.open_usage, self.last_event, self.base = None, None, None, None, _ZERO
        self.reopened = False
        self.thinking_base = 0
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
            self.thinking_base = self.finished_thinking.pop(message_id, 0)

    def totals(self) -> dict[str, int] | None:
        if not self.messages_with_usage:
            return None
        return usage_dict(tuple(self.total), self.total_thinking)  # type: ignore[arg-type]
