"""``portable``: the sessionport/v1 canonical document, written incrementally.

One session is written as one object; several sessions as a JSON array of
objects.  Whether a stream holds one session or several is only known at its
end, so the first session is written to a spooled temporary file (memory up
to 8 MiB, disk beyond) until the next session or the end of the stream
decides the shape; later sessions are written straight through.
"""

from __future__ import annotations

import shutil
from typing import BinaryIO, Iterable


from sessionport import jsonout
from sessionport.context import WriteContext
from sessionport.model import SCHEMA
from sessionport.registry import Exporter
from sessionport.io import spool_file

SPOOL_MEMORY = 8 << 20


class _DocumentWriter:
    def __init__(self) -> None:
        self.out: BinaryIO | None = None
        self.open = False
        self.messages = 0

    def start(self, out: BinaryIO, session: dict) -> None:
        header = {k: v for k, v in session.items() if k != "type"}
        header.setdefault("schema", SCHEMA)
        body = jsonout.dumps(header)
        # ``{...}`` -> ``{...,"messages":[`` keeping the header's own key order
        out.write(body[:-1] + (b',"messages":[' if len(body) > 2 else b'"messages":['))
        self.out, self.open, self.messages = out, True, 0

    def message(self, event: dict) -> None:
        assert self.out is not None
        item = {k: v for k, v in event.items() if k != "type"}
        self.out.write((b"\n" if self.messages == 0 else b",\n") + jsonout.dumps(item))
        self.messages += 1

    def finish(self, end: dict | None) -> None:
        assert self.out is not None
        self.out.write(b"\n]" if self.messages else b"]")
        if end is not None:
            self.out.write(b',"end":' + jsonout.dumps({k: v for k, v in end.items() if k != "type"}))
        self.out.write(b"}")
        self.open = False


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    writer = _DocumentWriter()
    spool = spool_file(SPOOL_MEMORY)
    sessions = 0
    target: BinaryIO = spool
    end: dict | None = None

    def close_session() -> None:
        nonlocal end
        if writer.open:
            writer.finish(end)
        end = None

    for event in events:
        kind = event.get("type")
        if kind == "message":
            if not writer.open:
                if sessions == 0:
                    sessions = 1
                writer.start(target, {"type": "session", "schema": SCHEMA, "source": "unknown"})
            writer.message(event)
        elif kind == "session":
            close_session()
            sessions += 1
            if sessions == 2:
                out.write(b"[\n")
                spool.seek(0)
                shutil.copyfileobj(spool, out)
                spool.close()
                target = out
            if sessions >= 2:
                out.write(b",\n")
            writer.start(target, event)
        elif kind == "end":
            end = event
    close_session()
    if sessions <= 1:
        if sessions == 0:
            # An empty stream is an empty list of sessions.
            out.write(b"[]\n")
            return
        spool.seek(0)
        shutil.copyfileobj(spool, out)
        spool.close()
        out.write(b"\n")
    else:
        out.write(b"\n]\n")


EXPORTER = Exporter(
    name="portable",
    description="sessionport/v1 canonical JSON document (one session, or an array of sessions)",
    write=write,
    extension=".json",
    multi_session=True,
)
