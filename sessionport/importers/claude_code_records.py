"""One Claude Code JSONL file → one canonical session.

:func:`read_transcript` streams the lines of one file (a main session or a
subagent transcript) and yields ``session``, ``message``… and ``end``
events.  Lines that are never conversation and carry no ``uuid``
(``file-history-snapshot``, ``queue-operation``, ``permission-mode``,
``last-prompt``) are recognised from their first bytes and counted without
being parsed.  Records that sit in the ``parentUuid`` chain without being
messages (``progress``, ``attachment``, hook ``system`` lines) are skipped
but remembered, so that a message whose parent is one of them gets the
nearest emitted ancestor as ``parentId``.
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Iterator

from ..context import ReadContext
from ..jsonl import iter_lines, parse_line
from ..model import end_event, session_event
from .claude_code_content import block_text, content_text, search_results_text, tool_label
from .claude_code_usage import UsageGrouper

SOURCE = "claude-code"

# Records whose type is their first key and that never join the chain:
# counted from their first bytes, never parsed (snapshots can be large).
UNPARSED_PREFIXES = {
    b'{"type":"file-history-snapshot"': "file-history-snapshot",
    b'{"type":"queue-operation"': "queue-operation",
    b'{"type":"permission-mode"': "permission-mode",
    b'{"type":"last-prompt"': "last-prompt",
}
_PREFIX_HEAD = b'{"type":"'

COMPACTION_SUBTYPES = frozenset(("compact_boundary", "microcompact_boundary"))
SPOKEN_SYSTEM_SUBTYPES = frozenset(("informational", "local_command"))
TITLE_TYPES = {"summary": "summary", "ai-title": "aiTitle", "custom-title": "customTitle"}
# How many skipped chain records are remembered to re-link their children.
ALIAS_WINDOW = 4096
_AGENT_ID_IN_TEXT = re.compile(r"agentId: ([0-9A-Za-z_-]{4,64})")


@dataclass
class AgentLink:
    """What is known about a subagent transcript before reading it."""

    agent_id: str | None = None
    parent_session_id: str | None = None
    tool_call_id: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class FileResult:
    """Filled while reading; the caller reads it after the generator ends."""

    session_id: str | None = None
    is_agent_file: bool = False
    emitted_session: bool = False
    # agentId -> id of the tool call that started it (Task/Agent results).
    agent_calls: dict[str, str] = field(default_factory=dict)


def _message(
    role: str,
    text: str,
    timestamp: str | None = None,
    id: str | None = None,
    parentId: str | None = None,
    toolName: str | None = None,
    toolCallId: str | None = None,
    toolInput: dict | None = None,
    isError: bool | None = None,
    meta: dict | None = None,
) -> dict:
    """``model.message_event`` with its fields spelled out: the hot path."""
    event: dict[str, Any] = {"type": "message", "role": role, "text": text}
    if timestamp is not None:
        event["timestamp"] = timestamp
    if id is not None:
        event["id"] = id
    if parentId is not None:
        event["parentId"] = parentId
    if toolName is not None:
        event["toolName"] = toolName
    if toolCallId is not None:
        event["toolCallId"] = toolCallId
    if toolInput is not None:
        event["toolInput"] = toolInput
    if isError is not None:
        event["isError"] = isError
    if meta:
        event["meta"] = meta
    return event


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class _Transcript:
    def __init__(self, ctx: ReadContext, link: AgentLink | None, result: FileResult) -> None:
        self.ctx = ctx
        self.link = link
        self.result = result
        self.grouper = UsageGrouper()
        self.skipped: Counter = Counter()
        self.alias: OrderedDict[str, str | None] = OrderedDict()
        self.envelope: dict[str, Any] = {}
        self.titles: list[dict] = []
        self.late_title: str | None = None
        self.session_sent = False
        self.messages = 0
        self.sidechain_messages = 0
        self.lines = 0

    # -- chain ----------------------------------------------------------
    def parent_of(self, record: dict) -> str | None:
        parent = record.get("parentUuid")
        if not isinstance(parent, str):
            return None
        return self.alias.get(parent, parent)

    def remember_skipped(self, record: dict) -> None:
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            self.alias[uuid] = self.parent_of(record)
            if len(self.alias) > ALIAS_WINDOW:
                self.alias.popitem(last=False)

    # -- envelope -------------------------------------------------------
    def note_envelope(self, record: dict) -> None:
        env = self.envelope
        for key in ("sessionId", "cwd", "version", "gitBranch", "timestamp", "slug", "entrypoint", "agentId"):
            if key not in env:
                value = record.get(key)
                if isinstance(value, str) and (value or key == "gitBranch"):
                    env[key] = value
        if "isSidechain" not in env and isinstance(record.get("isSidechain"), bool):
            env["isSidechain"] = record["isSidechain"]
            # A transcript whose first record is a sidechain with an agent id
            # is a subagent file (2.0.x/2.1.x); 1.0.x inline sidechains have
            # no agentId and follow main-thread records.
            link_agent = self.link.agent_id if self.link else None
            if link_agent or (env["isSidechain"] and "agentId" in env):
                self.result.is_agent_file = True

    def session(self) -> dict:
        env = self.envelope
        metadata: dict[str, Any] = {}
        for key in ("version", "gitBranch", "slug", "entrypoint"):
            if key in env:
                metadata[key] = env[key]
        if self.titles:
            metadata["summaries"] = self.titles
        session_id = env.get("sessionId")
        agent_id = env.get("agentId") if env.get("isSidechain") else None
        link = self.link
        if link is not None and link.agent_id:
            agent_id = link.agent_id
        if agent_id:
            parent_id = (link.parent_session_id if link else None) or session_id
            metadata["agentId"] = agent_id
            metadata["sidechain"] = True
            if parent_id:
                metadata["parentSessionId"] = parent_id
            if link is not None and link.tool_call_id:
                metadata["parentToolCallId"] = link.tool_call_id
            session_id = f"agent-{agent_id}"
        self.result.session_id = env.get("sessionId")
        title = None
        for entry in reversed(self.titles):
            title = entry.get("summary")
            if title:
                break
        self.session_sent = True
        self.result.emitted_session = True
        return session_event(
            SOURCE,
            sessionId=session_id,
            cwd=env.get("cwd"),
            createdAt=env.get("timestamp"),
            title=title,
            metadata=metadata,
        )

    # -- records --------------------------------------------------------
    def base_meta(self, record: dict) -> dict:
        meta: dict[str, Any] = {}
        if record.get("isSidechain") is True and not self.result.is_agent_file:
            meta["sidechain"] = True
            self.sidechain_messages += 1
            agent = _str(record.get("agentId"))
            if agent:
                meta["agentId"] = agent
        return meta

    def user_events(self, record: dict) -> tuple[list[dict], bool]:
        """Events of a user line, and whether it is a real prompt (ends a turn)."""
        message = record.get("message")
        content = message.get("content") if type(message) is dict else None
        stamp = _str(record.get("timestamp"))
        uid = _str(record.get("uuid"))
        parent = self.parent_of(record)
        base = self.base_meta(record) if record.get("isSidechain") is True else {}
        # Real files hold one tool_result per line: the common case first.
        if type(content) is list and len(content) == 1:
            block = content[0]
            if type(block) is dict and block.get("type") == "tool_result":
                return [self.tool_result(record, block, stamp, uid, parent, base, 0)], False
        injected = record.get("isMeta") is True
        compact = record.get("isCompactSummary") is True
        events: list[dict] = []
        pending: list[str] = []
        if type(content) is list:
            for block in content:
                if type(block) is dict and block.get("type") == "tool_result":
                    if pending:
                        events.append(self.user_text(pending, stamp, uid, parent, base, injected, compact, len(events)))
                        pending = []
                    events.append(self.tool_result(record, block, stamp, uid, parent, base, len(events)))
                else:
                    pending.append(block_text(block))
        elif content is not None:
            pending.append(content_text(content))
        if pending:
            events.append(self.user_text(pending, stamp, uid, parent, base, injected, compact, len(events)))
        prompt = bool(events) and not injected and all(e["role"] == "user" for e in events)
        return events, prompt

    @staticmethod
    def user_text(pending, stamp, uid, parent, base, injected, compact, n) -> dict:
        meta = {"kind": "summary", **base} if compact else dict(base)
        if injected or compact:
            meta["injected"] = True
        return _message(
            "user",
            "\n\n".join(pending),
            timestamp=stamp,
            id=uid if n == 0 else f"{uid}#{n}" if uid else None,
            parentId=parent,
            meta=meta or None,
        )

    def tool_result(self, record, block, stamp, uid, parent, base, n) -> dict:
        content = block.get("content")
        tur = record.get("toolUseResult")
        if content is None and isinstance(tur, str):
            text = tur
        else:
            text = content_text(content)
        meta = {"kind": "tool_result", **base}
        call_id = _str(block.get("tool_use_id"))
        agent = _str(tur.get("agentId")) if isinstance(tur, dict) else None
        if agent is None and "agentId: " in text:
            found = _AGENT_ID_IN_TEXT.search(text)
            agent = found.group(1) if found else None
        if agent:
            meta["spawnedAgentId"] = agent
            if call_id:
                self.result.agent_calls.setdefault(agent, call_id)
        is_error = block.get("is_error")
        return _message(
            "tool",
            text,
            timestamp=stamp,
            id=uid if n == 0 else f"{uid}#{n}" if uid else None,
            parentId=parent,
            toolCallId=call_id,
            isError=is_error if isinstance(is_error, bool) else None,
            meta=meta,
        )

    def assistant_events(self, record: dict) -> tuple[Any, Any, list[dict]]:
        message = record.get("message")
        if not isinstance(message, dict):
            message = {}
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif not isinstance(content, list):
            content = []
        stamp = _str(record.get("timestamp"))
        uid = _str(record.get("uuid"))
        parent = self.parent_of(record)
        base = self.base_meta(record) if record.get("isSidechain") is True else {}
        model = _str(message.get("model"))
        msg_id = message.get("id") if isinstance(message.get("id"), str) else None
        request = _str(record.get("requestId"))
        if model:
            base["model"] = model
        if msg_id:
            base["messageId"] = msg_id
        if request:
            base["requestId"] = request
        if record.get("isApiErrorMessage") is True:
            base["apiError"] = True
        events = []
        for n, block in enumerate(content):
            common = {
                "timestamp": stamp,
                "id": uid if n == 0 else f"{uid}#{n}" if uid else None,
                "parentId": parent,
            }
            events.append(self.assistant_block(block, base, common))
        return msg_id, message.get("usage"), events

    def assistant_block(self, block: Any, base: dict, common: dict) -> dict:
        btype = block.get("type") if type(block) is dict else None
        if btype == "text":
            return _message("assistant", content_text(block.get("text")), meta={"kind": "text", **base}, **common)
        if btype == "tool_use" or btype == "server_tool_use":
            meta = {"kind": "tool_use", **base}
            if btype == "server_tool_use":
                meta["server"] = True
            name = _str(block.get("name")) or "tool"
            tool_input = block.get("input")
            if type(tool_input) is not dict:
                tool_input = {} if tool_input is None else {"input": tool_input}
            return _message(
                "tool",
                tool_label(name, tool_input),
                toolName=name,
                toolCallId=_str(block.get("id")),
                toolInput=tool_input,
                meta=meta,
                **common,
            )
        if btype == "thinking":
            meta = {"kind": "thinking", **base}
            signature = _str(block.get("signature"))
            if signature:
                meta["signature"] = signature
            return _message("assistant", content_text(block.get("thinking")), meta=meta, **common)
        if btype == "redacted_thinking":
            meta = {"kind": "thinking", **base, "redacted": True}
            data = _str(block.get("data"))
            if data:
                meta["data"] = data
            return _message("assistant", "", meta=meta, **common)
        if isinstance(btype, str) and btype.endswith("_tool_result"):
            return _message(
                "tool",
                search_results_text(block.get("content")),
                toolCallId=_str(block.get("tool_use_id")),
                meta={"kind": "tool_result", **base, "server": True},
                **common,
            )
        meta = {"kind": "text", **base}
        if type(block) is dict:
            meta["blockType"] = btype if isinstance(btype, str) else "unknown"
            return _message("assistant", block_text(block), meta=meta, **common)
        return _message("assistant", content_text(block), meta=meta, **common)

    def system_events(self, record: dict) -> list[dict] | None:
        subtype = record.get("subtype")
        if not isinstance(subtype, str) or (subtype not in COMPACTION_SUBTYPES and subtype not in SPOKEN_SYSTEM_SUBTYPES):
            return None
        meta = self.base_meta(record)
        meta["subtype"] = subtype
        text = content_text(record.get("content"))
        if subtype in COMPACTION_SUBTYPES:
            meta["kind"] = "compaction"
            text = text or "Conversation compacted"
            compact = record.get("compactMetadata")
            if isinstance(compact, dict):
                meta["compactMetadata"] = compact
            logical = _str(record.get("logicalParentUuid"))
            if logical:
                meta["logicalParentId"] = logical
        elif subtype == "local_command":
            meta["injected"] = True
        return [
            _message(
                "system",
                text,
                timestamp=_str(record.get("timestamp")),
                id=_str(record.get("uuid")),
                parentId=self.parent_of(record),
                meta=meta,
            )
        ]

    def count_skip(self, key: str) -> None:
        self.skipped[key] += 1

    # -- the loop -------------------------------------------------------
    def run(self, stream: BinaryIO) -> Iterator[dict]:
        ctx = self.ctx
        grouper = self.grouper
        for line_no, line, complete in iter_lines(stream, ctx):
            self.lines += 1
            if line.startswith(_PREFIX_HEAD):
                kind = _unparsed_kind(line)
                if kind is not None:
                    self.skipped[kind] += 1
                    continue
            record = parse_line(line, line_no, complete, ctx)
            if record is None:
                continue
            if not isinstance(record, dict):
                ctx.bad_record(
                    f"expected a Claude Code record (a JSON object), found a JSON {type(record).__name__}",
                    line=line_no,
                )
                continue
            rtype = record.get("type")
            if not isinstance(rtype, str):
                rtype = None
            out: list[dict]
            if rtype == "assistant":
                if not self.session_sent:
                    self.note_envelope(record)
                msg_id, usage, events = self.assistant_events(record)
                out = grouper.assistant(msg_id, usage, events)
                self.messages += len(events)
            elif rtype == "user":
                if not self.session_sent:
                    self.note_envelope(record)
                events, prompt = self.user_events(record)
                if not events:
                    self.count_skip("user (empty)")
                    self.remember_skipped(record)
                    continue
                self.messages += len(events)
                out = grouper.other(events, ends_turn=prompt)
            elif rtype in TITLE_TYPES:
                self.take_title(record, rtype)
                continue
            elif rtype == "system" and (events := self.system_events(record)) is not None:
                if not self.session_sent:
                    self.note_envelope(record)
                self.messages += len(events)
                out = grouper.other(events)
            else:
                if not self.session_sent and isinstance(record.get("sessionId"), str) and "uuid" in record:
                    self.note_envelope(record)
                self.remember_skipped(record)
                self.count_skip(_skip_key(record))
                continue
            if out:
                if not self.session_sent:
                    yield self.session()
                yield from out
        rest = grouper.close()
        if rest:
            if not self.session_sent:
                yield self.session()
            yield from rest

    def take_title(self, record: dict, rtype: str) -> None:
        text = _str(record.get(TITLE_TYPES[rtype]))
        if text is None:
            self.count_skip(rtype)
            return
        if self.session_sent:
            self.late_title = text
            return
        entry = {"summary": text}
        leaf = _str(record.get("leafUuid"))
        if leaf:
            entry["leafUuid"] = leaf
        if rtype != "summary":
            entry["type"] = rtype
        self.titles.append(entry)

    def end(self, notes: list[str]) -> dict:
        counts = {"messages": self.messages, "lines": self.lines, "apiMessages": self.grouper.api_messages}
        if self.sidechain_messages:
            counts["sidechainLines"] = self.sidechain_messages
        return end_event(
            usage=self.grouper.totals(),
            counts=counts,
            skipped=dict(self.skipped),
            notes=notes or None,
            title=self.late_title,
        )

    def why_empty(self) -> str:
        if not self.lines:
            return "the file is empty (no records); no conversation in it"
        kinds = dict(self.skipped)
        if self.titles:
            kinds["summary"] = len(self.titles)
        listed = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        if set(kinds) == {"summary"}:
            return f"the file holds only session summary records ({listed}) and no conversation; nothing to convert"
        if set(kinds) == {"file-history-snapshot"}:
            return f"the file holds only file-history-snapshot records ({listed}) and no conversation; nothing to convert"
        return f"the file holds no conversation (records seen: {listed or 'none readable'})"


def _unparsed_kind(line: bytes) -> str | None:
    for prefix, kind in UNPARSED_PREFIXES.items():
        if line.startswith(prefix):
            return kind
    return None


def _skip_key(record: dict) -> str:
    rtype = record.get("type")
    if not isinstance(rtype, str):
        return "(no type)"
    if rtype == "system":
        subtype = record.get("subtype")
        return f"system/{subtype}" if isinstance(subtype, str) else "system"
    return rtype


def read_transcript(
    stream: BinaryIO,
    ctx: ReadContext,
    *,
    link: AgentLink | None = None,
    result: FileResult | None = None,
    extra_notes: Any = None,
) -> Iterator[dict]:
    """Yield the events of one Claude Code file.

    ``extra_notes`` is called (with the :class:`FileResult`) after the last
    line was read and returns notes for the ``end`` event (subagent
    discovery uses it).  When the file holds no conversation nothing is
    yielded and a warning says why.
    """
    result = result if result is not None else FileResult()
    transcript = _Transcript(ctx, link, result)
    yield from transcript.run(stream)
    if not transcript.session_sent:
        ctx.warn(transcript.why_empty())
        return
    notes = list(link.notes) if link else []
    if extra_notes is not None:
        notes.extend(extra_notes(result))
    yield transcript.end(notes)
