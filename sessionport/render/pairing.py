"""Tool calls held back until their results arrive, so a call and its
result are written as one unit, for both readable exporters.

Results are matched to calls by call id, also when several calls run in
parallel and their results come later or in another order.  While a call
waits, what follows it is held too (the page keeps the stream's order), up
to a bound: at most :data:`MAX_HELD` items or :data:`MAX_HELD_CHARS`
characters of rendered output.  Past the bound, or when the next user
prompt arrives, the oldest waiting call is written without its result; a
result that arrives after its call was written is shown on its own, linked
to the call.  Memory is therefore bounded whatever the stream holds.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Any, Callable

MAX_HELD = 1000
MAX_HELD_CHARS = 4_000_000
# calls already written, remembered to link a late result to its call
MAX_WRITTEN = 4096


class Unit:
    """A call waiting for (or joined with) its result; ``call`` and
    ``result`` are whatever the writer rendered for them."""

    __slots__ = ("call_id", "key", "call", "result", "extra", "size")

    def __init__(self, call_id: Any, call: Any, size: int = 0, key: Any = None) -> None:
        self.call_id = call_id
        self.key = key  # _key(call_id), kept: the queue tests it on every step
        self.size = size
        self.call = call
        self.result = None
        self.extra: list = []  # notes added while waiting (a subagent link)


class PendingCalls:
    def __init__(self, write_unit: Callable[[Unit], None], write_text: Callable[[str], None]) -> None:
        self.write_unit = write_unit
        self.write_text = write_text
        self.queue: deque = deque()
        self.waiting: dict = {}  # call id -> Unit
        # call id -> what the writer needs to link to it, oldest first; an
        # OrderedDict drops its oldest entry in constant time, where a dict
        # steps over every entry deleted before it
        self.written: OrderedDict = OrderedDict()
        self.chars = 0

    def call(self, call_id: Any, rendered: Any, size: int, link: Any = None) -> Unit:
        key = call_id or None if call_id.__class__ is str else _key(call_id)
        unit = Unit(call_id, rendered, size, key)
        queue = self.queue
        self.chars += size
        if key is not None and key not in self.waiting:
            self.waiting[key] = unit
            queue.append(unit)
            # the front of the queue is always waiting: a call added behind
            # it frees nothing, only the bound may write something
            if len(queue) > MAX_HELD or self.chars > MAX_HELD_CHARS:
                self._bound()
        else:  # no id to match a result by: nothing to wait for
            queue.append(unit)
            if len(queue) == 1:
                self._drain()
        if key is not None and link is not None:
            written = self.written
            written[key] = link
            if len(written) > MAX_WRITTEN:
                written.popitem(last=False)
        return unit

    def result(self, call_id: Any, rendered: Any, size: int) -> bool:
        """Join a result to its waiting call; False when none waits."""
        key = call_id or None if call_id.__class__ is str else _key(call_id)
        unit = self.waiting.pop(key, None) if key is not None else None
        if unit is None:
            return False
        unit.result = rendered
        queue = self.queue
        if len(queue) == 1:
            # the usual case, a result right after its call and nothing
            # held (the queue holds every waiting call): what _drain would
            # do, without its steps
            queue.clear()
            self.chars -= unit.size
            unit.size += size
            self.write_unit(unit)
            return True
        unit.size += size
        self.chars += size
        if queue[0] is unit:
            self._drain()
        return True

    def waiting_unit(self, call_id: Any) -> Unit | None:
        key = _key(call_id)
        return self.waiting.get(key) if key is not None else None

    def link_of(self, call_id: Any) -> Any:
        key = _key(call_id)
        return self.written.get(key) if key is not None else None

    def text(self, text: str) -> None:
        queue = self.queue
        if not queue:
            self.write_text(text)
            return
        queue.append(text)
        self.chars += len(text)
        if len(queue) > MAX_HELD or self.chars > MAX_HELD_CHARS:
            self._bound()

    def flush(self) -> None:
        """Write everything held (calls without a result as they are)."""
        while self.queue:
            self._write(self.queue.popleft())
        self.waiting.clear()
        self.chars = 0

    def _bound(self) -> None:
        while self.queue and (len(self.queue) > MAX_HELD or self.chars > MAX_HELD_CHARS):
            self._write(self.queue.popleft())
        self._drain()

    def _drain(self) -> None:
        queue = self.queue
        waiting = self.waiting
        while queue and (queue[0].__class__ is str or queue[0].result is not None or queue[0].key not in waiting):
            self._write(queue.popleft())

    def _write(self, item: Any) -> None:
        if item.__class__ is str:
            self.chars -= len(item)
            self.write_text(item)
            return
        self.chars -= item.size
        key = item.key
        if key is not None and self.waiting.get(key) is item:
            del self.waiting[key]
        self.write_unit(item)


def _key(call_id: Any) -> Any:
    if call_id.__class__ is str:  # nearly every id
        return call_id or None
    if call_id is None:
        return None
    return call_id if isinstance(call_id, (str, int)) and not isinstance(call_id, bool) else str(call_id)
