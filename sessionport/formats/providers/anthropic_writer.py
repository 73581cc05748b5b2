"""``anthropic-messages``: one Messages API request document.

Writes ``{"system"?: ..., "messages": [...], "model"?: ...}``: the
conversation as the Messages API accepts it as history (add ``max_tokens``
and send it).  User and assistant turns alternate (consecutive same-role
messages are merged); tool results are ``tool_result`` blocks at the start of
the next user turn; system messages before the conversation become the
top-level ``system``, later ones ``role: "system"`` messages.  Thinking is
kept only with its signature (the API rejects unsigned thinking).
A session read from a classic Cline task (or any, with ``--anthropic-shape
cline-task``) is written as the plain array Cline keeps as a task's
``api_conversation_history.json`` instead (:class:`ClineTaskWriter`).
See docs/formats/anthropic-messages.md.
"""

from __future__ import annotations

import itertools
import re

import click
from typing import BinaryIO, Iterable

from sessionport.context import WriteContext
from sessionport.registry import Exporter, Option
from sessionport.formats.providers.document import RequestDocument, TurnWriter
from sessionport.formats.providers.media_refs import ANTHROPIC, media_ref
from sessionport.formats.providers.roo_writer import RooHistoryWriter, is_roo_history
from sessionport.formats.providers.turns import Part, Turn, call_name, meta_of, result_output, user_text
from sessionport.timeparse import epoch_millis

_BAD_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")


def _normalize_id(raw: str) -> str:
    """tool_use ids must match ``^[a-zA-Z0-9_-]+$``."""
    return _BAD_ID_CHARS.sub("_", raw)


def _text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def _unknown_block(part) -> dict | None:
    """A content block of a type the reader did not know (``meta.block``),
    written back as it was rather than as its ``[type]`` placeholder."""
    block = meta_of(part).get("block") if part.kind == "text" else None
    return block if isinstance(block, dict) and isinstance(block.get("type"), str) and block["type"] else None


def _search_result_block(kept: dict) -> dict:
    """A ``search_result`` block from its form in ``meta`` (the source under ``reference``)."""
    return {"type": "search_result", "source": kept.get("reference"), **{k: v for k, v in kept.items() if k not in ("type", "reference")}}


def media_reference(part) -> dict | None:
    """The image or document block of a user part that named its bytes by a
    URL or a Files API id (``meta.mediaRef``): an Anthropic block as it was
    read; an image URL or a PDF's URL of another API as a URL source (see
    :mod:`.media_refs`)."""
    ref = media_ref(part)
    if ref is None:
        return None
    if ref.api == ANTHROPIC:
        kept = ref.part
        return {"type": kept["type"], "source": kept["reference"], **{k: v for k, v in kept.items() if k not in ("type", "reference")}}
    if ref.kind == "image" and ref.url is not None:
        return {"type": "image", "source": {"type": "url", "url": ref.url}}
    url = ref.pdf_url()
    return {"type": "document", "source": {"type": "url", "url": url}} if url is not None else None


class _Writer(TurnWriter):
    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        super().__init__(out, ctx, "messages")
        self.system: list[str] = []
        self.last: dict | None = None
        self.unsigned_thinking = 0
        self.dropped_empty = 0
        self.mid_conv_left_out = 0

    # -- turns -> messages ---------------------------------------------------
    def turn(self, turn: Turn) -> None:
        if turn.role == "system":
            texts = [p.event["text"] for p in turn.parts if p.event and (p.event.get("text") or "").strip()]
            if turn.leading:
                self.system.extend(texts)
            else:
                self.later_system(turn)
            return
        blocks = self.assistant_blocks(turn) if turn.role == "assistant" else self.user_blocks(turn)
        if blocks:
            self.message(turn.role, blocks, self.message_keys(turn))

    def message_keys(self, turn: Turn) -> dict:
        """Keys a message of ``turn`` has beside role and content: none in a request."""
        return {}

    def later_system(self, turn: Turn) -> None:
        """System messages after the conversation began: ``role: "system"``
        messages.  One read from a ``mid_conv_system`` block (a beta block
        the SDK's request types do not declare) keeps its ``cache_control``
        on its text; what else the block held (tool additions, removals)
        has no place there and is counted."""
        blocks: list[dict] = []
        for part in turn.parts:
            event, meta = part.event or {}, meta_of(part)
            if not (event.get("text") or "").strip():
                continue
            block = _text_block(event["text"])
            if meta.get("midConvSystem") is True:
                extra = meta.get("extra") if isinstance(meta.get("extra"), dict) else {}
                if isinstance(extra.get("cache_control"), dict):
                    block["cache_control"] = extra["cache_control"]
                if isinstance(meta.get("midConvContent"), list):
                    self.mid_conv_left_out += sum(1 for b in meta["midConvContent"] if isinstance(b, dict) and b.get("type", "text") != "text")
            blocks.append(block)
        if blocks:
            self.message("system", blocks)

    def assistant_blocks(self, turn: Turn) -> list[dict]:
        blocks = []
        for part in turn.parts:
            event = part.event or {}
            meta = meta_of(part)
            if part.kind == "tool_use":
                tool_input = event.get("toolInput")
                if not isinstance(tool_input, dict):
                    tool_input = {} if tool_input is None else {"value": tool_input}
                blocks.append(self.kept_keys({"type": "tool_use", "id": part.call_id, "name": call_name(part), "input": tool_input}, part))
            elif part.kind == "thinking":
                if isinstance(meta.get("signature"), str):
                    blocks.append(self.kept_keys({"type": "thinking", "thinking": event.get("text", ""), "signature": meta["signature"]}, part))
                elif isinstance(meta.get("redactedThinking"), str):
                    blocks.append({"type": "redacted_thinking", "data": meta["redactedThinking"]})
                else:
                    self.unsigned_thinking += 1
            elif (unknown := _unknown_block(part)) is not None:
                blocks.append(unknown)
            elif (event.get("text") or "").strip():
                block = _text_block(event["text"])
                citations = meta.get("citations")
                if isinstance(citations, list) and citations:
                    block["citations"] = [{"source" if k == "reference" else k: v for k, v in c.items()} if isinstance(c, dict) else c
                                          for c in citations]
                blocks.append(self.kept_keys(block, part))
            else:
                self.dropped_empty += 1
        return blocks

    def user_blocks(self, turn: Turn) -> list[dict]:
        blocks = []
        for part in turn.parts:
            output = result_output(part)
            if output is not None:
                block = {"type": "tool_result", "tool_use_id": part.call_id}
                kept = meta_of(part).get("resultContent") if part.kind == "tool_result" else None
                if isinstance(kept, list) and kept:
                    block["content"] = [_search_result_block(b) if isinstance(b, dict) and b.get("type") == "search_result" else b for b in kept]
                elif output:
                    block["content"] = output
                if (part.event or {}).get("isError") is True:
                    block["is_error"] = True
                blocks.append(block)
                continue
            unknown = _unknown_block(part)
            if unknown is not None:
                blocks.append(unknown)
                continue
            reference = media_reference(part)
            if reference is not None:
                blocks.append(reference)
                continue
            kept = meta_of(part).get("searchResult") if part.kind == "text" else None
            if isinstance(kept, dict):
                blocks.append(_search_result_block(kept))
                continue
            text = user_text(part)
            if text.strip():
                blocks.append(self.kept_keys(_text_block(text), part))
            else:
                self.dropped_empty += 1
        return blocks

    def kept_keys(self, block: dict, part: Part) -> dict:
        """``block`` as the request takes it: the keys a client added to it are not written."""
        return block

    # -- messages -> document, merging same-role neighbours ---------------------
    def message(self, role: str, blocks: list[dict], keys: dict | None = None) -> None:
        if self.last is not None and self.last["role"] == role:
            merged = self.last["content"] + blocks
            # tool_result blocks must open a user turn
            merged.sort(key=lambda block: block.get("type") != "tool_result")
            self.last["content"] = merged
            return
        self.flush()
        self.last = {"role": role, "content": blocks, **(keys or {})}

    def flush(self) -> None:
        if self.last is None:
            return
        self.open()
        self.doc.item(self.last)
        self.last = None

    def open(self) -> None:
        if self.doc.opened:
            return
        head: dict = {"model": self.model}
        system = [t for t in self.system if t]
        if len(system) == 1:
            head["system"] = system[0]
        elif system:
            head["system"] = [_text_block(t) for t in system]
        self.doc.open(head)

    def close(self) -> None:
        self.flush()
        self.open()
        self.close_document()
        if self.dropped_empty:
            self.ctx.warn(f"{self.dropped_empty} empty or blank text(s) left out: the Messages API rejects blank text blocks")
        if self.mid_conv_left_out:
            self.ctx.warn(
                f"{self.mid_conv_left_out} tool addition(s) or removal(s) of mid_conv_system blocks left out: a system message holds text only"
            )
        if self.unsigned_thinking:
            self.ctx.warn(
                f"{self.unsigned_thinking} thinking block(s) without a signature dropped: the Messages API rejects unsigned thinking"
            )


class _PlainArray(RequestDocument):
    """A bare JSON array of messages, written as the request document is:
    each message as soon as its turn is complete."""

    def __init__(self, out: BinaryIO) -> None:
        super().__init__(out, "messages")

    def open(self, head: dict) -> None:
        if not self.opened:
            self.out.write(b"[")
            self.opened = True

    def close(self, tail: dict | None = None) -> None:
        if not self.opened:
            self.open({})
        self.out.write(b"\n]\n" if self.items else b"]\n")


# Keys Cline puts on a content block beside the Messages API's own
# (cline/cline src/shared/messages/content.ts): the response a block belongs
# to, OpenRouter's and Cline's reasoning details, Gemini's thought signature,
# the summary of an OpenAI reasoning item.
_CLINE_BLOCK_KEYS = ("call_id", "reasoning_details", "signature", "summary")
# Keys of a stored message (ClineStorageMessage) besides role and content.
_CLINE_MESSAGE_KEYS = ("id", "ts", "modelInfo", "metrics")


class ClineTaskWriter(_Writer):
    """A classic Cline task's ``api_conversation_history.json``: a plain
    array of ``{role, content}`` messages (``JSON.stringify`` of Cline's
    ``ClineStorageMessage[]``), each with its ``ts`` (epoch ms) and, when the
    source kept them, its ``id``, ``modelInfo`` and ``metrics``; the keys
    Cline adds to blocks (``call_id``, ``reasoning_details``…) come back.
    Cline stores user and assistant messages only and builds its own system
    prompt: system messages are left out, counted."""

    def __init__(self, out: BinaryIO, ctx: WriteContext) -> None:
        super().__init__(out, ctx)
        self.doc = _PlainArray(out)
        self.system_left_out = 0
        self.usage_unkept = False  # a message's usage without the Cline metrics it was read from
        ctx.carries("timestamps")  # each message's ts

    def turn(self, turn: Turn) -> None:
        if turn.role == "system":
            self.system_left_out += sum(1 for p in turn.parts if p.event and (p.event.get("text") or "").strip())
            return
        super().turn(turn)

    def kept_keys(self, block: dict, part: Part) -> dict:
        extra = meta_of(part).get("extra")
        if isinstance(extra, dict):
            for key in _CLINE_BLOCK_KEYS:
                if key in extra and key not in block:
                    block[key] = extra[key]
        return block

    def message_keys(self, turn: Turn) -> dict:
        """The keys of the source message (``meta.message``) Cline stores,
        ``ts`` from the first event's time when it had none."""
        keys: dict = {}
        for part in turn.parts:
            meta = meta_of(part)
            if meta.get("usage") and not (isinstance(meta.get("message"), dict) and "metrics" in meta["message"]):
                self.usage_unkept = True
        for part in turn.parts:
            kept = meta_of(part).get("message")
            if isinstance(kept, dict):
                keys = {k: kept[k] for k in _CLINE_MESSAGE_KEYS if k in kept}
                break
        if "ts" not in keys:
            for part in turn.parts:
                ts = epoch_millis((part.event or {}).get("timestamp"))
                if ts is not None:
                    keys["ts"] = ts
                    break
        return keys

    def open(self) -> None:
        self.doc.open({})

    def close(self) -> None:
        self.flush()
        self.doc.close()
        if not self.usage_unkept:
            self.ctx.carries("usage")  # each request's, in the metrics it was read from
        self.stats.warn_all(self.ctx.warn)
        if self.system_left_out:
            self.ctx.warn(
                f"{self.system_left_out} system prompt(s) or message(s) left out: a Cline task holds user and "
                "assistant messages only (Cline builds its own system prompt)"
            )
        if self.dropped_empty:
            self.ctx.warn(f"{self.dropped_empty} empty or blank text(s) left out")
        if self.unsigned_thinking:
            self.ctx.warn(
                f"{self.unsigned_thinking} thinking block(s) without a signature dropped: Cline sends none of them to the API"
            )


SHAPES = ("request", "cline-task")

SHAPE = Option(
    name="anthropic_shape",
    flags=("--anthropic-shape",),
    help="anthropic-messages: what to write: 'request' (a Messages API request document) or 'cline-task' "
    "(the plain array Cline keeps as a task's api_conversation_history.json). Default: a Cline task for a "
    "session read from one, Roo Code's versioned history for one read from it, else a request.",
    type=click.Choice(SHAPES),
)


def is_cline_task(session: dict | None) -> bool:
    """Whether a session event says it was read from a classic Cline task's
    history (not a Cline 3 session file, whose metadata names its ``agent``)."""
    metadata = (session or {}).get("metadata") if isinstance(session, dict) else None
    return isinstance(metadata, dict) and metadata.get("client") == "cline" and "agent" not in metadata


def write(events: Iterable[dict], out: BinaryIO, ctx: WriteContext) -> None:
    """A request document; a session read from Roo Code's versioned history
    goes back to that envelope (:mod:`.roo_writer`), one read from a Cline
    task to Cline's plain array (:class:`ClineTaskWriter`), unless
    ``--anthropic-shape`` names the shape."""
    stream = iter(events)
    first = next(stream, None)
    head = [first] if first is not None else []
    shape = ctx.options.get("anthropic_shape")
    if shape == "cline-task" or (shape is None and is_cline_task(first)):
        writer = ClineTaskWriter
    elif shape is None and is_roo_history(first):
        writer = RooHistoryWriter
    else:
        writer = _Writer
    writer(out, ctx).write(itertools.chain(head, stream), normalize_id=_normalize_id, id_prefix="toolu_sp")


EXPORTER = Exporter(
    name="anthropic-messages",
    description="Anthropic Messages API request: {system?, messages, model?} with tool_result blocks in user turns",
    write=write,
    cannot_carry=("media", "timestamps", "usage", "responses items"),
    extension=".json",
    options=(SHAPE,),
)
