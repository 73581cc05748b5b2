"""Gemini API turns built from the canonical stream, for every writer of
Gemini ``Content`` (the ``gemini`` request body, Qwen Code's session log).

:class:`GeminiTurns` puts messages in ``user``/``model`` turns as the API
demands: a call's result in the user turn right after the model turn that
made it (what arrives in between is held back), a call with no result
answered with an error, system messages set apart.  Each finished turn goes
to a sink (``add(role, part)``, ``close(system)``); :class:`ContentsArray`
writes the request body's ``contents`` array.
"""

from __future__ import annotations

import uuid
from collections import Counter, OrderedDict, deque
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport import jsonout
from sessionport.model import kind_of
from sessionport.gemini_parts import DUMMY_SIGNATURES, MISSING_RESULT
from sessionport.timeparse import parse_event_time, utc_millis

# Gemini CLI's session ids (and the stable ones its writer derives)
NAMESPACE = uuid.UUID("0b7b6a4e-3f0e-4f55-9a51-6c1d2e8f9a10")
_UUID_LEN = 36


def gemini_timestamp(value: Any) -> str | None:
    """``2026-04-23T12:52:52.759Z`` (UTC, milliseconds), as Gemini CLI writes it."""
    moment = parse_event_time(value)
    if moment is None:
        return None
    return utc_millis(moment)


def session_uuid(session: dict) -> str:
    """Gemini CLI resumes by UUID (``--resume <id>``); other ids map to a stable one."""
    sid = session.get("sessionId")
    if isinstance(sid, str) and len(sid) == _UUID_LEN:
        try:
            return str(uuid.UUID(sid))
        except ValueError:
            pass
    return str(uuid.uuid5(NAMESPACE, f"{sid!r}:{session.get('createdAt')!r}:{session.get('source')!r}"))


# Look-ahead bound while calls wait for results (subagent transcripts
# inlined between a call and its result can be long).
MAX_DEFERRED = 10000
MAX_DEFERRED_BYTES = 64 << 20
MAX_NAMES = 65536


class ContentsArray:
    """Writes the ``contents`` array one finished turn at a time."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.role: str | None = None
        self.parts: list[dict] = []
        self.written = 0
        out.write(b'{"contents":[')

    def add(self, role: str, part: dict) -> None:
        if role != self.role:
            self.flush()
            self.role = role
        self.parts.append(part)

    def flush(self) -> None:
        if self.role == "model":
            sign_calls(self.parts)
        if self.parts:
            self.out.write((b"\n" if self.written == 0 else b",\n") + jsonout.dumps({"role": self.role, "parts": self.parts}))
            self.written += 1
        self.parts = []
        self.role = None

    def close(self, system: list[dict]) -> None:
        self.flush()
        self.out.write(b"\n]" if self.written else b"]")
        if system:
            self.out.write(b',"systemInstruction":' + jsonout.dumps({"parts": system}))
        self.out.write(b"}\n")


def sign_calls(parts: list[dict]) -> None:
    """Gemini 3 refuses a model turn whose function calls carry no thought
    signature.  History from another model has none: the first call gets
    the stand-in Google documents for that case."""
    calls = [p for p in parts if "functionCall" in p]
    if calls and not any("thoughtSignature" in p for p in calls):
        calls[0]["thoughtSignature"] = DUMMY_SIGNATURES[0]


class _OpenCalls:
    """Written calls still waiting for their response, in the order written
    (an id written twice waits twice), with the look-ups a response needs:
    whether an id waits, the oldest waiting, the oldest of a tool name.  A
    list searched and edited per response made 40,000 waiting calls take a
    minute; here each is a look-up, and a removed call leaves a gap that is
    skipped (all of them dropped once none waits)."""

    __slots__ = ("ids", "head", "left", "where", "by_name")

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.ids: list[str | None] = []
        self.head = 0
        self.left = 0
        self.where: dict[str, deque] = {}
        self.by_name: dict[str, deque] = {}

    def __bool__(self) -> bool:
        return self.left > 0

    def __contains__(self, call_id: object) -> bool:
        return bool(self.where.get(call_id)) if isinstance(call_id, str) else False

    def __iter__(self) -> Iterator[str]:
        return (call_id for call_id in self.ids[self.head :] if call_id is not None)

    def append(self, call_id: str, name: str) -> None:
        index = len(self.ids)
        self.ids.append(call_id)
        self.where.setdefault(call_id, deque()).append(index)
        self.by_name.setdefault(name, deque()).append(index)
        self.left += 1

    def first(self) -> str:
        return self.ids[self.head]  # type: ignore[return-value]

    def first_named(self, name: object) -> str | None:
        waiting = self.by_name.get(name) if isinstance(name, str) else None
        while waiting and self.ids[waiting[0]] is None:
            waiting.popleft()
        return self.ids[waiting[0]] if waiting else None

    def remove(self, call_id: str) -> None:
        self.ids[self.where[call_id].popleft()] = None
        self.left -= 1
        if not self.left:
            self.clear()
            return
        while self.ids[self.head] is None:
            self.head += 1


class GeminiTurns:
    def __init__(self, out: BinaryIO, counts: Counter, contents: Any = None) -> None:
        # ``contents``: where finished turns go (``add(role, part)``, ``close(system)``)
        self.contents = ContentsArray(out) if contents is None else contents
        self.system: list[dict] = []
        self.counts = counts
        self.open_calls = _OpenCalls()  # written calls still waiting for their response
        self.responding = False  # the user turn after the calls has started
        self.deferred: list[dict] = []
        self.replaying = False
        self.deferred_bytes = 0
        self.names: OrderedDict[str, str] = OrderedDict()
        self.synthetic_ids = 0

    # -- the stream ---------------------------------------------------------
    def message(self, event: dict) -> None:
        if self.open_calls and not self._fits_open_turn(event):
            self.deferred.append(event)
            self.deferred_bytes += len(event.get("text") or "")
            if len(self.deferred) > MAX_DEFERRED or self.deferred_bytes > MAX_DEFERRED_BYTES:
                self._answer_missing()
            return
        self._write(event)
        if not self.open_calls and self.deferred and not self.replaying:
            self._replay()

    def finish(self) -> None:
        self._answer_missing()
        self.contents.close(self.system)

    def _fits_open_turn(self, event: dict) -> bool:
        kind = kind_of(event)
        if kind == "tool_result":
            return self._open_id(event) is not None
        if self.responding or self.deferred:  # keep the order of what waits
            return False
        return kind == "tool_use" or (event.get("role") == "assistant" and kind in ("text", "thinking"))

    def _replay(self) -> None:
        if self.replaying:
            return
        self.replaying = True
        try:
            # Each pass writes what fits and holds back the rest, in order;
            # a held-back result may answer a call opened during the pass.
            while self.deferred and not self.open_calls:
                waiting, self.deferred = self.deferred, []
                self.deferred_bytes = 0
                for event in waiting:
                    self.message(event)
        finally:
            self.replaying = False

    def _answer_missing(self) -> None:
        for call_id in list(self.open_calls):
            self.counts["call(s) without a result answered with an error"] += 1
            self._response(call_id, self.names.get(call_id, "unknown"), {"error": MISSING_RESULT})
        self.open_calls.clear()
        self.responding = False
        self._replay()

    # -- one message -------------------------------------------------------
    def _write(self, event: dict) -> None:
        kind = kind_of(event)
        role = event.get("role")
        meta = event.get("meta") or {}
        text = event.get("text") or ""
        if not isinstance(text, str):
            text = str(text)
        if meta.get("notice"):
            self.counts["UI notice(s) dropped"] += 1
            return
        if isinstance(meta.get("geminiPart"), dict):
            self.contents.add("model" if role == "assistant" else "user", meta["geminiPart"])
            return
        ref = meta.get("mediaRef")
        if kind == "text" and role in ("user", "assistant") and isinstance(ref, dict) and isinstance(ref.get("fileData"), dict):
            self.contents.add("model" if role == "assistant" else "user", {"fileData": ref["fileData"]})
            return
        if kind == "tool_use":
            self._call(event, meta)
        elif kind == "tool_result":
            self._result(event, meta, text)
        elif role == "system":
            if text:
                self.system.append({"text": text})
            else:
                self.counts["empty message(s) dropped"] += 1
        elif kind == "thinking":
            part: dict[str, Any] = {"text": text, "thought": True}
            if not self._sign(part, meta) and not text:
                self.counts["empty thinking block(s) dropped"] += 1
                return
            self.contents.add("model", part)
        elif role == "assistant":
            part = {"text": text}
            if not self._sign(part, meta) and not text:
                self.counts["empty message(s) dropped"] += 1
                return
            self.contents.add("model", part)
        else:
            if not text:
                self.counts["empty message(s) dropped"] += 1
                return
            self.contents.add("user", {"text": text})

    @staticmethod
    def _sign(part: dict, meta: dict) -> bool:
        signature = meta.get("thoughtSignature")
        if isinstance(signature, str) and signature:
            part["thoughtSignature"] = signature
            return True
        return False

    def _call(self, event: dict, meta: dict) -> None:
        if meta.get("geminiPart") == "executableCode":
            code = event.get("toolInput") if isinstance(event.get("toolInput"), dict) else {}
            self.contents.add("model", {"executableCode": {"language": code.get("language", "PYTHON"), "code": code.get("code", event.get("text") or "")}})
            return
        if meta.get("geminiPart") == "toolCall":
            # A built-in tool the API ran: given back as the model's toolCall.
            part = {"toolCall": {"id": event.get("toolCallId"), "toolType": _tool_type(event), "args": event.get("toolInput") or {}}}
            self._sign(part, meta)
            self.contents.add("model", part)
            return
        name = event.get("toolName")
        name = name if isinstance(name, str) and name else "unknown"
        call_id = event.get("toolCallId")
        if not isinstance(call_id, str) or not call_id:
            self.synthetic_ids += 1
            call_id = f"call_{self.synthetic_ids}"
        args = event.get("toolInput")
        if args is None:
            args = {}
        elif not isinstance(args, dict):
            args = {"input": args}
        part: dict[str, Any] = {"functionCall": {"id": call_id, "name": name, "args": args}}
        self._sign(part, meta)
        self.contents.add("model", part)
        self.open_calls.append(call_id, name)
        self.names[call_id] = name
        if len(self.names) > MAX_NAMES:
            self.names.popitem(last=False)

    def _open_id(self, event: dict) -> str | None:
        call_id = event.get("toolCallId")
        if call_id in self.open_calls:
            return call_id
        if not call_id and self.open_calls:
            return self.open_calls.first_named(event.get("toolName")) or self.open_calls.first()
        return None

    def _result(self, event: dict, meta: dict, text: str) -> None:
        if meta.get("geminiPart") == "codeExecutionResult":
            outcome = meta.get("outcome") or ("OUTCOME_FAILED" if event.get("isError") else "OUTCOME_OK")
            self.contents.add("model", {"codeExecutionResult": {"outcome": outcome, "output": text}})
            return
        if meta.get("geminiPart") == "toolResponse":
            part = {"toolResponse": {"id": event.get("toolCallId"), "toolType": _tool_type(event), "response": response_object(event, meta, text)}}
            self.contents.add("model", part)
            return
        call_id = self._open_id(event)
        if call_id is None:
            self.counts["result(s) without an open call written as user text"] += 1
            call_id = event.get("toolCallId")
            name = event.get("toolName") or (self.names.get(call_id) if isinstance(call_id, str) else None) or "a tool"
            self.contents.add("user", {"text": f"[result of {name}]\n{text}"})
            return
        self._response(call_id, self.names.get(call_id) or event.get("toolName") or "unknown", response_object(event, meta, text))

    def _response(self, call_id: str, name: str, response: dict) -> None:
        self.contents.add("user", {"functionResponse": {"id": call_id, "name": name, "response": response}})
        self.open_calls.remove(call_id)
        self.responding = bool(self.open_calls)


def _tool_type(event: dict) -> str:
    """``google_search_web`` → ``GOOGLE_SEARCH_WEB`` (the reader's name of a built-in tool)."""
    name = event.get("toolName")
    return name.upper() if isinstance(name, str) and name and name != "server_tool" else "TOOL_TYPE_UNSPECIFIED"


def response_object(event: dict, meta: dict, text: str) -> dict:
    """The functionResponse ``response`` of a result event, as its reader
    kept it (``meta.responseJson``, ``meta.responseKey``), else ``{output}``
    or ``{error}``."""
    if meta.get("responseJson"):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
    key = meta.get("responseKey")
    if isinstance(key, str) and key:
        return {key: text}
    return {"error": text} if event.get("isError") else {"output": text}
