"""``openai-responses``: OpenAI Responses API item lists.

``{"input": [...]}`` (a request body, with optional ``instructions``), a
response object's ``output``, a bare item list, or recorded API traffic.
Messages, ``function_call`` / ``function_call_output`` (paired by
``call_id``), custom tool calls, hosted tool calls (``*_call`` /
``*_call_output``) and ``reasoning`` items (summary as text; ``id`` and
``encrypted_content`` kept verbatim in ``meta``) become events.
See docs/formats/openai-responses.md.
"""

from __future__ import annotations

from typing import Any, BinaryIO, Iterator

from sessionport import media
from sessionport.context import ReadContext
from sessionport.model import message_event
from sessionport.registry import Importer
from sessionport.formats.providers import openai_responses_items as hosted
from sessionport.formats.providers.cassette import RecordedTraffic
from sessionport.formats.providers.content import (
    base64_size,
    compact_extras,
    nonempty_str,
    openai_call_event,
    openai_part,
    placeholder,
    render_tool_input,
    text_of,
    url_placeholder,
)
from sessionport.formats.providers.reader import ProviderReader
from sessionport.formats.providers.sniff import RESPONSES
from sessionport.formats.providers.sniff import openai_responses as sniff

_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}


def _output_items(body: Any) -> list:
    if isinstance(body, dict) and isinstance(body.get("output"), list):
        return body["output"]
    return []


_TEXT_PARTS = ("input_text", "output_text", "text", "summary_text", "reasoning_text")


def _media(ptype: Any, part: dict) -> tuple[str, str] | None:
    """(placeholder, attachment kind) of a media part; never the payload."""
    if ptype == "input_image":
        if part.get("image_url"):
            return url_placeholder("image", part["image_url"]), "image"
        return placeholder("image", label=part.get("file_id")), "image"
    if ptype == "input_file":
        data = part.get("file_data")
        if isinstance(data, str) and data.startswith("data:"):
            return url_placeholder("file", data), "file"
        label = part.get("filename") or part.get("file_url") or part.get("file_id")
        return placeholder("file", label=label), "file"
    return None


def _is_reference(part: dict) -> bool:
    """Whether an ``input_image`` / ``input_file`` names its bytes (a URL, a
    file id) rather than holding them (a data URL, ``file_data``)."""
    if part.get("file_data"):
        return False
    url = part.get("image_url") or part.get("file_url")
    if isinstance(url, str) and url:
        return not url.startswith("data:")
    return isinstance(part.get("file_id"), str) and bool(part["file_id"])


def _part(part: Any) -> tuple[str, dict]:
    return openai_part(part, _TEXT_PARTS, _media)


def _joined(parts: Any) -> str:
    if isinstance(parts, list):
        return "\n\n".join(_part(p)[0] for p in parts)
    return text_of(parts)


# Hosted tools whose call item carries its own result, and under which key.
_INLINE_RESULTS = {"image_generation_call": "result", "code_interpreter_call": "outputs", "file_search_call": "results"}


class ResponsesReader(ProviderReader):
    source = RESPONSES
    keys = ("input", "output")

    def traffic(self) -> RecordedTraffic:
        return RecordedTraffic(
            matches_uri=lambda uri: "/responses" in uri,
            history_key="input",
            reply_items=_output_items,
        )

    def header_events(self, header: dict) -> Iterator[dict]:
        if isinstance(header.get("instructions"), str) and header["instructions"]:
            yield message_event("system", header["instructions"], meta={"kind": "text", "sourceField": "instructions"})
        if isinstance(header.get("input"), str):
            yield message_event("user", header["input"], meta={"kind": "text"})

    def item_events(self, item: Any, index: int) -> Iterator[dict]:
        if not isinstance(item, dict):
            self.ctx.bad_record(f"expected an item object, found {type(item).__name__}", path=f"input[{index}]")
            return
        itype = item.get("type")
        if itype in (None, "message") and "role" in item:
            yield from self._message(item, index)
        elif itype in ("function_call", "custom_tool_call"):
            yield self._call(item)
        elif itype in ("function_call_output", "custom_tool_call_output"):
            yield from self._output(item)
        elif itype == "reasoning":
            yield self._reasoning(item)
        elif isinstance(itype, str) and itype in hosted.READERS:
            yield from hosted.READERS[itype](item)
        elif itype == "computer_call_output":
            yield from self._screenshot(item)
        elif isinstance(itype, str) and itype.endswith("_call_output"):
            yield from self._output(item)
        elif itype == "mcp_call":
            yield from self._mcp_call(item)
        elif isinstance(itype, str) and itype in _INLINE_RESULTS:
            yield from self._hosted_call_with_result(item)
        elif isinstance(itype, str) and itype.endswith("_call"):
            yield from hosted.hosted_call(item)
        else:
            # item_reference: the item it names is stored by the API, not here
            self.skipped[f"{itype} item"] += 1

    def _message(self, item: dict, index: int) -> Iterator[dict]:
        role = _ROLES.get(item["role"]) if isinstance(item.get("role"), str) else None
        if role is None:
            self.ctx.bad_record(
                f"expected role user, assistant, system or developer, found {item.get('role')!r}",
                path=f"input[{index}].role",
                hint="use --skip-bad to skip such items",
            )
            return
        content = item.get("content")
        parts = content if isinstance(content, list) else [content] if content is not None else []
        extra = compact_extras(item, ("type", "role", "content", "phase", "id", "status"))
        for number, part in enumerate(parts):
            text, meta = _part(part)
            if meta.get("attachment") and _is_reference(part):
                meta["mediaRef"] = part  # a URL or a file id, no bytes: written back as it is
            if isinstance(part, dict) and part.get("type") == "output_text" and isinstance(part.get("annotations"), list) and part["annotations"]:
                # url_citation, file_citation, container_file_citation, file_path: offsets into this text
                meta["annotations"] = part["annotations"]
            if item.get("role") == "developer":
                meta["sourceRole"] = "developer"
            if isinstance(item.get("phase"), str):
                meta["phase"] = item["phase"]
            if number == 0:
                if isinstance(item.get("id"), str):
                    meta["itemId"] = item["id"]
                if extra:
                    meta["extra"] = extra
            if role == "assistant" and self.model:
                meta["model"] = self.model
            event = message_event(role, text, meta=meta)
            if meta.get("attachment") == "image" and self.ctx.options.get("keep_images"):
                media.attach(event, [m for m in (media.from_data_url(part.get("image_url")),) if m])
            yield event

    def _call(self, item: dict) -> dict:
        more: dict = {}
        if isinstance(item.get("id"), str):
            more["itemId"] = item["id"]
        extra = compact_extras(item, ("type", "call_id", "name", "arguments", "input", "id", "status"))
        if extra:
            more["extra"] = extra
        return openai_call_event(item, item.get("call_id"), item.get("type") == "custom_tool_call", more)

    def _screenshot(self, item: dict) -> Iterator[dict]:
        keep = bool(self.ctx.options.get("keep_images"))
        for event in hosted.computer_call_output(item, keep):
            output = item.get("output")
            if keep and isinstance(output, dict):
                media.attach(event, [m for m in (media.from_data_url(output.get("image_url")),) if m])
            yield event

    def _mcp_call(self, item: dict) -> Iterator[dict]:
        """A call of a remote MCP server's tool: the call and, once it ran,
        its ``output`` or ``error`` in the same item."""
        more: dict = {"itemType": "mcp_call"}
        if isinstance(item.get("id"), str):
            more["itemId"] = item["id"]
        more["item"] = hosted.slim(item)
        extra = compact_extras(item, ("type", "id", "name", "arguments", "output", "error", "status"))
        if extra:
            more["extra"] = extra
        call_id = nonempty_str(item.get("id"))
        yield openai_call_event(item, call_id, False, more)
        output, error = item.get("output"), item.get("error")
        if output is None and error is None:
            return
        text = text_of(output) if output is not None else ""
        if error is not None:
            # a protocol or HTTP error has a message; a tool's own failure
            # (mcp_tool_execution_error) its content blocks
            message = (error.get("message") if "message" in error else text_of(error.get("content")) or None) if isinstance(error, dict) else error
            text = "\n".join(t for t in (text, text_of(message) if isinstance(message, str) else render_tool_input(error)) if t)
        yield message_event("tool", text, toolCallId=call_id, isError=error is not None, meta={"kind": "tool_result", "itemType": "mcp_call"})

    def _hosted_call_with_result(self, item: dict) -> Iterator[dict]:
        """A hosted tool whose item holds its own result (``_INLINE_RESULTS``
        names the key): the call without it, then the result as text, media
        as placeholders (an image generation's base64 is never copied)."""
        itype = item["type"]
        result_key = _INLINE_RESULTS[itype]
        call_id = nonempty_str(item.get("call_id")) or nonempty_str(item.get("id"))
        tool_input = compact_extras(item, ("type", "id", "call_id", "status", result_key)) or {}
        meta = {"kind": "tool_use", "itemType": itype}
        if isinstance(item.get("status"), str):
            meta["status"] = item["status"]
        if itype != "image_generation_call" or self.ctx.options.get("keep_images"):
            # an image generation is kept whole only with its image (the
            # item's result): without it, written as a call and its output
            meta["item"] = hosted.slim(item)
        yield message_event(
            "tool", render_tool_input(tool_input), toolName=itype[: -len("_call")], toolCallId=call_id, toolInput=tool_input, meta=meta
        )
        result = item.get(result_key)
        if result is None:
            return
        if itype == "image_generation_call":
            mime = "image/" + item["output_format"] if isinstance(item.get("output_format"), str) else None
            text = placeholder("image", mime, base64_size(result), "generated")
            event = message_event("tool", text, toolCallId=call_id, meta={"kind": "tool_result", "itemType": itype, "attachment": "image"})
            if self.ctx.options.get("keep_images") and mime and isinstance(result, str):
                media.attach(event, [m for m in (media.from_data_url(f"data:{mime};base64,{result}"),) if m])
            yield event
            return
        lines = []
        for entry in result if isinstance(result, list) else [result]:
            if not isinstance(entry, dict):
                lines.append(text_of(entry))
            elif entry.get("type") == "logs":
                lines.append(text_of(entry.get("logs")))
            elif entry.get("type") == "image":
                lines.append(url_placeholder("image", entry.get("url")))
            else:  # a file search hit: its file, then its text
                name = entry.get("filename") or entry.get("file_id")
                lines.append("\n".join(t for t in (f"[file: {name}]" if isinstance(name, str) else "", text_of(entry.get("text"))) if t))
        yield message_event("tool", "\n".join(t for t in lines if t), toolCallId=call_id, meta={"kind": "tool_result", "itemType": itype})

    def _output(self, item: dict) -> Iterator[dict]:
        text = _joined(item.get("output"))
        if self.placeholder_result(text, "placeholder tool output"):
            return
        meta: dict = {"kind": "tool_result"}
        if item.get("type") != "function_call_output":
            meta["itemType"] = item.get("type")
        if isinstance(item.get("id"), str):
            meta["itemId"] = item["id"]
        event = message_event("tool", text, toolCallId=nonempty_str(item.get("call_id")) or nonempty_str(item.get("id")), meta=meta)
        output = item.get("output")
        if isinstance(output, list) and self.ctx.options.get("keep_images"):
            media.attach(event, [m for m in (media.from_data_url(p.get("image_url")) for p in output if isinstance(p, dict) and p.get("type") == "input_image") if m])
        yield event

    def _reasoning(self, item: dict) -> dict:
        summary = _joined(item.get("summary"))
        content = _joined(item.get("content")) if item.get("content") else ""
        meta: dict = {"kind": "thinking"}
        if isinstance(item.get("id"), str) and item["id"]:
            meta["itemId"] = item["id"]
        if isinstance(item.get("encrypted_content"), str):
            meta["encryptedContent"] = item["encrypted_content"]
        if summary and content:
            meta["reasoningText"] = content
        if not summary and content:
            meta["fromContent"] = True
        if self.model:
            meta["model"] = self.model
        return message_event("assistant", summary or content, meta=meta)


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    return ResponsesReader(ctx).read(stream)


IMPORTER = Importer(
    name=RESPONSES,
    description="OpenAI Responses API items: {input: [...]}, a response's output, a bare item list, or recorded API traffic",
    read=read,
    sniff=sniff,
    patterns=("*.json",),
)
