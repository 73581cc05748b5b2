"""Roo Code's versioned task history, written back by ``anthropic-messages``.

A session read from Roo Code's ``{"version": 2, "messages": [...]}`` history
(``metadata.client: "roo-code"``, ``metadata.historyVersion: 2``) is written
in that envelope again, of AI SDK messages: Roo Code reads such a file as it
is, and takes any other object for an empty history.  Assistant ``text``,
``reasoning`` and ``tool-call`` parts; ``role: "tool"`` messages of
``tool-result`` parts; user ``text`` (and, read with ``--keep-images``,
``image``) parts; an encrypted reasoning item as the standalone
``{"type": "reasoning"}`` entry.  Each message the reader kept keys of
(``meta.message``: ``ts``, the condense and truncation flags,
``providerOptions``, ...) starts a message of its own with those keys again.
See docs/formats/anthropic-messages.md.
"""

from __future__ import annotations

from typing import BinaryIO

from sessionport.context import WriteContext
from sessionport.media import carried_images
from sessionport.formats.providers.document import TurnWriter
from sessionport.formats.providers.media_refs import AI_SDK, media_ref
from sessionport.formats.providers.turns import Part, Turn, call_name, meta_of, result_output, user_text
from sessionport.timeparse import epoch_millis

HISTORY_VERSION = 2


def is_roo_history(session: dict | None) -> bool:
    """Whether a session event says it was read from Roo Code's versioned history."""
    metadata = (session or {}).get("metadata") if isinstance(session, dict) else None
    return (isinstance(metadata, dict) and metadata.get("client") in ("roo-code", "kilo-code")
            and metadata.get("historyVersion") == HISTORY_VERSION)


def _extra(meta: dict) -> dict:
    extra = meta.get("extra")
    return extra if isinstance(extra, dict) else {}


class RooHistoryWriter(TurnWriter):
    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        super().__init__(out, ctx, "messages")
        self.pending: dict | None = None
        self.system_left_out = 0
        self.ui_reasoning_left_out = 0
        self.dropped_empty = 0
        ctx.carries("timestamps")  # each message's ts

    def turn(self, turn: Turn) -> None:
        if turn.role == "system":
            # notices (a failed request, a failed condense) come from ui_messages.json; the history holds none
            self.system_left_out += sum(1 for p in turn.parts if p.event and (p.event.get("text") or "").strip())
            return
        for part in turn.parts:
            self.part(turn.role, part)

    # -- one part -> one piece of a message ------------------------------------
    def part(self, role: str, part: Part) -> None:
        event = part.event or {}
        meta = meta_of(part)
        if part.kind == "thinking" and meta.get("sourceFile") == "ui_messages.json":
            self.ui_reasoning_left_out += 1
            return
        if part.kind == "thinking" and isinstance(meta.get("encryptedContent"), str) and "signature" not in meta:
            self.standalone_reasoning(part, event, meta)
            return
        output = result_output(part) if role == "user" else None
        if output is not None:
            kind = "error-text" if event.get("isError") is True else "text"
            kept = meta.get("sdkOutput") if part.kind == "tool_result" else None
            piece = {"type": "tool-result", "toolCallId": part.call_id, "toolName": call_name(part),
                     "output": kept if isinstance(kept, dict) else {"type": kind, "value": output}}
            self.add("tool", part, piece)
        elif role == "assistant":
            piece = self.assistant_piece(part, event, meta)
            if piece is not None:
                self.add("assistant", part, piece)
        else:
            for piece in self.user_pieces(part, event, meta):
                self.add("user", part, piece)

    def assistant_piece(self, part: Part, event: dict, meta: dict) -> dict | None:
        extra = _extra(meta)
        if part.kind == "tool_use":
            tool_input = event.get("toolInput")
            piece = {"type": "tool-call", "toolCallId": part.call_id, "toolName": call_name(part),
                     "input": tool_input if tool_input is not None else {}}
            for key in ("providerOptions", "providerExecuted"):
                if key in extra:
                    piece[key] = extra[key]
            return piece
        if part.kind == "thinking":
            piece = {"type": "reasoning", "text": event.get("text") or ""}
            options = extra.get("providerOptions")
            if isinstance(options, dict):
                piece["providerOptions"] = options
            elif isinstance(meta.get("signature"), str):
                piece["providerOptions"] = {"anthropic": {"signature": meta["signature"]}}
            elif isinstance(meta.get("redactedThinking"), str):
                piece["providerOptions"] = {"anthropic": {"redactedData": meta["redactedThinking"]}}
            return piece
        if (event.get("text") or "").strip():
            return {"type": "text", "text": event["text"]}
        self.dropped_empty += 1
        return None

    def user_pieces(self, part: Part, event: dict, meta: dict) -> list[dict]:
        ref = media_ref(part)
        if ref is not None and ref.api == AI_SDK:
            return [ref.part]  # an image or file part named by its URL, as it was read
        if ref is not None and ref.kind == "image" and ref.url is not None:
            return [{"type": "image", "image": ref.url}]  # another API's image URL
        url = ref.pdf_url() if ref is not None else None
        if url is not None:
            return [{"type": "file", "data": url, "mediaType": "application/pdf"}]  # another API's PDF URL
        images = [m for m in carried_images(event) if m["data"] and m["mediaType"]]
        if meta.get("attachment") == "image" and images:
            return [{"type": "image", "image": f"data:{m['mediaType']};base64,{m['data']}", "mediaType": m["mediaType"]}
                    for m in images]
        text = user_text(part)
        if text.strip():
            return [{"type": "text", "text": text}]
        self.dropped_empty += 1
        return []

    def standalone_reasoning(self, part: Part, event: dict, meta: dict) -> None:
        item: dict = {"type": "reasoning", "encrypted_content": meta["encryptedContent"]}
        item_id = _extra(meta).get("id", meta.get("itemId"))
        if isinstance(item_id, str):
            item["id"] = item_id
        if event.get("text"):
            item["summary"] = [{"type": "summary_text", "text": event["text"]}]
        item.update(self.message_keys(part))
        self.emit_pending()
        self.emit(item)

    # -- pieces -> messages ----------------------------------------------------
    @staticmethod
    def message_keys(part: Part) -> dict:
        """The keys the source message of ``part`` had beside role and content
        (``meta.message``), with ``ts`` from the event's time when it has none."""
        kept = meta_of(part).get("message")
        keys = dict(kept) if isinstance(kept, dict) else {}
        if "ts" not in keys:
            ts = epoch_millis((part.event or {}).get("timestamp"))
            if ts is not None:
                keys["ts"] = ts
        return keys

    def add(self, role: str, part: Part, piece: dict) -> None:
        """``piece`` into the message being built; a new message when the role
        changes or the part began a message of the source."""
        if self.pending is None or self.pending["role"] != role or isinstance(meta_of(part).get("message"), dict):
            self.emit_pending()
            self.pending = {"role": role, "content": [], **self.message_keys(part)}
        self.pending["content"].append(piece)

    def emit_pending(self) -> None:
        if self.pending is not None:
            self.emit(self.pending)
            self.pending = None

    def emit(self, message: dict) -> None:
        if not self.doc.opened:
            self.doc.open({"version": HISTORY_VERSION})
        self.doc.item(message)

    def close(self) -> None:
        self.emit_pending()
        if not self.doc.opened:
            self.doc.open({"version": HISTORY_VERSION})
        self.doc.close()  # no model: the envelope holds the version and the messages only
        self.stats.warn_all(self.ctx.warn)
        if self.system_left_out:
            self.ctx.warn(f"{self.system_left_out} system message(s) or notice(s) left out: a Roo Code history holds none")
        if self.ui_reasoning_left_out:
            self.ctx.warn(
                f"{self.ui_reasoning_left_out} reasoning text(s) read from ui_messages.json left out: the history never held them"
            )
        if self.dropped_empty:
            self.ctx.warn(f"{self.dropped_empty} empty or blank text(s) left out")
