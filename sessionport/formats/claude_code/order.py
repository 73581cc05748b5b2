"""A tool's result written before the call it answers, put after it.

Claude Code 2.1.97 sometimes writes a ``tool_result`` line a line or
three before the ``assistant`` line of its ``tool_use`` (the result's
``parentUuid`` names that line, and its timestamp is the later one).  Read
in file order, the result would come before its call: every writer that
pairs calls with results would then give it a call of its own, and write
the real call later with the same id.

:func:`calls_before_results` holds a result whose call has not been seen
yet, with every event after it, until that call arrives (the result then
follows it, the other events keep their order) or :data:`HOLD_EVENTS`
events have passed (everything is handed on in file order, as before: a
session resumed mid-way has results whose calls are in no file).
"""

from __future__ import annotations

from typing import Iterable, Iterator

# How many events a result may wait for its call.
HOLD_EVENTS = 32
# How many call ids are remembered (the calls a later result may answer);
# past that they are forgotten at once (a result of a call forgotten waits
# its HOLD_EVENTS and comes out where the file has it).
REMEMBERED_CALLS = 1 << 16


def calls_before_results(events: Iterable[dict]) -> Iterator[dict]:
    seen: set[str] = set()
    held: list[dict] = []  # the events since the first result that waits
    waiting: dict[str, dict] = {}  # call id -> its result, while held
    for event in events:
        # Every event of a read passes here: the commonest (text, thinking,
        # an answered result) cost two look-ups and two comparisons.
        meta = event.get("meta")
        kind = meta.get("kind") if meta.__class__ is dict else None
        if kind == "tool_use":
            call_id = event.get("toolCallId")
            if call_id.__class__ is str:
                if len(seen) >= REMEMBERED_CALLS:
                    seen.clear()
                seen.add(call_id)
                result = waiting.pop(call_id, None) if waiting else None
                if result is not None:
                    del held[next(n for n, e in enumerate(held) if e is result)]
                    held.append(event)
                    held.append(result)
                    if not waiting:
                        yield from held
                        held.clear()
                    continue
        elif kind == "tool_result":
            call_id = event.get("toolCallId")
            if call_id.__class__ is str and call_id not in seen and call_id not in waiting:
                waiting[call_id] = event
                held.append(event)
                continue
        elif event.get("type") != "message":
            if held:
                yield from held
                held.clear()
                waiting.clear()
            if event.get("type") == "session":
                seen.clear()
            yield event
            continue
        if held:
            held.append(event)
            if len(held) > HOLD_EVENTS:
                yield from held
                held.clear()
                waiting.clear()
            continue
        yield event
    yield from held
