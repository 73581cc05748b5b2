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
from sessionport.media import carried_images, in_place
from sessionport.context import WriteContext
from sessionport.registry import Exporter
from sessionport.toolmap import KEEP_TOOL_NAMES, Renames
from sessionport.timeparse import utc_millis

CLI_VERSION = "0.128.0"
ORIGINATOR = "sessionport"
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_OUTPUT_TYPES = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "function_call_output",
    "tool_search_call": "tool_search_output",
}
_NL = orjson.OPT_APPEND_NEWLINE
# The errors of a Codex source (a rollout's event_msg/error, the error
# events of codex exec --json), written back as event_msg/error.
_ERROR_EVENTS = frozenset(("error", "turn.failed"))
_COMPACTION_ITEMS = ("compaction", "compaction_summary", "context_compaction")
# The prompts kept for a remote compaction's replacement history, at most
# (Codex keeps about 20k tokens of them).
PROMPT_CHARS = 80_000


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
    return utc_millis(moment)


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
        self.request_usage: dict | None = None  # usage of the last API message seen
        self.rename = Renames("codex", enabled=not ctx.options.get("keep_tool_names"))
        self.answered: set[str] = set()
        self.synthetic_calls = 0
        # tool name -> id given to the last call the source wrote without
        # one (a generated image, another app's id-less pair), until a
        # result of that tool without an id answers it
        self.idless: dict[str, str] = {}
        # a Codex rollout's own item ids are written back (Codex sends them
        # to the model with the items); another app's ids are not Codex's
        self.keep_ids = False
        # the prompts since the last compaction, for the replacement history
        # of a remote compaction written back (Codex keeps the same)
        self.prompts: list[str] = []
        self.prompt_chars = 0

    def line(self, kind: str, payload: dict, timestamp: Any = None, metadata: dict | None = None) -> None:
        stamp = codex_timestamp(timestamp) if timestamp is not None else None
        if stamp is None:
            stamp = self.timestamp or codex_timestamp(datetime.now(timezone.utc).isoformat())
        self.timestamp = stamp
        record: dict[str, Any] = {"timestamp": stamp, "type": kind, "payload": payload}
        if metadata:
            record["metadata"] = metadata
        self.emit(jsonout.dumps(record, option=_NL))

    def item(self, item: dict, event: dict, ts: Any) -> None:
        """A ``response_item`` line, with the source's item id when it is a
        Codex rollout's, and what that rollout kept with the item: its
        passthrough (Codex 0.15x+ sends it back with every item but a
        compaction trigger and a tool list) and the envelope's ``metadata``
        (0.170: the harness's own, beside the payload)."""
        metadata = None
        if self.keep_ids:
            item_id = event.get("id")
            if isinstance(item_id, str) and item_id:
                # after the type (and the status of a message or function
                # call, where 0.171 writes it)
                head = ("type", "status") if item["type"] in ("message", "function_call") and "status" in item else ("type",)
                item = {**{k: item[k] for k in head}, "id": item_id, **{k: v for k, v in item.items() if k not in head}}
            meta = event.get("meta")
            if isinstance(meta, dict):
                passthrough = meta.get("codexPassthrough")
                if isinstance(passthrough, dict) and passthrough and "internal_chat_message_metadata_passthrough" not in item:
                    item["internal_chat_message_metadata_passthrough"] = passthrough
                metadata = meta.get("codexItemMetadata")
                if not isinstance(metadata, dict):
                    metadata = None
        self.line("response_item", item, ts, metadata)

    def prompt(self, text: str) -> None:
        self.prompts.append(text)
        self.prompt_chars += len(text)
        while self.prompt_chars > PROMPT_CHARS and len(self.prompts) > 1:
            self.prompt_chars -= len(self.prompts.pop(0))

    def warn_once(self, key: str, message: str) -> None:
        if key not in self.warned:
            self.warned.add(key)
            self.ctx.warn(message)

    # -- session --------------------------------------------------------
    def session(self, event: dict) -> None:
        self.started = True
        self.keep_ids = event.get("source") == "codex"
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
        }
        # Codex resumes a thread only under the provider its session_meta
        # names: name one only when the source had it, so that a session from
        # elsewhere resumes under whichever provider the user has configured.
        if isinstance(metadata.get("modelProvider"), str) and metadata["modelProvider"]:
            payload["model_provider"] = metadata["modelProvider"]
        if isinstance(metadata.get("instructions"), str):
            payload["instructions"] = metadata["instructions"]
        if isinstance(metadata.get("baseInstructions"), str):
            payload["base_instructions"] = {"text": metadata["baseInstructions"]}
            if self.keep_ids and isinstance(metadata.get("baseInstructionsProvenance"), dict):
                # Codex's own record of where the text came from
                payload["base_instructions"]["provenance"] = metadata["baseInstructionsProvenance"]
        if isinstance(metadata.get("git"), dict):
            payload["git"] = metadata["git"]
        if isinstance(metadata.get("forkedFromId"), str):
            payload["forked_from_id"] = metadata["forkedFromId"]
        # A thread of a team of agents (0.16x): Codex gives a resumed thread
        # the team's instructions only when its session_meta names the version
        if isinstance(metadata.get("multiAgentVersion"), str) and metadata["multiAgentVersion"]:
            payload["multi_agent_version"] = metadata["multiAgentVersion"]
        tools = metadata.get("dynamicTools")
        if isinstance(tools, list) and tools:
            # Codex offers them again on resume and calls them through the
            # host that gave them (Codex Desktop's codex_app): resumed
            # elsewhere, a thread naming them fails to start
            self.ctx.warn(f"the session's {len(tools)} dynamic tool set(s) (session_meta.dynamic_tools, offered by the app that ran it) are not written: Codex resumes a thread naming them only under that app")
        self.line("session_meta", payload, created)

    # -- messages -------------------------------------------------------
    def message(self, event: dict) -> None:
        if not self.started:
            self.session({"source": "unknown"})
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        if isinstance(meta.get("usage"), dict) and meta["usage"]:
            self.request_usage = meta["usage"]
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
            self.item(reasoning_item(text, meta), event, ts)
        elif kind == "compaction":
            self.compaction(event, meta, text, ts)
        elif kind == "rollback":
            turns = meta.get("numTurns")
            self.line("event_msg", {"type": "thread_rolled_back", "num_turns": turns if isinstance(turns, int) else 0}, ts)
        elif self.keep_ids and meta.get("codexType") == "realtime_item" and role in ("user", "assistant"):
            self.realtime_item(event, meta, text, ts)
        elif role == "assistant":
            self.turn_context(meta, ts)
            self.line("event_msg", {"type": "agent_message", "message": text}, ts)
            item: dict[str, Any] = {"type": "message", "role": "assistant", "content": _parts("output_text", text, meta)}
            if isinstance(meta.get("phase"), str):
                item["phase"] = meta["phase"]
            self.message_item(item, event, meta, ts)
        elif role == "user" and self.keep_ids and meta.get("injectedKind") == "agent_message":
            self.agent_message(event, meta, text, ts)
        elif role == "user":
            item = {"type": "message", "role": "user", "content": _parts("input_text", text, meta, event)}
            if self.keep_ids and meta.get("phase") == "input":
                item["phase"] = "input"  # 0.146+: Codex's mark of the typed prompt
            self.message_item(item, event, meta, ts)
            if not meta.get("injected"):
                self.line("event_msg", {"type": "user_message", "message": text, "images": []}, ts)
                self.prompt(text)
        elif role == "tool" and event.get("toolCallId"):
            self.tool_result(event, meta, text, ts)
        elif role == "system" and meta.get("codexEvent") in _ERROR_EVENTS:
            self.error(meta, text, ts)
        else:
            role = meta.get("codexRole") if meta.get("codexRole") in ("developer", "system") else "developer"
            self.message_item({"type": "message", "role": role, "content": _parts("input_text", text, meta)}, event, meta, ts)

    def error(self, meta: dict, text: str, ts: Any) -> None:
        """An error Codex showed (read from ``event_msg/error`` or from the
        errors of ``codex exec --json``): the same event, which Codex shows
        again on resume and never sends to the model; a developer message
        would put it in the model's history."""
        written = meta.get("codexMessage")
        payload: dict[str, Any] = {"type": "error", "message": written if isinstance(written, str) and written.strip() == text else text}
        if "codexErrorInfo" in meta:
            payload["codex_error_info"] = meta["codexErrorInfo"]
        self.line("event_msg", payload, ts)

    def agent_message(self, event: dict, meta: dict, text: str, ts: Any) -> None:
        """A message another agent of the run sent into a Codex thread,
        written back as the ``agent_message`` item it was (its encrypted
        parts with it, while its text parts still make up the event's text)."""
        content = _parts("input_text", text, meta)
        sealed = {x.get("part"): x.get("encryptedContent") for x in meta.get("encryptedParts") or () if isinstance(x, dict) and isinstance(x.get("encryptedContent"), str)}
        if len(content) == len(meta.get("contentParts") or ()):
            content = [{"type": "encrypted_content", "encrypted_content": sealed[n]} if n in sealed else part for n, part in enumerate(content)]
        if meta.get("codexType") == "inter_agent_communication":
            self.inter_agent_communication(meta, text, ts)
            return
        item: dict[str, Any] = {"type": "agent_message"}
        for key in ("author", "recipient"):
            if isinstance(meta.get(key), str):
                item[key] = meta[key]
        item["content"] = content
        self.message_item(item, event, meta, ts)

    def inter_agent_communication(self, meta: dict, text: str, ts: Any) -> None:
        """An inter-agent message a rollout held as its own record, written
        back as that record: Codex rebuilds the model's input from it on
        resume (a response item would be a second copy)."""
        payload: dict[str, Any] = {}
        for key in ("author", "recipient"):
            if isinstance(meta.get(key), str):
                payload[key] = meta[key]
        payload["other_recipients"] = meta["otherRecipients"] if isinstance(meta.get("otherRecipients"), list) else []
        sealed = meta.get("encryptedContent")
        placeholder = isinstance(sealed, str) and text.startswith("[encrypted content")
        payload["content"] = "" if placeholder else text
        if isinstance(sealed, str) and sealed:
            payload["encrypted_content"] = sealed
        if isinstance(meta.get("codexPassthrough"), dict):
            payload["internal_chat_message_metadata_passthrough"] = meta["codexPassthrough"]
        payload["trigger_turn"] = meta["triggerTurn"] if isinstance(meta.get("triggerTurn"), bool) else True
        self.line("inter_agent_communication", payload, ts)

    def realtime_item(self, event: dict, meta: dict, text: str, ts: Any) -> None:
        """A voice transcript segment of a rollout, written back as the
        ``realtime_item`` it was: the model never saw it, and a message item
        would put it in the resumed model's history."""
        payload: dict[str, Any] = {}
        if isinstance(event.get("id"), str):
            payload["id"] = event["id"]
        if isinstance(meta.get("realtimeSessionId"), str):
            payload["realtime_session_id"] = meta["realtimeSessionId"]
        payload["type"] = "transcript_segment"
        segment = {"role": event.get("role"), "text": text}
        if meta.get("codexRealtimeData"):
            payload["data"] = segment
        else:
            payload.update(segment)
        self.line("realtime_item", payload, ts)

    def message_item(self, item: dict, event: dict, meta: dict, ts: Any) -> None:
        if self.keep_ids and item["type"] == "message":
            # what a Codex rollout's message held beyond its text
            if isinstance(meta.get("codexStatus"), str):
                item = {"type": "message", "status": meta["codexStatus"], **{k: v for k, v in item.items() if k != "type"}}
            extras = meta.get("codexPartExtras")
            content = item.get("content")
            if isinstance(extras, list) and isinstance(content, list) and len(extras) == len(content):
                for part, extra in zip(content, extras):
                    if isinstance(extra, dict) and extra and part.get("type") in ("input_text", "output_text"):
                        part.update(extra)
            if isinstance(meta.get("encryptedContent"), str) and meta["encryptedContent"]:
                item["encrypted_content"] = meta["encryptedContent"]
        self.item(item, event, ts)

    def compaction(self, event: dict, meta: dict, text: str, ts: Any) -> None:
        extras = meta.get("codexCompacted")
        if isinstance(extras, dict) and extras:
            # Codex falls back to rebuilding them, as for a compaction of an
            # earlier version; written back, they would name windows and
            # history (replacement_history_metadata: one entry an item) of
            # the original's replacement, which the export rebuilds
            self.warn_once("compacted-extras", "a compaction's " + ", ".join(f"`{k}`" for k in sorted(extras)) + " are not written (Codex rebuilds them on resume as for an older rollout)")
        encrypted = meta.get("encryptedContent") if isinstance(meta.get("encryptedContent"), str) and meta["encryptedContent"] else None
        codex_type = meta.get("codexType")
        if encrypted is not None and codex_type in _COMPACTION_ITEMS:
            # a compaction item of the rollout, replayed where it stands
            self.item({"type": codex_type, "encrypted_content": encrypted}, event, ts)
            self.prompts, self.prompt_chars = [], 0
            return
        payload: dict[str, Any] = {"message": text}
        if encrypted is not None:
            # a remote compaction: the prompts it kept and its summary, as
            # Codex writes them; the message is then empty, as Codex's is
            payload = {"message": "" if text.startswith("[compacted: ") else text, "replacement_history": [
                *({"type": "message", "role": "user", "content": [{"type": "input_text", "text": p}]} for p in self.prompts),
                {"type": "compaction", "encrypted_content": encrypted},
            ]}
        # Otherwise no replacement_history: Codex then rebuilds the context
        # from the user messages before and this summary, as after its own
        # compaction; an empty one would leave the model nothing.
        self.line("compacted", payload, ts)
        self.line("event_msg", {"type": "context_compacted"}, ts)
        self.prompts, self.prompt_chars = [], 0

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

    def tool_use(self, event: dict, meta: dict, ts: Any, source: bool = True) -> str | None:
        self.turn_context(meta, ts)
        name = event.get("toolName") if isinstance(event.get("toolName"), str) else "unknown"
        source_name = name
        tool_input = event.get("toolInput")
        if not isinstance(tool_input, dict):
            tool_input = {} if tool_input is None else {"value": tool_input}
        codex_type = meta.get("codexType")
        mapped, tool_input = self.rename(name, tool_input)
        if mapped != name:
            # another app's tool: written the way Codex writes its own
            name = mapped
            codex_type = "custom_tool_call" if name == "apply_patch" else "function_call"
            meta = {k: v for k, v in meta.items() if k != "codexArguments"}
        call_id = event.get("toolCallId")
        if codex_type == "web_search_call":
            self.item({"type": "web_search_call", "status": "completed", "action": tool_input}, event, ts)
            return None
        if not isinstance(call_id, str) or not call_id:
            self.generated += 1
            call_id = f"call_sessionport_{self.generated}"
            if source:
                self.idless[source_name] = call_id
        if codex_type == "custom_tool_call":
            raw = tool_input.get("input")
            item: dict[str, Any] = {
                "type": "custom_tool_call",
                "status": meta.get("status", "completed"),
                "call_id": call_id,
                "name": name,
            }
            if isinstance(meta.get("namespace"), str):
                item["namespace"] = meta["namespace"]
            item["input"] = raw if isinstance(raw, str) else jsonout.dumps(tool_input).decode()
        elif codex_type == "tool_search_call":
            execution = meta.get("execution") if isinstance(meta.get("execution"), str) else "client"
            item = {"type": "tool_search_call", "call_id": call_id, "status": meta.get("status", "completed"), "execution": execution, "arguments": tool_input}
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
                arguments = _arguments_as_written(meta.get("codexArgumentsText"), tool_input) or jsonout.dumps(tool_input).decode()
            item = {"type": "function_call"}
            status = meta.get("status") or meta.get("codexStatus")
            if self.keep_ids and isinstance(status, str):
                item["status"] = status
            item["name"] = name
            if isinstance(meta.get("namespace"), str):
                item["namespace"] = meta["namespace"]
            item["arguments"] = arguments
            sealed = meta.get("encryptedFunctionArgs")
            if isinstance(sealed, list) and all(isinstance(x, str) for x in sealed):
                item["encrypted_function_args"] = sealed
            item["call_id"] = call_id
        self.calls[call_id] = codex_type
        self.item(item, event, ts)
        return call_id

    def tool_result(self, event: dict, meta: dict, text: str, ts: Any) -> None:
        call_id = event.get("toolCallId")
        name = event.get("toolName")
        if (not isinstance(call_id, str) or not call_id) and isinstance(name, str) and self.idless.get(name) in self.calls:
            call_id = self.idless[name]  # the call the source wrote just before, without an id
        if call_id and isinstance(name, str) and self.idless.get(name) == call_id:
            del self.idless[name]
        if not isinstance(call_id, str) or not call_id or (call_id not in self.calls and call_id not in self.answered):
            # no call before it (ChatGPT's internal tools, a log that lost the
            # call): Codex drops an output without its call, so it gets one
            self.synthetic_calls += 1
            call = {"role": "tool", "toolName": event.get("toolName"), "toolInput": {}}
            if isinstance(call_id, str) and call_id:
                call["toolCallId"] = call_id
            call_id = self.tool_use(call, {"kind": "tool_use"}, ts, source=False)
        self.answered.add(call_id)
        call_type = self.calls.pop(call_id, None)
        out_type = meta.get("codexType") if meta.get("codexType") in ("function_call_output", "custom_tool_call_output") else None
        out_type = out_type or _OUTPUT_TYPES.get(call_type or "", "function_call_output")
        if out_type == "tool_search_output":
            # the loaded tool definitions when the source had them; the
            # text as well, for a rollout that held only that
            execution = meta.get("execution") if isinstance(meta.get("execution"), str) else "client"
            tools = meta.get("tools") if isinstance(meta.get("tools"), list) else []
            payload: dict[str, Any] = {"type": out_type, "call_id": call_id, "status": "completed", "execution": execution, "tools": tools}
            if not tools:
                payload["output"] = text
            self.item(payload, event, ts)
            return
        output: str = text
        if meta.get("outputShape") == "json" or "exitCode" in meta:
            metadata: dict[str, Any] = {}
            if isinstance(meta.get("exitCode"), int):
                metadata["exit_code"] = meta["exitCode"]
            if isinstance(meta.get("durationSeconds"), (int, float)):
                metadata["duration_seconds"] = meta["durationSeconds"]
            output = jsonout.dumps({"output": text, "metadata": metadata}).decode()
        if carried_images(event) and "exitCode" not in meta:
            # the images of a result read with --keep-images: Codex's list
            # of input_text and input_image items, each image in its
            # placeholder's place (what the model saw)
            parts = _parts("input_text", text, {}, event)
            details = meta.get("imageDetails") if isinstance(meta.get("imageDetails"), list) else []
            images = [part for part in parts if part["type"] == "input_image"]
            if len(details) == len(images):
                for part, detail in zip(images, details):
                    if isinstance(detail, str):
                        part["detail"] = detail
            self.item({"type": out_type, "call_id": call_id, "output": parts}, event, ts)
            return
        written: dict[str, Any] = {"type": out_type, "call_id": call_id}
        if self.keep_ids and isinstance(meta.get("codexName"), str) and out_type in ("function_call_output", "custom_tool_call_output"):
            written["name"] = meta["codexName"]
        if out_type == "function_call_output" and isinstance(meta.get("namespace"), str):
            written["namespace"] = meta["namespace"]
        written["output"] = output
        self.item(written, event, ts)

    def end(self, event: dict) -> None:
        """``token_count``: the session's cumulative usage, and what the last
        request used.  Codex reads ``last_token_usage`` as the size of the
        context when the thread is resumed and compacts the history first
        when it is near the window, so it must never be the cumulative total."""
        usage = event.get("usage")
        if not isinstance(usage, dict) or not usage:
            return
        total = _token_usage(usage)
        metadata = event.get("metadata") if isinstance(event.get("metadata"), dict) else {}
        writes = metadata.get("cacheWriteInputTokens")
        if self.keep_ids and type(writes) is int and writes >= 0 and total:
            # a Codex rollout's (0.153+), where 0.171 writes it
            keys = list(total)
            at = keys.index("cached_input_tokens") + 1 if "cached_input_tokens" in keys else len(keys)
            total = {**{k: total[k] for k in keys[:at]}, "cache_write_input_tokens": writes, **{k: total[k] for k in keys[at:]}}
        last = event.get("lastRequestUsage")
        last = _token_usage(last if isinstance(last, dict) and last else self.request_usage or {})
        if not last:
            # not known: an empty count rather than a guess (Codex then sees a
            # small context and resumes without compacting)
            last = dict.fromkeys(("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens"), 0)
            self.warn_once("last-usage", "the usage of the session's last request is unknown; token_count.last_token_usage is written as zero")
        info = {"total_token_usage": total, "last_token_usage": last, "model_context_window": None}
        self.line("event_msg", {"type": "token_count", "info": info, "rate_limits": None})


def _parts(kind: str, text: str, meta: dict, event: dict | None = None) -> list[dict]:
    """A message's content: the parts the source had, while they still make
    up the event's text (else the text as one part, or cut at its image
    placeholders); each image the event carries in ``media`` (read with
    --keep-images) an ``input_image`` in its placeholder's place."""
    images = carried_images(event)
    parts = meta.get("contentParts")
    if isinstance(parts, list) and all(isinstance(p, str) for p in parts) and "\n".join(parts) == text:
        slots = {x.get("part"): x for x in meta.get("contentImages") or () if isinstance(x, dict)}
        out = []
        for n, part in enumerate(parts):
            if n in slots and images:
                out.append(_image(images.pop(0), slots[n].get("detail")))
            else:
                out.append({"type": kind, "text": part})
        return out + [_image(m) for m in images]
    if not images or kind != "input_text":
        return [{"type": kind, "text": text}]
    return [{"type": kind, "text": piece} if isinstance(piece, str) else _image(piece) for piece in in_place(text, images)]


def _image(entry: dict, detail: Any = None) -> dict:
    part: dict[str, Any] = {"type": "input_image", "image_url": f"data:{entry['mediaType']};base64,{entry['data']}"}
    if isinstance(detail, str):
        part["detail"] = detail
    return part


def reasoning_item(text: str, meta: dict) -> dict:
    """A ``reasoning`` item: the summary (in the parts the source had), or
    the plaintext content, and the encrypted reasoning when the source kept
    it (Codex and the Responses API send it back to the model)."""
    encrypted = meta.get("encryptedContent") if isinstance(meta.get("encryptedContent"), str) and meta["encryptedContent"] else None
    if meta.get("reasoningContent"):
        return {"type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": text}], "encrypted_content": encrypted}
    parts = meta.get("summaryParts")
    if not (isinstance(parts, list) and all(isinstance(p, str) for p in parts) and "\n".join(parts) == text):
        # the text was changed since (redacted, edited): one part of it
        parts = [text] if text or encrypted is None else []
    return {"type": "reasoning", "summary": [{"type": "summary_text", "text": p} for p in parts], "content": None, "encrypted_content": encrypted}


def _arguments_as_written(text: Any, tool_input: dict) -> str | None:
    """The call's arguments as the source wrote them, while they still say
    what ``toolInput`` says (a redacted or edited input is written anew)."""
    if not isinstance(text, str):
        return None
    try:
        return text if orjson.loads(text) == tool_input else None
    except orjson.JSONDecodeError:
        return None


def _token_usage(usage: dict) -> dict:
    counts = {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
    if counts and "total_tokens" not in counts and ("input_tokens" in counts or "output_tokens" in counts):
        counts["total_tokens"] = counts.get("input_tokens", 0) + counts.get("output_tokens", 0)
    return counts


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
    writer.rename.report(ctx.warn)
    if writer.synthetic_calls:
        ctx.warn(f"{writer.synthetic_calls} tool result(s) without a call were given a call of their own (the result's tool name, an empty input): Codex drops an output without its call")


EXPORTER = Exporter(
    name="codex",
    description=f"OpenAI Codex CLI rollout (envelope JSONL as written by Codex CLI {CLI_VERSION})",
    write=write,
    cannot_carry=("media outside prompts", "responses items"),
    extension=".jsonl",
    multi_session=False,
    options=(KEEP_TOOL_NAMES,),
)
