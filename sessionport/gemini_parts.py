"""Gemini ``Content`` / ``Part`` objects as sessionport events.

Shared by the ``gemini`` importer (API contents, recorded traffic) and the
``gemini-cli`` importer (session records, checkpoints), which both hold the
same ``@google/genai`` Part shapes.  REST JSON is camelCase; snake_case keys
written by the Python SDK's ``model_dump()`` are accepted too.
"""

from __future__ import annotations

from typing import Any, Iterator

import orjson

from sessionport import media
from sessionport.context import ReadContext
from sessionport.model import message_event
from sessionport.model import human_size

# Keys of a functionResponse.response object whose single string value is
# the tool's output.  ``output`` is gemini-cli's and the exporter's default.
RESPONSE_TEXT_KEYS = ("output", "result", "return_value", "content", "text")
TOOL_INPUT_PREVIEW = 200
# What the gemini exporter answers a call that had no result with (the API
# refuses an unanswered call); reading it back leaves the call unpaired again.
MISSING_RESULT = "sessionport: no result was recorded for this call"
# Google's documented stand-in signatures for history that no Gemini model
# produced (Gemini 3 refuses function calls without one).  Not a real
# signature: the exporter writes one, reading drops it.
DUMMY_SIGNATURES = ("skip_thought_signature_validator", "context_engineering_is_the_way_to_go")
MAX_PENDING_CALLS = 4096


def _get(part: dict, camel: str, snake: str | None = None) -> Any:
    value = part.get(camel)
    if value is None and snake:
        value = part.get(snake)
    return value


def blob_placeholder(blob: Any, label: str = "") -> str:
    """``[image: image/png, 1.0 MB]`` for inline base64 data (never the data)."""
    if not isinstance(blob, dict):
        return "[attachment]"
    mime = _get(blob, "mimeType", "mime_type") or "application/octet-stream"
    kind = label or str(mime).split("/", 1)[0]
    if kind not in ("image", "audio", "video"):
        kind = "file"
    data = blob.get("data")
    details = [str(mime)]
    name = _get(blob, "displayName", "display_name")
    if name:
        details.insert(0, str(name))
    if isinstance(data, str):
        details.append(human_size(len(data) * 3 // 4))
    return f"[{kind}: {', '.join(details)}]"


def file_placeholder(data: Any) -> str:
    if not isinstance(data, dict):
        return "[file]"
    mime = _get(data, "mimeType", "mime_type") or "application/octet-stream"
    uri = _get(data, "fileUri", "file_uri") or ""
    return f"[file: {mime}, {uri}]" if uri else f"[file: {mime}]"


def compact_json(value: Any) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)


def tool_input_preview(name: str, args: Any) -> str:
    """A one-line rendering of a call for the message text."""
    if isinstance(args, dict) and len(args) == 1:
        (value,) = args.values()
        if isinstance(value, str):
            text = value
        else:
            text = compact_json(args)
    elif args in (None, {}):
        text = ""
    else:
        text = compact_json(args)
    if len(text) > TOOL_INPUT_PREVIEW:
        text = text[: TOOL_INPUT_PREVIEW - 3] + "..."
    return text


def response_text(response: Any) -> tuple[str, dict, bool]:
    """Text of a functionResponse.response, the meta that rebuilds it, and
    whether it reports an error.  ``{"output": s}`` needs no meta (it is what
    the exporter writes back); other single string keys are remembered in
    ``responseKey``; any other object is kept as JSON text (``responseJson``)."""
    if isinstance(response, str):
        return response, {}, False
    if isinstance(response, dict) and len(response) == 1:
        (key, value), = response.items()
        if isinstance(value, str):
            if key == "error":
                return value, {}, True
            if key == "output":
                return value, {}, False
            return value, {"responseKey": key}, False
    if response is None:
        return "", {}, False
    is_error = isinstance(response, dict) and "error" in response and "output" not in response
    return compact_json(response), {"responseJson": True}, is_error


class CallPairing:
    """Pairs function calls with their responses.

    By id when both carry one; otherwise by order and name: a response takes
    the oldest unanswered call of the same name.  Calls without an id get a
    stable synthesized one (``gemini-call-<n>``, numbered in document order),
    so the same input always yields the same ids.
    """

    def __init__(self, prefix: str = "gemini-call") -> None:
        self.prefix = prefix
        self.calls = 0
        self.orphans = 0
        self.pending: list[tuple[str, str]] = []

    def call(self, call_id: Any, name: str) -> str:
        self.calls += 1
        cid = call_id if isinstance(call_id, str) and call_id else f"{self.prefix}-{self.calls}"
        self.pending.append((cid, name))
        if len(self.pending) > MAX_PENDING_CALLS:
            del self.pending[0]
        return cid

    def response(self, response_id: Any, name: str) -> str:
        pending = self.pending
        if isinstance(response_id, str) and response_id:
            for i, (cid, _) in enumerate(pending):
                if cid == response_id:
                    del pending[i]
                    return cid
        for i, (cid, cname) in enumerate(pending):
            if cname == name:
                del pending[i]
                return cid
        if isinstance(response_id, str) and response_id:
            return response_id
        self.orphans += 1
        return f"{self.prefix}-orphan-{self.orphans}"


class PartConverter:
    """Turns the parts of one Content into message events.

    ``join_text``: consecutive plain text parts become one message (a
    gemini-cli record is one message); otherwise each part is one message
    (an API Content may merge several messages into one turn).
    """

    def __init__(self, ctx: ReadContext, pairing: CallPairing | None = None) -> None:
        self.ctx = ctx
        self.pairing = pairing or CallPairing()
        self.unknown_parts = 0
        self.placeholders = 0

    def content_events(
        self,
        content: Any,
        path: str,
        *,
        base: dict | None = None,
        join_text: bool = False,
        skip_call_ids: frozenset = frozenset(),
    ) -> Iterator[dict]:
        """Events of one Content object ``{role, parts}``."""
        if not isinstance(content, dict):
            self.ctx.bad_record(f"expected a Content object {{role, parts}}, found {type(content).__name__}", path=path)
            return
        role = content.get("role")
        parts = content.get("parts")
        if parts is None and "text" in content:
            parts = [content]  # a bare Part where a Content was expected
        yield from self.parts_events(parts, role_of(role), f"{path}.parts", base=base, join_text=join_text, skip_call_ids=skip_call_ids)

    def parts_events(
        self,
        parts: Any,
        role: str,
        path: str,
        *,
        base: dict | None = None,
        join_text: bool = False,
        skip_call_ids: frozenset = frozenset(),
    ) -> Iterator[dict]:
        """Events of a PartListUnion: a string, a Part, or a list of them."""
        if parts is None:
            return
        if isinstance(parts, (str, dict)):
            parts = [parts]
        if not isinstance(parts, list):
            self.ctx.bad_record(f"expected a list of parts, found {type(parts).__name__}", path=path)
            return
        base = base or {}
        buffer: list[str] = []
        buffer_meta: dict = {}

        def flush() -> Iterator[dict]:
            if buffer:
                meta = {"kind": "text", **base.get("meta", {}), **buffer_meta}
                yield message_event(role, "".join(buffer), **{**base, "meta": meta})
                buffer.clear()
                buffer_meta.clear()

        for index, part in enumerate(parts):
            if isinstance(part, str):
                part = {"text": part}
            if not isinstance(part, dict):
                self.ctx.bad_record(f"expected a Part object, found {type(part).__name__}", path=f"{path}[{index}]")
                continue
            signature = _get(part, "thoughtSignature", "thought_signature")
            text = part.get("text")
            if join_text and isinstance(text, str) and not part.get("thought") and not signature:
                buffer.append(text)
                continue
            yield from flush()
            yield from self.part_events(part, role, f"{path}[{index}]", base, skip_call_ids)
        yield from flush()

    def part_events(self, part: dict, role: str, path: str, base: dict, skip_call_ids: frozenset) -> Iterator[dict]:
        meta: dict = dict(base.get("meta", {}))
        signature = _get(part, "thoughtSignature", "thought_signature")
        if signature is not None and signature not in DUMMY_SIGNATURES:
            meta["thoughtSignature"] = signature  # opaque: never re-encoded
        fields = {k: v for k, v in base.items() if k != "meta"}
        speaker = "assistant" if role == "assistant" else role
        text = part.get("text")
        call = _get(part, "functionCall", "function_call")
        response = _get(part, "functionResponse", "function_response")
        if isinstance(text, str):
            if part.get("thought"):
                yield message_event("assistant" if role != "system" else role, text, **fields, meta={"kind": "thinking", **meta})
            else:
                yield message_event(speaker, text, **fields, meta={"kind": "text", **meta})
        elif isinstance(call, dict):
            if isinstance(call.get("id"), str) and call["id"] in skip_call_ids:
                return
            yield self.call_event(call, path, fields, meta)
        elif isinstance(response, dict):
            if response.get("response") == {"error": MISSING_RESULT}:
                self.placeholders += 1
                return
            yield self.response_event(response, fields, meta)
        elif _get(part, "inlineData", "inline_data") is not None:
            blob = _get(part, "inlineData", "inline_data")
            event = message_event(speaker, blob_placeholder(blob), **fields, meta={"kind": "text", **meta, "attachment": True})
            if isinstance(blob, dict) and self.ctx.options.get("keep_images"):
                entry = media.from_base64(_get(blob, "mimeType", "mime_type"), blob.get("data"))
                if entry is not None:
                    event["media"] = [entry]
            yield event
        elif _get(part, "fileData", "file_data") is not None:
            data = _get(part, "fileData", "file_data")
            more = {"mediaRef": {"fileData": data}} if isinstance(data, dict) and _get(data, "fileUri", "file_uri") else {}
            # a file named by its URI holds no bytes: the part is kept and written back
            yield message_event(speaker, file_placeholder(data), **fields, meta={"kind": "text", **meta, "attachment": True, **more})
        elif _get(part, "executableCode", "executable_code") is not None:
            code = _get(part, "executableCode", "executable_code")
            code = code if isinstance(code, dict) else {"code": code}
            cid = self.pairing.call(code.get("id"), "code_execution")
            yield message_event(
                "tool", str(code.get("code") or ""), **fields, toolName="code_execution", toolCallId=cid,
                toolInput={k: v for k, v in code.items() if k != "id"}, meta={"kind": "tool_use", **meta, "geminiPart": "executableCode"},
            )
        elif _get(part, "codeExecutionResult", "code_execution_result") is not None:
            result = _get(part, "codeExecutionResult", "code_execution_result")
            result = result if isinstance(result, dict) else {"output": result}
            cid = self.pairing.response(result.get("id"), "code_execution")
            outcome = result.get("outcome")
            is_error = isinstance(outcome, str) and outcome not in ("OUTCOME_OK", "outcome_ok")
            extra = {"geminiPart": "codeExecutionResult"}
            if outcome is not None:
                extra["outcome"] = outcome
            yield message_event(
                "tool", str(result.get("output") or ""), **fields, toolCallId=cid, isError=True if is_error else None,
                meta={"kind": "tool_result", **meta, **extra},
            )
        elif isinstance(_get(part, "toolCall", "tool_call"), dict):
            yield self.server_call_event(_get(part, "toolCall", "tool_call"), fields, meta)
        elif isinstance(_get(part, "toolResponse", "tool_response"), dict):
            answer = _get(part, "toolResponse", "tool_response")
            tool = _server_tool_name(answer)
            cid = self.pairing.response(answer.get("id"), tool)
            text, extra, is_error = response_text(answer.get("response"))
            yield message_event(
                "tool", text, **fields, toolName=tool, toolCallId=cid, isError=True if is_error else None,
                meta={"kind": "tool_result", **meta, **extra, "geminiPart": "toolResponse"},
            )
        elif isinstance(_get(part, "audioTranscription", "audio_transcription"), dict):
            heard = _get(part, "audioTranscription", "audio_transcription").get("text")
            yield message_event(speaker, heard if isinstance(heard, str) else "", **fields, meta={"kind": "text", **meta, "geminiPart": "audioTranscription"})
        else:
            # A part this reader does not know: kept whole in meta, never dropped.
            self.unknown_parts += 1
            keys = [k for k, v in part.items() if v is not None and k not in ("thoughtSignature", "thought_signature", "thought")]
            label = keys[0] if keys else "empty part"
            self.ctx.unknown(label, what="content part", path=path)
            if not keys and signature is not None:
                # A bare signature part closes a thinking turn: keep it as empty thinking.
                yield message_event("assistant", "", **fields, meta={"kind": "thinking", **meta})
                return
            yield message_event(speaker, f"[{label}]", **fields, meta={"kind": "text", **meta, "geminiPart": part})

    def call_event(self, call: dict, path: str, fields: dict, meta: dict) -> dict:
        name = call.get("name")
        if not isinstance(name, str) or not name:
            self.ctx.warn(f"{path}: a functionCall without a name; called it 'unknown'")
            name = "unknown"
        args = call.get("args")
        if args is None:
            args = {}
        extra: dict = {}
        if not isinstance(args, dict):
            extra["rawArgs"] = args
            args = {"value": args}
        original_id = call.get("id")
        cid = self.pairing.call(original_id, name)
        if not original_id:
            extra["syntheticId"] = True
        return message_event(
            "tool", tool_input_preview(name, args), **fields, toolName=name, toolCallId=cid, toolInput=args,
            meta={"kind": "tool_use", **meta, **extra},
        )

    def server_call_event(self, call: dict, fields: dict, meta: dict) -> dict:
        """A built-in tool the API itself ran (``toolCall``: Google Search,
        URL context, Maps, file search), named after its ``toolType``; its
        ``toolResponse`` part answers it."""
        tool = _server_tool_name(call)
        args = call.get("args") if isinstance(call.get("args"), dict) else {}
        cid = self.pairing.call(call.get("id"), tool)
        extra = {} if call.get("id") else {"syntheticId": True}
        return message_event(
            "tool", tool_input_preview(tool, args), **fields, toolName=tool, toolCallId=cid, toolInput=args,
            meta={"kind": "tool_use", **meta, **extra, "serverTool": True, "geminiPart": "toolCall"},
        )

    def response_event(self, response: dict, fields: dict, meta: dict) -> dict:
        name = response.get("name")
        name = name if isinstance(name, str) else ""
        cid = self.pairing.response(response.get("id"), name)
        text, extra, is_error = response_text(response.get("response"))
        nested = response.get("parts")
        if isinstance(nested, list):
            pieces = [blob_placeholder(_get(p, "inlineData", "inline_data")) if isinstance(p, dict) and _get(p, "inlineData", "inline_data") is not None
                      else file_placeholder(_get(p, "fileData", "file_data")) if isinstance(p, dict) and _get(p, "fileData", "file_data") is not None
                      else str(p.get("text")) if isinstance(p, dict) and isinstance(p.get("text"), str) else "[part]"
                      for p in nested]
            text = "\n".join([text, *pieces]) if text else "\n".join(pieces)
        original = response.get("id")
        if isinstance(original, str) and original and original != cid:
            extra["responseId"] = original
        return message_event(
            "tool", text, **fields, toolName=name or None, toolCallId=cid, isError=True if is_error else None,
            meta={"kind": "tool_result", **meta, **extra},
        )


def _server_tool_name(body: dict) -> str:
    """``GOOGLE_SEARCH_WEB`` → ``google_search_web``."""
    tool = _get(body, "toolType", "tool_type")
    return tool.lower() if isinstance(tool, str) and tool else "server_tool"


def role_of(role: Any) -> str:
    """sessionport role of a Content role.  The API defaults a missing role
    to ``user``; ``function``/``tool`` are loose spellings for result turns."""
    if role in ("model", "assistant"):
        return "assistant"
    if role == "system":
        return "system"
    return "user"
