"""``portable``: the sessionport/v1 canonical document, read with ijson.

One session is one object ``{schema, source, sessionId, ..., messages: [...]}``
(messages without the ``type`` key); several sessions are a JSON array of
such objects.  An optional ``end`` key after ``messages`` holds the end event.

The session event goes out as soon as ``messages`` starts, so memory holds
one message at a time.  A document whose header keys come *after* its
messages (no ``schema`` before ``messages``) cannot be streamed that way: its
messages are spooled to an anonymous temporary file until the document ends,
then replayed after the complete session event.  Memory stays flat; only the
first event is delayed.  This works the same on a pipe and on a file.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Iterator

import orjson

from sessionport import jsonout
from sessionport.context import ReadContext
from sessionport.formats.portable.fields import FieldCheck
from sessionport.jsondoc import walk_document
from sessionport.model import SCHEMA, message_problem
from sessionport.registry import Importer
from sessionport.io import spool_file
from sessionport.formats.portable.sniff import sniff


def _message(item: Any, index: int, ctx: ReadContext, fields: FieldCheck) -> dict | None:
    if not isinstance(item, dict):
        ctx.bad_record(f"expected a message object, found {type(item).__name__}", path=f"messages[{index}]")
        return None
    event = {"type": "message"}
    event.update(item)
    event["type"] = "message"
    problem = message_problem(event)
    if problem:
        ctx.bad_record(problem, path=f"messages[{index}]")
        return None
    return fields.clean(event, f"messages[{index}]")


def _session(header: dict, fields: FieldCheck) -> dict:
    event = {"type": "session"}
    event.update(header)
    event.pop("end", None)
    event.setdefault("schema", SCHEMA)
    event["type"] = "session"
    return fields.clean(event, "the session header")


def _end(document: dict, header_keys: set[str], fields: FieldCheck) -> dict | None:
    end = document.get("end")
    trailing = {k: v for k, v in document.items() if k not in header_keys and k != "end"}
    if not isinstance(end, dict) and not trailing:
        return None
    event = {"type": "end"}
    if isinstance(end, dict):
        event.update(end)
    if trailing:
        # Keys after ``messages`` that the session event could not carry.
        event["documentKeys"] = trailing
    event["type"] = "end"
    return fields.clean(event, "end")


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    spool = None
    header: dict = {}
    index = 0
    fields = FieldCheck()
    for kind, value in walk_document(stream, ctx, ("messages",), docs_in_array=True):
        if kind == "start":
            header, index = value, 0
            if "schema" in header:
                yield _session(header, fields)
            else:
                spool = spool_file()
        elif kind == "item":
            message = _message(value, index, ctx, fields)
            index += 1
            if message is None:
                continue
            if spool is None:
                yield message
            else:
                spool.write(jsonout.dumps(message, option=orjson.OPT_APPEND_NEWLINE))
        else:
            if spool is not None:
                full = {k: v for k, v in value.items() if k != "end"}
                yield _session(full, fields)
                spool.seek(0)
                for line in spool:
                    yield orjson.loads(line)
                spool.close()
                spool = None
                end = _end(value, set(full), fields)
            else:
                end = _end(value, set(header), fields)
            if end is not None:
                yield end
    if spool is not None:  # torn document: what was read, with the header known so far
        yield _session(header, fields)
        spool.seek(0)
        for line in spool:
            yield orjson.loads(line)
        spool.close()
    fields.report(ctx)


IMPORTER = Importer(
    name="portable",
    description="sessionport/v1 canonical JSON document (one session, or an array of sessions)",
    read=read,
    sniff=sniff,
    patterns=("*.json",),
)
