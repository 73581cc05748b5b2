"""Claude Code lines → canonical message events.

One user line gives a ``user`` message (its text blocks joined) and/or one
``tool`` message per ``tool_result`` block; one assistant line gives one
message per content block (Claude Code writes exactly one per line).
:class:`MessageBuilder` is mixed into the transcript reader, which provides
``parent_of``, ``alias`` (skipped uuid -> nearest emitted ancestor),
``base_meta``, ``result`` and ``ctx`` (its options).
"""

from __future__ import annotations

from typing import Any

from sessionport.lazy import lazy
from sessionport.model import message_event
from sessionport.formats.claude_code.content import block_text, content_text, object_result_text, search_results_text, tool_label

# Input-side blocks rendered on purpose (block_text); others are unknown.
USER_BLOCK_TYPES = frozenset(("text", "image", "document", "tool_result", "tool_reference", "search_result"))
NOTIFICATION_PREFIX = "<task-notification>"
# The ``origin.kind`` of a user line Claude Code 2.1.3xx frames as not the
# user's (what it sends as a notification): other sessions' messages
# (``peer``: SendMessage from the user's other sessions, ``remote``: a call
# from another machine's session), channels, plugins, tasks...
NON_USER_ORIGINS = frozenset((
    "task-notification", "coordinator", "channel", "peer", "slack-ping", "observer", "observer-activity", "plugin",
    "voice-call", "unclassified", "remote",
))
COMPACTION_SUBTYPES = frozenset(("compact_boundary", "microcompact_boundary"))
# model_refusal_fallback (2.1.2xx): the notice that a refused request was
# sent again to another model.
SPOKEN_SYSTEM_SUBTYPES = frozenset(("informational", "local_command", "model_refusal_fallback", "scheduled_task_fire"))
# scheduled_task_fire (2.1.3xx): the notice that a scheduled task (a cron
# job, a /loop wakeup) fired, before the prompt it sends; its own fields.
SCHEDULED_TASK_FIELDS = ("taskId", "cron", "prompt", "taskKind", "cronKind", "noOpStreak", "streakStartedAt", "foldedUuids")
# A prompt line's string fields kept in meta under their own names and
# written back: the scheduled task that sent it (2.1.3xx), the answer an
# "[Request interrupted by user]" cut off (2.1.2xx).
PROMPT_FIELDS = ("scheduledTaskId", "interruptedMessageId")
# An API notice's string fields kept in meta: why a response stream was
# cut off (2.1.3xx: ``apiError`` ``stream_idle_timeout``, ``computer_slept``,
# ``connection_failed``, ``max_output_tokens``...; ``streamCutCause``
# ``watchdog``, ``timed_out``, ``server_error``, ``malformed_stream``...).
STREAM_CUT_FIELDS = (("apiError", "apiErrorReason"), ("streamCutCause", "streamCutCause"))
# Compiled when a tool output first holds "agentId: " (rare).
_AGENT_ID_IN_TEXT = lazy(r"agentId: ([0-9A-Za-z_-]{4,64})")


def media_of(content: Any) -> list | None:
    """The base64 images of a content list, as the stream's ``media`` field
    carries them (only with ``--keep-images``: the text keeps a placeholder)."""
    if type(content) is not list:
        return None
    media = []
    for block in content:
        if type(block) is dict and block.get("type") == "image":
            source = block.get("source")
            if type(source) is dict and source.get("type") == "base64" and type(source.get("data")) is str:
                media.append({"type": "image", "mediaType": source.get("media_type"), "data": source["data"]})
    return media or None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class MessageBuilder:
    # The per-line methods below run once per line of multi-megabyte files:
    # they read each field once and test types with ``type(x) is`` (records
    # come from orjson, which builds exact dicts, lists and strs) instead of
    # calling small helpers such as ``_str`` for every field.

    def line_fields(self, record: dict) -> tuple[str | None, str | None, str | None, dict]:
        """What every message of a line shares: timestamp, uuid, parent and,
        for a sub-agent line, the sidechain meta."""
        stamp = record.get("timestamp")
        uid = record.get("uuid")
        parent = record.get("parentUuid")
        return (
            stamp if type(stamp) is str and stamp else None,
            uid if type(uid) is str and uid else None,
            self.alias.get(parent, parent) if type(parent) is str else None,
            self.base_meta(record) if record.get("isSidechain") is True else {},
        )

    def user_events(self, record: dict) -> tuple[list[dict], bool]:
        """Events of a user line, and whether it is a real prompt (ends a turn)."""
        message = record.get("message")
        content = message.get("content") if type(message) is dict else None
        stamp, uid, parent, base = self.line_fields(record)
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
                    if type(block) is dict and (type(btype := block.get("type")) is not str or btype not in USER_BLOCK_TYPES):
                        self.ctx.unknown(btype if type(btype) is str else "(no type)", what="content block")
                    pending.append(block_text(block))
        elif type(content) is str:
            pending.append(content)
        elif content is not None:
            pending.append(content_text(content))
        if pending:
            event = self.user_text(pending, stamp, uid, parent, base, injected, compact, len(events))
            if not injected and event["text"].startswith(NOTIFICATION_PREFIX):
                # A background task's notice, delivered as a user turn by Claude Code itself.
                injected = True
                event["meta"] = {**(event.get("meta") or {}), "injected": True, "injectedKind": "task-notification"}
            fields = {key: value for key in PROMPT_FIELDS if (value := _str(record.get(key)))}
            if fields:
                event["meta"] = {**(event.get("meta") or {}), **fields}
            origin = record.get("origin")
            if type(origin) is dict and type(kind := origin.get("kind")) is str and kind and kind != "human" and not compact:
                # 2.1.3xx names who wrote a prompt: another session (peer,
                # remote), a channel, a plugin, a task... (not the user)
                meta = event["meta"] = {**(event.get("meta") or {}), "origin": origin}
                if kind in NON_USER_ORIGINS or injected:
                    if injected and record.get("isMeta") is True:
                        meta["isMeta"] = True  # written back as it was
                    injected = True
                    meta["injected"] = True
                    meta.setdefault("injectedKind", kind)
            events.append(event)
            if type(content) is list and self.ctx.options.get("keep_images"):
                media = media_of(content)
                if media:
                    events[-1]["media"] = media
        prompt = bool(events) and not injected and all(e["role"] == "user" for e in events)
        return events, prompt

    @staticmethod
    def user_text(pending, stamp, uid, parent, base, injected, compact, n) -> dict:
        meta = {"kind": "summary", **base} if compact else dict(base)
        if injected or compact:
            meta["injected"] = True
        return message_event(
            "user",
            "\n\n".join(pending),
            timestamp=stamp,
            id=uid if n == 0 else f"{uid}#{n}" if uid else None,
            parentId=parent,
            meta=meta or None,
        )

    def link_agent(self, tur: Any, text: str, call_id: str | None, meta: dict) -> None:
        """Note the sub-agent (or the Workflow run) a tool result spawned,
        so its transcript is read as this call's."""
        agent = tur.get("agentId") if type(tur) is dict else None
        if type(agent) is not str or not agent:
            agent = None
            # A one-character search runs at memory speed while the longer
            # one steps through the text almost byte by byte; most tool
            # outputs hold no capital I at all.
            if "I" in text and "agentId: " in text:
                found = _AGENT_ID_IN_TEXT.search(text)
                agent = found.group(1) if found else None
        if agent:
            meta["spawnedAgentId"] = agent
            if call_id:
                self.result.agent_calls.setdefault(agent, call_id)
        elif call_id and type(tur) is dict and type(run := tur.get("runId")) is str and run:
            # A Workflow call: the agents of its run name neither this call
            # nor an agentId here, only the run's folder.
            self.result.run_calls.setdefault(run, call_id)

    def tool_result(self, record, block, stamp, uid, parent, base, n) -> dict:
        content = block.get("content")
        tur = record.get("toolUseResult")
        failed = False
        if type(content) is str:
            text = content
        elif type(content) is list:
            for part in content:
                if type(part) is dict and (type(kind := part.get("type")) is not str or kind not in USER_BLOCK_TYPES):
                    self.ctx.unknown(kind if type(kind) is str else "(no type)", what="content block")
            text = content_text(content)
        elif content is None and type(tur) is str:
            text = tur
        elif type(content) is dict:
            text, failed, unknown = object_result_text(content)
            if unknown:
                self.ctx.unknown(unknown, what="tool result content")
        else:
            text = content_text(content)
        meta = {"kind": "tool_result", **base}
        denial = record.get("toolDenialKind")
        if type(denial) is str and denial:
            meta["denialKind"] = denial  # 2.1.2xx: why the call was refused (``automode-blocked``)
        call_id = block.get("tool_use_id")
        if type(call_id) is not str or not call_id:
            call_id = None
        self.link_agent(tur, text, call_id, meta)
        is_error = block.get("is_error")
        if is_error is None and type(content) is dict and failed:
            is_error = True  # a Gemini CLI result that reports an error
        event = message_event(
            "tool",
            text,
            timestamp=stamp,
            id=uid if n == 0 else f"{uid}#{n}" if uid else None,
            parentId=parent,
            toolCallId=call_id,
            isError=is_error if type(is_error) is bool else None,
            meta=meta,
        )
        if type(content) is list and self.ctx.options.get("keep_images"):
            media = media_of(content)
            if media:
                event["media"] = media
        return event

    # -- the common lines, in one call each ---------------------------------
    # Most lines of a log are an assistant line of one text, thinking or
    # tool_use block, or a user line of one tool result.  The two methods
    # below make of such a line, in one call, exactly the event the general
    # methods make (assistant_events -> line_fields, assistant_block,
    # message_event; user_events -> tool_result), with the same fields in
    # the same order and the same side effects; for any other shape they
    # return None before touching any state, and the general method reads
    # the line.  tests/formats/test_claude_code_common_lines.py holds the
    # two paths to the same events on the corpus and on altered lines.

    def common_assistant(self, record: dict, uid: Any) -> tuple[Any, Any, dict] | None:
        """``(message id, usage, event)`` of an assistant line of one text,
        thinking or tool_use block, as :meth:`assistant_events` makes them;
        None for any other line.  ``uid`` is the line's ``uuid`` as the
        loop read it (None when absent)."""
        message = record.get("message")
        if type(message) is not dict:
            return None
        content = message.get("content")
        if type(content) is not list or len(content) != 1:
            return None
        block = content[0]
        if type(block) is not dict:
            return None
        btype = block.get("type")
        if btype != "text" and btype != "tool_use" and btype != "thinking":
            return None
        stamp = record.get("timestamp")
        if type(stamp) is not str or not stamp:
            stamp = None
        if type(uid) is not str or not uid:
            uid = None
        parent = record.get("parentUuid")
        parent = self.alias.get(parent, parent) if type(parent) is str else None
        meta = {"kind": btype, **self.base_meta(record)} if record.get("isSidechain") is True else {"kind": btype}
        msg_id = api_message_meta(message, record, meta)
        if btype == "tool_use":
            name = block.get("name")
            if type(name) is not str or not name:
                name = "tool"
            call_id = block.get("id")
            tool_input = block.get("input")
            if type(tool_input) is not dict:
                tool_input = {} if tool_input is None else {"input": tool_input}
            event = {"type": "message", "role": "tool", "text": tool_label(name, tool_input)}
            if stamp is not None:
                event["timestamp"] = stamp
            if uid is not None:
                event["id"] = uid
            if parent is not None:
                event["parentId"] = parent
            event["toolName"] = name
            if type(call_id) is str and call_id:
                event["toolCallId"] = call_id
            event["toolInput"] = tool_input
            event["meta"] = meta
            return msg_id, message.get("usage"), event
        if btype == "text":
            text = block.get("text")
        else:
            signature = block.get("signature")
            if type(signature) is str and signature:
                meta["signature"] = signature
            text = block.get("thinking")
        if type(text) is not str:
            text = content_text(text)
        if stamp is not None and uid is not None and parent is not None:
            event = {"type": "message", "role": "assistant", "text": text, "timestamp": stamp, "id": uid, "parentId": parent, "meta": meta}
        else:
            event = {"type": "message", "role": "assistant", "text": text}
            if stamp is not None:
                event["timestamp"] = stamp
            if uid is not None:
                event["id"] = uid
            if parent is not None:
                event["parentId"] = parent
            event["meta"] = meta
        return msg_id, message.get("usage"), event

    def common_tool_result(self, record: dict, uid: Any) -> dict | None:
        """The event of a user line of one tool result, as
        :meth:`user_events` makes it; None for any other line.  ``uid``: as
        for :meth:`common_assistant`."""
        message = record.get("message")
        content = message.get("content") if type(message) is dict else None
        if type(content) is not list or len(content) != 1:
            return None
        block = content[0]
        if type(block) is not dict or block.get("type") != "tool_result":
            return None
        stamp = record.get("timestamp")
        if type(stamp) is not str or not stamp:
            stamp = None
        if type(uid) is not str or not uid:
            uid = None
        parent = record.get("parentUuid")
        parent = self.alias.get(parent, parent) if type(parent) is str else None
        text = block.get("content")
        if type(text) is not str:
            base = self.base_meta(record) if record.get("isSidechain") is True else {}
            return self.tool_result(record, block, stamp, uid, parent, base, 0)
        meta = {"kind": "tool_result", **self.base_meta(record)} if record.get("isSidechain") is True else {"kind": "tool_result"}
        denial = record.get("toolDenialKind")
        if type(denial) is str and denial:
            meta["denialKind"] = denial
        call_id = block.get("tool_use_id")
        if type(call_id) is not str or not call_id:
            call_id = None
        self.link_agent(record.get("toolUseResult"), text, call_id, meta)
        event = {"type": "message", "role": "tool", "text": text}
        if stamp is not None:
            event["timestamp"] = stamp
        if uid is not None:
            event["id"] = uid
        if parent is not None:
            event["parentId"] = parent
        if call_id is not None:
            event["toolCallId"] = call_id
        is_error = block.get("is_error")
        if type(is_error) is bool:
            event["isError"] = is_error
        event["meta"] = meta
        return event

    def assistant_events(self, record: dict) -> tuple[Any, Any, list[dict]]:
        message = record.get("message")
        if type(message) is not dict:
            message = {}
        content = message.get("content")
        stamp, uid, parent, base = self.line_fields(record)
        msg_id = api_message_meta(message, record, base)
        # Claude Code writes one block per line: no loop, no id suffix.
        if type(content) is list:
            if len(content) == 1:
                return msg_id, message.get("usage"), [self.assistant_block(content[0], base, stamp, uid, parent)]
        elif type(content) is str:
            content = [{"type": "text", "text": content}]
        else:
            content = []
        events = []
        for n, block in enumerate(content):
            events.append(
                self.assistant_block(block, base, stamp, uid if n == 0 else f"{uid}#{n}" if uid else None, parent)
            )
        return msg_id, message.get("usage"), events

    def assistant_block(self, block: Any, base: dict, stamp: Any, mid: Any, parent: Any) -> dict:
        btype = block.get("type") if type(block) is dict else None
        if btype == "text":
            return _assistant_text(block.get("text"), stamp, mid, parent, {"kind": "text", **base})
        if btype == "tool_use" or btype == "server_tool_use" or btype == "mcp_tool_use":
            meta = {"kind": "tool_use", **base}
            if btype != "tool_use":
                meta["server"] = True
            name = block.get("name")
            if type(name) is not str or not name:
                name = "tool"
            call_id = block.get("id")
            tool_input = block.get("input")
            if type(tool_input) is not dict:
                tool_input = {} if tool_input is None else {"input": tool_input}
            return message_event(
                "tool",
                tool_label(name, tool_input),
                timestamp=stamp,
                id=mid,
                parentId=parent,
                toolName=name,
                toolCallId=call_id if type(call_id) is str and call_id else None,
                toolInput=tool_input,
                meta=meta,
            )
        if btype == "thinking":
            meta = {"kind": "thinking", **base}
            signature = block.get("signature")
            if type(signature) is str and signature:
                meta["signature"] = signature
            return _assistant_text(block.get("thinking"), stamp, mid, parent, meta)
        common = {"timestamp": stamp, "id": mid, "parentId": parent}
        if btype == "redacted_thinking":
            meta = {"kind": "thinking", **base, "redacted": True}
            data = _str(block.get("data"))
            if data:
                meta["data"] = data
            return message_event("assistant", "", meta=meta, **common)
        if btype == "fallback":
            return _fallback_notice(block, base, common)
        if btype == "tool_result":
            # A plain tool result inside the answer: a server-side tool run by
            # an Anthropic-compatible provider (Z.ai's webReader, web search
            # and MCP tools for GLM models), answering the answer's own
            # server_tool_use; content as in a user line's tool result.
            is_error = block.get("is_error")
            return message_event(
                "tool",
                content_text(block.get("content")),
                toolCallId=_str(block.get("tool_use_id")),
                isError=is_error if type(is_error) is bool else None,
                meta={"kind": "tool_result", **base, "server": True},
                **common,
            )
        if isinstance(btype, str) and btype.endswith("_tool_result"):
            return message_event(
                "tool",
                search_results_text(block.get("content")),
                toolCallId=_str(block.get("tool_use_id")),
                meta={"kind": "tool_result", **base, "server": True},
                **common,
            )
        meta = {"kind": "text", **base}
        if type(block) is dict:
            meta["blockType"] = btype if isinstance(btype, str) else "unknown"
            self.ctx.unknown(meta["blockType"], what="content block")
            return message_event("assistant", block_text(block), meta=meta, **common)
        return message_event("assistant", content_text(block), meta=meta, **common)

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
        elif subtype == "scheduled_task_fire":
            # shown to the user, not sent to the model (the prompt follows)
            meta["notice"] = subtype
            task = {key: record[key] for key in SCHEDULED_TASK_FIELDS if key in record}
            if task:
                meta["scheduledTask"] = task
            if not text:
                text = "Running scheduled task"
        elif subtype == "model_refusal_fallback":
            for key in ("originalModel", "fallbackModel"):
                model = _str(record.get(key))
                if model:
                    meta[key] = model
            retracted = record.get("retractedMessageUuids")
            if type(retracted) is list and retracted and all(type(u) is str for u in retracted):
                meta["retractedMessageIds"] = retracted  # as written; the messages stay in the stream
            if not text:
                text = f"Model fallback after a refusal: {meta.get('originalModel', '?')} -> {meta.get('fallbackModel', '?')}"
        return [
            message_event(
                "system",
                text,
                timestamp=_str(record.get("timestamp")),
                id=_str(record.get("uuid")),
                parentId=self.parent_of(record),
                meta=meta,
            )
        ]


def _fallback_notice(block: dict, base: dict, common: dict) -> dict:
    """A ``fallback`` block (2.1.2xx: the request went to another model,
    ``{"from": {"model"}, "to": {"model"}}``) is no text of the model's: a
    notice, as Claude Code shows it."""
    ends = []
    for key in ("from", "to"):
        end = block.get(key)
        model = end.get("model") if type(end) is dict else None
        ends.append(model if type(model) is str and model else "?")
    meta = {"kind": "text", **base, "notice": "fallback", "fallbackFrom": ends[0], "fallbackTo": ends[1]}
    return message_event("system", f"Model fallback: {ends[0]} -> {ends[1]}", meta=meta, **common)


def _assistant_text(text: Any, stamp: Any, mid: Any, parent: Any, meta: dict) -> dict:
    """An assistant text or thinking block as a message."""
    return message_event(
        "assistant",
        text if type(text) is str else content_text(text),
        timestamp=stamp,
        id=mid,
        parentId=parent,
        meta=meta,
    )


def api_message_meta(message: dict, record: dict, meta: dict) -> str | None:
    """Add an assistant line's model, message id, request id and API-error
    flag (with the error's kind and status) to ``meta``; the message id
    (None when it is not a string)."""
    model = message.get("model")
    if type(model) is str and model:
        meta["model"] = model
    msg_id = message.get("id")
    if type(msg_id) is not str:
        msg_id = None
    elif msg_id:
        meta["messageId"] = msg_id
    request = record.get("requestId")
    if type(request) is str and request:
        meta["requestId"] = request
    if record.get("isApiErrorMessage") is True:
        meta["apiError"] = True
        # The error's kind (``rate_limit``, ``invalid_request``,
        # ``server_error``, ``unknown``...) and, from 2.1.1xx, the HTTP
        # status of the refused request: why the notice was written.
        kind = record.get("error")
        if type(kind) is str and kind:
            meta["apiErrorKind"] = kind
        status = record.get("apiErrorStatus")
        if type(status) is int:
            meta["apiErrorStatus"] = status
        # The API's own error body (``400 {"type":"error",...}``), of which
        # the notice's text is a summary ("Prompt is too long").
        details = record.get("errorDetails")
        if type(details) is str and details:
            meta["apiErrorDetails"] = details
    if record.get("isAbortedMidStream") is True:
        meta["abortedMidStream"] = True  # 2.1.2xx: the answer was cut off while it streamed
    quota = record.get("quotaLimits")
    if type(quota) is dict and quota:
        meta["quotaLimits"] = quota  # 2.1.2xx, on a usage-limit notice: which limit, when it resets
    # 2.1.3xx, on the notice of a response stream cut off: why, and whether
    # part of the answer had come (``truncatedAfterOutput``).
    for key, name in STREAM_CUT_FIELDS:
        value = _str(record.get(key))
        if value:
            meta[name] = value
    if record.get("truncatedAfterOutput") is True:
        meta["truncatedAfterOutput"] = True
    return msg_id
