"""Serialising events to JSON for the writers: orjson, and what it refuses.

orjson refuses integers outside the 64-bit range (``TypeError: Integer
exceeds 64-bit range``), which events can hold: a JSON document read with
ijson keeps every integer it holds, and token counts are summed and
converted by the readers (``1e21`` tokens, two counts near 2**64).  JSON
itself has no range; the writers should not fail where the data is only
large.  :func:`dumps` is ``orjson.dumps`` with the same options; only when
orjson refuses a value is it walked once, each out-of-range integer written
as the float orjson.loads reads for such a number (so a value round-trips
through every reader the same way), and serialised again.  Nothing changes
and nothing is walked for values orjson takes.
"""

from __future__ import annotations

from typing import Any

import orjson

OPT_APPEND_NEWLINE = orjson.OPT_APPEND_NEWLINE
OPT_INDENT_2 = orjson.OPT_INDENT_2
OPT_SORT_KEYS = orjson.OPT_SORT_KEYS

_LOW, _HIGH = -(2**63), 2**64 - 1


def dumps(value: Any, option: int | None = None) -> bytes:
    """``orjson.dumps(value, option=option)``, with integers beyond 64 bits
    written as floats instead of raising."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError as exc:
        if "64-bit" not in str(exc):
            raise
    return orjson.dumps(in_range(value), option=option)


def in_range(value: Any) -> Any:
    """A copy of ``value`` with each integer outside orjson's range as a
    float (an integer too large even for a float becomes the largest
    float).  Iterative: no recursion limit."""
    if type(value) is int or isinstance(value, int) and not isinstance(value, bool):
        return _fit(value)
    if not isinstance(value, (dict, list, tuple)):
        return value
    root = [value]
    # (container, its copy or None, parent copy, key in the parent)
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        node, parent, key = stack.pop()
        copy: Any = dict(node) if isinstance(node, dict) else list(node)
        items = copy.items() if isinstance(copy, dict) else enumerate(copy)
        for child_key, child in list(items):
            if isinstance(child, int) and not isinstance(child, bool):
                if not _LOW <= child <= _HIGH:
                    copy[child_key] = _fit(child)
            elif isinstance(child, (dict, list, tuple)):
                stack.append((child, copy, child_key))
        parent[key] = copy
    return root[0]


def _fit(number: int) -> Any:
    if _LOW <= number <= _HIGH:
        return number
    try:
        return float(number)
    except OverflowError:
        return 1.7976931348623157e308 if number > 0 else -1.7976931348623157e308
