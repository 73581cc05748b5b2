"""gemini-cli ``MessageRecord`` objects as sessionport events.

One record is one turn as the tool recorded it: a ``user`` prompt, a
``gemini`` answer carrying its ``thoughts``, ``toolCalls`` (each with its
``result``), ``tokens`` and ``model``, or an ``info``/``error``/``warning``
notice of the tool's UI.
"""

from __future__ import annotations

from typing import Any, Iterator

from sessionport.context import ReadContext
from sessionport.model import message_event
from sessionport.gemini_parts import CallPairing, PartConverter, blob_placeholder, file_placeholder, response_text, tool_input_preview

NOTICE_TYPES = ("info", "error", "warning")
FINISHED = ("success", "error", "cancelled")
# User records gemini-cli itself writes (never typed): the session's
# context, a hook's, and the note it adds to the history when the user
# leaves Plan Mode (getPlanModeExitMessage(mode, true)).
INJECTED_PREFIXES = ("<session_context>", "<hook_context>", "User has manually exited Plan Mode. Switching to ")
# Message record types besides user and gemini (chatRecordingTypes.ts).
NOTICE_TYPES = frozenset(("info", "error", "warning"))
USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def usage_of(tokens: Any) -> dict | None:
    """gemini-cli ``tokens`` in the shared usage shape.  ``input`` is the
    prompt count (cached included), ``tool`` the tool-use prompt; the
    reasoning (``thoughts``) is part of the output."""
    if not isinstance(tokens, dict):
        return None

    def n(key: str) -> int:
        value = tokens.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    if not any(n(k) for k in ("input", "output", "cached", "thoughts", "tool", "total")):
        return None
    input_tokens = n("input") + n("tool")
    output_tokens = n("output") + n("thoughts")
    return {
        "input_tokens": input_tokens,
        "cached_input_tokens": n("cached"),
        "output_tokens": output_tokens,
        "reasoning_output_tokens": n("thoughts"),
        "total_tokens": input_tokens + output_tokens,
    }


def _text_of(parts: Any) -> str:
    """Readable rendering of a PartListUnion (for displayContent)."""
    if isinstance(parts, str):
        return parts
    if isinstance(parts, dict):
        parts = [parts]
    if not isinstance(parts, list):
        return ""
    pieces = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif isinstance(part.get("inlineData"), dict):
                pieces.append(blob_placeholder(part["inlineData"]))
            elif isinstance(part.get("fileData"), dict):
                pieces.append(file_placeholder(part["fileData"]))
            elif isinstance(part.get("functionResponse"), dict):
                pieces.append(response_text(part["functionResponse"].get("response"))[0])
    return "".join(pieces)


def _has_text(parts: Any) -> bool:
    if isinstance(parts, str):
        return bool(parts)
    if isinstance(parts, dict):
        parts = [parts]
    return isinstance(parts, list) and any(isinstance(p, str) or (isinstance(p, dict) and isinstance(p.get("text"), str)) for p in parts)


class RecordConverter:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.pairing = CallPairing("gemini-cli-call")
        self.parts = PartConverter(ctx, self.pairing)
        self.answered: set[str] = set()
        self.usage: dict[str, int] = {}
        self.notices = 0
        self.tool_calls = 0

    def events(self, record: Any, path: str) -> Iterator[dict]:
        if not isinstance(record, dict):
            self.ctx.bad_record(f"expected a message record object, found {type(record).__name__}", path=path)
            return
        kind = record.get("type")
        base: dict = {}
        if isinstance(record.get("timestamp"), str):
            base["timestamp"] = record["timestamp"]
        record_id = record.get("id") if isinstance(record.get("id"), str) else None
        if kind == "user":
            events = self._user(record, path, base)
        elif kind == "gemini":
            events = self._gemini(record, path, base)
        else:
            events = self._notice(record, kind, base)
        for n, event in enumerate(events):
            if record_id is not None and "id" not in event:
                event["id"] = record_id if n == 0 else f"{record_id}#{n}"
                # key order: id right after timestamp, as message_event writes it
            yield _ordered(event)

    def _notice(self, record: dict, kind: Any, base: dict) -> Iterator[dict]:
        self.notices += 1
        label = kind if isinstance(kind, str) else "unknown"
        if label not in NOTICE_TYPES:
            # Kept visible as a notice all the same: nothing is dropped.
            self.ctx.unknown(label)
        yield message_event("system", _text_of(record.get("content")), **base, meta={"kind": "text", "notice": label})

    def _user(self, record: dict, path: str, base: dict) -> Iterator[dict]:
        content = _drop_answered(record.get("content"), self.answered)
        # A history rewritten in API form (0.61, on resume) answers calls in
        # "<id>_response" user messages and keeps the user records that
        # repeat the same results after them.
        self.answered.update(_response_ids(content))
        meta: dict = {}
        display = record.get("displayContent")
        text = _text_of(content)
        if display is not None:
            shown = _text_of(display)
            if shown != text:
                meta["displayText"] = shown
            if not _has_text(display):
                meta["injected"] = True  # sent by the tool, not typed (e.g. "System: Please continue.")
        if text.startswith(INJECTED_PREFIXES):
            meta["injected"] = True
        if text.startswith(("/", "?")):
            meta["uiCommand"] = True  # gemini-cli does not send these to the model
        yield from self.parts.parts_events(content, "user", f"{path}.content", base={**base, "meta": meta}, join_text=True)

    def _gemini(self, record: dict, path: str, base: dict) -> Iterator[dict]:
        meta: dict = {}
        if isinstance(record.get("model"), str):
            meta["model"] = record["model"]
        usage = usage_of(record.get("tokens"))
        if usage:
            for key in USAGE_KEYS:
                self.usage[key] = self.usage.get(key, 0) + usage[key]
        content = record.get("content")
        calls = record.get("toolCalls") if isinstance(record.get("toolCalls"), list) else []
        call_ids = frozenset(c.get("id") for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str))
        events: list[dict] = []
        if not _has_thought_parts(content):
            events.extend(self._thoughts(record.get("thoughts"), base, meta))
        events.extend(self.parts.parts_events(content, "assistant", f"{path}.content", base={**base, "meta": meta}, join_text=True, skip_call_ids=call_ids))
        events = [e for e in events if e["text"] or (e.get("meta") or {}).get("kind") != "text" or "thoughtSignature" in e.get("meta", {})]
        uses, results = [], []
        for index, call in enumerate(calls):
            pair = self._tool_call(call, f"{path}.toolCalls[{index}]", base, meta)
            if pair is not None:
                uses.append(pair[0])
                if pair[1] is not None:
                    results.append(pair[1])
        events.extend(uses)
        events.extend(results)
        if usage:
            # the answer's text carries its usage, else its first call (a
            # writer of records writes it on the record either way), else
            # its first thought
            target = next((e for e in events if e["role"] == "assistant" and (e.get("meta") or {}).get("kind") == "text"), None) or (uses[0] if uses else events[0] if events else None)
            if target is None:
                target = message_event("assistant", "", **base, meta={"kind": "text", **meta})
                events.append(target)
            target["meta"] = {**target.get("meta", {}), "usage": usage}
        yield from events

    def _thoughts(self, thoughts: Any, base: dict, meta: dict) -> Iterator[dict]:
        if not isinstance(thoughts, list):
            return
        for thought in thoughts:
            if not isinstance(thought, dict):
                continue
            subject = thought.get("subject") if isinstance(thought.get("subject"), str) else ""
            description = thought.get("description") if isinstance(thought.get("description"), str) else ""
            text = f"**{subject}** {description}".strip() if subject else description
            fields = dict(base)
            if isinstance(thought.get("timestamp"), str):
                fields["timestamp"] = thought["timestamp"]
            extra = {"subject": subject} if subject else {}
            yield message_event("assistant", text, **fields, meta={"kind": "thinking", **meta, **extra})

    def _tool_call(self, call: Any, path: str, base: dict, meta: dict) -> tuple[dict, dict | None] | None:
        if not isinstance(call, dict):
            self.ctx.bad_record(f"expected a tool call object, found {type(call).__name__}", path=path)
            return None
        self.tool_calls += 1
        name = call.get("name") if isinstance(call.get("name"), str) and call.get("name") else "unknown"
        args = call.get("args")
        if args is None:
            args = {}
        elif not isinstance(args, dict):
            args = {"value": args}
        call_id = self.pairing.call(call.get("id"), name)
        fields = dict(base)
        if isinstance(call.get("timestamp"), str):
            fields["timestamp"] = call["timestamp"]
        use_meta: dict = {"kind": "tool_use", **{k: v for k, v in meta.items() if k == "model"}}
        for key in ("displayName", "status", "agentId"):
            if isinstance(call.get(key), str):
                use_meta[key] = call[key]
        if isinstance(call.get("renderOutputAsMarkdown"), bool):
            use_meta["renderOutputAsMarkdown"] = call["renderOutputAsMarkdown"]
        description = call.get("description")
        text = description if isinstance(description, str) and description else tool_input_preview(name, args)
        use = message_event("tool", text, **fields, toolName=name, toolCallId=call_id, toolInput=args, meta=use_meta)
        status = call.get("status")
        result = call.get("result")
        if result is None and status not in FINISHED:
            return use, None  # still running when the session was saved: the call stays unpaired
        self.pairing.response(call_id, name)
        self.answered.add(call_id)
        display = call.get("resultDisplay")
        text, extra, is_error = self._result_text(_own_response(result, call.get("id")), display)
        result_meta = {"kind": "tool_result", **extra}
        if result is not None and display is not None and display != text:
            # what the UI showed of the result (a diff, a listing, a
            # summary line): not sent to the model, written back with it
            result_meta["resultDisplay"] = display
        if isinstance(status, str) and status != "success":
            result_meta["status"] = status
        failed = is_error or status in ("error", "cancelled")
        return use, message_event("tool", text, **fields, toolName=name, toolCallId=call_id, isError=True if failed else None, meta=result_meta)

    @staticmethod
    def _result_text(result: Any, display: Any) -> tuple[str, dict, bool]:
        if result is None:
            return (display if isinstance(display, str) else ""), {}, False
        if isinstance(result, str):
            return result, {}, False
        parts = [result] if isinstance(result, dict) else result if isinstance(result, list) else []
        pieces: list[str] = []
        extra: dict = {}
        is_error = False
        for part in parts:
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"]
                text, meta, error = response_text(response.get("response"))
                pieces.append(text)
                extra.update(meta)
                is_error = is_error or error
                nested = response.get("parts")
                if isinstance(nested, list):
                    pieces.extend(_text_of([p]) for p in nested)
            else:
                pieces.append(_text_of([part]))
        return "\n".join(p for p in pieces if p), extra, is_error


def _own_response(result: Any, call_id: Any) -> Any:
    """The part of a call's ``result`` that answers it.  When gemini-cli
    writes the history back into its records (``updateMessagesFromHistory``,
    0.4x and later: on resume, after a compression), each call of a turn
    that made several takes the whole user turn of their responses as its
    result, one ``functionResponse`` per call: the call keeps its own (by
    id, with the parts that follow it), as each other call keeps its."""
    if not isinstance(result, list) or not isinstance(call_id, str):
        return result
    starts = [
        i for i, part in enumerate(result)
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
    ]
    if len(starts) < 2:
        return result
    ids = [result[i]["functionResponse"].get("id") for i in starts]
    if call_id not in ids:
        return result
    at = starts[ids.index(call_id)]
    later = [i for i in starts if i > at]
    return result[at : later[0] if later else len(result)]


def _has_thought_parts(content: Any) -> bool:
    return isinstance(content, list) and any(isinstance(p, dict) and p.get("thought") for p in content)


def _drop_answered(content: Any, answered: set[str]) -> Any:
    """A user record may repeat, as functionResponse parts, results already
    read from the calls' own records: keep each result once."""
    if not isinstance(content, list) or not answered:
        return content
    def repeated(part: Any) -> bool:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        return isinstance(response, dict) and isinstance(response.get("id"), str) and response["id"] in answered

    return [p for p in content if not repeated(p)]


def _response_ids(content: Any) -> list[str]:
    if not isinstance(content, list):
        return []
    ids = []
    for part in content:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            ids.append(response["id"])
    return ids


_ORDER = {"type": 0, "role": 1, "text": 2, "timestamp": 3, "id": 4}


def _ordered(event: dict) -> dict:
    return dict(sorted(event.items(), key=lambda kv: _ORDER.get(kv[0], 5)))
