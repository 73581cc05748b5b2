"""The types the portable formats give their known fields, enforced on reading.

The portable readers take events as they come, and every writer and stage
relies on the known fields having the types of the schema
(``schemas/portable.schema.json``): ``meta`` an object, ``parentId`` a
string, ``usage`` an object...  A field of another type (``"meta": 1.5``,
``"metadata": "oops"``, a null) is left out of its event, so the event
itself is kept, and counted; :meth:`FieldCheck.report` warns once at the
end with the fields and the first places.
"""

from __future__ import annotations

from collections import Counter

from sessionport.context import ReadContext

_MESSAGE = {
    "timestamp": str,
    "id": str,
    "parentId": str,
    "toolName": str,
    "toolCallId": str,
    "toolInput": dict,
    "isError": bool,
    "meta": dict,
}
_META = {"kind": str, "model": str, "injected": bool, "usage": dict}
_SESSION = {"source": str, "sessionId": str, "cwd": str, "createdAt": str, "title": str, "metadata": dict}
_END = {"usage": dict, "counts": dict, "skipped": dict, "notes": list}
_KINDS = {"session": _SESSION, "message": _MESSAGE, "end": _END}
_META_KEYS = frozenset(_META)
_MAX_PLACES = 5


class FieldCheck:
    """Counts what it leaves out, for one read."""

    def __init__(self) -> None:
        self.dropped: Counter = Counter()
        self.places: list[str] = []

    def clean(self, event: dict, where: str | int) -> dict:
        """``event`` without its known fields of a wrong type (the same dict,
        changed in place).  ``where`` is a JSON path, or a line number."""
        table = _KINDS.get(event.get("type"))  # type: ignore[arg-type]
        if table is None:
            return event
        # Set operations run in C: this is called for every event read.
        # A set's order follows the hash seed, so what is dropped is
        # dropped in the event's own key order: the warning reads the same
        # from run to run.
        bad = None
        for key in event.keys() & table.keys():
            if type(event[key]) is not table[key]:
                bad = True
                break
        if bad:
            for key in [key for key in event if key in table and type(event[key]) is not table[key]]:
                self._drop(event, key, key, where)
        if table is _MESSAGE:
            meta = event.get("meta")
            if meta:
                bad = None
                for key in meta.keys() & _META_KEYS:
                    if type(meta[key]) is not _META[key]:
                        bad = True
                        break
                if bad:
                    for key in [key for key in meta if key in _META_KEYS and type(meta[key]) is not _META[key]]:
                        self._drop(meta, key, f"meta.{key}", where)
        return event

    def _drop(self, holder: dict, key: str, name: str, where: str | int) -> None:
        found = type(holder.pop(key)).__name__
        self.dropped[name] += 1
        if len(self.places) < _MAX_PLACES:
            place = f"line {where}" if isinstance(where, int) else where
            self.places.append(f"{place} ({name}: {found})")

    def report(self, ctx: ReadContext) -> None:
        if not self.dropped:
            return
        fields = ", ".join(f"{name} ({n})" for name, n in sorted(self.dropped.items()))
        total = sum(self.dropped.values())
        more = ", ..." if total > len(self.places) else ""
        ctx.warn(
            f"{total} field(s) of the wrong type were left out of their events: {fields}; "
            f"first at {', '.join(self.places)}{more}"
        )
