"""``portable-jsonl``: the wire format, one compact ``sessionport/v1`` event per line."""

from __future__ import annotations

from typing import BinaryIO, Iterable

import orjson

from sessionport import jsonout
from sessionport.context import WriteContext
from sessionport.registry import Exporter

_OPTS = orjson.OPT_APPEND_NEWLINE


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    dumps, emit = orjson.dumps, out.write
    for event in events:
        try:
            # default and option passed by position: orjson parses no keywords
            line = dumps(event, None, _OPTS)
        except orjson.JSONEncodeError:  # integers beyond 64 bits: see jsonout
            line = jsonout.dumps(event, option=_OPTS)
        emit(line)


EXPORTER = Exporter(
    name="portable-jsonl",
    description="sessionport/v1 events, one compact JSON object per line (the wire format)",
    write=write,
    extension=".jsonl",
    multi_session=True,
)
