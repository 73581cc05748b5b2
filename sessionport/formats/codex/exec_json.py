"""``codex exec --json``: the event stream Codex prints for a scripted run.

Not a rollout (that is written to ``~/.codex/sessions`` as well) but what a
CI job or a script saves: ``thread.started`` first, then ``turn.*`` and
``item.started`` / ``item.updated`` / ``item.completed`` events whose
``item`` is one of the thread item types of ``codex-rs/exec``'s
``exec_events.rs`` (agent messages, reasoning summaries, commands, file
changes, MCP and collab tool calls, web searches, to-do lists, errors).  A
completed item is the whole item, so only ``item.completed`` is read; the
earlier states are counted.  The prompt is not in the stream.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.jsonl import BOM, first_json_line, iter_records
from sessionport.model import end_event, message_event, session_event
from sessionport.formats.codex.items import tool_text

SOURCE = "codex"
# Events that repeat what ``item.completed`` holds, or only frame a turn.
_COUNTED = frozenset(("turn.started", "item.started", "item.updated", "item.plan.delta"))
# How codex exec words a retry of a failed request ("Reconnecting... 2/5 (…)").
_RETRY = "Reconnecting... "
# turn.completed usage → sessionport's usage keys (``input_tokens`` holds the cached part).
_USAGE_KEYS = {
    "input_tokens": "input_tokens",
    "cached_input_tokens": "cached_input_tokens",
    "output_tokens": "output_tokens",
    "reasoning_output_tokens": "reasoning_output_tokens",
}


def is_exec_stream(first: Any) -> bool:
    return isinstance(first, dict) and first.get("type") == "thread.started" and isinstance(first.get("thread_id"), str)


def starts_exec_stream(stream: BinaryIO) -> bool:
    """Whether a buffered input opens with ``thread.started`` (read without consuming it)."""
    peek = getattr(stream, "peek", None)
    if peek is None:
        return False
    head = peek(1 << 12)[: 1 << 12]
    if head.startswith(BOM):
        head = head[3:]
    return b'"thread.started"' in head[:256] and is_exec_stream(first_json_line(head))


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


class _ExecStream:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.skipped: Counter = Counter()
        self.counts: Counter = Counter()
        self.usage: dict[str, int] = {}
        self.session_sent = False
        self.threads: list[str] = []
        self.cache_writes: int | None = None
        # turn.completed carries the thread's running total (codex-rs exec
        # ``usage_from_last_total``: ``ThreadTokenUsage.total``, restored on
        # resume), not the turn's: per thread, the last reading counts, and
        # a reading below the one before it (totals not restored) starts
        # a new segment, summed
        self.thread: str | None = None
        self.last_error: str | None = None  # the text of an error event just written
        self.readings: dict[str | None, dict[str, int]] = {}
        self.finished_segments: dict[str, int] = {}

    def session(self, thread_id: str | None) -> dict:
        self.session_sent = True
        return session_event(SOURCE, sessionId=thread_id, metadata={"codexEra": "exec-json"})

    def read(self, stream: BinaryIO) -> Iterator[dict]:
        for line_no, record in iter_records(stream, self.ctx):
            if not isinstance(record, dict):
                self.ctx.bad_record(f"expected a codex exec event (a JSON object), found a JSON {type(record).__name__}", line=line_no)
                continue
            etype = record.get("type")
            if not isinstance(etype, str):
                etype = None
            if etype == "thread.started":
                thread = record.get("thread_id")
                self.thread = thread if isinstance(thread, str) else None
                if not self.session_sent:
                    yield self.session(thread if isinstance(thread, str) else None)
                elif isinstance(thread, str):
                    self.threads.append(thread)  # a later run printed into the same file
                continue
            if not self.session_sent:
                yield self.session(None)
            if etype != "turn.failed":
                self.last_error = None  # only the event just before repeats
            if etype in _COUNTED:
                self.skipped[etype] += 1
            elif etype == "item.completed":
                item = record.get("item")
                if isinstance(item, dict):
                    yield from self.item(item, line_no)
                else:
                    self.ctx.bad_record("an item.completed event without an item object", line=line_no)
            elif etype == "turn.completed":
                self.counts["turns"] += 1
                self.add_usage(record.get("usage"))
            elif etype in ("turn.failed", "error"):
                error = record.get("error") if etype == "turn.failed" else record
                message = _str(error.get("message")) if isinstance(error, dict) else ""
                if etype == "error" and message.startswith(_RETRY):
                    # a retry notice (the rollout's stream_error): the error
                    # that ends the retries follows if they all fail
                    self.skipped["error (retry notice)"] += 1
                    continue
                if etype == "turn.failed" and message and message == self.last_error:
                    # the turn failed with the error just shown
                    self.skipped["turn.failed (repeats the error)"] += 1
                    self.last_error = None
                    continue
                self.last_error = message if etype == "error" else None
                yield message_event("system", message or f"[{etype}]", isError=True, meta={"kind": "text", "codexEvent": etype})
                continue
            elif etype == "request_user_input":
                questions = record.get("questions")
                yield message_event(
                    "tool", _json(questions), toolName="request_user_input", toolCallId=_str(record.get("call_id")) or None,
                    toolInput={"questions": questions}, meta={"kind": "tool_use", "codexEvent": etype},
                )
            else:
                name = etype if isinstance(etype, str) else "(no type)"
                self.skipped[name] += 1
                self.ctx.unknown(name, line=line_no)
        if not self.session_sent:
            yield self.session(None)
        self.total_usage()
        metadata: dict = {}
        if self.threads:
            metadata["laterThreads"] = self.threads
        if self.cache_writes is not None:
            metadata["cacheWriteInputTokens"] = self.cache_writes
        order = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")
        yield end_event(
            usage={k: self.usage[k] for k in order if k in self.usage} or None,
            counts=dict(self.counts) or None,
            skipped=dict(self.skipped) or None,
            unknown=self.ctx.report_unknown() or None,
            metadata=metadata or None,
        )

    def add_usage(self, usage: Any) -> None:
        """One ``turn.completed`` reading: the running total of its thread."""
        if not isinstance(usage, dict):
            return
        reading = {}
        for key in (*_USAGE_KEYS, "cache_write_input_tokens"):
            value = usage.get(key)
            if type(value) is int and value >= 0:
                reading[key] = value
        if not reading:
            return
        last = self.readings.get(self.thread)
        if last is not None and any(reading.get(k, 0) < v for k, v in last.items()):
            for key, value in last.items():  # totals not carried on: a new segment
                self.finished_segments[key] = self.finished_segments.get(key, 0) + value
        self.readings[self.thread] = reading

    def total_usage(self) -> None:
        """The session's usage: the last reading of each thread (and the
        segments before a reset) summed."""
        totals = dict(self.finished_segments)
        for reading in self.readings.values():
            for key, value in reading.items():
                totals[key] = totals.get(key, 0) + value
        for key, name in _USAGE_KEYS.items():
            if key in totals:
                self.usage[name] = totals[key]
        if "cache_write_input_tokens" in totals:
            # no place in a rollout's token counts: kept beside the usage
            self.cache_writes = totals["cache_write_input_tokens"]
        if "input_tokens" in self.usage or "output_tokens" in self.usage:
            self.usage["total_tokens"] = self.usage.get("input_tokens", 0) + self.usage.get("output_tokens", 0)

    def item(self, item: dict, line_no: int) -> Iterator[dict]:
        itype = item.get("type")
        if not isinstance(itype, str):
            itype = None
        item_id = _str(item.get("id")) or None
        meta_id = {"itemId": item_id} if item_id else {}
        self.counts["items"] += 1
        if itype == "agent_message":
            yield message_event("assistant", _str(item.get("text")), meta={"kind": "text", **meta_id})
        elif itype == "reasoning":
            yield message_event("assistant", _str(item.get("text")), meta={"kind": "thinking", **meta_id})
        elif itype == "plan":
            yield message_event("assistant", _str(item.get("text")), meta={"kind": "text", "plan": True, **meta_id})
        elif itype == "command_execution":
            command = _str(item.get("command"))
            yield message_event("tool", tool_text("shell", {"command": command}), toolName="shell", toolCallId=item_id, toolInput={"command": command}, meta={"kind": "tool_use", **meta_id})
            code, status = item.get("exit_code"), item.get("status")
            meta: dict = {"kind": "tool_result"}
            if type(code) is int:
                meta["exitCode"] = code
            if isinstance(status, str):
                meta["status"] = status
            failed = (type(code) is int and code != 0) or status in ("failed", "declined")
            yield message_event("tool", _str(item.get("aggregated_output")), toolName="shell", toolCallId=item_id, isError=failed or None, meta=meta)
        elif itype == "file_change":
            changes = item.get("changes") if isinstance(item.get("changes"), list) else []
            yield message_event("tool", tool_text("apply_patch", {"changes": changes}), toolName="apply_patch", toolCallId=item_id, toolInput={"changes": changes}, meta={"kind": "tool_use", **meta_id})
            status = item.get("status")
            yield message_event(
                "tool", _str(status), toolName="apply_patch", toolCallId=item_id, isError=True if status == "failed" else None,
                meta={"kind": "tool_result", "status": status} if isinstance(status, str) else {"kind": "tool_result"},
            )
        elif itype == "mcp_tool_call":
            arguments = item.get("arguments")
            tool_input = arguments if isinstance(arguments, dict) else {"value": arguments}
            server = _str(item.get("server"))
            yield message_event(
                "tool", tool_text("mcp", tool_input), toolName=_str(item.get("tool")) or "mcp", toolCallId=item_id, toolInput=tool_input,
                meta={"kind": "tool_use", "mcpServer": server, **meta_id} if server else {"kind": "tool_use", **meta_id},
            )
            result, error = item.get("result"), item.get("error")
            name = _str(item.get("tool")) or "mcp"
            if isinstance(error, dict):
                yield message_event("tool", _str(error.get("message")), toolName=name, toolCallId=item_id, isError=True, meta={"kind": "tool_result"})
            elif isinstance(result, dict):
                yield message_event("tool", _mcp_text(result), toolName=name, toolCallId=item_id, meta={"kind": "tool_result"})
        elif itype == "collab_tool_call":
            tool = _str(item.get("tool")) or "collab"
            tool_input = {k: item[k] for k in ("prompt", "receiver_thread_ids") if item.get(k) is not None}
            yield message_event("tool", tool_text(tool, tool_input), toolName=tool, toolCallId=item_id, toolInput=tool_input, meta={"kind": "tool_use", **meta_id})
            states = item.get("agents_states") if isinstance(item.get("agents_states"), dict) else {}
            lines = []
            for thread, state in states.items():
                if isinstance(state, dict):
                    lines.append(" ".join(x for x in (f"{thread}:", _str(state.get("status")), _str(state.get("message"))) if x))
            status = item.get("status")
            yield message_event(
                "tool", "\n".join(lines) or _str(status), toolName=tool, toolCallId=item_id, isError=True if status == "failed" else None,
                meta={"kind": "tool_result", "agents": states} if states else {"kind": "tool_result"},
            )
        elif itype == "web_search":
            tool_input = {k: item[k] for k in ("query", "action") if item.get(k) is not None}
            yield message_event("tool", tool_text("web_search", tool_input), toolName="web_search", toolCallId=item_id, toolInput=tool_input, meta={"kind": "tool_use", **meta_id})
        elif itype == "todo_list":
            entries = item.get("items") if isinstance(item.get("items"), list) else []
            lines = [f"- [{'x' if e.get('completed') is True else ' '}] {_str(e.get('text'))}" for e in entries if isinstance(e, dict)]
            yield message_event("assistant", "\n".join(lines), meta={"kind": "text", "todoList": True, **meta_id})
        elif itype == "error":
            yield message_event("system", _str(item.get("message")), isError=True, meta={"kind": "text", "codexEvent": "error", **meta_id})
        else:
            name = f"item/{itype}" if isinstance(itype, str) else "item/(no type)"
            self.skipped[name] += 1
            self.ctx.unknown(name, line=line_no)


def _mcp_text(result: dict) -> str:
    pieces = []
    for block in result.get("content") if isinstance(result.get("content"), list) else ():
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            pieces.append(block["text"])
        elif block is not None:
            pieces.append(_json(block))
    if not pieces and result.get("structured_content") is not None:
        pieces.append(_json(result["structured_content"]))
    return "\n".join(pieces)


def read_exec_stream(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    return _ExecStream(ctx).read(stream)
