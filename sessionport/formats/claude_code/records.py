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

from collections import Counter, OrderedDict
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.lazy import lazy
from sessionport.jsonl import MAX_DEPTH, NOT_OPENERS, iter_block_lines, iter_lines, line_too_deep, parse_line, refuse_deep_line, value_too_deep
from sessionport.model import end_event, message_event, session_event
from sessionport.plain import Record
from sessionport.formats.claude_code.content import OWN_TEXT_KINDS, attachment_text, content_text, rendered_attachment
from sessionport.formats.claude_code.messages import MessageBuilder, _str
from sessionport.formats.claude_code.sniff import STATE_TYPES
from sessionport.formats.claude_code.spread_stream import is_spread, rebuilt_message
from sessionport.formats.claude_code.usage import UsageGrouper

SOURCE = "claude-code"

# Of the state types (see .sniff), the ones whose type is their first key:
# counted from their first bytes, never parsed (snapshots can be large).
UNPARSED_PREFIXES = {
    f'{{"type":"{name}"'.encode(): name for name in sorted(STATE_TYPES)
}
# The same, by the quoted name that follows ``{"type":"`` (one slice and
# one dict look-up per line instead of a startswith per prefix).
_UNPARSED_BY_NAME = {prefix[9:-1]: kind for prefix, kind in UNPARSED_PREFIXES.items()}
_NAME_END = 9 + max(len(name) for name in _UNPARSED_BY_NAME) + 1
_PREFIX_HEAD = b'{"type":"'
_PROGRESS_HEAD = b'{"parentUuid":'
_PROGRESS_TYPE = b',"type":"progress","data":{'
_PROGRESS_TYPE_LEN = len(_PROGRESS_TYPE)
_PROGRESS_SCAN = 8192
# A line longer than this has its depth tested on its parsed values (a
# look per value), a shorter one first on its bytes (a look per byte: its
# brackets are counted): a short line has few bytes per value (envelopes,
# usage counts), a long one a few big strings.
_WALK_FROM = 2048

TITLE_TYPES = {"summary": "summary", "ai-title": "aiTitle", "custom-title": "customTitle"}
# Which title names the session when a file holds several kinds, as Claude
# Code's session list shows them: the user's /rename, then the generated one,
# then a summary (the latest of the winning kind).
TITLE_RANK = {"summary": 0, "ai-title": 1, "custom-title": 2}
# The title records after the first message kept for the end event (the last ones).
LATE_TITLES = 64
# Chain records that are not messages of their own: skipped but remembered.
CHAIN_SKIPPED = frozenset(("progress", "system"))
# Hook output the model is given only for these hook events.
HOOK_OUTPUT_ATTACHMENTS = frozenset(("hook_success", "hook_non_blocking_error"))
HOOK_EVENTS_SEEN_BY_MODEL = frozenset(("SessionStart", "UserPromptSubmit"))
# Prompts waiting in Claude Code's queue, held until the record that
# delivers them to the model shows up (then they are that record).
QUEUE_HOLD = 64
# What the stream-json ``result`` record says of the run (its ``result``
# text repeats the last assistant message).
STREAM_RESULT_KEYS = frozenset((
    "subtype", "is_error", "duration_ms", "duration_api_ms", "num_turns", "total_cost_usd", "usage", "modelUsage",
    "permission_denials", "stop_reason", "error", "stats",  # the last two: Qwen Code's
))
# How many skipped chain records are remembered to re-link their children.
ALIAS_WINDOW = 4096
# About where the typed decode saves more than importing msgspec costs
# (it saves about a tenth of a common line's reading; the import costs as
# much as reading some 5,000 lines, 20 MB).
TYPED_SIZE = 32 << 20
# Lines the typed decode may decline before it is only tried while it
# takes at least half of the lines read.
TYPED_MISSES = 256


# sessionport.formats.claude_code.typed, imported on first use (with
# msgspec, which costs a small log more to import than it saves).
typed_assistant: Any = None
typed_tool_result: Any = None
typed_as_record: Any = None


def _typed_decoder() -> Any:
    """``typed.decode_line``, with the names the loop uses bound here."""
    global typed_assistant, typed_tool_result, typed_as_record
    from sessionport.formats.claude_code import typed

    typed_assistant, typed_tool_result, typed_as_record = typed.assistant_event, typed.tool_result_event, typed.as_record
    return typed.decode_line


class AgentLink(Record):
    """What is known about a subagent transcript before reading it."""

    _fields = ("agent_id", "parent_session_id", "tool_call_id", "workflow_run_id", "notes")

    agent_id: str | None
    parent_session_id: str | None
    tool_call_id: str | None
    workflow_run_id: str | None
    notes: list[str]

    def __init__(
        self,
        agent_id: str | None = None,
        parent_session_id: str | None = None,
        tool_call_id: str | None = None,
        workflow_run_id: str | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.parent_session_id = parent_session_id
        self.tool_call_id = tool_call_id
        self.workflow_run_id = workflow_run_id
        self.notes = [] if notes is None else notes


class FileResult(Record):
    """Filled while reading; the caller reads it after the generator ends."""

    _fields = ("session_id", "is_agent_file", "emitted_session", "agent_calls", "run_calls", "subagents_following")

    session_id: str | None
    is_agent_file: bool
    emitted_session: bool
    # agentId -> id of the tool call that started it (Task/Agent results).
    agent_calls: dict[str, str]
    # workflow run id -> id of the Workflow call that started the run.
    run_calls: dict[str, str]
    # Called with the session id when the session event is made; returns the
    # agent ids of the subagent sessions that will follow it in the stream
    # (``metadata.subagents``, so a viewer links only to sessions it will hold).
    subagents_following: Any

    def __init__(
        self,
        session_id: str | None = None,
        is_agent_file: bool = False,
        emitted_session: bool = False,
        agent_calls: dict[str, str] | None = None,
        run_calls: dict[str, str] | None = None,
        subagents_following: Any = None,
    ) -> None:
        self.session_id = session_id
        self.is_agent_file = is_agent_file
        self.emitted_session = emitted_session
        self.agent_calls = {} if agent_calls is None else agent_calls
        self.run_calls = {} if run_calls is None else run_calls
        self.subagents_following = subagents_following


class _Transcript(MessageBuilder):
    # A subclass may parse a line (once the session has started) its own
    # way: ``partial_record(line)`` returns the record with only the fields
    # it needs, None for a full parse, or False when it took the line itself.
    partial_record: Any = None
    # The commonest user and assistant lines decoded into typed records
    # (typed.py), once this many of them were parsed in full (from the
    # first in a file of TYPED_SIZE or more): a log too short for the
    # typed decode to save what importing msgspec costs never imports it.
    # None: every line takes the full parse (the tests compare the two).
    typed_after: int | None = 8192

    def __init__(self, ctx: ReadContext, link: AgentLink | None, result: FileResult) -> None:
        self.ctx = ctx
        self.link = link
        if link is not None and link.agent_id:
            result.is_agent_file = True
        self.result = result
        self.grouper = UsageGrouper()
        self.skipped: Counter = Counter()
        self.alias: OrderedDict[str, str | None] = OrderedDict()
        self.envelope: dict[str, Any] = {}
        self.titles: list[dict] = []
        self.late_title: str | None = None
        self.title_rank = -1  # of the title given so far (session or late)
        self.late_titles: list[dict] = []  # recorded after the first message, for end.metadata
        self.session_sent = False
        self.messages = 0
        self.sidechain_messages = 0
        self.rebuilt_streams = 0  # assistant messages saved as a spread response stream
        self.lines = 0
        self.queued: list[dict] = []  # enqueued prompts not yet delivered
        self.last_uuid: Any = None  # of the last user or assistant line
        self.last_session: Any = None  # and its sessionId
        self.cost_state: dict | None = None  # the last cost-state record, without type and sessionId
        # ``claude -p --output-format stream-json`` (and the SDK): records
        # named by ``session_id``, opened by a system/init record, closed by
        # a ``result`` record whose summary is kept here.
        self.stream_json = False
        self.stream_result: dict | None = None

    # -- chain ----------------------------------------------------------
    def parent_of(self, record: dict) -> str | None:
        parent = record.get("parentUuid")
        if not isinstance(parent, str):
            return None
        return self.alias.get(parent, parent)

    def remember_skipped(self, record: dict) -> None:
        uuid = record.get("uuid")
        if isinstance(uuid, str):
            self.remember_alias(uuid, self.parent_of(record))

    def remember_alias(self, uuid: str, resolved_parent: str | None) -> None:
        self.alias[uuid] = resolved_parent
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
        if "forkedFrom" not in env:
            fork = _fork_origin(record.get("forkedFrom"))
            if fork is not None and fork.get("sessionId"):
                env["forkedFrom"] = fork["sessionId"]
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
        for key in ("version", "gitBranch", "slug", "entrypoint", "model", "client", "forkedFrom"):
            if key in env:
                metadata[key] = env[key]
        if self.stream_json:
            metadata["streamJson"] = True
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
            if link is not None and link.workflow_run_id:
                metadata["workflowRunId"] = link.workflow_run_id
            session_id = f"agent-{agent_id}"
        self.result.session_id = env.get("sessionId")
        if self.result.subagents_following is not None and not agent_id and not self.result.is_agent_file:
            following = self.result.subagents_following(self.result.session_id)
            if following:
                metadata["subagents"] = following
        title = None
        best = -1
        for entry in self.titles:
            rank = TITLE_RANK[entry.get("type", "summary")]
            if entry.get("summary") and rank >= best:
                title, best = entry["summary"], rank
        self.title_rank = best
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

    def count_skip(self, key: str) -> None:
        self.skipped[key] += 1

    def repeated(self, record: Any) -> bool:
        """Whether a user or assistant line repeats the one before it:
        resuming a session, Claude Code 1.0.x writes the last record again,
        same ``uuid``, under the new ``sessionId``.  Counted, never a second
        message (a second result of one call)."""
        uid = record.get("uuid")
        session = record.get("sessionId")
        if uid is not None and uid == self.last_uuid and session != self.last_session:
            self.count_skip(f"{record.get('type')} (repeated on resume)")
            return True
        self.last_uuid = uid
        self.last_session = session
        return False

    # -- the loop -------------------------------------------------------
    def run(self, stream: BinaryIO | None, source: Iterator[tuple[int, bytes, bool]] | None = None) -> Iterator[dict]:
        ctx = self.ctx
        grouper = self.grouper
        skipped = self.skipped
        loads = orjson.loads
        # Counted in locals (this loop runs once per line) and stored when
        # the input ends: only end() and why_empty() read them.
        lines = messages = 0
        partial_record = self.partial_record
        # The depth of a line (see jsonl.iter_lines) is tested here: a long
        # line on what orjson made of it (see _WALK_FROM), which spares the
        # pass over its bytes and, for a line of many brackets, the second
        # parse the line reader makes.  A line never parsed is tested on its
        # bytes, as the line reader would; one the census decodes its own
        # way is tested by the line reader.
        check_depth = source is None and partial_record is None
        # Without the line reader's depth test, lines are cut out of one
        # buffer (see jsonl.iter_block_lines): one copy of a line's bytes
        # instead of a readline's and a strip's.
        if source is None:
            source = iter_block_lines(stream, ctx) if check_depth else iter_lines(stream, ctx)
        # The typed decode (see typed.py) of lines the full parse would
        # read, depth included: only here, where this loop tests the depth.
        typed = None
        warm = self.typed_after if check_depth else None
        if warm is not None and (warm <= 0 or (ctx.size or 0) >= TYPED_SIZE):
            typed, warm = _typed_decoder(), None
        typed_misses = 0
        for line_no, line, complete in source:
            lines += 1
            record = None
            if line.startswith(_PREFIX_HEAD):
                close = line.find(b'"', 9, _NAME_END)
                kind = _UNPARSED_BY_NAME.get(line[9:close]) if close > 0 else None
                if kind is not None:
                    if check_depth and line_too_deep(line):
                        refuse_deep_line(line_no, ctx)
                        lines -= 1
                        continue
                    skipped[kind] += 1
                    continue
            elif self.session_sent and line.startswith(_PROGRESS_HEAD):
                # The type test (see _progress_link) is written out here: most
                # of these lines are messages and so cost no call.  The bytes
                # up to the first "{" after the opening one end with the type
                # (never at the line's start, which is _PROGRESS_HEAD).
                brace = line.find(b"{", 1, _PROGRESS_SCAN) + 1
                if line.endswith(_PROGRESS_TYPE, 0, brace) and (link := _progress_link(line, brace - _PROGRESS_TYPE_LEN)) is not None:
                    if check_depth and line_too_deep(line):
                        refuse_deep_line(line_no, ctx)
                        lines -= 1
                        continue
                    parent = link[1]
                    self.remember_alias(link[0], self.alias.get(parent, parent) if parent else None)
                    skipped["progress"] += 1
                    continue
                if typed is not None and not self.stream_json:
                    typed_line = typed(line)
                    if typed_line is None:
                        # Lines of shapes not declared there (a newer
                        # version's fields): past this many, the rest are
                        # parsed in full without first trying.
                        typed_misses += 1
                        if typed_misses > TYPED_MISSES and typed_misses * 2 > lines:
                            typed = None
                    else:
                        # What repeated() tests, as below.
                        uid = typed_line.uuid
                        session = typed_line.sessionId
                        if uid is not None and uid == self.last_uuid and session != self.last_session:
                            self.count_skip(f"{typed_line.type} (repeated on resume)")
                            continue
                        self.last_uuid = uid
                        self.last_session = session
                        if typed_line.type == "assistant":
                            common = typed_assistant(self, typed_line)
                            if common is not None:
                                del line  # as below
                                messages += 1
                                out = grouper.assistant_event(*common)
                                if out:
                                    yield from out
                                continue
                        else:
                            event = typed_tool_result(self, typed_line)
                            if event is not None:
                                del line
                                messages += 1
                                out = grouper.other_event(event)
                                if out:
                                    yield from out
                                continue
                        # Another shape: the handlers below read it.
                        record = typed_as_record(typed_line)
                elif warm is not None:
                    warm -= 1
                    if warm <= 0:
                        typed, warm = _typed_decoder(), None
            if partial_record is not None and self.session_sent:
                record = partial_record(line)
                if record is False:
                    continue
            if record is None:
                # parse_line starts with this same call; it is only needed (and
                # called) to report a line orjson cannot read.
                try:
                    record = loads(line)
                except orjson.JSONDecodeError:
                    if check_depth and line_too_deep(line):
                        refuse_deep_line(line_no, ctx)
                        lines -= 1
                        continue
                    record = parse_line(line, line_no, complete, ctx)
                else:
                    # (opening_brackets written out: a call less per line)
                    if check_depth and (len(line) > _WALK_FROM or len(line.translate(None, NOT_OPENERS)) > MAX_DEPTH) and value_too_deep(record):
                        refuse_deep_line(line_no, ctx)
                        lines -= 1
                        continue
            del line  # a big line is freed before its events are written
            if type(record) is not dict:
                if record is not None:
                    ctx.bad_record(
                        f"expected a Claude Code record (a JSON object), found a JSON {type(record).__name__}",
                        line=line_no,
                    )
                continue
            rtype = record.get("type")
            if type(rtype) is not str:
                rtype = None
            if self.stream_json or (rtype == "system" and lines <= 2 and record.get("subtype") == "init" and "session_id" in record):
                rtype = self.stream_record(record, rtype)
                if rtype is None:
                    continue
            out: list[dict] | tuple
            if rtype == "assistant" or rtype == "user":
                # What repeated() tests, written out: every message line asks.
                uid = record.get("uuid")
                session = record.get("sessionId")
                if uid is not None and uid == self.last_uuid and session != self.last_session:
                    self.count_skip(f"{rtype} (repeated on resume)")
                    continue
                self.last_uuid = uid
                self.last_session = session
                if not self.session_sent:
                    self.note_envelope(record)
                if rtype == "assistant":
                    if is_spread(record.get("message")):
                        rebuilt = rebuilt_message(record["message"])
                        if rebuilt is not None:
                            record["message"] = rebuilt
                            self.rebuilt_streams += 1
                    forked = "forkedFrom" in record or "requestSessionId" in record
                    common = self.common_assistant(record, uid)
                    if common is not None:
                        if forked:
                            _fork_meta(record, (common[2],))
                        out = grouper.assistant_event(*common)
                        messages += 1
                    else:
                        msg_id, usage, events = self.assistant_events(record)
                        if forked:
                            _fork_meta(record, events)
                        out = grouper.assistant(msg_id, usage, events)
                        messages += len(events)
                else:
                    forked = "forkedFrom" in record
                    event = self.common_tool_result(record, uid)
                    if event is not None:
                        if forked:
                            _fork_meta(record, (event,))
                        messages += 1
                        out = grouper.other_event(event)
                    else:
                        events, prompt = self.user_events(record)
                        if not events:
                            self.count_skip("user (empty)")
                            self.remember_skipped(record)
                            continue
                        if forked:
                            _fork_meta(record, events)
                        if self.queued and events[0]["role"] == "user":
                            self.delivered(events[0]["text"])
                        messages += len(events)
                        out = grouper.other(events, ends_turn=prompt)
            elif rtype in TITLE_TYPES:
                self.take_title(record, rtype)
                continue
            elif rtype == "cost-state":
                # 2.1.2xx: the session's running cost as Claude Code counts
                # it (totalCostUSD, modelUsage), written again on each exit.
                self.cost_state = {k: v for k, v in record.items() if k not in ("type", "sessionId")}
                skipped["cost-state"] += 1
                continue
            elif rtype == "system" and (events := self.system_events(record)) is not None:
                if not self.session_sent:
                    self.note_envelope(record)
                if "forkedFrom" in record:
                    _fork_meta(record, events)
                messages += len(events)
                out = grouper.other(events)
            elif rtype == "attachment":
                if not self.session_sent:
                    self.note_envelope(record)
                events = self.attachment_events(record)
                if not events:
                    continue
                if "forkedFrom" in record:
                    _fork_meta(record, events)
                messages += len(events)
                out = grouper.other(events)
            elif rtype == "queue-operation":
                events = self.queue_operation(record)
                if not events:
                    continue
                messages += len(events)
                out = grouper.other(events)
            else:
                if not self.session_sent and isinstance(record.get("sessionId"), str) and "uuid" in record:
                    self.note_envelope(record)
                self.remember_skipped(record)
                key = _skip_key(record)
                self.count_skip(key)
                if rtype not in CHAIN_SKIPPED and rtype not in STATE_TYPES:
                    ctx.unknown(key, line=line_no)
                continue
            if out:
                if not self.session_sent:
                    yield self.session()
                yield from out
        if self.queued:
            events = self.undelivered()
            messages += len(events)
            out = grouper.other(events)
            if out:
                if not self.session_sent:
                    yield self.session()
                yield from out
        self.lines = lines
        self.messages = messages
        rest = grouper.close()
        if rest:
            if not self.session_sent:
                yield self.session()
            yield from rest

    # -- what Claude Code itself puts before the model ---------------------
    def attachment_events(self, record: dict) -> list[dict]:
        """An ``attachment`` line (hook context, queued commands, task
        reminders, skill listings, deferred tools...) as an injected user
        message: Claude Code sends them to the model as ``<system-reminder>``
        blocks or user turns.  An attachment with nothing to show (a hook
        that printed nothing) is skipped and counted."""
        attachment = record.get("attachment")
        kind = attachment.get("type") if type(attachment) is dict else None
        kind = kind if type(kind) is str and kind else "unknown"
        text = attachment_text(attachment) if type(attachment) is dict else ""
        if self.queued and text and kind == "queued_command":
            self.delivered(text)
        # A prompt the user typed while the model worked (2.1.27x and later
        # name its origin): the user's own words, not context.
        human = kind == "queued_command" and bool(text) and (
            attachment.get("humanTurn") is True or (type(origin := attachment.get("origin")) is dict and origin.get("kind") == "human"))
        shown = rendered_attachment(record) if type(attachment) is dict else None
        if shown is not None and ("renderedRole" not in record or human) and kind in OWN_TEXT_KINDS and text:
            shown = None
        if shown is not None:
            # 2.1.3xx writes what it sends: the rendered text and its role
            role, text = shown
        else:
            role = "user"
            if text and kind in HOOK_OUTPUT_ATTACHMENTS and _hook_event(attachment) not in HOOK_EVENTS_SEEN_BY_MODEL:
                text = ""  # the output of a tool or stop hook is shown to the user only
        if not text:
            self.remember_skipped(record)
            self.count_skip(f"attachment/{kind}")
            return []
        stamp, uid, parent, base = self.line_fields(record)
        if uid is not None:
            # A leaf beside the chain: the line that names it as parent is
            # linked to its parent, as when attachments were skipped.
            self.remember_alias(uid, parent)
        meta = {**base, "humanTurn": True, "injectedKind": kind} if human else {**base, "injected": True, "injectedKind": kind}
        hook_event = _hook_event(attachment)
        if hook_event:
            meta["hookEvent"] = hook_event
        if type(attachment) is dict:
            filename = attachment.get("filename")
            if type(filename) is str and filename:
                meta["filePath"] = filename  # the file an edited_text_file snippet is of
            tool_use = attachment.get("toolUseID")
            if type(tool_use) is str and tool_use:
                meta["toolUseId"] = tool_use  # the call a read_truncation_notice or hook message is about
        return [message_event(role, text, timestamp=stamp, id=uid, parentId=parent, meta=meta)]

    def queue_operation(self, record: dict) -> list[dict]:
        """A prompt put in Claude Code's queue (typed while the model works,
        or a background task's ``<task-notification>``) is held until the
        line that delivers it (a user line or a ``queued_command``
        attachment with the same text); one never delivered in the file is
        kept as an injected message at the end.  Other operations only
        count."""
        operation = record.get("operation")
        operation = operation if type(operation) is str else "unknown"
        content = record.get("content")
        text = content_text(content) if content is not None else ""
        if operation != "enqueue" or not text.strip():
            self.count_skip(f"queue-operation/{operation}")
            return []
        stamp = record.get("timestamp")
        event = message_event(
            "user",
            text,
            timestamp=stamp if type(stamp) is str and stamp else None,
            meta={"injected": True, "injectedKind": "queue-operation"},
        )
        self.queued.append(event)
        if len(self.queued) > QUEUE_HOLD:
            return [self.queued.pop(0)]
        return []

    def delivered(self, text: str) -> None:
        key = text.strip()
        for index, event in enumerate(self.queued):
            if event["text"].strip() == key:
                del self.queued[index]
                self.count_skip("queue-operation/enqueue (delivered)")
                return

    def undelivered(self) -> list[dict]:
        events, self.queued = self.queued, []
        return events

    def take_title(self, record: dict, rtype: str) -> None:
        text = _str(record.get(TITLE_TYPES[rtype]))
        if text is None:
            self.count_skip(rtype)
            return
        entry = {"summary": text}
        leaf = _str(record.get("leafUuid"))
        if leaf:
            entry["leafUuid"] = leaf
        if rtype != "summary":
            entry["type"] = rtype
        if self.session_sent:
            rank = TITLE_RANK[rtype]
            if rank >= self.title_rank:  # a generated title never replaces the user's
                self.late_title, self.title_rank = text, rank
            if len(self.late_titles) >= LATE_TITLES:
                del self.late_titles[0]
            self.late_titles.append(entry)
            return
        self.titles.append(entry)

    def end(self, notes: list[str], unknown: dict | None = None) -> dict:
        counts = {"messages": self.messages, "lines": self.lines, "apiMessages": self.grouper.api_messages}
        if self.sidechain_messages:
            counts["sidechainLines"] = self.sidechain_messages
        if self.rebuilt_streams:
            counts["responseStreamsRebuilt"] = self.rebuilt_streams
        return end_event(
            usage=self.grouper.totals(),
            counts=counts,
            skipped=dict(self.skipped),
            notes=notes or None,
            title=self.late_title,
            unknown=unknown or None,
            metadata=self.end_metadata() or None,
        )

    def stream_record(self, record: dict, rtype: str | None) -> str | None:
        """A record of stream-json output in the transcript's own terms:
        ``session_id`` as ``sessionId``, ``claude_code_version`` as
        ``version``, a message of a sub-agent (``parent_tool_use_id``) as a
        sidechain.  The ``result`` summary and the partial-message
        ``stream_event`` records are taken here (None: nothing more to do)."""
        self.stream_json = True
        sid = record.get("session_id")
        if "sessionId" not in record and isinstance(sid, str):
            record["sessionId"] = sid
        if rtype == "system" and record.get("subtype") == "init":
            if _is_version(record.get("claude_code_version")) and "version" not in record:
                record["version"] = record["claude_code_version"]
            elif _is_version(record.get("qwen_code_version")) and "version" not in record:
                # Qwen Code prints the same stream (its Claude-SDK-compatible output)
                record["version"] = record["qwen_code_version"]
                self.envelope.setdefault("client", "qwen-code")
            if not self.session_sent:
                self.note_envelope(record)
                if isinstance(record.get("model"), str):
                    self.envelope.setdefault("model", record["model"])
            self.count_skip("system/init")
            return None
        if rtype == "result":
            self.stream_result = {k: v for k, v in record.items() if k in STREAM_RESULT_KEYS}
            self.count_skip("result")
            return None
        if rtype == "stream_event":
            self.count_skip("stream_event")  # a delta of a message written whole after it
            return None
        if isinstance(record.get("parent_tool_use_id"), str) and "isSidechain" not in record:
            record["isSidechain"] = True
        return rtype

    def end_metadata(self) -> dict:
        metadata: dict = {}
        if self.stream_result:
            metadata["result"] = self.stream_result
        if self.cost_state:
            metadata["costState"] = self.cost_state
        if self.late_titles:
            metadata["summaries"] = self.late_titles
        return metadata

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


def _hook_event(attachment: dict) -> str | None:
    event = attachment.get("hookEvent")
    if isinstance(event, str) and event:
        return event
    name = attachment.get("hookName")
    return name.split(":", 1)[0] if isinstance(name, str) else None


def _fork_origin(value: Any) -> dict | None:
    """``forkedFrom`` as Claude Code writes it on the lines a forked session
    copied (``/branch``, ``--fork-session``): ``{sessionId, messageUuid}``
    (the session and line copied), strings only; None for another shape."""
    if type(value) is not dict or not value:
        return None
    fork = {k: v for k, v in value.items() if k in ("sessionId", "messageUuid") and type(v) is str and v}
    return fork if len(fork) == len(value) else None


def _fork_meta(record: dict, events: Any) -> None:
    """Keep on a line's events where a forked session copied it from
    (``meta.forkedFrom``) and the session its request was made in
    (``meta.requestSessionId``, on an answer copied or resumed into
    another session), as written, so the writer puts them back."""
    fork = _fork_origin(record.get("forkedFrom"))
    request = record.get("requestSessionId") if record.get("type") == "assistant" else None
    if fork is None and not (type(request) is str and request):
        return
    for event in events:
        meta = event.get("meta")
        if meta is None:
            meta = event["meta"] = {}
        if fork is not None:
            meta["forkedFrom"] = dict(fork)
        if type(request) is str and request:
            meta["requestSessionId"] = request


def _progress_link(line: bytes, at: int) -> tuple[str, str | None] | None:
    """``(uuid, parentUuid)`` of a ``progress`` line read from its bytes, or
    None when the line does not have the exact shape Claude Code writes
    (then it is parsed).  Progress lines (hook, bash and agent progress) can
    be many and large, and only their place in the chain matters.

    The shape: ``{"parentUuid":null|"<id>", <string/bool envelope fields>,
    "type":"progress","data":{…}, …, "uuid":"<id>"}``.  No ``{`` may come
    before the type, so the type found is the top-level one.

    The caller found it: ``at`` is where ``_PROGRESS_TYPE`` starts, ending at
    the first ``{`` after the opening one (looking for that brace stops
    early on every other line, where ``"message":{`` comes soon, while
    looking for the type itself would scan _PROGRESS_SCAN bytes).
    """
    if not line.endswith(b'"}'):
        return None
    tail = line.rfind(b',"uuid":"')
    if tail < at or len(line) - tail > 80:
        return None
    uuid = line[tail + 9 : -2]
    if b'"' in uuid or b"\\" in uuid or not uuid:
        return None
    rest = line[len(_PROGRESS_HEAD) :]
    if rest.startswith(b"null,"):
        parent = None
    elif rest.startswith(b'"'):
        end = rest.find(b'"', 1, 80)
        if end < 0 or b"\\" in rest[:end]:
            return None
        parent = rest[1:end].decode("ascii", "replace")
    else:
        return None
    return uuid.decode("ascii", "replace"), parent


_VERSION = lazy(r"\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z.-]{1,40})?")


def _is_version(value: Any) -> bool:
    """A version number (``2.1.332``, ``0.24.4-preview.1``): the field is
    kept as the session's version, which is never redacted, so nothing
    else may pass for one."""
    return isinstance(value, str) and len(value) <= 64 and _VERSION.fullmatch(value) is not None


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
    lines: Iterator[tuple[int, bytes, bool]] | None = None,
    transcript_type: Any = None,
) -> Iterator[dict]:
    """Yield the events of one Claude Code file.

    ``extra_notes`` is called (with the :class:`FileResult`) after the last
    line was read and returns notes for the ``end`` event (subagent
    discovery uses it).  When the file holds no conversation nothing is
    yielded and a warning says why.
    """
    result = result if result is not None else FileResult()
    transcript = (transcript_type or _Transcript)(ctx, link, result)
    yield from transcript.run(stream if lines is None else None, lines)
    unknown = ctx.report_unknown()
    if not transcript.session_sent:
        ctx.warn(transcript.why_empty())
        return
    notes = list(link.notes) if link else []
    if extra_notes is not None:
        notes.extend(extra_notes(result))
    yield transcript.end(notes, unknown)
