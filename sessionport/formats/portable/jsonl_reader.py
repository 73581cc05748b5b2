"""``portable-jsonl``: the wire format, one ``sessionport/v1`` event per line."""

from __future__ import annotations

from typing import BinaryIO, Iterator

import msgspec
import orjson

from sessionport.context import WANTED_ROLES, ReadContext
from sessionport.formats.portable.fields import FieldCheck
from sessionport.jsonl import MAX_DEPTH, NOT_OPENERS, iter_block_lines, line_too_deep, parse_line, refuse_deep_line, value_too_deep
from sessionport.model import ROLES, message_problem
from sessionport.registry import Importer
from sessionport.typed_decode import DECODE_ERRORS, decodable
from sessionport.formats.portable.sniff import EVENT_TYPES
from sessionport.formats.portable.sniff import sniff_jsonl as sniff


# A line longer than this has its depth tested on what orjson made of it
# (a look per value), a shorter one on its bytes (its brackets counted):
# events of the wire format are a few big strings in a shallow object.
_WALK_FROM = 2048


# -- messages left unbuilt ------------------------------------------------
# When the first stage keeps messages by their role alone (WANTED_ROLES), a
# message of another role is read only as far as it takes to know that the
# full read would hand it over unchanged (no warning, no refusal) and drop
# it: msgspec checks the line's JSON and the types of every field the full
# read checks (FieldCheck's and message_problem's), the text and the
# containers are left raw, and the line comes out as {type, role} alone.
# Anything else (another field, a type of another kind, a line msgspec
# rejects or that is not valid UTF-8, brackets enough to pass the depth
# bound) takes the full read, which says what it always said.


class _Meta(msgspec.Struct, gc=False):
    kind: str = ""
    model: str = ""
    injected: bool = False
    usage: msgspec.Raw = msgspec.Raw()  # an object: checked apart


class _Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    type: str
    role: str
    text: msgspec.Raw  # a string: checked apart
    timestamp: str = ""
    id: str = ""
    parentId: str = ""
    toolName: str = ""
    toolCallId: str = ""
    toolInput: msgspec.Raw = msgspec.Raw()  # an object
    isError: bool = False
    meta: msgspec.Raw = msgspec.Raw()  # an object, read as _Meta


_decode_message = msgspec.json.Decoder(_Message).decode
_decode_meta = msgspec.json.Decoder(_Meta).decode
# How the wire format's writers start a message line: other lines (another
# key order, another event) take the full read.
_MESSAGE_HEAD = b'{"type":"message","role":"'
_ROLE_SET = frozenset(ROLES)
_OPEN_OBJECT, _OPEN_STRING = 123, 34


def _is_object(raw: msgspec.Raw) -> bool:
    return not raw or memoryview(raw)[0] == _OPEN_OBJECT


def _unbuilt_role(line: bytes, wanted: frozenset) -> str | None:
    """The role of a message line the full read would take as it is and
    the stage would drop, else None (see above)."""
    try:
        message = _decode_message(line)
    except DECODE_ERRORS:
        return None
    role = message.role
    if message.type != "message" or role not in _ROLE_SET or role in wanted:
        return None
    if memoryview(message.text)[0] != _OPEN_STRING or not _is_object(message.toolInput) or not _is_object(message.meta):
        return None
    # The line nests one level more than its deepest container, and no
    # deeper than that container has brackets.
    brackets = 1 + len(bytes(message.toolInput).translate(None, NOT_OPENERS)) if message.toolInput else 1
    if message.meta:
        meta_bytes = bytes(message.meta)
        brackets += len(meta_bytes.translate(None, NOT_OPENERS))
        try:
            meta = _decode_meta(meta_bytes)
        except DECODE_ERRORS:
            return None
        if not _is_object(meta.usage):
            return None
    if brackets > MAX_DEPTH or not decodable(line):
        return None
    return role


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    fields = FieldCheck()
    loads = orjson.loads
    wanted = ctx.options.get(WANTED_ROLES)
    kept_heads = tuple(_MESSAGE_HEAD + role.encode() + b'"' for role in wanted) if wanted else ()
    # The depth of a line (see jsonl.iter_lines) is tested here, after the
    # parse, which spares a pass over a long line's bytes; the lines are
    # cut out of one buffer (jsonl.iter_block_lines), one copy each.
    for line_no, line, complete in iter_block_lines(stream, ctx):
        if wanted and line.startswith(_MESSAGE_HEAD) and not line.startswith(kept_heads):
            role = _unbuilt_role(line, wanted)
            if role is not None:
                yield {"type": "message", "role": role}
                continue
        try:
            event = loads(line)
        except orjson.JSONDecodeError:
            if line_too_deep(line):
                refuse_deep_line(line_no, ctx)
                continue
            event = parse_line(line, line_no, complete, ctx)
        else:
            if (len(line) > _WALK_FROM or len(line.translate(None, NOT_OPENERS)) > MAX_DEPTH) and value_too_deep(event):
                refuse_deep_line(line_no, ctx)
                continue
        del line  # a big line is freed before its event is written
        if event is None:
            continue
        kind = event.get("type") if isinstance(event, dict) else None
        if type(kind) is not str or kind not in EVENT_TYPES:
            found = event.get("type") if isinstance(event, dict) else type(event).__name__
            ctx.bad_record(
                f"expected a sessionport/v1 event with type session, message or end, found {found!r}",
                line=line_no,
            )
            continue
        if kind == "message":
            problem = message_problem(event)
            if problem:
                ctx.bad_record(problem, line=line_no)
                continue
        yield fields.clean(event, line_no)
    fields.report(ctx)


IMPORTER = Importer(
    name="portable-jsonl",
    description="sessionport/v1 events, one compact JSON object per line (the wire format)",
    read=read,
    sniff=sniff,
    patterns=("*.jsonl", "*.ndjson"),
)
