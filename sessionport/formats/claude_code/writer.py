"""``claude-code``: write a session as a Claude Code JSONL transcript.

Compact JSON (Claude Code's own scanner misses lines written with spaces),
one content block per assistant line, a coherent ``uuid``/``parentUuid``
chain, and the envelope fields every reader expects (``sessionId``, ``cwd``,
``version``, ``timestamp``, ``userType``, ``isSidechain``).  The output reads
back through the ``claude-code`` importer with the same messages and is
accepted by independent readers such as claude-code-log, and Claude Code
resumes it (``claude --resume <sessionId>``; the id is always a UUID, other
ids are mapped to a stable one): tests/conformance proves it with the real app.

One transcript holds one session.  Subagent sessions that follow their
parent in the stream (``metadata.parentSessionId``) are written into the
same file as sidechain lines (``isSidechain: true`` with their ``agentId``),
the way Claude Code 1.0.x kept them; any other second session is refused.
"""

from __future__ import annotations

import re
import uuid as uuidlib
from typing import Any, BinaryIO, Iterable

import orjson

from sessionport import jsonout
from sessionport.context import WriteContext
from sessionport.errors import UsageError
from sessionport.model import sealed_reasoning
from sessionport.registry import Exporter
from sessionport.toolmap import KEEP_TOOL_NAMES, Renames
from sessionport.formats.claude_code.lines import FALLBACK_TIME, FALLBACK_VERSION, NAMESPACE, Thread, holds_its_summary

_DUMP = orjson.OPT_APPEND_NEWLINE
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None


def _thread_for(session: dict, main: Thread | None) -> Thread:
    metadata = session.get("metadata") if isinstance(session.get("metadata"), dict) else {}
    own_id = _str(session.get("sessionId"))
    agent_id = _str(metadata.get("agentId"))
    if agent_id is None and main is not None:
        agent_id = own_id[len("agent-") :] if own_id and own_id.startswith("agent-") else None
        if agent_id is None:
            agent_id = uuidlib.uuid5(NAMESPACE, f"agent:{own_id}").hex[:17]
    if main is not None:
        file_sid = main.session_id
    elif agent_id is not None:
        file_sid = _str(metadata.get("parentSessionId")) or own_id
    else:
        file_sid = own_id
    seed = own_id or _str(session.get("createdAt")) or _str(session.get("title")) or "session"
    if not file_sid or (file_sid.startswith("agent-") and agent_id):
        file_sid = str(uuidlib.uuid5(NAMESPACE, f"session:{seed}"))
    elif not _UUID.match(file_sid):
        # `claude --resume` takes a UUID (or a title): other ids map to a stable one
        file_sid = str(uuidlib.uuid5(NAMESPACE, f"session:{file_sid}"))
    version = _str(metadata.get("version")) if session.get("source") == "claude-code" else None
    branch = metadata.get("gitBranch")
    thread = Thread(
        file_session_id=file_sid,
        cwd=_str(session.get("cwd")) or (main.cwd if main else ""),
        version=version or (main.version if main else FALLBACK_VERSION),
        branch=branch if isinstance(branch, str) else (main.branch if main else None),
        agent_id=agent_id,
        seed=seed,
    )
    thread.last_time = _str(session.get("createdAt")) or (main.last_time if main else FALLBACK_TIME)
    return thread


def _summary_lines(session: dict, session_id: str) -> list[dict]:
    metadata = session.get("metadata") if isinstance(session.get("metadata"), dict) else {}
    out = []
    for entry in metadata.get("summaries") or ():
        if isinstance(entry, dict) and _str(entry.get("summary")):
            kind = entry.get("type")
            if kind in ("ai-title", "custom-title"):
                key = "aiTitle" if kind == "ai-title" else "customTitle"
                out.append({"type": kind, key: entry["summary"], "sessionId": session_id})
            else:
                out.append({"type": "summary", "summary": entry["summary"], "leafUuid": _str(entry.get("leafUuid")) or ""})
    if not out and _str(session.get("title")):
        out.append({"type": "summary", "summary": session["title"], "leafUuid": ""})
    return out


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    rename = Renames("claude-code", enabled=not ctx.options.get("keep_tool_names"))
    threads: list[Thread] = []
    sealed = [0]  # reasoning items only OpenAI's API reads, left out
    try:
        _write(events, out, ctx, rename, threads, sealed)
    finally:
        rename.report(ctx.warn)
        if sealed[0]:
            ctx.warn(f"{sealed[0]} reasoning item(s) kept only encrypted (readable by OpenAI's API alone) left out: Claude Code thinking is text with Anthropic's signature")
        made = sum(t.synthetic_calls for t in threads)
        if made:
            ctx.warn(f"{made} tool result(s) without a call were given a call of their own (the result's tool name, an empty input): Claude Code drops a result without its call")


def _foreign_summary(event: dict) -> dict | None:
    """The summary record to write after another app's compaction (see
    ``lines.holds_its_summary``)."""
    meta = event.get("meta")
    if event.get("role") != "system" or not isinstance(meta, dict) or meta.get("kind") != "compaction":
        return None
    text = event.get("text")
    if not isinstance(text, str) or not holds_its_summary(meta, text):
        return None
    summary: dict[str, Any] = {"type": "message", "role": "user", "text": text, "meta": {"kind": "summary", "injected": True}}
    if isinstance(event.get("timestamp"), str):
        summary["timestamp"] = event["timestamp"]
    return summary


def _write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext, rename: Renames, threads: list, sealed: list) -> None:
    emit = out.write
    main: Thread | None = None
    main_ids: set[str] = set()
    thread: Thread | None = None
    for event in events:
        kind = event.get("type")
        if kind == "message":
            if sealed_reasoning(event):
                sealed[0] += 1
                continue
            if thread is None:
                thread = main = _thread_for({"source": "unknown"}, None)
                thread.rename = rename
                threads.append(thread)
            if event.get("role") == "tool" and (event.get("meta") or {}).get("kind") == "tool_result":
                call = thread.call_for_orphan(event)
                if call is not None:
                    emit(jsonout.dumps(call, option=_DUMP))
                    event = {**event, "parentId": call["uuid"]}
            emit(jsonout.dumps(thread.line_for(event), option=_DUMP))
            summary = _foreign_summary(event)
            if summary is not None:
                emit(jsonout.dumps(thread.line_for(summary), option=_DUMP))
        elif kind == "session":
            if main is None:
                thread = main = _thread_for(event, None)
                thread.rename = rename
                threads.append(thread)
                main_ids = {x for x in (_str(event.get("sessionId")), main.session_id) if x}
                for line in _summary_lines(event, main.session_id):
                    emit(jsonout.dumps(line, option=_DUMP))
                continue
            metadata = event.get("metadata") if isinstance(event.get("metadata"), dict) else {}
            parent = metadata.get("parentSessionId")
            if not isinstance(parent, str) or parent not in main_ids:
                raise UsageError(
                    "the claude-code format holds one session (with its subagents) and this stream has "
                    "several; pick one with --session ID, or write a file per session with `sessionport split`"
                )
            thread = _thread_for(event, main)
            thread.rename = rename
            threads.append(thread)
        elif kind == "end" and thread is not None and thread is main:
            # Claude Code's own running cost (read from a cost-state line):
            # written back, since Claude Code resumes counting from it.
            metadata = event.get("metadata") if isinstance(event.get("metadata"), dict) else {}
            # Titles recorded after the first message (a /rename, the
            # generated title): appended, as Claude Code appends them.
            for line in _summary_lines({"metadata": metadata}, main.session_id):
                emit(jsonout.dumps(line, option=_DUMP))
            cost = metadata.get("costState")
            if isinstance(cost, dict) and cost:
                emit(jsonout.dumps({"type": "cost-state", "sessionId": main.session_id, **cost}, option=_DUMP))


EXPORTER = Exporter(
    name="claude-code",
    description="Claude Code session transcripts (~/.claude/projects/*/*.jsonl), subagents included",
    write=write,
    cannot_carry=("media outside prompts", "responses items"),
    extension=".jsonl",
    multi_session=True,
    options=(KEEP_TOOL_NAMES,),
)
