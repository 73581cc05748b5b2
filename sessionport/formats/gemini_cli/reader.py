"""``gemini-cli``: the session files of Google's gemini-cli (import only).

Found under ``~/.gemini/tmp/<project>/``:

- ``chats/session-*.json`` (gemini-cli <= 0.38): one object
  ``{sessionId, projectHash, startTime, lastUpdated, messages: [...], ...}``,
  streamed one message record at a time;
- ``chats/session-*.jsonl`` (>= 0.39): an append-only log.  A metadata line,
  message records upserted by ``id`` (a repeated id keeps its first position
  and takes its latest content), ``{"$set": {...}}`` metadata updates (a
  ``messages`` array in it replaces every message), and
  ``{"$rewindTo": id}`` (drops that message and all later ones).  The log
  must be replayed to its end before any message is final, so memory holds
  one session's records;
- ``checkpoint-<tag>.json`` (``/chat save``): ``{"history": [Content...]}``,
  and ``checkpoints/*.json`` (``/restore``): ``{clientHistory: [Content...],
  toolCall, commitHash, ...}``.  These hold API history, read like the
  ``gemini`` format.

Metadata that only appears after the session event (``$set`` updates, keys
after ``messages``) is reported in the end event under ``metadata``.
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO, Iterator
from urllib.parse import unquote

from sessionport.context import ReadContext
from sessionport.io import open_regular
from sessionport.jsondoc import walk_document
from sessionport.jsonl import iter_records
from sessionport.model import end_event, session_event
from sessionport.registry import NO_SUBAGENTS, Importer
from sessionport.formats.gemini_cli.layout import subagent_logs
from sessionport.formats.gemini_cli.stream_json import is_stream_json, read_stream_json
from sessionport.formats.gemini_cli.records import RecordConverter
from sessionport.gemini_parts import CallPairing, PartConverter
from sessionport.formats.gemini_cli.sniff import _KEY, _first_line, _parse, sniff

HEAD = 64 * 1024


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    head = stream.peek(HEAD)[:HEAD] if hasattr(stream, "peek") else b""
    line, complete = _first_line(head)
    if line.startswith(b"[") or (line.startswith(b"{") and not isinstance(_parse(line), dict) and _is_checkpoint(head)):
        yield from _read_checkpoint(stream, ctx, head)
        return
    if line.startswith(b"{") and complete and is_stream_json(_parse(line)):
        yield from read_stream_json(stream, ctx)
        return
    following = _Following(ctx)
    if line.startswith(b"{") and (isinstance(_parse(line), dict) or not complete):
        # A complete object on the first line (or a first line longer than
        # the head, i.e. one huge record) is the JSONL log.
        events = _read_jsonl(stream, ctx, following)
    else:
        events = _read_legacy(stream, ctx, following)
    for event in events:
        if event["type"] == "message":
            meta = event.get("meta")
            if meta and "agentId" in meta:
                following.calls.setdefault(meta["agentId"], event.get("toolCallId"))
        yield event
    for path in following.logs:
        yield from _read_subagent(path, ctx, following)


class _Following:
    """The sub-agent logs found beside a main session's log (none with
    --no-subagents, or when the input is not a log on disk), and the call
    that ran each agent (a tool call's ``meta.agentId``: the agent's id)."""

    __slots__ = ("ctx", "logs", "calls")

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.logs: list[str] = []
        self.calls: dict[Any, Any] = {}

    def find(self, header: dict) -> list[str]:
        ctx = self.ctx
        if not ctx.path or ctx.options.get("no_subagents") or header.get("kind") == "subagent":
            return []
        self.logs = subagent_logs(ctx.path, header.get("sessionId"))
        return [os.path.splitext(os.path.basename(path))[0] for path in self.logs]


def _read_subagent(path: str, ctx: ReadContext, parent: _Following) -> Iterator[dict]:
    """A sub-agent's log, as its own session after its parent's: named by
    its id (``metadata.agentId``) and, when the parent's tool call that ran
    it is known, that call (``metadata.parentToolCallId``)."""
    agent = os.path.splitext(os.path.basename(path))[0]
    child = ReadContext(name=path, path=path, strict=ctx.strict, skip_bad=ctx.skip_bad, options=ctx.options, on_warning=ctx.on_warning)
    try:
        handle = open_regular(path, buffering=1 << 20)
    except OSError as exc:
        ctx.warn(f"sub-agent log {path} cannot be opened ({exc.strerror or exc}); left out")
        return
    try:
        first = True
        for event in read(handle, child):
            if first and event["type"] == "session":
                first = False
                metadata = dict(event.get("metadata") or {})
                metadata.setdefault("agentId", agent)
                call = parent.calls.get(agent)
                if isinstance(call, str):
                    metadata["parentToolCallId"] = call
                event = {**event, "metadata": metadata}
            yield event
    finally:
        handle.close()
        ctx.warnings.extend(child.warnings)
        ctx.bad_count += child.bad_count
        ctx.bad_places.extend(child.bad_places[: max(0, 10 - len(ctx.bad_places))])


def _is_checkpoint(head: bytes) -> bool:
    probe = head[:4096]
    if b'"projectHash"' in probe or b'"messages"' in probe[:512]:
        return False
    keys = [m.group(1) for m in _KEY.finditer(probe[:512])]
    return bool(keys) and keys[0] in (b"history", b"clientHistory", b"authType")


def _session(header: dict, ctx: ReadContext, following: _Following | None = None) -> dict:
    metadata = {k: v for k, v in header.items() if k not in ("messages", "sessionId", "startTime", "summary")}
    parent = _parent_session(header, ctx)
    if parent is not None:
        metadata["parentSessionId"] = parent
    agents = following.find(header) if following is not None else []
    if agents:
        metadata["subagents"] = agents
    session_id = header.get("sessionId") if isinstance(header.get("sessionId"), str) else _file_stem(ctx)
    title = header.get("summary") if isinstance(header.get("summary"), str) else None
    created = header.get("startTime") if isinstance(header.get("startTime"), str) else None
    return session_event("gemini-cli", sessionId=session_id, createdAt=created, title=title, metadata=metadata)


def _parent_session(header: dict, ctx: ReadContext) -> str | None:
    """The session that started a sub-agent (``kind: "subagent"``): gemini-cli
    keeps its log in ``chats/<parent session id>/``, and the file names its
    parent nowhere else."""
    if header.get("kind") != "subagent" or "parentSessionId" in header or not ctx.path:
        return None
    folder = os.path.dirname(os.path.abspath(ctx.path))
    if os.path.basename(os.path.dirname(folder)) != "chats":
        return None
    return os.path.basename(folder) or None


def _file_stem(ctx: ReadContext) -> str | None:
    if not ctx.path:
        return None
    return os.path.splitext(os.path.basename(ctx.path))[0]


def _end(converter: RecordConverter, late_metadata: dict, skipped: dict, notes: list[str], unknown: dict | None = None) -> dict | None:
    counts = {}
    if converter.tool_calls:
        counts["tool_calls"] = converter.tool_calls
    if converter.notices:
        counts["notices"] = converter.notices
    if converter.parts.unknown_parts:
        notes.append(f"{converter.parts.unknown_parts} part(s) of an unknown kind kept whole in meta.geminiPart")
    # gemini-cli writes the session's summary (its title in /resume) once
    # the session has run: after the session event
    title = late_metadata.get("summary")
    fields = {
        "usage": converter.usage or None,
        "counts": counts or None,
        "skipped": skipped or None,
        "notes": notes or None,
        "title": title if isinstance(title, str) and title else None,
        "metadata": late_metadata or None,
        "unknown": unknown or None,
    }
    if not any(v is not None for v in fields.values()):
        return None
    return end_event(**fields)


# -- <= 0.38: one JSON object --------------------------------------------------
def _read_legacy(stream: BinaryIO, ctx: ReadContext, following: _Following | None = None) -> Iterator[dict]:
    converter = RecordConverter(ctx)
    header: dict = {}
    index = 0
    late: dict = {}
    for kind, value in walk_document(stream, ctx, ("messages",)):
        if kind == "start":
            header = value
            yield _session(header, ctx, following)
        elif kind == "item":
            yield from converter.events(value, f"messages[{index}]")
            index += 1
        else:
            late = {k: v for k, v in value.items() if k not in header}
            if not header and not late and index == 0:
                continue
            if index == 0 and "sessionId" not in value and "messages" not in value:
                ctx.bad_record(
                    "expected a gemini-cli session object with sessionId and messages",
                    path="$",
                    hint="name the format with --from if detection picked the wrong one",
                )
    end = _end(converter, late, {}, [], ctx.report_unknown())
    if end is not None:
        yield end


# -- >= 0.39: the append-only log ---------------------------------------------
def _read_jsonl(stream: BinaryIO, ctx: ReadContext, following: _Following | None = None) -> Iterator[dict]:
    converter = RecordConverter(ctx)
    messages: dict[str, dict] = {}
    kept: dict[str, dict] = {}
    late: dict = {}
    skipped: dict[str, int] = {}
    notes: list[str] = []
    # ids of messages a $rewindTo dropped, or a $set.messages list left out
    rewound: set[str] = set()
    replaced: set[str] = set()
    started = False
    for line_no, record in iter_records(stream, ctx):
        if not isinstance(record, dict):
            ctx.bad_record(f"expected a JSON object, found {type(record).__name__}", line=line_no)
            continue
        if "$set" in record:
            update = record["$set"]
            if isinstance(update, dict):
                if isinstance(update.get("messages"), list):
                    # A checkpoint of the whole history (sync or compression).
                    replaced.update(messages)
                    messages.clear()
                    _add_messages(messages, update["messages"], kept)
                    notes.append(f"line {line_no}: the message list was replaced ($set.messages)")
                late.update({k: v for k, v in update.items() if k != "messages"})
        elif "$rewindTo" in record:
            rewound.update(_rewind(messages, record["$rewindTo"]))
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = record  # upsert: first position, latest content
            _keep(kept, record)
        elif isinstance(record.get("sessionId"), str):
            if isinstance(record.get("messages"), list):
                _add_messages(messages, record["messages"])
            header = {k: v for k, v in record.items() if k != "messages"}
            if not started:
                started = True
                yield _session(header, ctx, following)
            else:
                late.update(header)
        else:
            skipped["unknown record"] = skipped.get("unknown record", 0) + 1
            ctx.unknown("(a record with no id, sessionId, $set or $rewindTo)", line=line_no)
        if not started:
            started = True
            yield _session({}, ctx)
    if not started:
        return
    # What the log recorded and no longer holds at its end: counted, as
    # gemini-cli itself resumes without them.
    rewound.difference_update(messages)
    replaced.difference_update(messages)
    replaced.difference_update(rewound)
    if rewound:
        skipped["message (rewound: $rewindTo)"] = len(rewound)
    if replaced:
        skipped["message (left out of a $set.messages list)"] = len(replaced)
    for index, record in enumerate(messages.values()):
        yield from converter.events(record, f"messages[{index}]")
    unknown = ctx.report_unknown()
    end = _end(converter, late, skipped, notes, unknown)
    if end is not None:
        yield end


# What a message written again in API form (0.61 rewrites the whole history
# so on resume, with new timestamps) no longer carries: kept by id from the
# records it replaces, as the app keeps them for a message it still holds.
_KEPT_ON_REWRITE = ("tokens", "model")
_RESPONSE_SUFFIX = "_response"


def _keep(kept: dict[str, dict], record: dict) -> None:
    entry: dict = {"type": record.get("type")}
    if isinstance(record.get("timestamp"), str):
        entry["timestamp"] = record["timestamp"]
    for key in _KEPT_ON_REWRITE:
        if key in record:
            entry[key] = record[key]
    kept[record["id"]] = entry


def _add_messages(messages: dict[str, dict], records: list, kept: dict[str, dict] | None = None) -> None:
    for record in records:
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            if kept is not None:
                record_id = record["id"]
                earlier = kept.get(record_id)
                if earlier is not None and earlier["type"] == record.get("type"):
                    restored = {k: earlier[k] for k in _KEPT_ON_REWRITE if k in earlier and k not in record}
                    if "timestamp" in earlier:
                        restored["timestamp"] = earlier["timestamp"]
                    if restored:
                        record = {**record, **restored}
                elif earlier is None and record_id.endswith(_RESPONSE_SUFFIX):
                    # the results of a call, answered right after the call's message
                    call = kept.get(record_id[: -len(_RESPONSE_SUFFIX)])
                    if call is not None and "timestamp" in call:
                        record = {**record, "timestamp": call["timestamp"]}
                _keep(kept, record)
            messages[record["id"]] = record


def _rewind(messages: dict[str, dict], target: Any) -> list[str]:
    """Drop ``target`` and every message after it (all of them when it is
    not held, as gemini-cli does); the ids dropped."""
    if not isinstance(target, str) or target not in messages:
        dropped = list(messages)
        messages.clear()
        return dropped
    keys = list(messages)
    dropped = keys[keys.index(target):]
    for key in dropped:
        del messages[key]
    return dropped


# -- checkpoints: API history ---------------------------------------------------
def _read_checkpoint(stream: BinaryIO, ctx: ReadContext, head: bytes) -> Iterator[dict]:
    restore = b'"clientHistory"' in head or b'"toolCall"' in head or b'"commitHash"' in head
    keys = ("clientHistory",) if restore else ("history",)
    converter = PartConverter(ctx, CallPairing("gemini-cli-call"))
    index = 0
    header: dict = {}
    late: dict = {}
    for kind, value in walk_document(stream, ctx, keys):
        if kind == "start":
            header = {k: v for k, v in value.items() if k != "history"}
            header["checkpoint"] = "restore" if restore else "chat"
            stem = _file_stem(ctx)
            title = unquote(stem[len("checkpoint-"):]) if stem and stem.startswith("checkpoint-") else None
            yield session_event("gemini-cli", sessionId=stem, title=title, metadata=header)
        elif kind == "item":
            yield from converter.content_events(value, f"{keys[0]}[{index}]")
            index += 1
        elif isinstance(value, dict):
            late = {k: v for k, v in value.items() if k not in header and k != "history"}
    notes = []
    if restore:
        notes.append("the checkpoint's UI history (history) was not read; its API history (clientHistory) was")
    if converter.unknown_parts:
        notes.append(f"{converter.unknown_parts} part(s) of an unknown kind kept whole in meta.geminiPart")
    yield end_event(counts={"contents": index}, notes=notes or None, metadata=late or None)


IMPORTER = Importer(
    name="gemini-cli",
    description="gemini-cli sessions (~/.gemini/tmp/*/chats/: legacy .json and append-only .jsonl) and checkpoints",
    read=read,
    sniff=sniff,
    patterns=("session-*.json", "session-*.jsonl", "checkpoint-*.json"),
    title_scan="sessionport.formats.gemini_cli.title_scan:title_scan",
    options=(NO_SUBAGENTS,),
    versions=("0.38", "0.39", "current JSONL (chatRecordingTypes.ts, 2026)", "0.56 (source, 2026-08)", "0.61.0", "stream-json output (0.61.0)"),
)
