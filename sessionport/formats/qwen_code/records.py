"""One Qwen Code record -> canonical events.

Record types: ``user`` (a prompt), ``assistant`` (one model response: text,
thought and functionCall parts, with ``usageMetadata``), ``tool_result``
(functionResponse parts, with ``toolCallResult`` for the UI) and ``system``
(``subtype`` says which: UI telemetry, compression checkpoints, slash
commands, notifications, session state...).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from sessionport.context import ReadContext
from sessionport.gemini_parts import CallPairing, PartConverter
from sessionport.model import message_event
from sessionport.formats.qwen_code.sniff import RECORD_TYPES

# System records whose ``message`` is content the model is given: kept as
# injected messages of their kind.
SPOKEN_SUBTYPES = frozenset((
    "notification", "background_task_completed", "cron", "mid_turn_user_message", "realtime_message",
    "agent_launch_prompt",
))
# System records that are session state, UI replay or telemetry: counted.
STATE_SUBTYPES = frozenset((
    "ui_telemetry", "attribution_snapshot", "session_notes", "at_command", "parent_session", "session_source",
    "session_execution_engine", "omni_recall", "session_model", "session_approval_mode", "rewind",
    "agent_bootstrap", "agent_retry", "agent_session_ready", "file_history_snapshot", "user_text_elements",
    "session_artifact_event", "session_artifact_snapshot", "session_sources_snapshot", "branch_checkpoint",
    "goal_state", "goal_runtime", "goal_turn_end", "turn_result", "managed_session_header_v1",
    "managed_session_event_v1", "managed_session_commit_v1",
))
ALIAS_WINDOW = 4096
# 0.24: the context a UserPromptSubmit hook adds goes to the model as the
# prompt's last text part, wrapped in these tags (user-prompt-submit-context.ts)
HOOK_CONTEXT_OPEN = "<qwen:user-prompt-submit-context>"
HOOK_CONTEXT_CLOSE = "</qwen:user-prompt-submit-context>"
HOOK_CONTEXT_KIND = "hook_additional_context"
# Record fields kept in meta under their own names and written back (0.24):
# the turn run in the background a record was written in (answering a
# finished task's notification: {turnId, taskId, kind, ...}, ACP) and the
# /goal run it belongs to ({goalId, revision, turnId}).
RECORD_FIELDS = ("backgroundTurn", "goalContext")


def wrap_hook_context(text: str) -> str:
    return f"{HOOK_CONTEXT_OPEN}\n{text}\n{HOOK_CONTEXT_CLOSE}"


def _prompt_hook_context(parts: Any) -> str | None:
    """The hook context a prompt's last part holds (unwrapped), as Qwen Code
    itself tells it from the prompt (a last text part, after at least one
    other, that is the wrapper alone), or None."""
    if type(parts) is not list or len(parts) < 2:
        return None
    last = parts[-1]
    text = last.get("text") if type(last) is dict else None
    if type(text) is not str or len(last) != 1:
        return None
    text = text.strip()
    head, tail = HOOK_CONTEXT_OPEN + "\n", "\n" + HOOK_CONTEXT_CLOSE
    if not text.startswith(head) or not text.endswith(tail) or len(text) < len(head) + len(tail):
        return None
    return text[len(head) : len(text) - len(tail)]


_API_ERROR_EVENTS = frozenset(("qwen-code.api_error", "api_error"))


def _api_error_notice(event: Any) -> tuple[str, dict] | None:
    """The text and meta of a ``ui_telemetry`` record of a failed API request
    (``event.name`` ``qwen-code.api_error``: ``error_message``,
    ``error_type``, ``status_code``), or None for any other
    telemetry (responses, tool calls), which stays counted."""
    name = event.get("event.name") if isinstance(event, dict) else None
    if not isinstance(name, str) or name not in _API_ERROR_EVENTS:
        return None
    message = event.get("error_message")
    if not isinstance(message, str) or not message:
        return None
    meta: dict[str, Any] = {"notice": "error", "apiError": True}
    kind = event.get("error_type")
    if isinstance(kind, str) and kind:
        meta["apiErrorKind"] = kind
    status = event.get("status_code")
    if isinstance(status, int) and not isinstance(status, bool):
        meta["apiErrorStatus"] = status
    return message, meta


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_of(metadata: Any) -> dict | None:
    """``usageMetadata`` in the shared shape (as the ``gemini`` format reads it)."""
    if not isinstance(metadata, dict):
        return None
    prompt = _int(metadata.get("promptTokenCount")) + _int(metadata.get("toolUsePromptTokenCount"))
    thoughts = _int(metadata.get("thoughtsTokenCount"))
    output = _int(metadata.get("candidatesTokenCount")) + thoughts
    if not (prompt or output):
        return None
    return {
        "input_tokens": prompt,
        "cached_input_tokens": _int(metadata.get("cachedContentTokenCount")),
        "output_tokens": output,
        "reasoning_output_tokens": thoughts,
        "total_tokens": prompt + output,
    }


class RecordConverter:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.parts = PartConverter(ctx, CallPairing("qwen-call"))
        self.alias: OrderedDict[str, str | None] = OrderedDict()
        self.skipped: dict[str, int] = {}
        self.usage: dict[str, int] = {}
        self.title: str | None = None
        self.counts: dict[str, int] = {}

    # -- chain ------------------------------------------------------------
    def parent_of(self, record: dict) -> str | None:
        parent = record.get("parentUuid")
        return self.alias.get(parent, parent) if isinstance(parent, str) else None

    def skip(self, record: dict, key: str) -> list[dict]:
        uid = record.get("uuid")
        if isinstance(uid, str):
            self.alias[uid] = self.parent_of(record)
            if len(self.alias) > ALIAS_WINDOW:
                self.alias.popitem(last=False)
        self.skipped[key] = self.skipped.get(key, 0) + 1
        return []

    # -- records ----------------------------------------------------------
    def events(self, record: dict, line_no: int) -> list[dict]:
        rtype = record.get("type")
        if not isinstance(rtype, str) or rtype not in RECORD_TYPES:
            name = rtype if isinstance(rtype, str) else "(no type)"
            self.ctx.unknown(name, line=line_no)
            return self.skip(record, name)
        if rtype == "system":
            return self.system(record, line_no)
        message = record.get("message")
        if not isinstance(message, dict):
            return self.skip(record, f"{rtype} (no message)")
        base = self.base(record)
        role = "assistant" if rtype == "assistant" else "user"
        parts = message.get("parts")
        hook_context = _prompt_hook_context(parts) if rtype == "user" else None
        if hook_context is not None:
            parts = parts[:-1]
        events = list(self.parts.parts_events(parts, role, f"line {line_no}: message.parts", base=base, join_text=True))
        if hook_context is not None:
            # 0.24: what a UserPromptSubmit hook added, sent to the model as
            # the prompt's last part in Qwen Code's wrapper
            payload = record.get("systemPayload")
            given = payload.get("hookContext") if isinstance(payload, dict) else None
            meta = {**base.get("meta", {}), "injected": True, "injectedKind": HOOK_CONTEXT_KIND, "hookEvent": "UserPromptSubmit"}
            events.append(message_event(
                "user",
                given if isinstance(given, str) and given.strip() == hook_context.strip() else hook_context,
                timestamp=base.get("timestamp"),
                parentId=base.get("parentId"),
                meta=meta,
            ))
        events = self.number(events, record)
        if not events:
            return self.skip(record, f"{rtype} (empty)")
        if rtype == "assistant":
            model = record.get("model")
            for event in events:
                if isinstance(model, str) and model:
                    event.setdefault("meta", {})["model"] = model
            usage = usage_of(record.get("usageMetadata"))
            if usage:
                events[-1].setdefault("meta", {})["usage"] = usage
                for key, value in usage.items():
                    self.usage[key] = self.usage.get(key, 0) + value
        elif rtype == "user" and isinstance(record.get("subtype"), str):
            # 0.24: notifications, cron prompts, finished background tasks and
            # a goal's runtime prompts are user records the harness wrote
            # (provenance "system" / "goal_runtime"); a message typed during
            # a turn keeps "real_user" and is the user's own
            subtype = record["subtype"]
            harness = record.get("provenance") in ("system", "goal_runtime")
            for event in events:
                meta = event.setdefault("meta", {})
                meta["subtype"] = subtype
                if harness:
                    meta["injected"] = True
                    meta["injectedKind"] = subtype
            payload = record.get("systemPayload")
            if harness and isinstance(payload, dict) and payload:
                # written back as read ({displayText, backgroundTask?})
                events[0].setdefault("meta", {})["systemPayload"] = payload
        if rtype == "user":
            # What the UI showed for the prompt (systemPayload.displayText:
            # the notice of a finished background task, the text typed before
            # @-references were expanded) when it is not the text sent.
            payload = record.get("systemPayload")
            shown = payload.get("displayText") if isinstance(payload, dict) else None
            if isinstance(shown, str) and shown and events[0].get("role") == "user" and shown != events[0].get("text"):
                events[0].setdefault("meta", {})["displayText"] = shown
        if rtype == "tool_result":
            result = record.get("toolCallResult")
            status = result.get("status") if isinstance(result, dict) else None
            display = result.get("resultDisplay") if isinstance(result, dict) else None
            for event in events:
                if event.get("meta", {}).get("kind") != "tool_result":
                    continue
                if status in ("error", "cancelled"):
                    event["isError"] = True
                    event["meta"]["status"] = status
                if display is not None and display != "":
                    # what the UI showed (a summary line, a todo list): not
                    # sent to the model, written back with the result
                    event["meta"]["resultDisplay"] = display
        self.unknown_parts()
        return events

    def system(self, record: dict, line_no: int) -> list[dict]:
        subtype = record.get("subtype")
        name = subtype if isinstance(subtype, str) else "(no subtype)"
        payload = record.get("systemPayload") if isinstance(record.get("systemPayload"), dict) else {}
        if name == "custom_title":
            title = payload.get("customTitle")
            if isinstance(title, str) and title:
                self.title = title
            return self.skip(record, "system/custom_title")
        if name == "chat_compression":
            history = payload.get("compressedHistory")
            info = payload.get("info") if isinstance(payload.get("info"), dict) else {}
            meta: dict[str, Any] = {"kind": "compaction", "subtype": name}
            for key in ("originalTokenCount", "newTokenCount"):
                if isinstance(info.get(key), int):
                    meta[key] = info[key]
            count = len(history) if isinstance(history, list) else 0
            return [self.single("system", f"[chat compressed: {count} history item(s) kept]", record, meta)]
        if name == "slash_command":
            command = payload.get("rawCommand")
            if payload.get("phase") == "invocation" and isinstance(command, str) and command:
                meta = {"subtype": name}
                if payload.get("sentToModel") is not True:
                    meta["injected"] = True  # typed, but only the UI ran it
                return [self.single("user", command, record, meta)]
            return self.skip(record, f"system/{name}/{payload.get('phase')}")
        if name in SPOKEN_SUBTYPES:
            message = record.get("message")
            text = ""
            if isinstance(message, dict):
                events = list(self.parts.parts_events(message.get("parts"), "user", f"line {line_no}: message.parts", join_text=True))
                text = "\n".join(e["text"] for e in events)
            if not text:
                shown = payload.get("displayText")
                text = shown if isinstance(shown, str) else ""
            if not text:
                return self.skip(record, f"system/{name}")
            return [self.single("user", text, record, {"injected": True, "injectedKind": name})]
        if name == "ui_telemetry":
            notice = _api_error_notice(payload.get("uiEvent"))
            if notice is not None:
                # A request the API refused: the only trace of it in the
                # log (no assistant record follows), shown to the user.
                text, meta = notice
                return [self.single("system", text, record, {"subtype": name, **meta})]
        if name not in STATE_SUBTYPES:
            self.ctx.unknown(f"system/{name}", line=line_no)
        return self.skip(record, f"system/{name}")

    # -- helpers ----------------------------------------------------------
    def base(self, record: dict) -> dict:
        base: dict[str, Any] = {}
        stamp = record.get("timestamp")
        if isinstance(stamp, str) and stamp:
            base["timestamp"] = stamp
        parent = self.parent_of(record)
        if parent:
            base["parentId"] = parent
        meta: dict[str, Any] = {}
        for key in RECORD_FIELDS:
            value = record.get(key)
            if isinstance(value, dict) and value:
                meta[key] = value
        if record.get("isSidechain") is True:
            meta["sidechain"] = True
            if isinstance(record.get("agentId"), str):
                meta["agentId"] = record["agentId"]
        if meta:
            base["meta"] = meta
        return base

    def number(self, events: list[dict], record: dict) -> list[dict]:
        uid = record.get("uuid")
        if isinstance(uid, str) and uid:
            for n, event in enumerate(events):
                event["id"] = uid if n == 0 else f"{uid}#{n}"
                # key order of model.MESSAGE_FIELDS: rebuild through message_event
                events[n] = message_event(**{k: v for k, v in event.items() if k != "type"})
        return events

    def single(self, role: str, text: str, record: dict, meta: dict) -> dict:
        base = self.base(record)
        uid = record.get("uuid")
        return message_event(
            role,
            text,
            timestamp=base.get("timestamp"),
            id=uid if isinstance(uid, str) and uid else None,
            parentId=base.get("parentId"),
            meta={**base.get("meta", {}), **meta},
        )

    def unknown_parts(self) -> None:
        # The part converter keeps unknown parts whole (meta.geminiPart) and
        # reports each through the unknown policy; they are counted here too.
        while self.parts.unknown_parts:
            self.parts.unknown_parts -= 1
            self.counts["unknownParts"] = self.counts.get("unknownParts", 0) + 1
