"""Building the JSON records of a Claude Code transcript, one event at a time.

Each canonical message becomes one line: a ``user`` line (prompts, injected
text, compaction summaries, and tool results), an ``assistant`` line holding
exactly one content block (text, thinking, tool_use) with the ``message.id``
it shares with the other blocks of the same API response, or a ``system``
line (compaction boundaries, informational text).  Lines form one
``uuid``/``parentUuid`` chain; a message's own ``parentId`` is kept when it
names a line already written (so branches and sidechain roots survive).
"""

from __future__ import annotations

import re
import uuid as uuidlib
from collections import OrderedDict, deque
from typing import Any

from sessionport.media import carried_images, in_place
from sessionport.formats.claude_code.messages import COMPACTION_SUBTYPES, PROMPT_FIELDS, SCHEDULED_TASK_FIELDS

def holds_its_summary(meta: dict, text: str) -> bool:
    """Whether a compaction is another app's, its text the summary: Claude
    Code resumes from a boundary with the ``isCompactSummary`` message after
    it and sends the model nothing of the boundary itself, so the summary
    goes in that message.  Claude Code's own boundaries come with that
    message as an event of its own."""
    return meta.get("subtype") not in COMPACTION_SUBTYPES and bool(text.strip())


TASK_NOTIFICATION = "task-notification"


def _replayed_attachment(kind: str, text: str, hook_event: str | None) -> dict | None:
    """The attachment Claude Code itself writes for context it sends the
    model again when it resumes (what hooks told the model, a prompt typed
    while it worked), rebuilt from its text; None for the rest.  The other
    kinds stay beside the chain: on resume the app states its own
    listings (tools, skills, agents, environment) afresh, and a line of
    such a kind without every field it expects stops Claude Code 2.1.197
    from resuming."""
    if kind == "hook_additional_context":
        return {"type": kind, "content": [text], "hookName": hook_event or "", "hookEvent": hook_event or ""}
    if kind == "hook_success" and hook_event:
        return {"type": kind, "content": text, "hookName": hook_event, "hookEvent": hook_event}
    if kind == "queued_command":
        return {"type": kind, "prompt": text, "commandMode": "prompt"}
    return None


def _human_turn(attachment: dict) -> dict:
    """A queued prompt the user typed, as 2.1.27x and later mark it."""
    return {**attachment, "origin": {"kind": "human"}, "humanTurn": True}


def _with_images(text: str, event: dict) -> str | list[dict]:
    """A prompt's or a result's content: its text, or, when the event
    carries images (read with --keep-images), text and ``image`` blocks of
    base64 data, each image where its placeholder was."""
    images = carried_images(event)
    if not images:
        return text
    return [
        {"type": "text", "text": piece} if isinstance(piece, str)
        else {"type": "image", "source": {"type": "base64", "media_type": piece["mediaType"], "data": piece["data"]}}
        for piece in in_place(text, images)
    ]


_TOOL_REFERENCE = re.compile(r"\[tool_reference: ([A-Za-z0-9_.:-]+)\]")


def _tool_references(text: str) -> list[dict] | None:
    """The ``tool_reference`` blocks of a ToolSearch result read as text
    (one ``[tool_reference: NAME]`` a line), or None for any other text:
    as blocks, Claude Code loads those tools' schemas again on resume."""
    lines = text.split("\n")
    if not text or not all(_TOOL_REFERENCE.fullmatch(line) for line in lines):
        return None
    return [{"type": "tool_reference", "tool_name": _TOOL_REFERENCE.fullmatch(line).group(1)} for line in lines]


NAMESPACE = uuidlib.UUID("6f1d1c52-8a47-4b0e-9c1e-3f2f6a0c5e11")
FALLBACK_VERSION = "0.0.0-sessionport"
FALLBACK_TIME = "1970-01-01T00:00:00.000Z"
WRITTEN_WINDOW = 4096
PENDING_CALLS = 1024


def raw_usage(usage: Any) -> dict | None:
    """Anthropic ``usage`` from the shared shape (input includes cache)."""
    if not isinstance(usage, dict):
        return None

    def num(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    total_in, read, creation = num("input_tokens"), num("cached_input_tokens"), num("cache_creation_input_tokens")
    raw = {
        "input_tokens": max(0, total_in - read - creation),
        "cache_creation_input_tokens": creation,
        "cache_read_input_tokens": read,
        "output_tokens": num("output_tokens"),
    }
    if num("reasoning_output_tokens"):
        # the thinking share of the output, as 2.1.2xx and later write it
        raw["output_tokens_details"] = {"thinking_tokens": num("reasoning_output_tokens")}
    return raw


class Thread:
    """The envelope and chain state of one transcript (main or subagent)."""

    def __init__(self, file_session_id: str, cwd: str, version: str, branch: str | None, agent_id: str | None, seed: str) -> None:
        self.session_id = file_session_id
        self.cwd = cwd
        self.version = version
        self.branch = branch
        self.agent_id = agent_id
        self.seed = seed
        self.prev_uuid: str | None = None
        self.written: OrderedDict[str, None] = OrderedDict()
        self.last_time = FALLBACK_TIME
        self.api_id: str | None = None  # message.id of the assistant line just written
        self.api_synthetic = False
        self.api_count = 0
        self.lines = 0
        self.open_calls: deque[str] = deque(maxlen=PENDING_CALLS)
        self.model: str | None = None
        self.rename = None  # maps other apps' tool calls to Claude Code's (toolmap.Renames)
        self.call_ids: set[str] = set()
        self.synthetic_calls = 0
        # (parent, context line): the context written in the chain after
        # that parent, which the lines naming the parent now follow
        self.context_after: tuple[str, str] | None = None

    def new_uuid(self, event: dict) -> str:
        self.lines += 1
        given = event.get("id")
        if isinstance(given, str) and given and given not in self.written:
            return given
        return str(uuidlib.uuid5(NAMESPACE, f"{self.seed}:{self.lines}"))

    def envelope(self, event: dict, line_type: str) -> tuple[dict, str]:
        uid = self.new_uuid(event)
        parent = event.get("parentId")
        meta = event.get("meta") or {}
        if not (isinstance(parent, str) and parent in self.written):
            # An inline sidechain run starts a chain of its own (a null
            # parent), as Claude Code writes it; anything else continues
            # the chain.
            if parent is None and meta.get("sidechain") and not self.agent_id and self.lines > 1:
                parent = None
            else:
                parent = self.prev_uuid
        elif self.context_after is not None and parent == self.context_after[0]:
            parent = self.context_after[1]
        stamp = event.get("timestamp")
        if isinstance(stamp, str) and stamp:
            self.last_time = stamp
        record: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": self.agent_id is not None or bool(meta.get("sidechain")),
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
        }
        if self.branch is not None:
            record["gitBranch"] = self.branch
        agent = self.agent_id or meta.get("agentId")
        if isinstance(agent, str):
            record["agentId"] = agent
        record["type"] = line_type
        return record, uid

    def finish(self, record: dict, uid: str) -> dict:
        record["uuid"] = uid
        record["timestamp"] = self.last_time
        self.prev_uuid = uid
        self.written[uid] = None
        if len(self.written) > WRITTEN_WINDOW:
            self.written.popitem(last=False)
        return record

    # -- line kinds ---------------------------------------------------------
    def user_line(self, event: dict, meta: dict) -> dict:
        injected_kind = meta.get("injectedKind")
        if isinstance(injected_kind, str) and injected_kind and (meta.get("injected") or meta.get("humanTurn") is True):
            return self.injected_line(event, meta, injected_kind)
        record, uid = self.envelope(event, "user")
        record["message"] = {"role": "user", "content": _with_images(event.get("text") or "", event)}
        if meta.get("kind") == "summary":
            record["isCompactSummary"] = True
        elif meta.get("injected"):
            record["isMeta"] = True
        origin = meta.get("origin")
        if isinstance(origin, dict) and isinstance(origin.get("kind"), str):
            record["origin"] = origin  # who wrote the prompt (2.1.3xx), as read
        for key in PROMPT_FIELDS:
            value = meta.get(key)
            if isinstance(value, str) and value:
                record[key] = value
        self.api_id = None
        return self.finish(record, uid)

    def injected_line(self, event: dict, meta: dict, kind: str) -> dict:
        """What Claude Code itself put before the model goes back as the
        record it came from: a queued prompt as a ``queue-operation``, the
        rest as an ``attachment`` of its kind, hung beside the chain."""
        text = event.get("text") or ""
        if kind == "queue-operation":
            stamp = event.get("timestamp")
            return {
                "type": "queue-operation",
                "operation": "enqueue",
                "timestamp": stamp if isinstance(stamp, str) and stamp else self.last_time,
                "sessionId": self.session_id,
                "content": text,
            }
        origin = meta.get("origin")
        if kind == TASK_NOTIFICATION or (isinstance(origin, dict) and origin.get("kind") == kind):
            # A background task's notice is a user turn Claude Code writes
            # itself; 2.1.3xx frames it as a system notification when the
            # line names its origin, older releases send it as it is.  So
            # with the other origins that are not the user (another
            # session's message, a channel's, a plugin's): the line as read.
            record, uid = self.envelope(event, "user")
            record["message"] = {"role": "user", "content": text}
            if meta.get("isMeta") is True:
                record["isMeta"] = True
            record["origin"] = origin if isinstance(origin, dict) and origin.get("kind") == kind else {"kind": TASK_NOTIFICATION}
            self.api_id = None
            return self.finish(record, uid)
        record, uid = self.envelope(event, "attachment")
        hook_event = meta.get("hookEvent") if isinstance(meta.get("hookEvent"), str) else None
        rebuilt = _replayed_attachment(kind, text, hook_event)
        if rebuilt is not None and meta.get("humanTurn") is True:
            rebuilt = _human_turn(rebuilt)
        if rebuilt is not None:
            # In the chain, in the shape Claude Code writes, so that it
            # sends the model this context again on resume.
            record["attachment"] = rebuilt
            own_parent = event.get("parentId")
            self.context_after = (own_parent, uid) if isinstance(own_parent, str) and own_parent in self.written else None
            self.api_id = None
            return self.finish(record, uid)
        attachment: dict[str, Any] = {"type": kind, "content": text}
        file_path = meta.get("filePath")
        if kind == "edited_text_file" and isinstance(file_path, str) and file_path:
            # the fields Claude Code itself writes for a file changed outside the session
            attachment = {"type": kind, "filename": file_path, "snippet": text}
        elif kind == "read_truncation_notice":
            attachment = {"type": kind, "banner": text}
        elif kind == "async_hook_response":
            output = {"hookEventName": hook_event, "additionalContext": text} if hook_event else {"additionalContext": text}
            attachment = {"type": kind, "response": {"hookSpecificOutput": output}}
        tool_use = meta.get("toolUseId")
        if isinstance(tool_use, str) and tool_use and kind in ("read_truncation_notice", "hook_system_message"):
            attachment["toolUseID"] = tool_use
        if hook_event is not None:
            attachment["hookEvent"] = hook_event
        record["attachment"] = attachment
        # Beside the chain, not in it: the next line continues from the
        # line before, as readers that follow only messages expect.
        record["uuid"] = uid
        record["timestamp"] = self.last_time
        return record

    def tool_result_line(self, event: dict, meta: dict) -> dict:
        record, uid = self.envelope(event, "user")
        call_id = event.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            call_id = self.open_calls.popleft() if self.open_calls else f"toolu_sp_{uid[:8]}"
        else:
            try:
                self.open_calls.remove(call_id)
            except ValueError:
                pass
        text = event.get("text") or ""
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": _tool_references(text) or _with_images(text, event)}
        if isinstance(event.get("isError"), bool):
            block["is_error"] = event["isError"]
        record["message"] = {"role": "user", "content": [block]}
        spawned = meta.get("spawnedAgentId")
        if isinstance(spawned, str):
            record["toolUseResult"] = {"agentId": spawned}
        denial = meta.get("denialKind")
        if isinstance(denial, str) and denial:
            record["toolDenialKind"] = denial
        self.api_id = None
        return self.finish(record, uid)

    def assistant_line(self, event: dict, meta: dict, block: dict) -> dict:
        record, uid = self.envelope(event, "assistant")
        given = meta.get("messageId")
        if isinstance(given, str) and given:
            api_id, synthetic = given, False
        elif self.api_id is not None and self.api_synthetic:
            api_id, synthetic = self.api_id, True
        else:
            self.api_count += 1
            api_id = "msg_sp_" + uuidlib.uuid5(NAMESPACE, f"{self.seed}:msg:{self.api_count}").hex[:24]
            synthetic = True
        self.api_id, self.api_synthetic = api_id, synthetic
        model = meta.get("model")
        if isinstance(model, str) and model:
            self.model = model
        else:
            model = self.model
        message: dict[str, Any] = {
            "id": api_id,
            "type": "message",
            "role": "assistant",
            "model": model if isinstance(model, str) and model else "<synthetic>",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
        }
        usage = raw_usage(meta.get("usage"))
        if usage is not None:
            message["usage"] = usage
        record["message"] = message
        request = meta.get("requestId")
        if isinstance(request, str):
            record["requestId"] = request
        reason = meta.get("apiErrorReason")
        if isinstance(reason, str) and reason:
            record["apiError"] = reason
        if meta.get("apiError"):
            # In the order Claude Code writes them.
            kind = meta.get("apiErrorKind")
            if isinstance(kind, str) and kind:
                record["error"] = kind
            details = meta.get("apiErrorDetails")
            if isinstance(details, str) and details:
                record["errorDetails"] = details
            if meta.get("truncatedAfterOutput") is True:
                record["truncatedAfterOutput"] = True
            record["isApiErrorMessage"] = True
            status = meta.get("apiErrorStatus")
            if type(status) is int:
                record["apiErrorStatus"] = status
        elif meta.get("truncatedAfterOutput") is True:
            record["truncatedAfterOutput"] = True
        cause = meta.get("streamCutCause")
        if isinstance(cause, str) and cause:
            record["streamCutCause"] = cause
        if meta.get("abortedMidStream") is True:
            record["isAbortedMidStream"] = True
        quota = meta.get("quotaLimits")
        if isinstance(quota, dict) and quota:
            record["quotaLimits"] = quota
        return self.finish(record, uid)

    def tool_use_line(self, event: dict, meta: dict) -> dict:
        call_id = event.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            call_id = "toolu_sp_" + uuidlib.uuid5(NAMESPACE, f"{self.seed}:call:{self.lines}").hex[:24]
        self.open_calls.append(call_id)
        self.call_ids.add(call_id)
        tool_input = event.get("toolInput")
        if not isinstance(tool_input, dict):
            tool_input = {} if tool_input is None else {"input": tool_input}
        name = event.get("toolName")
        if self.rename is not None:
            name, tool_input = self.rename(name, tool_input)
        block = {"type": "tool_use", "id": call_id, "name": name if isinstance(name, str) and name else "tool", "input": tool_input}
        return self.assistant_line(event, meta, block)

    def call_for_orphan(self, event: dict) -> dict | None:
        """A ``tool_use`` line for a tool result that has no call before it
        (ChatGPT's internal tools, a log that lost the call), or None.
        Claude Code drops a result without its call; with one (the result's
        tool name, an empty input) it keeps it."""
        call_id = event.get("toolCallId")
        if isinstance(call_id, str) and call_id:
            if call_id in self.call_ids:
                return None
        elif self.open_calls:
            return None
        else:
            call_id = None
        self.synthetic_calls += 1
        call = {"role": "tool", "text": "", "toolName": event.get("toolName"), "toolInput": {}, "meta": {"kind": "tool_use"}}
        if isinstance(event.get("timestamp"), str):
            call["timestamp"] = event["timestamp"]
        if call_id is not None:
            call["toolCallId"] = call_id
        if isinstance(event.get("parentId"), str):
            call["parentId"] = event["parentId"]
        return self.tool_use_line(call, call["meta"])

    def system_line(self, event: dict, meta: dict) -> dict:
        record, uid = self.envelope(event, "system")
        text = event.get("text") or ""
        if meta.get("kind") == "compaction":
            subtype = meta.get("subtype") if meta.get("subtype") in ("compact_boundary", "microcompact_boundary") else "compact_boundary"
            record["subtype"] = subtype
            # another app's summary follows as the isCompactSummary message
            # (see writer._write); the boundary says what it is
            record["content"] = "Conversation compacted" if holds_its_summary(meta, text) else text
            if isinstance(meta.get("compactMetadata"), dict):
                record["compactMetadata"] = meta["compactMetadata"]
            if isinstance(meta.get("logicalParentId"), str):
                record["logicalParentUuid"] = meta["logicalParentId"]
        elif meta.get("subtype") == "scheduled_task_fire":
            # in the shape Claude Code writes it: no level, the task's fields after
            record["subtype"] = "scheduled_task_fire"
            record["content"] = text
            record["isMeta"] = False
            task = meta.get("scheduledTask")
            if isinstance(task, dict):
                for key in SCHEDULED_TASK_FIELDS:
                    if key in task:
                        record[key] = task[key]
            self.api_id = None
            return self.finish(record, uid)
        else:
            record["subtype"] = "local_command" if meta.get("subtype") == "local_command" else "informational"
            record["content"] = text
        record["isMeta"] = False
        record["level"] = "info"
        self.api_id = None
        return self.finish(record, uid)

    def line_for(self, event: dict) -> dict:
        meta = event.get("meta")
        if not isinstance(meta, dict):
            meta = {}
        record = self._line_for(event, meta)
        if record.get("type") != "queue-operation":
            # a forked session's copied line says where it came from, last
            # (after the fields of the line it copies), as Claude Code puts it
            request = meta.get("requestSessionId")
            if isinstance(request, str) and request and record.get("type") == "assistant":
                record["requestSessionId"] = request
            fork = meta.get("forkedFrom")
            if isinstance(fork, dict) and fork and all(isinstance(v, str) for v in fork.values()):
                record["forkedFrom"] = {k: fork[k] for k in ("sessionId", "messageUuid") if k in fork}
        return record

    def _line_for(self, event: dict, meta: dict) -> dict:
        role = event.get("role")
        kind = meta.get("kind", "text")
        text = event.get("text")
        if not isinstance(text, str):
            text = "" if text is None else str(text)
            event = {**event, "text": text}
        if role == "assistant":
            if kind == "thinking":
                if meta.get("redacted"):
                    block = {"type": "redacted_thinking", "data": meta.get("data") if isinstance(meta.get("data"), str) else ""}
                else:
                    block = {"type": "thinking", "thinking": text, "signature": meta.get("signature") if isinstance(meta.get("signature"), str) else ""}
            else:
                block = {"type": "text", "text": text}
            return self.assistant_line(event, meta, block)
        if role == "tool":
            if kind == "tool_use" or (kind != "tool_result" and event.get("toolName") and "toolInput" in event):
                return self.tool_use_line(event, meta)
            return self.tool_result_line(event, meta)
        if role == "system":
            return self.system_line(event, meta)
        return self.user_line(event, meta)
