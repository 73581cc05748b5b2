"""``openai-chat``: one Chat Completions request document ``{"messages": [...]}``.

Each assistant turn is one assistant message (its texts, then its
``tool_calls`` with ``arguments`` as a JSON string), followed by one
``role: "tool"`` message per call, before anything else; ids are
synthesized where the source has none.  System messages stay in place
(``developer`` where the source said so).  Chat Completions has no field for
reasoning: thinking is dropped and counted.  See docs/formats/openai-chat.md.
"""

from __future__ import annotations

from typing import BinaryIO, Iterable

from sessionport.context import WriteContext
from sessionport.registry import Exporter
from sessionport.formats.providers.document import TurnWriter
from sessionport.formats.providers.turns import Part, Turn, arguments_of, call_name, meta_of, result_output, system_role, text_content, user_text


def media_reference(part: Part) -> dict | None:
    """The ``image_url`` / ``file`` part of a user part that named its bytes by
    a URL or a file id (``meta.mediaRef``): a Chat Completions part as it was
    read, a Responses image URL or file id, an Anthropic URL image, as the same."""
    if part.kind != "text":
        return None
    ref = meta_of(part).get("mediaRef")
    if not isinstance(ref, dict):
        return None
    rtype = ref.get("type")
    if rtype == "image_url" or (rtype == "file" and isinstance(ref.get("file"), dict)):
        return ref  # a Chat Completions part (an AI SDK file part is typed "file" too, with no "file" object)
    if rtype == "input_image" and isinstance(ref.get("image_url"), str) and ref["image_url"]:
        image = {"url": ref["image_url"]}
        if ref.get("detail") in ("auto", "low", "high"):
            image["detail"] = ref["detail"]
        return {"type": "image_url", "image_url": image}
    if rtype == "input_file" and isinstance(ref.get("file_id"), str) and ref["file_id"]:
        return {"type": "file", "file": {"file_id": ref["file_id"]}}  # the same OpenAI Files API
    if rtype == "image" and isinstance(ref.get("image"), str) and ref["image"].lower().startswith(("https://", "http://")):
        return {"type": "image_url", "image_url": {"url": ref["image"]}}  # an AI SDK image part (Roo Code)
    source = ref.get("reference") if isinstance(ref.get("reference"), dict) else {}
    if rtype == "image" and source.get("type") == "url" and isinstance(source.get("url"), str):
        return {"type": "image_url", "image_url": {"url": source["url"]}}
    return None


class _Writer(TurnWriter):
    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        super().__init__(out, ctx, "messages")
        self.thinking_dropped = 0

    def turn(self, turn: Turn) -> None:
        if self.model and not self.doc.opened:
            self.doc.open({"model": self.model})
        if turn.role == "system":
            for part in turn.parts:
                if part.event and part.event.get("text"):
                    self.doc.item({"role": system_role(part), "content": part.event["text"]})
        elif turn.role == "assistant":
            self.assistant(turn)
        else:
            self.user(turn)

    def assistant(self, turn: Turn) -> None:
        texts, calls = [], []
        for part in turn.parts:
            event = part.event or {}
            if part.kind == "tool_use":
                calls.append({"id": part.call_id, "type": "function", "function": {"name": call_name(part), "arguments": arguments_of(event)}})
            elif part.kind == "thinking":
                self.thinking_dropped += 1
            elif event.get("text"):
                texts.append(event["text"])
        if not texts and not calls:
            return
        message: dict = {"role": "assistant"}
        if texts:
            message["content"] = text_content(texts, "text")
        if calls:
            message["tool_calls"] = calls
        self.doc.item(message)

    def user(self, turn: Turn) -> None:
        texts = []
        for part in turn.parts:
            output = result_output(part)
            if output is not None:
                self.doc.item({"role": "tool", "tool_call_id": part.call_id, "content": output})
            else:
                reference = media_reference(part)
                if reference is not None:
                    texts.append(reference)
                    continue
                text = user_text(part)
                if text:
                    texts.append(text)
        if texts and all(isinstance(t, str) for t in texts):
            self.doc.item({"role": "user", "content": text_content(texts, "text")})
        elif texts:
            self.doc.item({"role": "user", "content": [t if isinstance(t, dict) else {"type": "text", "text": t} for t in texts]})

    def close(self) -> None:
        self.close_document()
        if self.thinking_dropped:
            self.ctx.warn(f"{self.thinking_dropped} thinking message(s) dropped: Chat Completions has no place for reasoning")


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    _Writer(out, ctx).write(events, id_prefix="call_sp")


EXPORTER = Exporter(
    name="openai-chat",
    description="OpenAI Chat Completions request: {messages: [...]} with assistant tool_calls and role tool results",
    write=write,
    cannot_carry=("media", "timestamps", "usage", "responses items"),
    extension=".json",
)
