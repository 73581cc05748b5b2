"""``gemini``: Gemini API conversation history (a list of ``Content``).

Accepted shapes, all read with ijson one item at a time:

- a bare JSON list of Content ``[{role, parts}, ...]``;
- a generateContent request ``{"contents": [...], "systemInstruction": ...}``;
- recorded API traffic ``{"interactions": [{request_body, response_body}]}``
  (a VCR cassette turned into JSON).  Every request resends the history, so
  the conversation is the longest request plus the last response: each
  request adds the contents beyond those already emitted, and a response is
  emitted only when no later request resent it (the resent copy carries the
  call ids the client added).  Memory holds one interaction.

When ``systemInstruction`` comes after ``contents`` (the usual key order of
SDK dumps) the message events are spooled to a temporary file until the
document ends, so that the system message still comes first.
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.jsondoc import first_significant_byte, walk_document
from sessionport.model import end_event, message_event, session_event
from sessionport.registry import Importer
from sessionport.gemini_parts import CallPairing, PartConverter
from sessionport.io import spool_file
from sessionport.formats.providers.gemini_sniff import sniff

ARRAY_KEYS = ("contents", "interactions")


class _Reader:
    def __init__(self, ctx: ReadContext) -> None:
        self.ctx = ctx
        self.converter = PartConverter(ctx, CallPairing())
        self.model: str | None = None
        self.usage: dict[str, int] = {}
        self.notes: list[str] = []
        self.skipped: dict[str, int] = {}
        self.late: dict = {}  # request keys that followed the history

    def content(self, item: Any, path: str) -> Iterator[dict]:
        by_model = isinstance(item, dict) and item.get("role") in ("model", "assistant")
        base = {"meta": {"model": self.model}} if self.model and by_model else None
        yield from self.converter.content_events(item, path, base=base)

    def system(self, instruction: Any, path: str) -> Iterator[dict]:
        if instruction is None:
            return
        if isinstance(instruction, str):
            yield message_event("system", instruction, meta={"kind": "text"})
            return
        parts = instruction.get("parts") if isinstance(instruction, dict) else instruction
        for event in self.converter.parts_events(parts, "system", f"{path}.parts"):
            event["role"] = "system"
            yield event

    def add_usage(self, metadata: Any) -> None:
        if not isinstance(metadata, dict):
            return
        prompt = _int(metadata.get("promptTokenCount")) + _int(metadata.get("toolUsePromptTokenCount"))
        cached = _int(metadata.get("cachedContentTokenCount"))
        thoughts = _int(metadata.get("thoughtsTokenCount"))
        output = _int(metadata.get("candidatesTokenCount")) + thoughts
        for key, value in (("input_tokens", prompt), ("cached_input_tokens", cached), ("output_tokens", output), ("reasoning_output_tokens", thoughts)):
            self.usage[key] = self.usage.get(key, 0) + value
        self.usage["total_tokens"] = self.usage["input_tokens"] + self.usage["output_tokens"]

    def end(self) -> dict | None:
        if self.converter.unknown_parts:
            self.notes.append(f"{self.converter.unknown_parts} part(s) of an unknown kind kept whole in meta.geminiPart")
        if self.converter.placeholders:
            self.skipped["placeholder result"] = self.converter.placeholders
        unknown = self.ctx.report_unknown()
        if not (self.usage or self.notes or self.skipped or self.late or unknown):
            return None
        return end_event(usage=self.usage or None, skipped=self.skipped or None, notes=self.notes or None, metadata=self.late or None, unknown=unknown or None)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


SYSTEM_KEYS = ("systemInstruction", "system_instruction")


def _session(ctx: ReadContext, header: dict) -> dict:
    # Request keys beside the history (generationConfig, tools, ...) are kept.
    metadata = {k: v for k, v in header.items() if k not in SYSTEM_KEYS}
    return session_event("gemini", sessionId=_session_id(ctx), metadata=metadata)


def _session_id(ctx: ReadContext) -> str | None:
    if ctx.path:
        return os.path.splitext(os.path.basename(ctx.path))[0]
    return None


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    reader = _Reader(ctx)
    is_object = first_significant_byte(stream) == b"{"
    spool_needed = system_done = False
    spool = None
    index = 0
    traffic: _Traffic | None = None
    header: dict = {}
    for kind, value in walk_document(stream, ctx, ARRAY_KEYS):
        if kind == "start":
            header = value
            yield _session(ctx, value)
            system = value.get("systemInstruction", value.get("system_instruction"))
            if system is not None:
                yield from reader.system(system, "$.systemInstruction")
            system_done = system is not None
            spool_needed = is_object and system is None
        elif kind == "item":
            if traffic is None and index == 0 and _looks_like_interaction(value):
                traffic = _Traffic(reader)
            if traffic is not None:
                yield from traffic.interaction(value, index)
            elif spool_needed:
                if spool is None:
                    spool = spool_file()
                for event in reader.content(value, f"contents[{index}]"):
                    spool.write(orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE))
            else:
                yield from reader.content(value, f"contents[{index}]")
            index += 1
        else:
            _check_shape(value, index, ctx)
            reader.late = {k: v for k, v in value.items() if k not in header and k not in SYSTEM_KEYS}
            if not system_done:
                yield from reader.system(value.get("systemInstruction", value.get("system_instruction")), "$.systemInstruction")
            if spool is not None:
                yield from _replay(spool)
                spool = None
    if spool is not None:  # a torn document: what was read
        yield from _replay(spool)
    if traffic is not None:
        yield from traffic.finish()
    end = reader.end()
    if end is not None:
        yield end


def _check_shape(document: dict, items: int, ctx: ReadContext) -> None:
    for key in ARRAY_KEYS:
        if key in document:  # the array itself never reaches the document
            ctx.bad_record(f"expected a list under {key!r}, found {type(document[key]).__name__}", path=f"$.{key}")
            return
    known = ("systemInstruction", "system_instruction")
    if items == 0 and document and not any(k in document for k in known):
        ctx.bad_record(
            "expected a list of Gemini Content objects, or an object with a 'contents' list",
            path="$",
            hint="name the format with --from if detection picked the wrong one",
        )


def _replay(spool) -> Iterator[dict]:
    spool.seek(0)
    for line in spool:
        yield orjson.loads(line)
    spool.close()


def _looks_like_interaction(value: Any) -> bool:
    return isinstance(value, dict) and ("request_body" in value or "response_body" in value) and "parts" not in value


class _Traffic:
    """The conversation inside recorded request/response pairs."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.emitted = 0
        self.pending: tuple[Any, str] | None = None
        self.system_done = False
        self.foreign = 0

    def interaction(self, item: Any, index: int) -> Iterator[dict]:
        reader = self.reader
        path = f"interactions[{index}]"
        request = item.get("request_body") if isinstance(item, dict) else None
        response = item.get("response_body") if isinstance(item, dict) else None
        contents = request.get("contents") if isinstance(request, dict) else None
        if not isinstance(contents, list):
            self.foreign += 1
            reader.skipped["interaction"] = reader.skipped.get("interaction", 0) + 1
            return
        if not self.system_done:
            self.system_done = True
            yield from reader.system(request.get("systemInstruction", request.get("system_instruction")), f"{path}.request_body.systemInstruction")
        if len(contents) < self.emitted:
            reader.notes.append(f"{path}: the request history is shorter than the conversation so far; the extra contents of the earlier requests are kept")
        # A response the next request did not resend was dropped by the client (a retry).
        self.pending = None
        for offset, content in enumerate(contents[self.emitted :], start=self.emitted):
            yield from reader.content(content, f"{path}.request_body.contents[{offset}]")
        self.emitted = max(self.emitted, len(contents))
        if isinstance(response, list):
            response = merge_stream_chunks(response)
        if isinstance(response, dict):
            reader.add_usage(response.get("usageMetadata"))
            if isinstance(response.get("modelVersion"), str):
                reader.model = response["modelVersion"]
            candidates = response.get("candidates")
            if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
                content = candidates[0].get("content")
                if content is not None:
                    self.pending = (content, f"{path}.response_body.candidates[0].content")

    def finish(self) -> Iterator[dict]:
        if self.pending is not None:
            content, path = self.pending
            self.pending = None
            yield from self.reader.content(content, path)
        if self.foreign:
            self.reader.notes.append(f"{self.foreign} recorded interaction(s) without Gemini contents skipped")


def merge_stream_chunks(chunks: list) -> dict:
    """One response from the chunks of a recorded ``streamGenerateContent``:
    the first candidate's parts in order, consecutive text of one kind
    joined (streaming splits it anywhere), the last usage and model."""
    parts: list[dict] = []
    merged: dict = {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            continue
        for key in ("usageMetadata", "modelVersion"):
            if chunk.get(key) is not None:
                merged[key] = chunk[key]
        candidates = chunk.get("candidates")
        content = candidates[0].get("content") if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict) else None
        new = content.get("parts") if isinstance(content, dict) else None
        for part in new if isinstance(new, list) else ():
            last = parts[-1] if parts else None
            if (
                isinstance(part, dict) and isinstance(part.get("text"), str) and last is not None
                and isinstance(last.get("text"), str) and bool(last.get("thought")) == bool(part.get("thought"))
                and "thoughtSignature" not in last and set(part) <= {"text", "thought", "thoughtSignature"}
            ):
                parts[-1] = {**last, **part, "text": last["text"] + part["text"]}
            elif isinstance(part, dict):
                parts.append(dict(part))
    merged["candidates"] = [{"content": {"role": "model", "parts": parts}}]
    return merged


IMPORTER = Importer(
    name="gemini",
    description="Gemini API history: a Content list, a generateContent request, or recorded API traffic",
    read=read,
    sniff=sniff,
    patterns=("*.json",),
)
