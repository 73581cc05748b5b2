"""``qwen-code``: write a session as a Qwen Code session log.

Qwen Code resumes a session (``qwen --resume <id>``, ``--continue``) from
``~/.qwen/projects/<project>/chats/<session-id>.jsonl``, where ``<project>``
is the working directory with every character but letters and digits made a
``-``.  It rebuilds the model's history from the chain of records
(``parentUuid``), each record's ``message`` being one Gemini API ``Content``
as it was sent: so the records are the Contents the ``gemini`` writer makes,
in Qwen Code's envelope, one chain:

- ``assistant`` (``message.role: "model"``): one answer, its thoughts
  (``{"text", "thought": true}``), text and ``functionCall`` parts, with
  ``model`` and ``usageMetadata`` when the stream has them;
- ``tool_result``: one ``functionResponse`` per record, as Qwen Code records
  them (``response`` ``{"output"}``, or ``{"error"}`` for a failed call), with
  ``toolCallResult`` ``{callId, status}``;
- ``user``: the user's text; a prompt Qwen Code's harness wrote (a
  notification, a cron or ``/goal`` runtime prompt) with the ``subtype``,
  ``provenance`` and ``systemPayload`` Qwen Code gives it.

A call's result comes right after the answer that made it (what waits in
between is held back, as the ``gemini`` writer holds it).  Calls of the other
apps' tools are renamed to Qwen Code's (``--keep-tool-names`` keeps them).
System messages and compaction summaries have no record Qwen Code sends to
the model: they are left out and counted, as are UI notices; encrypted
reasoning only OpenAI's API reads is left out too.
"""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import datetime, timezone
from typing import Any, BinaryIO, Iterable, NamedTuple

import orjson

from sessionport import jsonout
from sessionport.context import WriteContext
from sessionport.model import kind_of, sealed_reasoning
from sessionport.registry import Exporter, Option
from sessionport.toolmap import KEEP_TOOL_NAMES, Renames
from sessionport.gemini_turns import GeminiTurns, gemini_timestamp, session_uuid, sign_calls
from sessionport.formats.qwen_code.records import HOOK_CONTEXT_KIND, RECORD_FIELDS, wrap_hook_context

# Record ids: stable for the same session, so the same input writes the same bytes.
NAMESPACE = uuid.UUID("5c1f0d3e-7a2b-4e8d-9f60-3b4a2c1d0e9f")
# The release the records are written as (and were resumed by, tests/conformance).
VERSION = "0.24.4"
_NL = orjson.OPT_APPEND_NEWLINE

PROJECT_CWD = Option(
    name="qwen_code_cwd",
    flags=("--qwen-code-cwd",),
    help=(
        "qwen-code: the project directory to write as the session's cwd (default: the source's). "
        "Qwen Code resumes a session only from the directory its first record names."
    ),
    default=None,
)


class _Held(NamedTuple):
    """A part of the Content being gathered, with what its record takes
    beside it: its message's record fields (RECORD_FIELDS, a harness
    prompt's kind and provenance) and, for a hook's context, the context
    as the hook gave it (the record's ``systemPayload``)."""

    part: dict
    fields: dict | None = None
    hook_context: str | None = None


class _Records:
    """Writes each finished Content as Qwen Code records, chained."""

    def __init__(self, out: BinaryIO, head: dict) -> None:
        self.emit = out.write
        self.head = head  # sessionId, cwd, version, gitBranch?
        self.role: str | None = None
        self.held: list[_Held] = []
        self.event: dict = {}  # the message being written (its time, model, usage)
        self.stamp: str | None = None
        self.model: str | None = None
        self.usage: Any = None
        self.parent: str | None = None
        self.count = 0
        self.last_stamp: str | None = None

    def add(self, role: str, part: dict) -> None:
        if role != self.role:
            self.flush()
            self.role = role
            self.stamp = None
            self.model = None
            self.usage = None
        event = self.event
        if self.stamp is None:
            self.stamp = gemini_timestamp(event.get("timestamp"))
        meta = event.get("meta")
        if isinstance(meta, dict) and role == "model":
            if isinstance(meta.get("model"), str) and meta["model"]:
                self.model = meta["model"]
            if isinstance(meta.get("usage"), dict):
                self.usage = meta["usage"]
        hook_context = None
        if role == "user" and _is_hook_context(meta) and isinstance(part.get("text"), str) and len(part) == 1:
            # what a UserPromptSubmit hook added: the prompt's last part, in
            # Qwen Code's wrapper
            hook_context = part["text"]
            part = {"text": wrap_hook_context(hook_context)}
        fields = None
        if isinstance(meta, dict):
            # the background turn and the goal it was written in
            fields = {key: meta[key] for key in RECORD_FIELDS if isinstance(meta.get(key), dict) and meta[key]}
            if role == "user" and "functionResponse" not in part:
                harness = harness_prompt(meta, part.get("text"))
                if harness:
                    fields = {**fields, **harness}
            elif "functionResponse" in part:
                # the result's record: what the UI showed, a cancelled call's status
                if "resultDisplay" in meta:
                    fields = {**fields, "resultDisplay": meta["resultDisplay"]}
                if meta.get("status") in ("error", "cancelled"):
                    fields = {**fields, "status": meta["status"]}
        self.held.append(_Held(part, fields or None, hook_context))

    def flush(self) -> None:
        held, role = self.held, self.role
        self.held, self.role = [], None
        if not held:
            return
        parts = [entry.part for entry in held]
        if role == "model":
            sign_calls(parts)
            record = self._record("assistant", "assistant_output", next((entry.fields for entry in held if entry.fields), None))
            if self.model:
                record["model"] = self.model
            record["message"] = {"role": "model", "parts": parts}
            usage = _usage_metadata(self.usage)
            if usage:
                record["usageMetadata"] = usage
            self._emit(record)
            return
        prompt: dict | None = None  # the user record last made here, not yet written
        hooked = False  # whether a hook's context was added to it
        for entry in held:
            part, turn = entry.part, entry.fields
            if entry.hook_context is not None and prompt is not None and not hooked:
                prompt["message"]["parts"].append(part)
                shown = prompt["message"]["parts"][0].get("text")
                prompt["systemPayload"] = {"displayText": shown if isinstance(shown, str) else "", "hookContext": entry.hook_context}
                hooked = True
                continue
            if prompt is not None:
                self._emit(prompt)
                prompt = None
            response = part.get("functionResponse")
            if isinstance(response, dict):
                record = self._record("tool_result", "tool_result", turn)
                record["message"] = {"role": "user", "parts": [part]}
                failed = isinstance(response.get("response"), dict) and "error" in response["response"] and "output" not in response["response"]
                result = turn or {}
                record["toolCallResult"] = {"callId": response.get("id"), "status": result.get("status") or ("error" if failed else "success"),
                                            "resultDisplay": result.get("resultDisplay", "")}
                self._emit(record)
            else:
                # one record per user message, as Qwen Code records them
                # (the stream's consecutive user messages were joined as parts)
                harness = turn or {}
                prompt = self._record("user", harness.get("provenance", "real_user"), turn)
                hooked = False
                prompt["message"] = {"role": "user", "parts": [part]}
                if isinstance(harness.get("systemPayload"), dict):
                    prompt["systemPayload"] = harness["systemPayload"]
        if prompt is not None:
            self._emit(prompt)

    def _record(self, kind: str, provenance: str, fields: dict | None = None) -> dict:
        stamp = self.stamp or self.last_stamp or self.head["start"]
        self.last_stamp = stamp
        head = self.head
        fields = fields or {}
        # a record of a turn Qwen Code ran in the background (0.24: the
        # answer to a finished task's notification) names it first
        record: dict[str, Any] = {"backgroundTurn": fields["backgroundTurn"]} if "backgroundTurn" in fields else {}
        record |= {
            "uuid": str(uuid.uuid5(NAMESPACE, f"{head['sessionId']}:{self.count}")),
            "parentUuid": self.parent,
            "sessionId": head["sessionId"],
            "timestamp": stamp,
            "type": kind,
            "provenance": provenance,
            "cwd": head["cwd"],
            "version": VERSION,
        }
        if head.get("gitBranch"):
            record["gitBranch"] = head["gitBranch"]
        if "subtype" in fields:
            record["subtype"] = fields["subtype"]  # a harness prompt's kind
        if "goalContext" in fields:
            record["goalContext"] = fields["goalContext"]  # the /goal run it belongs to
        return record

    def _emit(self, record: dict) -> None:
        self.count += 1
        self.parent = record["uuid"]
        self.emit(jsonout.dumps(record, option=_NL))

    def close(self, system: list[dict]) -> None:
        self.flush()




# The prompts Qwen Code 0.24.4 writes itself as ``user`` records of a
# subtype (chatRecordingService: createNotificationRecord for
# ``notification`` and ``cron``, provenance "system"; recordGoalRuntimeMessage,
# provenance "goal_runtime"), and ``background_task_completed`` as earlier
# records have it.  Its SessionApiHistoryAccumulator sends each to the model
# as the user Content it holds, as it sends a plain prompt.  Not here:
# ``realtime_message`` (left out of the history it rebuilds) and
# ``mid_turn_user_message`` (joined to the Content before it, and the user's own).
HARNESS_SUBTYPES = {
    "notification": "system",
    "cron": "system",
    "background_task_completed": "system",
    "goal_runtime": "goal_runtime",
}
# Another app's prompt of the same kind: a background task's notice that is
# a ``<task-notification>`` envelope (Claude Code's, the envelope Qwen Code's
# own notifications send and its resume tells by), a scheduled task's prompt.
NOTIFICATION_OPEN, NOTIFICATION_CLOSE = "<task-notification>", "</task-notification>"


def harness_prompt(meta: dict, text: Any = None) -> dict | None:
    """The record fields of a prompt Qwen Code's harness wrote (or another
    app's of the same kind): ``subtype``, ``provenance`` and the
    ``systemPayload`` read with it; None for any other message."""
    if meta.get("injected") is not True:
        return None
    kind = meta.get("injectedKind")
    subtype = kind if isinstance(kind, str) and kind in HARNESS_SUBTYPES else None
    if subtype is None and isinstance(text, str) and text.startswith(NOTIFICATION_OPEN) and text.rstrip().endswith(NOTIFICATION_CLOSE):
        subtype = "notification"
    elif subtype is None and kind is None and isinstance(meta.get("scheduledTaskId"), str) and meta["scheduledTaskId"]:
        subtype = "cron"  # the prompt a scheduled task sent when it fired
    if subtype is None:
        return None
    fields: dict[str, Any] = {"subtype": subtype, "provenance": HARNESS_SUBTYPES[subtype]}
    payload = meta.get("systemPayload")
    if subtype == kind and isinstance(payload, dict) and payload:
        fields["systemPayload"] = payload
    return fields


def _is_hook_context(meta: Any) -> bool:
    """Whether a message is the context a UserPromptSubmit hook added to
    the prompt before it (read from Qwen Code, or from Claude Code's
    ``hook_additional_context`` attachment of that event)."""
    return (
        isinstance(meta, dict)
        and meta.get("injected") is True
        and meta.get("injectedKind") == HOOK_CONTEXT_KIND
        and meta.get("hookEvent") == "UserPromptSubmit"
    )


def _usage_metadata(usage: Any) -> dict | None:
    """The shared usage shape as Gemini ``usageMetadata`` (the reader's inverse)."""
    if not isinstance(usage, dict):
        return None

    def num(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    thoughts = num("reasoning_output_tokens")
    out: dict[str, int] = {"promptTokenCount": num("input_tokens"), "candidatesTokenCount": max(0, num("output_tokens") - thoughts)}
    total = num("total_tokens") or out["promptTokenCount"] + num("output_tokens")
    out["totalTokenCount"] = total
    if num("cached_input_tokens"):
        out["cachedContentTokenCount"] = num("cached_input_tokens")
    if thoughts:
        out["thoughtsTokenCount"] = thoughts
    return out if any(out.values()) else None


class _QwenSession(GeminiTurns):
    """The ``gemini`` writer's turn building, its Contents written as records,
    its calls in Qwen Code's tool names."""

    def __init__(self, out: BinaryIO, counts: Counter, head: dict, rename: Renames) -> None:
        super().__init__(out, counts, contents=_Records(out, head))
        self.rename = rename

    def _result(self, event: dict, meta: dict, text: str) -> None:
        if "responseJson" in meta or "responseKey" in meta:
            # Qwen Code's own results are {"output"} or {"error"}: the text as it is
            meta = {k: v for k, v in meta.items() if k not in ("responseJson", "responseKey")}
        if not meta.get("geminiPart") and self._open_id(event) is None:
            # Qwen Code records a result only after its call: a result whose
            # call the stream lacks (ChatGPT's internal tools) gets one.
            self.counts["tool result(s) without a call given a call of their own (the result's tool name, an empty input)"] += 1
            call_id = event.get("toolCallId")
            if not isinstance(call_id, str) or not call_id or call_id in self.names:
                self.synthetic_ids += 1
                call_id = f"call_{self.synthetic_ids}"
                event = {**event, "toolCallId": call_id}
            name = event.get("toolName")
            self._call({"role": "tool", "toolName": name if isinstance(name, str) and name else "unknown", "toolCallId": call_id, "toolInput": {}}, {})
        super()._result(event, meta, text)

    def _response(self, call_id: str, name: str, response: dict) -> None:
        # Qwen Code's own results are {"output"} or {"error"}: another key
        # (an SDK's "return_value") or a structured response becomes output.
        if len(response) != 1 or not ("output" in response or "error" in response):
            values = list(response.values())
            text = values[0] if len(values) == 1 and isinstance(values[0], str) else jsonout.dumps(response).decode()
            response = {"output": text}
        super()._response(call_id, name, response)

    def _write(self, event: dict) -> None:
        self.contents.event = event
        if kind_of(event) == "tool_use" and not (event.get("meta") or {}).get("geminiPart"):
            name, args = self.rename(event.get("toolName"), event.get("toolInput"))
            if name != event.get("toolName") or args is not event.get("toolInput"):
                event = {**event, "toolName": name, "toolInput": args}
        super()._write(event)


def qwen_session_id(session: dict) -> str:
    """Qwen Code resumes by an RFC 4122 UUID of versions 1 to 5 (Codex's
    version 7 ids are not taken): any other id maps to a stable one."""
    sid = session_uuid(session)
    value = uuid.UUID(sid)
    if 1 <= (value.version or 0) <= 5 and value.variant == uuid.RFC_4122:
        return sid
    return str(uuid.uuid5(NAMESPACE, f"session:{sid}"))


def _head(session: dict | None, cwd: Any = None) -> dict:
    session = session or {}
    if not (isinstance(cwd, str) and cwd):
        cwd = session.get("cwd")
    metadata = session.get("metadata") if isinstance(session.get("metadata"), dict) else {}
    branch = metadata.get("gitBranch")
    start = gemini_timestamp(session.get("createdAt")) or datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return {
        "sessionId": qwen_session_id(session),
        "cwd": cwd if isinstance(cwd, str) and cwd else "/",
        "gitBranch": branch if isinstance(branch, str) and branch else None,
        "start": start,
    }


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    counts: Counter = Counter()
    rename = Renames("qwen-code", enabled=not ctx.options.get("keep_tool_names"))
    cwd = ctx.options.get("qwen_code_cwd")
    session: _QwenSession | None = None
    sealed = 0
    for event in events:
        kind = event.get("type")
        if kind == "message":
            if sealed_reasoning(event):
                sealed += 1
                continue
            if session is None:
                session = _QwenSession(out, counts, _head(None, cwd), rename)
            session.message(event)
        elif kind == "session" and session is None:
            session = _QwenSession(out, counts, _head(event, cwd), rename)
    if session is not None:
        session.finish()
        if session.system:
            counts["system message(s) and compaction summaries left out (Qwen Code sends none to the model)"] += len(session.system)
    if sealed:
        counts["reasoning item(s) kept only encrypted (readable by OpenAI's API alone) left out"] += sealed
    if counts:
        ctx.warn("qwen-code: " + "; ".join(f"{n} {what}" for what, n in counts.items()))
    rename.report(ctx.warn)


EXPORTER = Exporter(
    name="qwen-code",
    description="Qwen Code session log (~/.qwen/projects/<project>/chats/<session-id>.jsonl) that qwen --resume reads",
    write=write,
    extension=".jsonl",
    multi_session=False,
    cannot_carry=("responses items",),
    options=(PROJECT_CWD, KEEP_TOOL_NAMES),
)
