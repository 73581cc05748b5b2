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

import re
from collections import Counter, deque
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.jsonl import iter_lines, parse_line
from sessionport.model import end_event, message_event, session_event
from sessionport.formats.codex.items import ItemConverter, image_placeholder, looks_injected
from sessionport.formats.codex.meta import find_cwd, is_header, meta_metadata, seconds
from sessionport.formats.codex.usage import TokenTotals

LOOKAHEAD = 6
PRELUDE_LIMIT = 16
# A copied history is written in one burst; the first line written later
# than this after the previous one belongs to the session itself.
COPY_BURST_GAP = 1.0

_HEAD = re.compile(rb'\{"timestamp":"([^"]*)",(?:"ordinal":\d+,)?"type":"([a-z_]+)","payload":\{(?:"type":"([a-z_]+)")?')
USED_EVENTS = frozenset((b"user_message", b"token_count", b"thread_rolled_back"))
PARSED_TYPES = frozenset((b"session_meta", b"response_item", b"event_msg", b"turn_context", b"compacted"))
_TOTAL = re.compile(rb'"total_token_usage":\{[^{}]*?"total_tokens":(\d+)')
_MODEL = re.compile(rb'"model":"([^"]*)"')


class RolloutReader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.items = ItemConverter()
        self.usage = TokenTotals()
        self.inherited_usage = TokenTotals()
        self.skipped: Counter = Counter()
        self.skipped_fast: Counter = Counter()  # bytes keys, named at the end
        self.notes: list[str] = []
        self.queue: deque = deque()  # [event, deadline|None, key]
        self.recent_prompts: deque = deque()  # [key, deadline, injected, event]
        self.seen_user_event = False
        self.envelope = False
        self.session_id: str | None = None
        self.metas: list[tuple[str | None, dict]] = []
        self.prelude: list[tuple[int, dict]] = []
        self.session_sent = False
        self.inherit_from: float | None = None  # time of the last copied line
        self.inherited_ids: list[str] = []
        self.skip_inherited = bool(ctx.options.get("skip_inherited"))
        self.last_compaction = False
        self.malformed_warned = False
        self.line_no = 0

    # -- the main loop --------------------------------------------------
    def run(self, stream: BinaryIO) -> Iterator[dict]:
        ctx = self.ctx
        head_match = _HEAD.match
        skipped_fast = self.skipped_fast
        queue = self.queue
        recent = self.recent_prompts
        loads = orjson.loads
        for line_no, line, complete in iter_lines(stream, ctx):
            self.line_no = line_no
            match = head_match(line) if complete else None
            if match is not None:
                if self.inherit_from is not None:
                    self._copy_clock(match.group(1))
                key = match.group(2, 3)
                outer = key[0]
                if outer != b"response_item":  # most lines: parsed below
                    if outer == b"event_msg":
                        inner = key[1]
                        used = inner == b"token_count" and self._token_count_bytes(line)
                        fast = used or inner not in USED_EVENTS
                    elif outer == b"turn_context":
                        fast = used = self._turn_context_bytes(line)
                    else:
                        used = False
                        fast = outer not in PARSED_TYPES
                    if fast:
                        if not used:
                            skipped_fast[key if outer == b"event_msg" else (outer, None)] += 1
                        if queue or recent:
                            yield from self._drain()
                        continue
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
                events = self._response_item(line_no, payload, record.get("timestamp"), match is not None)
                if events:
                    if not queue and not recent and self.inherit_from is None:
                        yield from events
                        continue
                    if self.inherit_from is not None:
                        for event in events:
                            event.setdefault("meta", {})["inherited"] = True
                    queue.extend(events)
            else:
                self._record(line_no, record, match is not None)
            # Inline the common case of _drain: events already decided.
            while queue:
                head = queue[0]
                if head.__class__ is list:
                    break
                queue.popleft()
                if self.skip_inherited and "inherited" in head.get("meta", ()):
                    continue
                yield head
            if queue or recent:
                yield from self._drain()
        if not self.session_sent:
            yield from self._start()
        yield from self._finish()

    def _token_count_bytes(self, line: bytes) -> bool:
        """Most lines of a rollout are token counts: read their total from
        the bytes and parse only the lines whose totals the end event needs."""
        total = _total_tokens(line)
        if total is None:
            return b'"info":null' in line
        target = self.inherited_usage if self.inherit_from is not None else self.usage
        target.add_line(total, line)
        return True

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
        metadata = meta_metadata(first)
        metadata["codexEra"] = "envelope" if self.envelope else "pre-envelope"
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
                    self._copy_clock(timestamp)
                if kind == "response_item":  # most lines: go straight to the item
                    self._item(line_no, payload, timestamp if timestamp.__class__ is str else None)
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

    def _response_item(self, line_no: int, item: dict, timestamp: Any, clocked: bool) -> list[dict] | None:
        """What ``_record`` and ``_item`` do for a ``response_item`` envelope,
        with fewer calls: :meth:`_item_events` after the copy clock, with the
        same handling of a malformed item."""
        try:
            if self.inherit_from is not None and not clocked:
                self._copy_clock(timestamp)
            return self._item_events(line_no, item, timestamp if timestamp.__class__ is str else None)
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
        elif kind == "compacted":
            history = payload.get("replacement_history")
            count = len(history) if isinstance(history, list) else 0
            message = payload.get("message")
            text = message if isinstance(message, str) and message else f"[compacted: {count} earlier history items replaced]"
            meta = {"kind": "compaction", "codexType": "compacted"}
            if count:
                meta["replacedItems"] = count
            self._push(message_event("system", text, timestamp=ts, meta=meta))
            self.items.counts["compactions"] += 1
            self.last_compaction = True  # a compaction item right after it is the same boundary
        else:
            self.skipped[kind] += 1

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

    def _copy_clock(self, timestamp: Any) -> None:
        now = seconds(timestamp)
        if now is None:
            return
        if abs(now - self.inherit_from) > COPY_BURST_GAP:  # a step back in time ends it too
            self.inherit_from = None
        else:
            self.inherit_from = now

    def _item(self, line_no: int, item: dict, ts: str | None) -> None:
        events = self._item_events(line_no, item, ts)
        if events:
            queue = self.queue
            for event in events:
                if self.inherit_from is not None:
                    event.setdefault("meta", {})["inherited"] = True
                queue.append(event)

    def _item_events(self, line_no: int, item: dict, ts: str | None) -> list[dict] | None:
        """The events of a response item, not yet tagged ``inherited``; None
        when there are none to write now: a compaction item repeating the
        boundary just written, or a user message item, which goes to the
        queue to wait for its event."""
        kind = item.get("type")
        if self.last_compaction and kind in ("compaction", "compaction_summary"):
            self.skipped[f"response_item/{kind}"] += 1
            return None
        events = self.items.convert(item, ts)
        if kind == "message" and events and events[0]["role"] == "user":
            self._user_item(line_no, events[0])
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
            if entry[0] == key:
                del self.recent_prompts[index]
                self._push(_mark_injected(event) if entry[2] else event)
                return
        if not self.envelope:
            self._push(event)  # no events in this era: every other user message is a prompt
            return
        self.last_compaction = False
        self.queue.append([self._tag(event), line_no + LOOKAHEAD, key])

    def _event(self, line_no: int, payload: dict, ts: str | None) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            info = payload.get("info")
            if isinstance(info, dict):
                target = self.inherited_usage if self.inherit_from is not None else self.usage
                target.add_usage(info.get("total_token_usage"))
        elif kind == "user_message":
            self._user_event(line_no, payload, ts)
        elif kind == "thread_rolled_back":
            turns = payload.get("num_turns")
            meta = {"kind": "rollback"}
            if isinstance(turns, int):
                meta["numTurns"] = turns
            self._push(message_event("system", f"[rolled back {turns} turn(s)]", timestamp=ts, meta=meta))
        else:
            self.skipped[f"event_msg/{kind}"] += 1

    def _user_event(self, line_no: int, payload: dict, ts: str | None) -> None:
        self.seen_user_event = True
        message = payload.get("message")
        key = message.strip() if isinstance(message, str) else ""
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
        self.recent_prompts.append([key, line_no + LOOKAHEAD, injected, self._tag(event)])

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
            queue.append(recent.popleft()[3])
        while queue:
            entry = queue[0]
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
        yield from self._drain(final=True)
        skipped = dict(self.skipped)
        for (outer, inner), count in self.skipped_fast.items():
            name = outer.decode() + ("/" + inner.decode() if inner else "")
            skipped[name] = skipped.get(name, 0) + count
        for name, count in self.items.skipped.items():
            skipped[name] = skipped.get(name, 0) + count
        counts = dict(self.items.counts)
        if self.items.pending:
            counts["callsWithoutOutput"] = len(self.items.pending)
        inherited = self.inherited_usage.usage()
        if inherited:
            counts["inheritedTotalTokens"] = inherited.get("total_tokens", 0)
            self.notes.append("token usage of the copied history is left out of usage")
        if self.usage.resets:
            self.notes.append(f"token totals reset {self.usage.resets} time(s); usage sums the segments")
        yield end_event(
            usage=self.usage.usage(),
            counts=counts or None,
            skipped=skipped or None,
            notes=self.notes or None,
        )


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
            return int(digits)
    found = _TOTAL.search(line, start)
    return int(found.group(1)) if found else None


def _mark_injected(event: dict) -> dict:
    meta = event.get("meta")
    if meta is None:
        event["meta"] = {"injected": True}
    else:
        meta["injected"] = True
    return event


def read_rollout(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    # The reader's own generator, not one wrapped in another: every event
    # passes through each generator level on its way out.
    return RolloutReader(ctx).run(stream)
