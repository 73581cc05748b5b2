"""``gemini-cli``: write a session as a Gemini CLI session file.

By default the append-only JSONL log Gemini CLI writes since 0.39
(``~/.gemini/tmp/<project>/chats/session-*.jsonl``): a metadata line, one
line per message record, and a closing ``$set`` of ``lastUpdated`` (and the
title as ``summary``).  ``--gemini-cli-legacy-json`` writes the single JSON
document of Gemini CLI 0.38 and older instead (``session-*.json``, the same
records in a ``messages`` array).  Gemini CLI 0.61 resumes both
(``gemini --resume`` once the file is in the project's ``chats/`` folder, or
``gemini --session-file FILE``).

One Gemini CLI record holds one model answer: its text, the thoughts before
it, and its tool calls each with its result (``toolCalls[].result``, as
``functionResponse`` parts).  So a ``gemini`` record is held back until the
results of its calls have arrived (or the next answer comes); that is the
only look-ahead, and only one record is held at a time.  A user prompt that
comes while calls of the held record still wait for their results (Cline
puts the user's feedback on a denied command before the result text in one
message) is held too, at most ``MAX_WAITING`` of them, and written after the
record, so that the results still go with their calls.  Thinking becomes
the record's ``thoughts`` (Gemini CLI keeps them in the file but does not
send them back to the model).  System and informational messages become
``info`` records, which Gemini CLI shows but does not send to the model.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime, timezone
from typing import Any, BinaryIO, Iterable

import orjson

from sessionport import jsonout
from sessionport.context import WriteContext
from sessionport.gemini_turns import NAMESPACE, gemini_timestamp, response_object, session_uuid
from sessionport.model import sealed_reasoning
from sessionport.registry import Exporter, Option
from sessionport.toolmap import KEEP_TOOL_NAMES, Renames

_NL = orjson.OPT_APPEND_NEWLINE
MAX_WAITING = 64  # user records held while calls wait for their results; past that, written in place
NOTICE_TYPES = ("info", "error", "warning")
_HEX = frozenset("0123456789abcdef")

LEGACY_JSON = Option(
    name="gemini_cli_legacy_json",
    flags=("--gemini-cli-legacy-json",),
    help="gemini-cli: write the single JSON document of Gemini CLI 0.38 and older (session-*.json) instead of the JSONL log.",
    is_flag=True,
)


def _tokens(usage: Any) -> dict | None:
    """The shared usage shape as Gemini CLI ``tokens`` (the reader's inverse)."""
    if not isinstance(usage, dict):
        return None

    def num(key: str) -> int:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    thoughts = num("reasoning_output_tokens")
    tokens = {
        "input": num("input_tokens"),
        "output": max(0, num("output_tokens") - thoughts),
        "cached": num("cached_input_tokens"),
        "thoughts": thoughts,
        "tool": 0,
    }
    tokens["total"] = num("total_tokens") or tokens["input"] + tokens["output"] + thoughts
    return tokens if any(tokens.values()) else None


class SessionWriter:
    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        self.emit = out.write
        self.ctx = ctx
        self.legacy = bool(ctx.options.get("gemini_cli_legacy_json"))
        self.rename = Renames("gemini-cli", enabled=not ctx.options.get("keep_tool_names"))
        self.started = False
        self.records = 0
        self.held: dict | None = None  # the gemini record waiting for its results
        # How many of its calls have their result: counted, not searched
        # for at every call and result (40,000 calls in one answer took
        # 23 s in those searches alone).
        self.answered = 0
        self.calls: dict[str, dict] = {}  # call id -> its entry in the held record
        self.thoughts: list[dict] = []
        # the record the waiting thoughts were read from (gemini-cli), and
        # the usage one of them carried (an answer of thoughts alone)
        self.thoughts_record: str | None = None
        self.thoughts_tokens: dict | None = None
        self.thoughts_model: str | None = None
        self.ids: set[str] = set()
        self.seed = "session"
        self.last_time: str | None = None
        self.start_time = ""
        self.title: str | None = None
        self.orphans = 0
        self.model: str | None = None
        self.waiting: list[dict] = []  # user records held until the held record's calls are answered
        self.held_message: str | None = None  # the API message id of the held record's last call
        self.own_source = False
        self.kind = "main"

    # -- output -------------------------------------------------------------
    def record(self, record: dict) -> None:
        if self.legacy:
            self.emit(b"," if self.records else b"")
            self.emit(jsonout.dumps(record))
        else:
            self.emit(jsonout.dumps(record, option=_NL))
        self.records += 1

    def record_id(self, event: dict) -> str | None:
        """The id of the Gemini CLI record an event was read from: the
        reader numbers the second and later events of a record ``<id>#<n>``."""
        given = event.get("id")
        if not isinstance(given, str) or not given:
            return None
        return given.partition("#")[0] if self.own_source else given

    def new_id(self, event: dict) -> str:
        given = self.record_id(event)
        if isinstance(given, str) and given and given not in self.ids:
            self.ids.add(given)
            return given
        made = str(uuid.uuid5(NAMESPACE, f"{self.seed}:{len(self.ids)}"))
        self.ids.add(made)
        return made

    def stamp(self, event: dict) -> str:
        stamp = gemini_timestamp(event.get("timestamp"))
        if stamp is not None:
            self.last_time = stamp
        return self.last_time or self.start_time

    # -- session ------------------------------------------------------------
    def session(self, event: dict) -> None:
        self.started = True
        # A session read from a gemini-cli file gets back what only Gemini
        # CLI writes: a call's text is its `description` (the labels of other
        # sources are sessionport's own), the records' ids, the header's
        # fields, responses of any shape.
        self.own_source = event.get("source") == "gemini-cli"
        metadata = event.get("metadata") if isinstance(event.get("metadata"), dict) and self.own_source else {}
        sid = session_uuid(event)
        self.seed = sid
        self.start_time = gemini_timestamp(event.get("createdAt")) or gemini_timestamp(datetime.now(timezone.utc).isoformat()) or ""
        self.title = event.get("title") if isinstance(event.get("title"), str) and event.get("title") else None
        cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else ""
        # Gemini CLI 0.61 finds sessions by the folder they are in, not by
        # this hash; older releases named the folder by it.
        project = hashlib.sha256(cwd.encode()).hexdigest()
        kept = metadata.get("projectHash")
        if isinstance(kept, str) and len(kept) == 64 and _HEX.issuperset(kept):
            project = kept  # the session's own, read from its file
        self.kind = metadata.get("kind") if metadata.get("kind") in ("main", "subagent") else "main"
        head: dict[str, Any] = {"sessionId": sid, "projectHash": project, "startTime": self.start_time}
        if isinstance(metadata.get("directories"), list):
            head["directories"] = metadata["directories"]  # the workspace's folders (--include-directories)
        if self.legacy:
            self.emit(jsonout.dumps(head)[:-1] + b',"messages":[')
        else:
            self.record({**head, "lastUpdated": self.start_time, "kind": self.kind})
            self.records = 0

    # -- messages -----------------------------------------------------------
    def flush(self) -> None:
        if self.held is not None:
            self.record(self.held)
            self.held = None
            self.calls = {}
            self.answered = 0
            self.held_message = None
        if self.waiting:
            waiting, self.waiting = self.waiting, []
            for record in waiting:
                self.record(record)

    def continues_held(self, meta: dict) -> bool:
        """Whether a part of an answer belongs to the held record: the same
        API message as its calls, which still wait for their results."""
        message = meta.get("messageId")
        return message is not None and message == self.held_message and self.calls_waiting()

    def calls_waiting(self) -> bool:
        """Whether the held record has calls without their results yet."""
        held = self.held
        return held is not None and self.answered < len(held.get("toolCalls", ()))

    def thoughts_alone(self, event: dict) -> None:
        """Write the waiting thoughts as a record of their own when they were
        read from another gemini-cli record than ``event`` (an answer of
        thoughts alone, which the next answer must not take)."""
        pending = self.thoughts_record
        if self.thoughts and pending is not None and self.record_id(event) != pending:
            self.gemini_record({"id": pending, "timestamp": self.thoughts[-1]["timestamp"]}, {"model": self.thoughts_model})
            self.flush()

    def gemini_record(self, event: dict, meta: dict) -> dict:
        self.thoughts_alone(event)
        self.flush()
        record: dict[str, Any] = {"id": self.new_id(event), "timestamp": self.stamp(event), "type": "gemini", "content": ""}
        if self.thoughts:
            record["thoughts"], self.thoughts = self.thoughts, []
            if self.thoughts_tokens:
                record["tokens"] = self.thoughts_tokens
        self.thoughts_record = self.thoughts_tokens = None
        model = meta.get("model")
        if isinstance(model, str) and model:
            self.model = model
        if self.model:
            record["model"] = self.model
        self.held = record
        self.answered = 0
        return record

    def message(self, event: dict) -> None:
        if not self.started:
            self.session({"source": "unknown"})
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        kind = meta.get("kind", "text")
        role = event.get("role")
        text = event.get("text") if isinstance(event.get("text"), str) else ""
        if kind == "tool_use" or (role == "tool" and kind != "tool_result" and event.get("toolName") and "toolInput" in event):
            self.tool_use(event, meta)
        elif role == "tool":
            self.tool_result(event, meta, text)
        elif kind == "thinking":
            subject = meta.get("subject") if isinstance(meta.get("subject"), str) else ""
            description = text
            if subject and text.startswith(f"**{subject}**"):
                # the reader's "**subject** description": the subject is written once
                description = text[len(subject) + 4:].removeprefix(" ")
            thought = {"subject": subject, "description": description, "timestamp": self.stamp(event)}
            tokens = _tokens(meta.get("usage"))
            if self.continues_held(meta):
                self.held.setdefault("thoughts", []).append(thought)
                if tokens and "tokens" not in self.held:
                    self.held["tokens"] = tokens
                return
            if self.held is not None and (self.held["content"] or self.held.get("toolCalls")):
                self.flush()
            self.thoughts_alone(event)
            if not self.thoughts:
                self.thoughts_record = self.record_id(event) if self.own_source else None
                self.thoughts_model = meta.get("model") if isinstance(meta.get("model"), str) else None
            self.thoughts.append(thought)
            if tokens and not self.thoughts_tokens:
                self.thoughts_tokens = tokens
        elif role == "assistant":
            held = self.held
            if held is not None and not held["content"] and not held.get("toolCalls"):
                record = held  # thoughts were waiting for this answer
            elif self.continues_held(meta):
                record = held  # more of the answer whose calls wait for their results
                text = f"{held['content']}\n\n{text}" if held["content"] and text else held["content"] or text
            else:
                record = self.gemini_record(event, meta)
            record["content"] = text
            tokens = _tokens(meta.get("usage"))
            if tokens:
                record["tokens"] = tokens
        elif role == "user":
            self.thoughts_alone(event)
            record = {"id": self.new_id(event), "timestamp": self.stamp(event), "type": "user", "content": [{"text": text}]}
            if self.calls_waiting() and len(self.waiting) < MAX_WAITING:
                self.waiting.append(record)
            else:
                self.flush()
                self.record(record)
        else:
            # a notice read from gemini-cli keeps its type; any other
            # system message is information
            notice = meta.get("notice") if meta.get("notice") in NOTICE_TYPES else "info"
            self.thoughts_alone(event)
            record = {"id": self.new_id(event), "timestamp": self.stamp(event), "type": notice, "content": text}
            # A notice between a call and its result (Codex's "Approved
            # command prefix saved" while the command waits) waits with the
            # user records, so the call keeps its result.
            if self.calls_waiting() and len(self.waiting) < MAX_WAITING:
                self.waiting.append(record)
            else:
                self.flush()
                self.record(record)

    def tool_use(self, event: dict, meta: dict) -> None:
        held = self.held
        message = meta.get("messageId") if isinstance(meta.get("messageId"), str) and meta.get("messageId") else None
        # A call of the same API message as the held record's (Claude Code
        # 2.1.9x writes a parallel call's result before the answer's next
        # call) belongs to that record, answered or not.
        if held is None or self.waiting or (self.answered and (message is None or message != self.held_message)):
            held = self.gemini_record(event, meta)
        self.held_message = message
        if "tokens" not in held:
            # an answer made only of calls carries its usage on a call
            tokens = _tokens(meta.get("usage"))
            if tokens:
                held["tokens"] = tokens
        name, args = event.get("toolName"), event.get("toolInput")
        if not isinstance(args, dict):
            args = {} if args is None else {"value": args}
        name, args = self.rename(name if isinstance(name, str) and name else "unknown", args)
        call_id = event.get("toolCallId")
        if not isinstance(call_id, str) or not call_id or call_id in self.calls:
            call_id = f"{name}-{uuid.uuid5(NAMESPACE, f'{self.seed}:call:{len(self.ids)}').hex[:12]}"
            self.ids.add(call_id)
        call: dict[str, Any] = {"id": call_id, "name": name, "args": args, "status": "executing", "timestamp": self.stamp(event)}
        if isinstance(meta.get("displayName"), str):
            call["displayName"] = meta["displayName"]
        if isinstance(meta.get("renderOutputAsMarkdown"), bool):
            call["renderOutputAsMarkdown"] = meta["renderOutputAsMarkdown"]
        text = event.get("text")
        if self.own_source and isinstance(text, str) and text:
            call["description"] = text
        held.setdefault("toolCalls", []).append(call)
        self.calls[call_id] = call

    def tool_result(self, event: dict, meta: dict, text: str) -> None:
        call_id = event.get("toolCallId")
        call = self.calls.get(call_id) if isinstance(call_id, str) else None
        if call is None:
            # no call before it in this answer (ChatGPT's internal tools, a
            # log that lost the call): a record holds a result only with its
            # call, so the result gets a call of its own
            self.orphans += 1
            synthetic = {"role": "tool", "toolName": event.get("toolName"), "toolInput": {}, "timestamp": event.get("timestamp")}
            if isinstance(call_id, str) and call_id and call_id not in self.ids:
                synthetic["toolCallId"] = call_id
            self.tool_use(synthetic, {})
            call = self.held["toolCalls"][-1]
        if "result" not in call:
            self.answered += 1
        failed = event.get("isError") is True
        # Gemini CLI's own results are {output} or {error}: a response of
        # another shape comes back only to the app that wrote it
        response = response_object(event, meta, text) if self.own_source else {"error": text} if failed else {"output": text}
        call["result"] = [{"functionResponse": {"id": call["id"], "name": call["name"], "response": response}}]
        status = meta.get("status")
        call["status"] = ("cancelled" if status == "cancelled" else "error") if failed else "success"
        # what the UI shows: as the session's file had it, else the output
        call["resultDisplay"] = meta["resultDisplay"] if "resultDisplay" in meta else text
        if self.answered >= len(self.held.get("toolCalls", ())):
            self.flush()

    def end(self) -> None:
        if not self.started:
            return
        self.flush()
        if self.thoughts:  # thinking after the last answer: a record of its own
            self.gemini_record({"id": self.thoughts_record, "timestamp": self.thoughts[-1]["timestamp"]}, {"model": self.thoughts_model})
            self.flush()
        last = self.last_time or self.start_time
        if self.legacy:
            tail: dict[str, Any] = {"lastUpdated": last, "kind": self.kind}
            if self.title:
                tail["summary"] = self.title
            self.emit(b"]," + jsonout.dumps(tail)[1:] + b"\n")
        else:
            update: dict[str, Any] = {"lastUpdated": last}
            if self.title:
                update["summary"] = self.title
            self.emit(jsonout.dumps({"$set": update}, option=_NL))
        if self.orphans:
            self.ctx.warn(f"{self.orphans} tool result(s) without a call were given a call of their own (the result's tool name, an empty input): a Gemini CLI record holds a result only with its call")
        self.rename.report(self.ctx.warn)


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    writer = SessionWriter(out, ctx)
    sealed = 0
    for event in events:
        kind = event.get("type")
        if kind == "message":
            if sealed_reasoning(event):
                sealed += 1
                continue
            writer.message(event)
        elif kind == "session":
            writer.session(event)
    writer.end()
    if sealed:
        ctx.warn(f"{sealed} reasoning item(s) kept only encrypted (readable by OpenAI's API alone) left out: a Gemini CLI thought is text")


EXPORTER = Exporter(
    name="gemini-cli",
    description="Google gemini-cli session (chats/session-*.jsonl, or the legacy session-*.json)",
    write=write,
    extension=".jsonl",
    multi_session=False,
    cannot_carry=("responses items",),
    options=(LEGACY_JSON, KEEP_TOOL_NAMES),
)
