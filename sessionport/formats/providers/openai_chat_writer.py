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
from sessionport.formats.providers.media_refs import CHAT, media_ref
from sessionport.formats.providers.turns import Part, Turn, arguments_of, call_name, result_output, system_role, text_content, user_text


def media_reference(part: Part) -> dict | None:
    """The ``image_url`` / ``file`` part of a user part that named its bytes by
    a URL or a file id (``meta.mediaRef``): a Chat Completions part as it was
    read; an image URL of another API as the same URL, an OpenAI file id as
    a file part (see :mod:`.media_refs`)."""
    ref = media_ref(part)
    if ref is None:
        return None
    if ref.api == CHAT:
        return ref.part
    if ref.kind == "image" and ref.url is not None:
        image = {"url": ref.url}
        if ref.detail is not None:
            image["detail"] = ref.detail
        return {"type": "image_url", "image_url": image}
    file_id = ref.openai_file() if ref.kind == "document" else None
    return {"type": "file", "file": {"file_id": file_id}} if file_id is not None else None


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
