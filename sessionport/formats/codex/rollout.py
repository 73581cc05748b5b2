"""Reading Codex rollout JSONL: the pre-envelope era and the envelope era.

One pass, line by line.  Lines whose type is known from their first bytes
and that carry nothing we need (``event_msg`` mirrors such as
``exec_command_end``, ``world_state`` ...) are counted and skipped without
being parsed, which matters for rollouts of several GB.

Bounded look-ahead, and only where the format demands it:

- the session event waits for the ``session_meta`` lines at the top of the
  file (a resumed or forked rollout starts with two), and in pre-envelope
  files for at most ``PRELUDE_LIMIT`` records, to find the ``<cwd>`` of the
  injected environment context;
- a user ``message`` item waits at most ``LOOKAHEAD`` lines for the
  ``event_msg/user_message`` that proves a person typed it; without one it
  is harness-injected context (``meta.injected``).
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.jsonl import MAX_DEPTH, iter_block_lines, parse_line, too_deep_record
from sessionport.model import end_event, message_event, session_event
from sessionport.formats.codex.items import PENDING_LIMIT, ItemConverter, image_placeholder, looks_injected, output_result, tool_text
from sessionport.model import human_size
from sessionport.formats.codex.meta import find_cwd, is_header, meta_metadata, seconds
from sessionport.formats.codex.usage import TokenTotals
from sessionport.formats.codex.items import _HANDLERS
from sessionport.lazy import lazy

# sessionport.formats.codex.typed, imported on first use (with msgspec, which
# costs a small rollout more to import than the typed decode saves it).
CONVERTERS: Any = None
CustomToolCallOutput: Any = None
FunctionCallOutput: Any = None
Message: Any = None
# The payload types typed.py reads (its TYPED_KINDS; a test checks they agree).
TYPED_KINDS = frozenset((b"message", b"reasoning", b"function_call", b"custom_tool_call", b"function_call_output", b"custom_tool_call_output"))


# About where the typed decode saves more than importing msgspec costs.
TYPED_SIZE = 2 << 20


def _typed_decoder() -> Any:
    """``typed.decode_item``, with the names ``_typed_item`` uses bound here."""
    global CONVERTERS, CustomToolCallOutput, FunctionCallOutput, Message
    from sessionport.formats.codex import typed

    CONVERTERS, CustomToolCallOutput, FunctionCallOutput, Message = typed.CONVERTERS, typed.CustomToolCallOutput, typed.FunctionCallOutput, typed.Message
    return typed.decode_item

LOOKAHEAD = 6


class _HeldPrompt:
    """The place in the queue of a user_message event waiting for the
    message item that would repeat it.  Named by its line: the recent_prompts
    entry names the same line, and an item that repeats the event puts that
    line in ``cancelled_prompts``.  (No object is shared between the two:
    a piece of a split read restores the state from a pickle without memo.)"""

    __slots__ = ("line", "deadline", "event")

    def __init__(self, line: int, deadline: int, event: dict) -> None:
        self.line = line
        self.deadline = deadline
        self.event = event


class _HeldExec:
    """The place in the queue of a shell result read from an
    ``exec_command_end`` event, waiting to learn whether an output item
    repeats it.  Named by its call: ``exec_held`` (still waiting) and
    ``exec_mirrored`` (repeated: left out) hold the same id, so the events
    that came after it keep their order whichever it turns out to be.  (No
    object is shared: see :class:`_HeldPrompt`.)"""

    __slots__ = ("call_id", "event")

    def __init__(self, call_id: str, event: dict) -> None:
        self.call_id = call_id
        self.event = event


PRELUDE_LIMIT = 16
# A copied history is written in one burst; the first line written later
# than this after the previous one belongs to the session itself.
COPY_BURST_GAP = 1.0
# A paginated sub-agent rollout (0.15x) names the first ordinal that is its
# own (``subagent_history_start_ordinal``): below it, the copy.
_ORDINAL = lazy(rb'\{"timestamp":"[^"]*","ordinal":(\d+),')

_HEAD = lazy(rb'\{"timestamp":"([^"]*)",(?:"ordinal":\d+,)?"type":"([a-z_]+)","payload":\{(?:"type":"([a-z_]+)")?')
USED_EVENTS = frozenset((
    b"user_message", b"token_count", b"thread_rolled_back",
    # the only trace of a call when no response item records it
    b"web_search_end", b"mcp_tool_call_end", b"image_generation_end",
    # review mode, titles, goals and sub-agents
    b"entered_review_mode", b"exited_review_mode", b"thread_name_updated",
    b"thread_goal_updated", b"collab_agent_spawn_end",
    # an error the user saw (a refused request, a retry limit): a notice
    b"error",
))
# Events that mirror what response items already hold, or are UI and
# runtime telemetry: counted in end.skipped, never an event (see
# docs/formats/codex.md).  An event type outside these and USED_EVENTS is
# unknown: counted and warned about.
MIRROR_EVENTS = frozenset(name.encode() for name in (
    "agent_message", "agent_message_delta", "agent_message_content_delta", "agent_reasoning",
    "agent_reasoning_delta", "agent_reasoning_raw_content", "agent_reasoning_raw_content_delta",
    "agent_reasoning_section_break", "reasoning_content_delta", "reasoning_raw_content_delta",
    "exec_command_begin", "exec_command_output_delta", "exec_command_end", "terminal_interaction",
    "exec_approval_request", "apply_patch_approval_request", "request_user_input", "elicitation_request",
    "patch_apply_begin", "patch_apply_end", "mcp_tool_call_begin", "mcp_startup_update", "mcp_startup_complete",
    "mcp_list_tools_response", "web_search_begin", "image_generation_begin", "view_image_tool_call",
    "task_started", "task_complete", "turn_started", "turn_complete", "turn_aborted", "turn_diff",
    "context_compacted", "warning", "stream_error", "background_event", "deprecation_notice",
    "plan_update", "plan_delta", "list_custom_prompts_response", "list_skills_response", "get_history_entry_response",
    "session_configured", "shutdown_complete", "undo_started", "undo_completed", "item_started", "item_completed",
    "raw_response_item", "collab_agent_spawn_begin", "collab_waiting_begin", "collab_waiting_end",
    "collab_close_begin", "collab_close_end", "collab_agent_interaction_begin", "collab_agent_interaction_end",
    "collab_resume_begin", "collab_resume_end", "guardian_assessment", "sub_agent_activity",
    "dynamic_tool_call_request", "dynamic_tool_call_response", "thread_settings_applied", "model_reroute",
    "realtime_conversation_started", "realtime_conversation_closed", "user_message_delta",
    # 0.17x: the other events its rollout policy names (written in the
    # extended persistence mode): model and moderation checks, hooks,
    # permission prompts, patch progress, voice sessions
    "safety_buffering", "model_verification", "turn_moderation_metadata", "guardian_warning",
    "hook_started", "hook_completed", "request_permissions", "patch_apply_updated",
    "realtime_conversation_sdp", "realtime_conversation_realtime", "realtime_conversation_list_voices_response",
))
# A turn ends here: shell results seen only as events are written out.
TURN_BOUNDARY_EVENTS = frozenset((b"task_started", b"task_complete", b"turn_started", b"turn_complete", b"turn_aborted"))
# The mirrors that only count (most event lines of a rollout).
_PLAIN_MIRRORS = MIRROR_EVENTS - TURN_BOUNDARY_EVENTS - {b"exec_command_end"} - USED_EVENTS
PARSED_TYPES = frozenset((b"session_meta", b"response_item", b"event_msg", b"turn_context", b"compacted", b"inter_agent_communication", b"realtime_item", b"rollout_reference"))
# Envelope types that are runtime state, not conversation: counted.  0.15x-0.16x
# (codex-rs/history rollout_payload.rs): ``retained_context`` (host evidence
# of a request_user_input answer, repeating the call's output),
# ``security_risk_score`` (risk scores never shown in the thread).
STATE_TYPES = frozenset((b"world_state", b"inter_agent_communication_metadata", b"token_usage_record", b"retained_context", b"security_risk_score"))
# realtime_item types that are presentation only (a voice session's start
# and end, a Codex item shown in the voice view): counted.
REALTIME_STATE = frozenset(("realtime_session_started", "realtime_session_closed", "bem_item_promoted"))
_ITEM_HEAD = b'","type":"response_item","payload":{"type":"'
# Where _ITEM_HEAD ends after a timestamp of 24 characters (compared as a
# slice: a call of startswith with a position costs more).
_ITEM_END = 38 + len(_ITEM_HEAD)
# A line shorter than this cannot nest deeper than MAX_DEPTH: valid JSON
# needs two bytes a level, and orjson refuses for depth (too_deep's other
# answer) only far deeper.
_SHALLOW = 2 * MAX_DEPTH + 2
_CALL_ID = lazy(rb'"call_id":"([^"\\]{1,200})"')
# Shell results held (call id -> event) until the call's output item shows
# they are mirrors; at most this many.
EXEC_HOLD = 256
# At most this many events wait behind a shell result held for its output.
EXEC_QUEUE = 4096
# How far (in lines) a web_search_end and its web_search_call item may be apart.
SEARCH_SPAN = 64
_TOTAL = lazy(rb'"total_token_usage":\{[^{}]*?"total_tokens":(\d+)')
_MODEL = lazy(rb'"model":"([^"]*)"')


class RolloutReader:
    # A subclass may parse a ``response_item`` line (once the session has
    # started) its own way: ``partial_item(line, payload_type)`` returns the
    # record with only the payload fields it needs, None for a full parse,
    # or False when it took the line itself (only while nothing waits).
    partial_item: Any = None
    # The lines read; a subclass reading one piece of a file (see
    # sessionport.formats.codex.split) numbers them from where it starts.
    # The depth of a line is checked in ``run``, which may skip it for a
    # typed item; a source that checks it too only repeats the check.
    # Read a block at a time: iter_lines(check_depth=False)'s lines, for
    # less per line.
    lines = staticmethod(iter_block_lines)
    # The commonest response items decoded into typed records (typed.py),
    # once this many of them were parsed in full: a small rollout never
    # imports msgspec.  None: every line takes the full parse (the tests
    # compare the two).
    typed_after: int | None = 256  # or from the first line, in a file of TYPED_SIZE or more

    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.items = ItemConverter()
        if ctx.options.get("keep_images"):
            self.items.keep_images()
        self.usage = TokenTotals()
        self.inherited_usage = TokenTotals()
        self.skipped: Counter = Counter()
        self.skipped_fast: Counter = Counter()  # bytes keys, named at the end
        self.notes: list[str] = []
        self.queue: deque = deque()  # [event, deadline|None, key]
        self.recent_prompts: deque = deque()  # [key, deadline, injected, line of its _HeldPrompt]
        self.cancelled_prompts: set[int] = set()  # lines of held prompts an item repeated
        self.seen_user_event = False
        self.envelope = False
        self.session_id: str | None = None
        self.metas: list[tuple[str | None, dict]] = []
        self.prelude: list[tuple[int, dict]] = []
        self.session_sent = False
        self.inherit_from: float | None = None  # time of the last copied line
        self.history_start: int | None = None  # the first ordinal of the rollout's own history
        self.inherited_ids: list[str] = []
        self.skip_inherited = bool(ctx.options.get("skip_inherited"))
        self.last_compaction = False
        self.malformed_warned = False
        self.line_no = 0
        self.exec_held: dict[str, None] = {}  # call ids of results from exec_command_end waiting in the queue
        self.exec_mirrored: dict[str, None] = {}  # those an output item repeated: left out when drained
        self.exec_written: OrderedDict[str, None] = OrderedDict()
        self.search_calls: deque = deque()  # [line, id] of web_search_call items not yet ended
        self.search_ends: deque = deque()  # [line, call id] of web_search_end written as a call
        self.image_calls: OrderedDict[str, None] = OrderedDict()
        self.title: str | None = None
        self.late_metadata: dict[str, Any] = {}
        self.prompt_items: deque = deque(maxlen=16)  # texts of phase "input" prompts
        self.event_prompts: deque = deque(maxlen=16)  # texts of prompts written from their event alone
        self.items.on_unknown = self._unknown
        self.items.on_unknown_part = self._unknown_part
        self.forgot_warned = False

    def _unknown(self, name: str) -> None:
        self.ctx.unknown(name, line=self.line_no)

    def _unknown_part(self, name: str) -> None:
        self.ctx.unknown(name, what="content part", line=self.line_no)

    # -- the main loop --------------------------------------------------
    def run(self, stream: BinaryIO) -> Iterator[dict]:
        ctx = self.ctx
        head_match = _HEAD.match
        skipped_fast = self.skipped_fast
        queue = self.queue
        recent = self.recent_prompts
        loads = orjson.loads
        partial_item = self.partial_item
        # The typed decode of the commonest items (see typed.py); a subclass
        # with its own partial parse, and --keep-images, read every item in full.
        typed = False
        warm = self.typed_after if partial_item is None and self.items.handlers is _HANDLERS else None
        if warm is not None and (warm <= 0 or (ctx.size or 0) >= TYPED_SIZE):
            typed, decode_item = True, _typed_decoder()
        for line_no, line, complete in self.lines(stream, ctx):
            envelope = match = None
            # The usual head of an item line, told without the regex: what
            # _HEAD matches there (a timestamp of 24 characters, no quote in
            # it, then response_item and the payload's type, which the
            # typed decode checks).  Whether a quote is in the timestamp
            # matters only to the copy clock, which reads it from there:
            # otherwise the typed decode and the full parse read the same.
            usual = (
                typed and complete and line[38:_ITEM_END] == _ITEM_HEAD and line[:14] == b'{"timestamp":"'
                and self.session_sent and (self.inherit_from is None or line.find(b'"', 14, 38) == -1)
            )
            if usual:
                envelope = decode_item(line)
            if envelope is None:
                match = head_match(line) if complete else None
                if match is not None:
                    key = match.group(2, 3)
                    outer = key[0]
                    if outer == b"response_item" and key[1] in TYPED_KINDS and self.session_sent:
                        if typed:
                            if not usual:
                                envelope = decode_item(line)
                        elif warm is not None:
                            warm -= 1
                            if warm <= 0:  # from the next line on
                                typed, decode_item = True, _typed_decoder()
                # The depth bound (see jsonl.iter_lines), for every line but
                # a typed item, whose shape nests a few levels at most; the
                # call only for a line with more brackets than the bound.
                if (
                    envelope is None and len(line) >= _SHALLOW
                    and line.count(b"{") + line.count(b"[") > MAX_DEPTH and too_deep_record(line, line_no, ctx)
                ):
                    continue
            self.line_no = line_no
            if envelope is not None:
                if self.inherit_from is not None:
                    self._copy_clock(line[14:38] if match is None else match.group(1), self._ordinal(line))
                del line
                events = self._typed_item(line_no, envelope.payload, envelope.timestamp)
            else:
                if match is not None:
                    if self.inherit_from is not None:
                        self._copy_clock(match.group(1), self._ordinal(line))
                    if outer != b"response_item":  # most lines: parsed below
                        if outer == b"event_msg":
                            inner = key[1]
                            if inner in _PLAIN_MIRRORS:  # counted, and nothing else to do
                                skipped_fast[key] += 1
                                if queue or recent:
                                    yield from self._drain()
                                continue
                            # _token_count_bytes, one call fewer: a third of a rollout's lines
                            used = inner == b"token_count" and token_count_bytes(line, self.inherited_usage if self.inherit_from is not None else self.usage)
                            fast = used or inner not in USED_EVENTS
                            if fast and not used:
                                if inner == b"exec_command_end":
                                    fast = not self._exec_result_needed(line)
                                elif inner in TURN_BOUNDARY_EVENTS:
                                    if inner == b"task_complete" and b'"error":{' in line:
                                        fast = False  # a failed turn (0.159+): its error is read
                                    elif self.exec_held:
                                        self._flush_exec()
                                elif inner not in MIRROR_EVENTS:
                                    self.ctx.unknown(f"event_msg/{(inner or b'').decode('utf-8', 'replace')}", line=line_no)
                        elif outer == b"turn_context":
                            if self.exec_held:
                                self._flush_exec()
                            fast = used = self._turn_context_bytes(line)
                        else:
                            used = False
                            fast = outer not in PARSED_TYPES
                            if fast and outer not in STATE_TYPES:
                                self.ctx.unknown(outer.decode("utf-8", "replace"), line=line_no)
                        if fast:
                            if not used:
                                skipped_fast[key if outer == b"event_msg" else (outer, None)] += 1
                            if queue or recent:
                                yield from self._drain()
                            continue
                record = None
                if partial_item is not None and match is not None and key[0] == b"response_item" and self.session_sent:
                    record = partial_item(line, key[1])
                    if record is False:
                        continue
                if record is None:
                    # orjson first: parse_line (its error reporting) only for a line that fails
                    try:
                        record = loads(line)
                    except orjson.JSONDecodeError:
                        record = parse_line(line, line_no, complete, ctx)
                del line  # a big line is freed before its events are written
                if record is None:
                    continue
                if record.__class__ is not dict:
                    ctx.bad_record(f"expected a JSON object, found a JSON {type(record).__name__}", line=line_no)
                    continue
                if not self.session_sent:
                    if not self._hold_for_prelude(line_no, record):
                        yield from self._start()
                    continue
                payload = record.get("payload")
                if record.get("type") == "response_item" and payload.__class__ is dict:
                    # Most lines of a rollout: one call instead of the _record ->
                    # _item chain, and no trip through the queue when nothing waits.
                    events = self._response_item(line_no, payload, record.get("timestamp"), match is not None, record.get("metadata"))
                else:
                    self._record(line_no, record, match is not None)
                    events = None
            if events:
                if not queue and not recent and self.inherit_from is None:
                    if len(events) == 1:  # most items: one event
                        yield events[0]
                    else:
                        yield from events
                    continue
                if self.inherit_from is not None:
                    for event in events:
                        event.setdefault("meta", {})["inherited"] = True
                queue.extend(events)
            # Inline the common case of _drain: events already decided.
            while queue:
                head = queue[0]
                if head.__class__ is not dict:
                    break
                queue.popleft()
                if self.skip_inherited and "inherited" in head.get("meta", ()):
                    continue
                yield head
            if queue or recent:
                yield from self._drain()
        yield from self._end_of_input()

    def _end_of_input(self) -> Iterator[dict]:
        if not self.session_sent:
            yield from self._start()
        yield from self._finish()

    def _token_count_bytes(self, line: bytes) -> bool:
        """Most lines of a rollout are token counts: read their total from
        the bytes and parse only the lines whose totals the end event needs."""
        return token_count_bytes(line, self.inherited_usage if self.inherit_from is not None else self.usage)

    def _turn_context_bytes(self, line: bytes) -> bool:
        """The model of a ``turn_context`` line, without parsing it, when the
        line names exactly one model."""
        if line.count(b'"model":"') != 1:
            return False
        found = _MODEL.search(line)
        if found is None or b"\\" in found.group(1):
            return False
        self.items.model = found.group(1).decode("utf-8", "replace")
        return True

    def _hold_for_prelude(self, line_no: int, record: dict) -> bool:
        """Keep records back until the session event can be written; True
        while still holding."""
        self.prelude.append((line_no, record))
        if "payload" in record:
            self.envelope = True
            return record.get("type") == "session_meta"
        if self.envelope:
            return False
        if len(self.prelude) == 1 and is_header(record):
            return True
        return len(self.prelude) < PRELUDE_LIMIT and find_cwd(self.prelude) is None

    def _start(self) -> Iterator[dict]:
        """Write the session event, then the records held back for it."""
        self.session_sent = True
        prelude, self.prelude = self.prelude, []
        first: dict = {}
        rest = []
        for line_no, record in prelude:
            payload = record.get("payload") if record.get("type") == "session_meta" else None
            if payload is None and not rest and not first and is_header(record):
                payload = record  # pre-envelope header
            if isinstance(payload, dict) and not first:
                first = payload
                continue
            rest.append((line_no, record))
        self.session_id = first.get("id") if isinstance(first.get("id"), str) else None
        start = first.get("subagent_history_start_ordinal")
        if start.__class__ is int and start > 0:
            self.history_start = start
        metadata = meta_metadata(first)
        metadata["codexEra"] = "envelope" if self.envelope else "pre-envelope"
        base = metadata.get("historyBase")
        if base is not None:
            end = base.get("end_ordinal_exclusive")
            upto = f" (its records before ordinal {end})" if end.__class__ is int else ""
            self.notes.append(f"continues the history of thread {base['thread_id']}{upto}, which is in that thread's rollout, not in this file")
            # what Codex reads before this file's records is not read here
            self.ctx.warn(f"session_meta.history_base: this rollout continues the history of thread {base['thread_id']}{upto}; that history is in the thread's own rollout, not in this file, and is not read; convert that rollout too")
        cwd = first.get("cwd") if isinstance(first.get("cwd"), str) else None
        if cwd is None and not self.envelope:
            cwd = find_cwd(rest)
        inherits = []
        for _, record in rest:
            payload = record.get("payload")
            if record.get("type") == "session_meta" and isinstance(payload, dict):
                other = payload.get("id")
                if isinstance(other, str) and other != self.session_id and other not in inherits:
                    inherits.append(other)
        if inherits:
            metadata["inheritsFrom"] = inherits
        yield session_event(
            "codex",
            sessionId=self.session_id,
            cwd=cwd,
            createdAt=first.get("timestamp") if isinstance(first.get("timestamp"), str) else None,
            metadata=metadata,
        )
        for line_no, record in rest:
            self._record(line_no, record)
            yield from self._drain()

    # -- one record -----------------------------------------------------
    def _record(self, line_no: int, record: dict, clocked: bool = False) -> None:
        kind = record.get("type")
        payload = record.get("payload")
        try:
            if payload.__class__ is dict and kind.__class__ is str:
                timestamp = record.get("timestamp")
                if self.inherit_from is not None and not clocked:
                    self._copy_clock(timestamp, record.get("ordinal"))
                if kind == "response_item":  # most lines: go straight to the item
                    self._item(line_no, payload, timestamp if timestamp.__class__ is str else None, record.get("metadata"))
                else:
                    self._envelope(line_no, kind, payload, timestamp)
            elif "record_type" in record:
                self.skipped[f"record_type/{record.get('record_type')}"] += 1
            elif isinstance(kind, str):
                self._item(line_no, record, None)
            elif "id" in record and "timestamp" in record:
                self._session_meta(record, None)
            else:
                self.skipped["unknown line"] += 1
        except (TypeError, AttributeError, ValueError, KeyError) as exc:
            self._malformed(line_no, kind, payload, exc)

    def _response_item(self, line_no: int, item: dict, timestamp: Any, clocked: bool, metadata: Any = None) -> list[dict] | None:
        """What ``_record`` and ``_item`` do for a ``response_item`` envelope,
        with fewer calls: :meth:`_item_events` after the copy clock, with the
        same handling of a malformed item."""
        try:
            if self.inherit_from is not None and not clocked:
                self._copy_clock(timestamp)
            return self._item_events(line_no, item, timestamp if timestamp.__class__ is str else None, metadata)
        except (TypeError, AttributeError, ValueError, KeyError) as exc:
            self._malformed(line_no, "response_item", item, exc)
            return None

    def _malformed(self, line_no: int, kind: Any, payload: Any, exc: Exception) -> None:
        """A known record type with an unexpected shape: count it, go on."""
        name = f"{kind}/{payload.get('type')}" if isinstance(payload, dict) else str(kind)
        if not self.malformed_warned:
            self.malformed_warned = True
            self.ctx.warn(f"line {line_no}: a {name} record has an unexpected shape ({type(exc).__name__}: {exc}); skipped, later ones are only counted")
        self.skipped[f"malformed {name}"] += 1

    def _envelope(self, line_no: int, kind: str, payload: dict, timestamp: Any) -> None:
        ts = timestamp if isinstance(timestamp, str) else None
        if kind == "response_item":
            self._item(line_no, payload, ts)
        elif kind == "event_msg":
            self._event(line_no, payload, ts)
        elif kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str):
                self.items.model = model
        elif kind == "session_meta":
            self._session_meta(payload, timestamp)
        elif kind.encode() in STATE_TYPES:
            self.skipped[kind] += 1
        elif kind == "rollout_reference":
            self._rollout_reference(payload)
        elif kind == "inter_agent_communication":
            self._queue_events(self.items.inter_agent_communication(payload, ts))
        elif kind == "realtime_item":
            try:
                events = self.items.realtime_item(payload, ts)
            except ValueError as exc:
                self._malformed(line_no, kind, payload, exc)
                return
            if events is None:
                rtype = payload.get("type")
                if not isinstance(rtype, str):
                    rtype = None
                name = f"realtime_item/{rtype}"
                self.skipped[name] += 1
                if rtype not in REALTIME_STATE:
                    self.ctx.unknown(name, line=line_no)
            else:
                self._queue_events(events)
        elif kind == "compacted":
            history = payload.get("replacement_history")
            count = len(history) if isinstance(history, list) else 0
            message = payload.get("message")
            text = message if isinstance(message, str) and message else f"[compacted: {count} earlier history items replaced]"
            meta = {"kind": "compaction", "codexType": "compacted"}
            if count:
                meta["replacedItems"] = count
                # a remote compaction's summary (the last item of the
                # replacement): kept, so that an export to Codex replays it
                last = history[-1]
                if isinstance(last, dict) and last.get("type") in ("compaction", "compaction_summary") and isinstance(last.get("encrypted_content"), str) and last["encrypted_content"]:
                    meta["encryptedContent"] = last["encrypted_content"]
            if len(payload) > 2 or (len(payload) == 2 and "replacement_history" not in payload):
                # 0.17x: the compaction's window chain, response id, usage
                # and resume checkpoints (codex-rs CompactedItemWire)
                extras = {k: v for k, v in payload.items() if k not in ("message", "replacement_history")}
                if extras:
                    meta["codexCompacted"] = extras
            self._push(message_event("system", text, timestamp=ts, meta=meta))
            self.items.counts["compactions"] += 1
            self.last_compaction = True  # a compaction item right after it is the same boundary
        else:
            self.skipped[kind] += 1
            self.ctx.unknown(kind, line=line_no)

    def _rollout_reference(self, payload: dict) -> None:
        """A ``rollout_reference`` (2026 forks and continued segments, before
        ``history_base`` replaced it): Codex reads the history it names from
        another rollout (up to the given user message) instead of copying
        it here, so that history is not in this file: counted and noted."""
        self.skipped["rollout_reference"] += 1
        thread = payload.get("thread_id")
        path = payload.get("rollout_path")
        where = " and ".join(x for x in (f"thread {thread}" if isinstance(thread, str) and thread else "", f"rollout {path}" if isinstance(path, str) and path else "") if x) or "another rollout"
        nth = payload.get("nth_user_message")
        upto = f" (before its user message {nth})" if nth.__class__ is int else ""
        note = f"refers to the history of {where}{upto}, which is there, not in this file"
        if note not in self.notes:
            self.notes.append(note)
            self.ctx.warn(f"line {self.line_no}: a rollout_reference names the history of {where}{upto}, which Codex reads in its place: it is in that rollout, not in this file, and is not read; convert that rollout too")

    def _session_meta(self, payload: dict, timestamp: Any) -> None:
        other = payload.get("id")
        if other == self.session_id or not isinstance(other, str):
            self.skipped["session_meta (repeated)"] += 1
            return
        # History copied from the session this rollout resumes or forks.
        self.inherit_from = seconds(timestamp) or seconds(payload.get("timestamp")) or 0.0
        if other not in self.inherited_ids:
            self.inherited_ids.append(other)
            self.notes.append(f"holds history copied from session {other} (marked meta.inherited)")

    def _ordinal(self, line: bytes) -> int | None:
        """The envelope's ``ordinal``, read only while a copy with a known
        end is being read."""
        if self.history_start is None:
            return None
        found = _ORDINAL.match(line)
        return int(found.group(1)) if found else None

    def _copy_clock(self, timestamp: Any, ordinal: Any = None) -> None:
        if self.history_start is not None and ordinal.__class__ is int:
            if ordinal >= self.history_start:
                self.inherit_from = None
            return
        now = seconds(timestamp)
        if now is None:
            return
        if abs(now - self.inherit_from) > COPY_BURST_GAP:  # a step back in time ends it too
            self.inherit_from = None
        else:
            self.inherit_from = now

    def _item(self, line_no: int, item: dict, ts: str | None, metadata: Any = None) -> None:
        events = self._item_events(line_no, item, ts, metadata)
        if events:
            queue = self.queue
            for event in events:
                if self.inherit_from is not None:
                    event.setdefault("meta", {})["inherited"] = True
                queue.append(event)

    def _queue_events(self, events: list[dict]) -> None:
        """The messages of a record other than a response item (an
        inter-agent message, a voice transcript): written in the file's
        order, after the shell results the model saw before them."""
        if self.exec_held:
            self._flush_exec()
        self.last_compaction = False
        for event in events:
            if self.inherit_from is not None:
                event.setdefault("meta", {})["inherited"] = True
            self.queue.append(event)

    def _item_events(self, line_no: int, item: dict, ts: str | None, metadata: Any = None) -> list[dict] | None:
        """The events of a response item, not yet tagged ``inherited``; None
        when there are none to write now: a compaction item repeating the
        boundary just written, or a user message item, which goes to the
        queue to wait for its event.  ``metadata``: the envelope's own
        ``metadata`` beside the payload (0.170: what the harness keeps of
        the item, never sent to the model), kept on the item's event."""
        kind = item.get("type")
        if kind.__class__ is not str:
            kind = None
        if self.last_compaction and kind in ("compaction", "compaction_summary", "context_compaction"):
            self.skipped[f"response_item/{kind}"] += 1
            return None
        if kind in _OUTPUT_TYPES:
            if (self.exec_held or self.exec_written) and self._output_item(item.get("call_id")):
                self.skipped[f"response_item/{kind} (after exec_command_end)"] += 1
                return None
        elif self.exec_held and kind not in _CALL_TYPES:
            # Codex writes a call's output right after the command ends,
            # before the model's next step: none came, so the event is it.
            # The other calls of the same answer are not its next step: 0.118
            # writes a parallel call after the end of the command before it
            # and the outputs of all of them after the last.
            self._flush_exec()
        if kind == "web_search_call":
            if self._search_item_is_mirror(line_no, item):
                self.skipped["response_item/web_search_call (after web_search_end)"] += 1
                return None
        elif kind == "image_generation_call":
            item_id = item.get("id")
            if isinstance(item_id, str):
                self.image_calls[item_id] = None
                if len(self.image_calls) > 64:
                    self.image_calls.popitem(last=False)
        events = self.items.convert(item, ts)
        if metadata.__class__ is dict and metadata and events:
            # on the item's own event (the first: an image generation's
            # result after it is not an item of its own)
            events[0].setdefault("meta", {})["codexItemMetadata"] = metadata
        if kind == "message" and events and events[0]["role"] == "user":
            if item.get("phase") == "input" and not looks_injected(events[0]["text"]):
                return self._input_item(events[0])
            self._user_item(line_no, events[0])
            return None
        if events:
            self.last_compaction = False
        return events

    def _typed_item(self, line_no: int, item: Any, ts: str) -> list[dict] | None:
        """:meth:`_item_events` of a typed item (see typed.py): the same
        steps, for the item types read that way."""
        cls = item.__class__
        try:
            if cls is FunctionCallOutput or cls is CustomToolCallOutput:
                if (self.exec_held or self.exec_written) and self._output_item(item.call_id):
                    self.skipped[f"response_item/{cls.__struct_config__.tag} (after exec_command_end)"] += 1
                    return None
            elif self.exec_held and cls.__struct_config__.tag not in _CALL_TYPES:
                self._flush_exec()
            events = CONVERTERS[cls](self.items, item, ts)
            if cls is Message and events and events[0]["role"] == "user":
                if item.phase == "input" and not looks_injected(events[0]["text"]):
                    return self._input_item(events[0])
                self._user_item(line_no, events[0])
                return None
        except (TypeError, AttributeError, ValueError, KeyError) as exc:
            self._malformed(line_no, "response_item", {"type": cls.__struct_config__.tag}, exc)
            return None
        if events:
            self.last_compaction = False
        return events

    def _user_item(self, line_no: int, event: dict) -> None:
        text = event["text"]
        if looks_injected(text):
            self._push(_mark_injected(event))
            return
        key = text.strip()
        for index, entry in enumerate(self.recent_prompts):
            if entry[0] == key or (entry[0] and key.startswith(entry[0] + "\n")):
                del self.recent_prompts[index]
                self.cancelled_prompts.add(entry[3])  # the item is the prompt: its held event gives way
                self._push(_mark_injected(event) if entry[2] else event)
                return
        if not self.envelope:
            self._push(event)  # no events in this era: every other user message is a prompt
            return
        self.last_compaction = False
        self.queue.append([self._tag(event), line_no + LOOKAHEAD, key])

    def _input_item(self, event: dict) -> list[dict] | None:
        """A user message item marked ``phase: "input"`` (0.146) is what the
        person typed: the prompt itself.  The user_message event that
        repeats it, before or after, is dropped."""
        key = event["text"].strip()
        if key in self.event_prompts:
            # Its event came long before and is already the prompt.
            self.event_prompts.remove(key)
            self.skipped["response_item/message (repeats a user_message event)"] += 1
            return None
        for index, entry in enumerate(self.recent_prompts):
            # a pasted image adds its placeholder lines after the typed text
            if entry[0] == key or (entry[0] and key.startswith(entry[0] + "\n")):
                del self.recent_prompts[index]
                self.cancelled_prompts.add(entry[3])
                self.skipped["event_msg/user_message (repeats an input item)"] += 1
                break
        else:
            self.prompt_items.append(key)
        self.last_compaction = False
        meta = event.setdefault("meta", {})
        meta["phase"] = "input"
        return [event]

    def _event(self, line_no: int, payload: dict, ts: str | None) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            info = payload.get("info")
            if isinstance(info, dict):
                target = self.inherited_usage if self.inherit_from is not None else self.usage
                target.add_usage(info.get("total_token_usage"), info.get("last_token_usage"))
        elif kind == "user_message":
            self._user_event(line_no, payload, ts)
        elif kind == "thread_rolled_back":
            turns = payload.get("num_turns")
            meta = {"kind": "rollback"}
            if isinstance(turns, int):
                meta["numTurns"] = turns
            self._push(message_event("system", f"[rolled back {turns} turn(s)]", timestamp=ts, meta=meta))
        elif kind.__class__ is str and kind in _EVENT_HANDLERS:
            _EVENT_HANDLERS[kind](self, line_no, payload, ts)
        else:
            self.skipped[f"event_msg/{kind}"] += 1
            name = kind.encode() if isinstance(kind, str) else b""
            if name in TURN_BOUNDARY_EVENTS and self.exec_held:
                self._flush_exec()
            elif name not in MIRROR_EVENTS and name not in USED_EVENTS:
                self.ctx.unknown(f"event_msg/{kind}", line=line_no)

    # -- events that are the only trace of a call ---------------------------
    def _exec_result_needed(self, line: bytes) -> bool:
        """Whether an exec_command_end line must be parsed: its call is still
        waiting for an output item (Codex 0.14x may write none)."""
        found = _CALL_ID.search(line, 0, 4096)
        return found is not None and found.group(1).decode("utf-8", "replace") in self.items.pending

    def _exec_end(self, line_no: int, payload: dict, ts: str | None) -> None:
        call_id = payload.get("call_id")
        name = self.items.pending.get(call_id) if isinstance(call_id, str) else None
        if name is None or call_id in self.exec_held:
            self.skipped["event_msg/exec_command_end"] += 1
            return
        text = _first_str(payload, ("aggregated_output", "formatted_output"))
        if text is None:
            text = "".join(v for v in (payload.get("stdout"), payload.get("stderr")) if isinstance(v, str))
        meta: dict[str, Any] = {"kind": "tool_result", "codexType": "exec_command_end"}
        code = payload.get("exit_code")
        is_error = None
        if isinstance(code, int) and not isinstance(code, bool):
            meta["exitCode"] = code
            is_error = code != 0
        duration = payload.get("duration")
        if isinstance(duration, dict) and isinstance(duration.get("secs"), int):
            nanos = duration.get("nanos") if isinstance(duration.get("nanos"), int) else 0
            meta["durationSeconds"] = round(duration["secs"] + nanos / 1e9, 3)
        event = message_event("tool", text, timestamp=ts, toolName=name, toolCallId=call_id, isError=is_error, meta=meta)
        # In the queue now, where the event is: what comes after it (the
        # other calls of the answer, their outputs) waits behind it.
        self.queue.append(_HeldExec(call_id, self._tag(event)))
        self.exec_held[call_id] = None
        if len(self.exec_held) > EXEC_HOLD:
            self._flush_exec()

    def _flush_exec(self) -> None:
        """The shell results whose call got no output item this turn are
        results: written where their events were."""
        held, self.exec_held = self.exec_held, {}
        for call_id in held:
            self.items.pending.pop(call_id, None)
            self.items._answered(call_id)
            self.items.counts["toolResults"] += 1
            self.exec_written[call_id] = None
            if len(self.exec_written) > EXEC_HOLD:
                self.exec_written.popitem(last=False)
        self.last_compaction = False

    def _output_item(self, call_id: Any) -> bool:
        """An output item arrived: a held shell result for its call was a
        mirror, and is left out.  True when the result was already written
        from the event (the item is then the mirror, and is skipped)."""
        if call_id.__class__ is not str:
            return False
        if call_id in self.exec_held:
            del self.exec_held[call_id]
            self.exec_mirrored[call_id] = None
            self.skipped["event_msg/exec_command_end"] += 1
            return False
        return call_id in self.exec_written

    def _web_search_end(self, line_no: int, payload: dict, ts: str | None) -> None:
        call_id = payload.get("call_id")
        call_id = call_id if isinstance(call_id, str) and call_id else None
        calls = self.search_calls
        while calls and calls[0][0] < line_no - SEARCH_SPAN:
            calls.popleft()
        match = next((c for c in calls if c[1] is not None and c[1] == call_id), None) or next((c for c in calls if c[1] is None), None)
        if match is not None:
            calls.remove(match)  # the item recorded this search already
            self.skipped["event_msg/web_search_end"] += 1
            return
        action = payload.get("action")
        tool_input = dict(action) if isinstance(action, dict) else {}
        query = payload.get("query")
        if isinstance(query, str) and query and not tool_input:  # older events carry no action
            tool_input["query"] = query
        call = self._tool_call("web_search", call_id, tool_input, ts, "web_search_end")
        self._push(call)
        self._push(message_event(
            "tool",
            _search_results_text(payload),
            timestamp=ts,
            toolName="web_search",
            toolCallId=call_id,
            meta={"kind": "tool_result", "codexType": "web_search_end"},
        ))
        self.items.counts["toolResults"] += 1
        self.search_ends.append([line_no, call_id])
        if len(self.search_ends) > 16:
            self.search_ends.popleft()

    def _search_item_is_mirror(self, line_no: int, item: dict) -> bool:
        """A web_search_call item after the web_search_end already written
        as a call is that same search."""
        ends = self.search_ends
        while ends and ends[0][0] < line_no - SEARCH_SPAN:
            ends.popleft()
        item_id = item.get("id") if isinstance(item.get("id"), str) else None
        match = next((e for e in ends if item_id is not None and e[1] == item_id), None)
        if match is None and item_id is None and ends:
            match = ends[0]
        if match is not None:
            ends.remove(match)
            return True
        self.search_calls.append([line_no, item_id])
        if len(self.search_calls) > 16:
            self.search_calls.popleft()
        return False

    def _mcp_end(self, line_no: int, payload: dict, ts: str | None) -> None:
        call_id = payload.get("call_id")
        if self.items.knows_call(call_id) or not isinstance(call_id, str):
            self.skipped["event_msg/mcp_tool_call_end"] += 1  # the function_call items hold it
            return
        invocation = payload.get("invocation") if isinstance(payload.get("invocation"), dict) else {}
        server, tool = invocation.get("server"), invocation.get("tool")
        name = f"mcp__{server}__{tool}" if isinstance(server, str) and isinstance(tool, str) else str(tool or "mcp")
        arguments = invocation.get("arguments")
        tool_input = arguments if isinstance(arguments, dict) else ({} if arguments is None else {"value": arguments})
        self._push(self._tool_call(name, call_id, tool_input, ts, "mcp_tool_call_end"))
        text, is_error, meta = output_result(payload.get("result"), {"kind": "tool_result", "codexType": "mcp_tool_call_end"})
        self._push(message_event("tool", text, timestamp=ts, toolName=name, toolCallId=call_id, isError=is_error, meta=meta))
        self.items.counts["toolResults"] += 1
        self.items._answered(call_id)

    def _image_end(self, line_no: int, payload: dict, ts: str | None) -> None:
        call_id = payload.get("call_id")
        if isinstance(call_id, str) and call_id in self.image_calls:
            self.skipped["event_msg/image_generation_end"] += 1  # the image_generation_call item holds it
            return
        prompt = payload.get("revised_prompt")
        tool_input = {"revised_prompt": prompt} if isinstance(prompt, str) else {}
        self._push(self._tool_call("image_generation", call_id if isinstance(call_id, str) else None, tool_input, ts, "image_generation_end"))
        result = payload.get("result")
        parts = ["generated"]
        if isinstance(result, str) and result:
            parts.append(human_size(len(result) * 3 // 4))
        saved = payload.get("saved_path")
        if isinstance(saved, str) and saved:
            parts.append(saved)
        meta = {"kind": "tool_result", "codexType": "image_generation_end"}
        self._push(message_event("tool", f"[image: {', '.join(parts)}]", timestamp=ts, toolName="image_generation",
                                 toolCallId=call_id if isinstance(call_id, str) else None, meta=meta))
        self.items.counts["toolResults"] += 1

    def _tool_call(self, name: str, call_id: str | None, tool_input: dict, ts: str | None, codex_type: str) -> dict:
        meta: dict[str, Any] = {"kind": "tool_use", "codexType": codex_type}
        if self.items.model:
            meta["model"] = self.items.model
        self.items.counts["toolCalls"] += 1
        return message_event("tool", tool_text(name, tool_input), timestamp=ts, toolName=name, toolCallId=call_id, toolInput=tool_input, meta=meta)

    # -- an error the user saw -------------------------------------------------
    def _task_complete(self, line_no: int, payload: dict, ts: str | None) -> None:
        """``event_msg/task_complete``: a turn's end, counted; one whose turn
        failed (0.159+ write no ``error`` event then, only the ``error`` of
        this one: a refused request, a sign-in that ran out) also gives that
        error, as :meth:`_error` does."""
        self.skipped["event_msg/task_complete"] += 1
        error = payload.get("error")
        if isinstance(error, dict) and (isinstance(error.get("message"), str) or "codex_error_info" in error):
            self._error(line_no, error, ts)
        elif self.exec_held:
            self._flush_exec()

    def _error(self, line_no: int, payload: dict, ts: str | None) -> None:
        """``event_msg/error``: what Codex showed when a turn failed (the
        provider refused the request, the retry limit was reached).  The
        model never saw it: a system notice, ``isError``, in the shape the
        ``codex exec --json`` reader gives its errors, so that the Codex
        writer puts it back as the same event."""
        message = payload.get("message")
        text = message.strip() if isinstance(message, str) else ""
        meta: dict[str, Any] = {"kind": "text", "codexEvent": "error"}
        info = payload.get("codex_error_info")
        if info is not None:
            meta["codexErrorInfo"] = info
        if isinstance(message, str) and message != text:
            meta["codexMessage"] = message  # as written (Codex ends some with a newline)
        if self.exec_held:
            self._flush_exec()
        self._push(message_event("system", text or "[error]", timestamp=ts, isError=True, meta=meta))

    # -- review mode, title, goal, sub-agents --------------------------------
    def _review_entered(self, line_no: int, payload: dict, ts: str | None) -> None:
        hint = payload.get("user_facing_hint")
        target = payload.get("target") if isinstance(payload.get("target"), dict) else {}
        what = hint if isinstance(hint, str) and hint else _first_str(target, ("instructions", "title", "branch", "sha", "type")) or "changes"
        meta = {"codexType": "entered_review_mode"}
        if target:
            meta["reviewTarget"] = target
        self._push(message_event("system", f"[review started: {what}]", timestamp=ts, meta=meta))

    def _review_exited(self, line_no: int, payload: dict, ts: str | None) -> None:
        review = payload.get("review_output") if isinstance(payload.get("review_output"), dict) else {}
        lines = ["[review finished]"]
        for key in ("overall_correctness", "overall_explanation"):
            value = review.get(key)
            if isinstance(value, str) and value:
                lines.append(value)
        findings = review.get("findings") if isinstance(review.get("findings"), list) else []
        for finding in findings:
            if isinstance(finding, dict):
                title = finding.get("title") if isinstance(finding.get("title"), str) else "finding"
                body = finding.get("body") if isinstance(finding.get("body"), str) else ""
                where = _location(finding.get("code_location"))
                lines.append(f"- {title}{f' ({where})' if where else ''}{': ' + body if body else ''}")
        meta: dict[str, Any] = {"codexType": "exited_review_mode", "findings": len(findings)}
        self._push(message_event("system", "\n".join(lines), timestamp=ts, meta=meta))

    def _thread_name(self, line_no: int, payload: dict, ts: str | None) -> None:
        name = payload.get("thread_name")
        if isinstance(name, str) and name:
            self.title = name  # the session event is written: end.title
        self.skipped["event_msg/thread_name_updated"] += 1

    def _thread_goal(self, line_no: int, payload: dict, ts: str | None) -> None:
        goal = payload.get("goal")
        if isinstance(goal, dict):
            self.late_metadata["goal"] = goal
        self.skipped["event_msg/thread_goal_updated"] += 1

    def _spawned(self, line_no: int, payload: dict, ts: str | None) -> None:
        child = payload.get("new_thread_id")
        if isinstance(child, str) and child:
            who = " ".join(str(v) for v in (payload.get("new_agent_nickname"), payload.get("new_agent_role") and f"({payload.get('new_agent_role')})") if v)
            self.notes.append(f"started sub-agent {who + ' ' if who else ''}in session {child}")
        self.skipped["event_msg/collab_agent_spawn_end"] += 1

    def _user_event(self, line_no: int, payload: dict, ts: str | None) -> None:
        self.seen_user_event = True
        if self.exec_held:
            self._flush_exec()
        message = payload.get("message")
        key = message.strip() if isinstance(message, str) else ""
        if key in self.prompt_items:
            self.prompt_items.remove(key)
            self.skipped["event_msg/user_message (repeats an input item)"] += 1
            return
        kind = payload.get("kind")
        injected = isinstance(kind, str) and kind != "plain"
        waiting = [entry for entry in self.queue if entry.__class__ is list and entry[1] is not None]
        # Exact text first; a message item with pasted images has placeholder
        # lines after the typed text; else the oldest waiting user item.
        chosen = next((e for e in waiting if e[2] == key), None) or next((e for e in waiting if e[2].startswith(key)), None)
        if chosen is None and waiting:
            chosen = waiting[0]
        if chosen is not None:
            chosen[1] = None
            if injected:
                _mark_injected(chosen[0])
            return
        # The event came first (or the item never comes): wait for the item.
        text = message if isinstance(message, str) else ""
        images = payload.get("images")
        if isinstance(images, list) and images:
            text = "\n".join([text, *(image_placeholder(url) for url in images)])
        event = message_event("user", text, timestamp=ts, meta={"fromEvent": True})
        if injected:
            _mark_injected(event)
        self.recent_prompts.append([key, line_no + LOOKAHEAD, injected, line_no])
        # Its place in the stream: what follows waits behind it until the
        # item repeating it arrives (the item is the prompt: the place is
        # cancelled) or the window closes (the event is the prompt, here).
        self.queue.append(_HeldPrompt(line_no, line_no + LOOKAHEAD, self._tag(event)))

    # -- output ---------------------------------------------------------
    def _tag(self, event: dict) -> dict:
        if self.inherit_from is not None:
            event.setdefault("meta", {})["inherited"] = True
        return event

    def _push(self, event: dict) -> None:
        self.last_compaction = False
        if self.inherit_from is not None:
            event.setdefault("meta", {})["inherited"] = True
        self.queue.append(event)

    def _drain(self, final: bool = False) -> Iterator[dict]:
        line_no = self.line_no
        recent = self.recent_prompts
        queue = self.queue
        while recent and (final or recent[0][1] < line_no):
            # user_message with no matching message item: the prompt exists only here
            entry = recent.popleft()
            self.event_prompts.append(entry[0])
        while queue:
            entry = queue[0]
            if entry.__class__ is _HeldExec:
                call_id = entry.call_id
                if call_id in self.exec_held:
                    if final or len(queue) > EXEC_QUEUE:
                        self._flush_exec()  # bounded: what waits behind it is let go
                    else:
                        return
                queue.popleft()
                if call_id in self.exec_mirrored:
                    del self.exec_mirrored[call_id]
                elif not (self.skip_inherited and "inherited" in entry.event.get("meta", ())):
                    yield entry.event
                continue
            if entry.__class__ is _HeldPrompt:
                if entry.line in self.cancelled_prompts:
                    self.cancelled_prompts.discard(entry.line)
                    queue.popleft()
                    continue
                if not final and entry.deadline >= line_no:
                    return
                queue.popleft()
                if not (self.skip_inherited and "inherited" in entry.event.get("meta", ())):
                    yield entry.event
                continue
            if entry.__class__ is list:  # a user message item waiting for its event
                if entry[1] is not None:
                    if not final and entry[1] >= line_no:
                        return
                    if self.seen_user_event:
                        _mark_injected(entry[0])
                entry = entry[0]
            queue.popleft()
            if self.skip_inherited and "inherited" in entry.get("meta", ()):
                continue
            yield entry

    def _finish(self) -> Iterator[dict]:
        if self.exec_held:
            self._flush_exec()
        yield from self._drain(final=True)
        skipped = dict(self.skipped)
        for (outer, inner), count in self.skipped_fast.items():
            name = outer.decode() + ("/" + inner.decode() if inner else "")
            skipped[name] = skipped.get(name, 0) + count
        for name, count in self.items.skipped.items():
            skipped[name] = skipped.get(name, 0) + count
        counts = dict(self.items.counts)
        if self.items.pending or self.items.forgotten:
            counts["callsWithoutOutput"] = len(self.items.pending) + self.items.forgotten
        if self.items.forgotten:
            self.ctx.warn(
                f"{self.items.forgotten} call(s) were still waiting for their output when more than "
                f"{PENDING_LIMIT} calls were open; the oldest were forgotten (an output that came later is marked unpaired)"
            )
        inherited = self.inherited_usage.usage()
        if inherited:
            counts["inheritedTotalTokens"] = inherited.get("total_tokens", 0)
            self.notes.append("token usage of the copied history is left out of usage")
        if self.usage.resets:
            self.notes.append(f"token totals reset {self.usage.resets} time(s); usage sums the segments")
        if not self.envelope and not self.items.counts and self.session_id is None:
            # Nothing here is a Codex record (another format read with
            # --from codex): its types are not new Codex types.
            self.ctx.unknown_counts = {}
        copies = skipped.get("event_msg/item_completed", 0)
        if copies and not counts.get("messages") and not counts.get("agentMessages"):
            # Codex writes an item_completed after (or just before) the
            # response item it copies: copies alone mean the items are missing
            self.ctx.warn(
                f"{copies} event_msg/item_completed record(s) (the UI's copies of items) and no message "
                "items: the conversation of this rollout is only in those copies, which are not read"
            )
        unknown = self.ctx.report_unknown()
        metadata = self.late_metadata
        writes = self.usage.cache_writes()
        if writes is not None:
            # 0.153+: no place in the usage; as codex exec --json's reader keeps it
            metadata = {**metadata, "cacheWriteInputTokens": writes}
        yield end_event(
            usage=self.usage.usage(),
            lastRequestUsage=self.usage.last_request(),
            counts=counts or None,
            skipped=skipped or None,
            notes=self.notes or None,
            title=self.title,
            metadata=metadata or None,
            unknown=unknown or None,
        )


def _first_str(data: dict, keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _location(where: Any) -> str:
    if isinstance(where, str):
        return where
    if isinstance(where, dict):
        path = where.get("absolute_file_path") or where.get("path") or where.get("file")
        lines = where.get("line_range")
        if isinstance(lines, dict) and isinstance(path, str):
            return f"{path}:{lines.get('start')}"
        return path if isinstance(path, str) else ""
    return ""


def _search_results_text(payload: dict) -> str:
    results = payload.get("results")
    lines = []
    if isinstance(results, list):
        for row in results:
            if isinstance(row, dict):
                lines.append(" ".join(v for v in (row.get("title"), row.get("url")) if isinstance(v, str)))
    if lines:
        return "\n".join(lines)
    action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
    query = payload.get("query")
    what = query if isinstance(query, str) and query else _first_str(action, ("query", "url", "pattern"))
    return f"[web search: {what}]" if what else "[web search]"


def token_count_bytes(line: bytes, totals: TokenTotals) -> bool:
    """A token count line taken from its bytes: its total added to
    ``totals``, or an ``info: null`` count (nothing to add); False when the
    bytes do not decide and the line must be parsed."""
    total = _total_tokens(line)
    if total is None:
        return b'"info":null' in line
    totals.add_line(total, line)
    return True


def _total_tokens(line: bytes) -> int | None:
    """What ``_TOTAL`` finds in a line.  The usual layout, where
    ``total_tokens`` is the last key of ``total_token_usage``, is read with
    ``bytes.find``: the regex's lazy scan costs a microsecond a line, and a
    rollout is a third token counts.  Any other layout goes to the regex."""
    start = line.find(b'"total_token_usage":{')
    if start == -1:
        return None
    body = start + 21
    close = line.find(b"}", body)
    key = line.find(b'"total_tokens":', body, close) if close != -1 else -1
    if key != -1 and line.find(b"{", body, key) == -1:
        digits = line[key + 15 : close]
        if digits.isdigit():
            return _count(digits)
    found = _TOTAL.search(line, start)
    return _count(found.group(1)) if found else None


def _count(digits: bytes) -> int | None:
    """The count ``digits`` spell; None (the line is parsed, and a number
    out of range is named there) for more than 20 of them, which no 64-bit
    count holds and Python's int() refuses past 4,300."""
    return int(digits) if len(digits) <= 20 else None


def _mark_injected(event: dict) -> dict:
    meta = event.get("meta")
    if meta is None:
        event["meta"] = {"injected": True}
    else:
        meta["injected"] = True
    return event


_OUTPUT_TYPES = frozenset(("function_call_output", "custom_tool_call_output", "local_shell_call_output"))
_CALL_TYPES = frozenset(("function_call", "custom_tool_call", "local_shell_call"))
_EVENT_HANDLERS = {
    "exec_command_end": RolloutReader._exec_end,
    "error": RolloutReader._error,
    "task_complete": RolloutReader._task_complete,
    "web_search_end": RolloutReader._web_search_end,
    "mcp_tool_call_end": RolloutReader._mcp_end,
    "image_generation_end": RolloutReader._image_end,
    "entered_review_mode": RolloutReader._review_entered,
    "exited_review_mode": RolloutReader._review_exited,
    "thread_name_updated": RolloutReader._thread_name,
    "thread_goal_updated": RolloutReader._thread_goal,
    "collab_agent_spawn_end": RolloutReader._spawned,
}


def read_rollout(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    # The reader's own generator, not one wrapped in another: every event
    # passes through each generator level on its way out.
    return RolloutReader(ctx).run(stream)
