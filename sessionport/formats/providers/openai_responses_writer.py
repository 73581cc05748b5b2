"""``openai-responses``: one Responses API request document ``{"input": [...]}``.

Assistant texts become assistant ``message`` items (``phase`` kept), tool
calls ``function_call`` items (``custom_tool_call`` for custom tools) whose
``function_call_output`` items follow before anything else, thinking becomes
``reasoning`` items (summary from the text; the original ``rs_`` id and
``encrypted_content`` when the source had them).  A leading system prompt
that came from ``instructions`` goes back there; other system messages are
``system``/``developer`` message items in place.  An event that keeps the
Responses item it was read from (``meta.item``: hosted tools, MCP, tool
search, programs, compaction, configuration) is written as that item.
See docs/formats/openai-responses.md.
"""

from __future__ import annotations

import itertools
from typing import BinaryIO, Iterable, Iterator

from sessionport.context import WriteContext
from sessionport.registry import Exporter
from sessionport.formats.providers.document import TurnWriter
from sessionport.formats.providers.media_refs import RESPONSES, media_ref
from sessionport.formats.providers.openai_responses_items import OUTPUT_TYPES, SELF_ANSWERED
from sessionport.formats.providers.turns import Part, Turn, arguments_of, call_name, meta_of, result_output, system_role, text_content, user_text


class _Writer(TurnWriter):
    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        super().__init__(out, ctx, "input")
        self.custom_calls: set[str] = set()
        self.reasoning_ids = itertools.count(1)
        self.synthesized_reasoning = 0
        # Calls written as the item they were read from, waiting for an
        # output item of their type (until their user turn is written).
        self.hosted_calls: dict[str, str] = {}
        self.unanswered_hosted = 0
        self.screenshots_left_out = 0
        self.annotations_left_out = 0

    def open(self, instructions: str | None = None) -> None:
        if not self.doc.opened:
            self.doc.open({"model": self.model, "instructions": instructions})

    def turn(self, turn: Turn) -> None:
        if turn.role == "system":
            self.system(turn)
            return
        self.open()
        if turn.role == "assistant":
            for part in turn.parts:
                self.assistant_part(part)
        else:
            self.user(turn)

    def system(self, turn: Turn) -> None:
        parts = [p for p in turn.parts if p.event and p.event.get("text")]
        if turn.leading and not self.doc.opened:
            instructions = [p.event["text"] for p in parts if meta_of(p).get("sourceField") == "instructions"]
            self.open("\n\n".join(instructions) if instructions else None)
            parts = [p for p in parts if meta_of(p).get("sourceField") != "instructions"]
        self.open()
        for part in parts:
            item = kept_item(part)
            if item is not None:
                self.doc.item(item)
            else:
                self.doc.item({"type": "message", "role": system_role(part), "content": part.event["text"]})

    def assistant_part(self, part: Part) -> None:
        event = part.event or {}
        meta = meta_of(part)
        item = kept_item(part)
        if item is not None:
            if part.kind == "tool_use":
                self.hosted_calls[part.call_id] = item["type"]
            self.doc.item(item)
        elif part.kind == "tool_use":
            if meta.get("customTool"):
                self.custom_calls.add(part.call_id)
                tool_input = event.get("toolInput") or {}
                value = tool_input.get("input") if isinstance(tool_input, dict) else tool_input
                self.doc.item({"type": "custom_tool_call", "call_id": part.call_id, "name": call_name(part), "input": value if isinstance(value, str) else arguments_of(event)})
            else:
                self.doc.item({"type": "function_call", "call_id": part.call_id, "name": call_name(part), "arguments": arguments_of(event)})
        elif part.kind == "thinking":
            self.doc.item(self.reasoning(event, meta))
        elif event.get("text"):
            item = {"type": "message", "role": "assistant", "content": event["text"]}
            annotations = meta.get("annotations")
            if isinstance(annotations, list) and annotations:
                if isinstance(meta.get("itemId"), str) and meta["itemId"]:
                    # only the output-message shape (its id and status) holds output_text with its annotations
                    item = {"type": "message", "role": "assistant", "id": meta["itemId"], "status": "completed",
                            "content": [{"type": "output_text", "text": event["text"], "annotations": annotations}]}
                else:
                    self.annotations_left_out += len(annotations)
            if meta.get("phase") in ("commentary", "final_answer"):
                item["phase"] = meta["phase"]
            self.doc.item(item)

    def reasoning(self, event: dict, meta: dict) -> dict:
        item_id = meta.get("itemId")
        if not (isinstance(item_id, str) and item_id.startswith("rs_")):
            item_id = f"rs_sp{next(self.reasoning_ids):04d}"
            self.synthesized_reasoning += 1
        text = event.get("text", "")
        item: dict = {"type": "reasoning", "id": item_id, "summary": []}
        if text and meta.get("fromContent"):
            item["content"] = [{"type": "reasoning_text", "text": text}]
        elif text:
            item["summary"] = [{"type": "summary_text", "text": text}]
            if isinstance(meta.get("reasoningText"), str):
                item["content"] = [{"type": "reasoning_text", "text": meta["reasoningText"]}]
        if isinstance(meta.get("encryptedContent"), str):
            item["encrypted_content"] = meta["encryptedContent"]
        return item

    def user(self, turn: Turn) -> None:
        texts = []
        for part in turn.parts:
            if part.call_id in self.hosted_calls and part.kind in ("tool_result", "missing_result"):
                self.hosted_calls.pop(part.call_id)
                item = kept_item(part)
                if item is not None and item["type"] in OUTPUT_TYPES:
                    screenshot = item.get("output") if item["type"] == "computer_call_output" else None
                    if isinstance(screenshot, dict) and not (screenshot.get("image_url") or screenshot.get("file_id")):
                        self.screenshots_left_out += 1
                    self.doc.item(item)
                    continue
                if part.kind == "missing_result":
                    # no output of that item's shape to write: none is
                    self.stats.missing_results -= 1
                    self.unanswered_hosted += 1
                    continue
            output = result_output(part)
            if output is not None:
                kind = "custom_tool_call_output" if part.call_id in self.custom_calls else "function_call_output"
                self.doc.item({"type": kind, "call_id": part.call_id, "output": output})
            else:
                reference = media_reference(part)
                if reference is not None:
                    texts.append(reference)
                    continue
                text = user_text(part)
                if text:
                    texts.append(text)
        if texts and all(isinstance(t, str) for t in texts):
            self.doc.item({"type": "message", "role": "user", "content": text_content(texts, "input_text")})
        elif texts:
            content = [t if isinstance(t, dict) else {"type": "input_text", "text": t} for t in texts]
            self.doc.item({"type": "message", "role": "user", "content": content})

    def close(self) -> None:
        self.open()
        self.close_document()
        if self.unanswered_hosted:
            self.ctx.warn(
                f"{self.unanswered_hosted} hosted-tool call(s) (computer, shell, apply_patch, tool_search, program, MCP approval) "
                "had no recorded output; none was written for them"
            )
        if self.screenshots_left_out:
            self.ctx.warn(
                f"{self.screenshots_left_out} computer_call_output item(s) were written without their screenshot (read without "
                "--keep-images, only its placeholder was kept); the API refuses to replay such an item"
            )
        if self.annotations_left_out:
            self.ctx.warn(
                f"{self.annotations_left_out} output_text annotation(s) (citations) left out: their message has no Responses "
                "item id, and only an output message (id and status) carries them"
            )
        if self.synthesized_reasoning:
            self.ctx.warn(
                f"{self.synthesized_reasoning} reasoning item(s) got a synthesized id (their thinking did not come from the "
                "Responses API); the API may refuse to replay them"
            )


def _self_answered_as_items(events: Iterable[dict]) -> Iterator[dict]:
    """A call item that holds its own result (a web search, an MCP call, a
    code interpreter run) passes as one assistant item: the turns never
    wait for a result that no output item will bring, and its result
    event, already inside the item, is not written again.  The reader
    gives that result right after its call, so only the last such call's
    id is remembered."""
    waiting: str | None = None
    for event in events:
        meta = event.get("meta") if event.get("type") == "message" else None
        itype = meta.get("itemType") if isinstance(meta, dict) else None
        if itype in SELF_ANSWERED:
            if meta.get("kind") == "tool_result" and waiting is not None and event.get("toolCallId") == waiting:
                waiting = None
                continue
            if meta.get("kind") == "tool_use" and isinstance(meta.get("item"), dict) and meta["item"].get("type") == itype:
                waiting = event.get("toolCallId") if isinstance(event.get("toolCallId"), str) else None
                yield {**event, "role": "assistant", "meta": {**meta, "kind": "text"}}
                continue
        waiting = None
        yield event


def media_reference(part: Part) -> dict | None:
    """The ``input_image`` / ``input_file`` part of a user part that named its
    bytes by a URL or a file id (``meta.mediaRef``): a Responses part as it
    was read; a URL of another API as the same URL, an OpenAI file id as the
    same id (see :mod:`.media_refs`)."""
    ref = media_ref(part)
    if ref is None:
        return None
    if ref.api == RESPONSES:
        return ref.part
    if ref.kind == "image":
        return {"type": "input_image", "image_url": ref.url, "detail": ref.detail or "auto"} if ref.url is not None else None
    if ref.openai_file() is not None:
        return {"type": "input_file", "file_id": ref.file_id}
    return {"type": "input_file", "file_url": ref.url} if ref.url is not None else None


def kept_item(part: Part) -> dict | None:
    """The Responses item an event was read from, when its reader kept it
    (``meta.item``, a hosted-tool, MCP, compaction or configuration item):
    written back as it was."""
    meta = meta_of(part)
    item = meta.get("item")
    if not (isinstance(item, dict) and isinstance(item.get("type"), str) and item["type"] == meta.get("itemType")):
        return None
    tool_input = (part.event or {}).get("toolInput")
    if meta.get("itemInput") == "fields" and isinstance(tool_input, dict):
        return {**item, **tool_input}  # the fields the call's input holds
    if meta.get("itemInput") == "arguments" and isinstance(tool_input, dict):
        return {**item, "arguments": tool_input}
    return item


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    _Writer(out, ctx).write(_self_answered_as_items(events), id_prefix="call_sp")


EXPORTER = Exporter(
    name="openai-responses",
    description="OpenAI Responses API request: {input: [...]} with function_call / function_call_output and reasoning items",
    write=write,
    cannot_carry=("media", "timestamps", "usage"),
    extension=".json",
)
