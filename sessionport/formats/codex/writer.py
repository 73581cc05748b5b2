"""``codex``: write a session as a Codex CLI rollout (envelope JSONL).

The output follows the rollout layout of Codex CLI ``0.128.0`` (see
``CLI_VERSION``): ``session_meta`` first, then ``response_item`` lines for
messages, reasoning summaries, calls and outputs, with the ``event_msg`` lines
that Codex itself writes next to them and that readers rely on
(``user_message`` after a typed prompt, ``agent_message`` before an assistant
message, ``token_count`` when the session's usage is known).  Events are
written as they arrive; only the call ids still waiting for their output are
remembered, to give each output the item type of its call.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone
from typing import Any, BinaryIO, Iterable

import orjson

from sessionport import jsonout
from sessionport.context import WriteContext
from sessionport.registry import Exporter

CLI_VERSION = "0.128.0"
ORIGINATOR = "sessionport"
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_OUTPUT_TYPES = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "function_call_output",
}
_NL = orjson.OPT_APPEND_NEWLINE


def codex_timestamp(value: Any) -> str | None:
    """``2025-09-16T04:47:58.370Z`` (UTC, milliseconds), as Codex writes it."""
    if isinstance(value, str):
        if _TS.match(value):
            return value
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = value / 1000 if value > 1e11 else value
        try:
            moment = datetime.fromtimestamp(seconds, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    else:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def thread_id(session: dict) -> str:
    """Codex names threads by UUID; other ids are mapped to a stable UUID."""
    sid = session.get("sessionId")
    if isinstance(sid, str) and _UUID.match(sid):
        return sid.lower()
    seed = f"sessionport:{sid!r}:{session.get('createdAt')!r}:{session.get('source')!r}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, seed))


class RolloutWriter:
    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        self.emit = out.write
        self.ctx = ctx
        self.timestamp: str | None = None
        self.model: str | None = None
        self.cwd: str = ""
        self.calls: dict[str, str] = {}  # call id -> codex item type, until its output
        self.generated = 0
        self.warned: set[str] = set()
        self.started = False

    def line(self, kind: str, payload: dict, timestamp: Any = None) -> None:
        stamp = codex_timestamp(timestamp) if timestamp is not None else None
        if stamp is None:
            stamp = self.timestamp or codex_timestamp(datetime.now(timezone.utc).isoformat())
        self.timestamp = stamp
        self.emit(jsonout.dumps({"timestamp": stamp, "type": kind, "payload": payload}, option=_NL))

    def warn_once(self, key: str, message: str) -> None:
        if key not in self.warned:
            self.warned.add(key)
            self.ctx.warn(message)

    # -- session --------------------------------------------------------
    def session(self, event: dict) -> None:
        self.started = True
        metadata = event.get("metadata") if isinstance(event.get("metadata"), dict) else {}
        created = codex_timestamp(event.get("createdAt"))
        self.cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else ""
        payload: dict[str, Any] = {
            "id": thread_id(event),
            "timestamp": created or codex_timestamp(datetime.now(timezone.utc).isoformat()),
            "cwd": self.cwd,
            "originator": ORIGINATOR,
            "cli_version": CLI_VERSION,
            "source": "cli",
            "model_provider": metadata.get("modelProvider") if isinstance(metadata.get("modelProvider"), str) else "openai",
        }
        if isinstance(metadata.get("instructions"), str):
            payload["instructions"] = metadata["instructions"]
        if isinstance(metadata.get("baseInstructions"), str):
            payload["base_instructions"] = {"text": metadata["baseInstructions"]}
        if isinstance(metadata.get("git"), dict):
            payload["git"] = metadata["git"]
        if isinstance(metadata.get("forkedFromId"), str):
            payload["forked_from_id"] = metadata["forkedFromId"]
        self.line("session_meta", payload, created)

    # -- messages -------------------------------------------------------
    def message(self, event: dict) -> None:
        if not self.started:
            self.session({"source": "unknown"})
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        kind = meta.get("kind", "text")
        role = event.get("role")
        text = event.get("text") if isinstance(event.get("text"), str) else ""
        ts = event.get("timestamp")
        if kind == "tool_use":
            self.tool_use(event, meta, ts)
        elif kind == "tool_result":
            self.tool_result(event, meta, text, ts)
        elif kind == "thinking":
            self.turn_context(meta, ts)
            if meta.get("reasoningContent"):
                item = {"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": text}], "encrypted_content": None}
            else:
                item = {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}], "content": None, "encrypted_content": None}
            self.line("response_item", item, ts)
        elif kind == "compaction":
            self.line("compacted", {"message": text, "replacement_history": []}, ts)
            self.line("event_msg", {"type": "context_compacted"}, ts)
        elif kind == "rollback":
            turns = meta.get("numTurns")
            self.line("event_msg", {"type": "thread_rolled_back", "num_turns": turns if isinstance(turns, int) else 0}, ts)
        elif role == "assistant":
            self.turn_context(meta, ts)
            self.line("event_msg", {"type": "agent_message", "message": text}, ts)
            item: dict[str, Any] = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
            if isinstance(meta.get("phase"), str):
                item["phase"] = meta["phase"]
            self.line("response_item", item, ts)
        elif role == "user":
            self.line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}, ts)
            if not meta.get("injected"):
                self.line("event_msg", {"type": "user_message", "message": text, "images": []}, ts)
        elif role == "tool" and event.get("toolCallId"):
            self.tool_result(event, meta, text, ts)
        else:
            self.line("response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": text}]}, ts)

    def turn_context(self, meta: dict, ts: Any) -> None:
        """Codex records the model in ``turn_context``; write one when it changes."""
        model = meta.get("model")
        if not isinstance(model, str) or model == self.model:
            return
        self.model = model
        self.line(
            "turn_context",
            {
                "cwd": self.cwd,
                "approval_policy": "on-request",
                "sandbox_policy": {"type": "read-only"},
                "model": model,
                "summary": "auto",
            },
            ts,
        )

    def tool_use(self, event: dict, meta: dict, ts: Any) -> None:
        self.turn_context(meta, ts)
        name = event.get("toolName") if isinstance(event.get("toolName"), str) else "unknown"
        tool_input = event.get("toolInput")
        if not isinstance(tool_input, dict):
            tool_input = {} if tool_input is None else {"value": tool_input}
        codex_type = meta.get("codexType")
        call_id = event.get("toolCallId")
        if codex_type == "web_search_call":
            self.line("response_item", {"type": "web_search_call", "status": "completed", "action": tool_input}, ts)
            return
        if not isinstance(call_id, str) or not call_id:
            self.generated += 1
            call_id = f"call_sessionport_{self.generated}"
        if codex_type == "custom_tool_call":
            raw = tool_input.get("input")
            item: dict[str, Any] = {
                "type": "custom_tool_call",
                "status": meta.get("status", "completed"),
                "call_id": call_id,
                "name": name,
                "input": raw if isinstance(raw, str) else jsonout.dumps(tool_input).decode(),
            }
        elif codex_type == "local_shell_call":
            item = {"type": "local_shell_call", "call_id": call_id, "status": meta.get("status", "completed"), "action": tool_input}
        else:
            codex_type = "function_call"
            shape = meta.get("codexArguments")
            if shape == "raw" and isinstance(tool_input.get("raw"), str):
                arguments = tool_input["raw"]
            elif shape == "value" and "value" in tool_input:
                arguments = jsonout.dumps(tool_input["value"]).decode()
            else:
                arguments = jsonout.dumps(tool_input).decode()
            item = {"type": "function_call", "name": name, "arguments": arguments, "call_id": call_id}
        self.calls[call_id] = codex_type
        self.line("response_item", item, ts)

    def tool_result(self, event: dict, meta: dict, text: str, ts: Any) -> None:
        call_id = event.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            self.warn_once("result-without-id", "a tool result without a toolCallId cannot be paired in a Codex rollout; left out")
            return
        call_type = self.calls.pop(call_id, None)
        out_type = meta.get("codexType") if meta.get("codexType") in ("function_call_output", "custom_tool_call_output") else None
        out_type = out_type or _OUTPUT_TYPES.get(call_type or "", "function_call_output")
        output: str = text
        if meta.get("outputShape") == "json" or "exitCode" in meta:
            metadata: dict[str, Any] = {}
            if isinstance(meta.get("exitCode"), int):
                metadata["exit_code"] = meta["exitCode"]
            if isinstance(meta.get("durationSeconds"), (int, float)):
                metadata["duration_seconds"] = meta["durationSeconds"]
            output = jsonout.dumps({"output": text, "metadata": metadata}).decode()
        self.line("response_item", {"type": out_type, "call_id": call_id, "output": output}, ts)

    def end(self, event: dict) -> None:
        usage = event.get("usage")
        if not isinstance(usage, dict) or not usage:
            return
        total = {k: v for k, v in usage.items() if isinstance(v, int)}
        if "total_tokens" not in total and ("input_tokens" in total or "output_tokens" in total):
            total["total_tokens"] = total.get("input_tokens", 0) + total.get("output_tokens", 0)
        info = {"total_token_usage": total, "last_token_usage": total, "model_context_window": None}
        self.line("event_msg", {"type": "token_count", "info": info, "rate_limits": None})


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    writer = RolloutWriter(out, ctx)
    for event in events:
        kind = event.get("type")
        if kind == "message":
            writer.message(event)
        elif kind == "session":
            writer.session(event)
        elif kind == "end":
            writer.end(event)


EXPORTER = Exporter(
    name="codex",
    description=f"OpenAI Codex CLI rollout (envelope JSONL as written by Codex CLI {CLI_VERSION})",
    write=write,
    extension=".jsonl",
    multi_session=False,
)
