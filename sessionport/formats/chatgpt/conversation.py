"""One ChatGPT conversation (an element of ``conversations.json``) as events.

The current branch is linearized (see :mod:`chatgpt_tree`) and each message
on it is classified:

- an assistant message whose ``recipient`` is not ``all`` is a tool call;
  the export gives calls no id, so one is made from the message id
  (``call_<message id>``, stable across runs), and the following ``tool``
  messages whose author name matches the recipient are its results
  (see :class:`_ToolCalls`);
- ``thoughts`` and ``reasoning_recap`` are assistant thinking;
- custom instructions and memory (``user_editable_context``,
  ``model_editable_context``, ``is_user_system_message``) are system
  messages marked ``meta.injected``;
- messages hidden from the conversation view are kept with
  ``meta.hidden``; hidden user messages were not typed by the user, so they
  become injected system messages;
- messages with no text at all (the empty system prompt, empty placeholder
  answers) are counted in the end event, not emitted.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.model import message_event, end_event, session_event
from sessionport.formats.chatgpt.content import RENDERERS, human_size, render
from sessionport.formats.chatgpt.references import read_references, search_results, unnamed_references
from sessionport.formats.chatgpt.tree import count_messages, current_branch

SOURCE = "chatgpt-export"
CONTEXT_TYPES = frozenset(("user_editable_context", "model_editable_context"))
THINKING_TYPES = frozenset(("thoughts", "reasoning_recap"))
# What ``metadata.canvas`` of a ``canmore`` tool's answer says of its document.
_CANVAS_KEYS = ("textdoc_id", "textdoc_type", "title", "version", "create_source")
# Content types rendered on purpose; any other is read as text and reported.
KNOWN_CONTENT_TYPES = frozenset(RENDERERS) | {"execution_output"}
SESSION_KEYS = (
    ("update_time", "updatedAt"),
    ("current_node", "currentNode"),
    ("gizmo_id", "gizmoId"),
    ("gizmo_type", "gizmoType"),
    ("conversation_template_id", "templateId"),
    ("conversation_origin", "origin"),
    ("is_archived", "isArchived"),
)


def iso_time(value: Any) -> str | None:
    """Epoch seconds (as exports hold them) or an ISO string, as ISO 8601 UTC."""
    if isinstance(value, str):
        return value or None
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        return None
    try:
        stamp = datetime.fromtimestamp(value, timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


class _ToolCalls:
    """Pairs tool results with the call they answer, by tool name.

    Calls to one tool are answered in order (two searches, then two
    results: the first result answers the first search).  A result that
    finds every call to its tool answered belongs to the latest one (a
    browser call's page display followed by several quotes).
    """

    def __init__(self) -> None:
        self.unanswered: dict[str, list[str]] = {}
        self.latest: dict[str, str] = {}

    def call(self, name: str, call_id: str) -> None:
        self.unanswered.setdefault(name, []).append(call_id)
        self.latest[name] = call_id

    def _name_for(self, name: str) -> str | None:
        if name in self.latest:
            return name
        # ``browser`` answers a call to ``browser.search``; ``web`` one to ``web.run``
        family = name.split(".")[0]
        matches = [called for called in self.latest if called.split(".")[0] == family]
        return matches[-1] if matches else None

    def called(self, name: object) -> bool:
        """Whether a call went to the tool ``name`` (or its family) in this turn."""
        return isinstance(name, str) and self._name_for(name) is not None

    def result_for(self, name: str | None) -> str | None:
        called = self._name_for(name) if name else None
        if called is None:
            return None
        waiting = self.unanswered.get(called)
        if waiting:
            return waiting.pop(0)
        return self.latest[called]

    def end_turn(self) -> None:
        self.unanswered.clear()
        self.latest.clear()


def _tool_input(kind: str, text: str, meta: dict) -> dict:
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            value = orjson.loads(stripped)
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
    if not stripped:
        return {}
    if kind == "code":
        out = {"code": text}
        if "language" in meta:
            out["language"] = meta["language"]
        return out
    return {"text": text}


def _attachments(metadata: dict, assets: list) -> tuple[list[str], list[dict]]:
    """Placeholders for uploaded files, except images the text already shows."""
    lines, kept = [], []
    for item in metadata.get("attachments") or ():
        if not isinstance(item, dict):
            continue
        info = {k: item[k] for k in ("name", "mime_type", "size") if item.get(k) is not None}
        kept.append(info)
        file_id = item.get("id")
        if isinstance(file_id, str) and file_id and any(isinstance(a, str) and a.endswith(file_id) for a in assets):
            continue
        details = [str(x) for x in (info.get("mime_type"), human_size(info.get("size"))) if x]
        lines.append(f"[file: {info.get('name', 'attachment')}" + (", " + ", ".join(details) if details else "") + "]")
    return lines, kept


class ConversationReader:
    """Turns one conversation into events; ``where`` names it in messages."""

    def __init__(self, conversation: dict, where: str, ctx: ReadContext, index: int) -> None:
        self.conv = conversation
        self.where = where
        self.ctx = ctx
        self.index = index
        self.skipped: dict[str, int] = {}
        self.notes: list[str] = []
        self.tools = _ToolCalls()
        self.previous_id: str | None = None
        self.emitted = 0
        self.unknown: dict[str, int] = {}

    def session(self, mapping: dict) -> dict:
        conv = self.conv
        session_id = conv.get("conversation_id") or conv.get("id")
        metadata: dict[str, Any] = {}
        model = conv.get("default_model_slug")
        if not isinstance(model, str):
            model = self._last_model(mapping)
        if model:
            metadata["model"] = model
        for key, name in SESSION_KEYS:
            value = conv.get(key)
            if key == "update_time":
                value = iso_time(value)
            if value is not None and value != "":
                metadata[name] = value
        title = conv.get("title")
        return session_event(
            SOURCE,
            sessionId=str(session_id) if session_id is not None else f"conversation-{self.index}",
            createdAt=iso_time(conv.get("create_time")),
            title=title if isinstance(title, str) else None,
            metadata=metadata,
        )

    def _last_model(self, mapping: dict) -> str | None:
        node_id = self.conv.get("current_node")
        node = mapping.get(node_id) if isinstance(node_id, str) else None
        message = _dict(_dict(node).get("message"))
        model = _dict(message.get("metadata")).get("model_slug")
        return model if isinstance(model, str) else None

    def events(self) -> Iterator[dict]:
        mapping = self.conv.get("mapping")
        if mapping is None:
            mapping = {}
            self.notes.append("the conversation has no mapping, so no messages")
        if not isinstance(mapping, dict):
            self.ctx.bad_record(f"the mapping is a {type(mapping).__name__}, not an object", path=f"{self.where}.mapping")
            mapping = {}
        yield self.session(mapping)
        branch = current_branch(mapping, self.conv.get("current_node"))
        self.notes.extend(branch.notes)
        for node_id in branch.broken:
            self.ctx.bad_record(
                f"node {node_id!r} is a {type(mapping[node_id]).__name__}, not an object; the branch above it is lost",
                path=f"{self.where}.mapping.{node_id}",
            )
        on_branch = 0
        for node_id in branch.node_ids:
            node = mapping[node_id]
            if not isinstance(node, dict):
                continue
            message = node.get("message")
            if message is None:
                continue
            on_branch += 1
            if not isinstance(message, dict):
                self.ctx.bad_record(
                    f"the message of node {node_id!r} is a {type(message).__name__}, not an object",
                    path=f"{self.where}.mapping.{node_id}.message",
                )
                continue
            event = self.message(node_id, message)
            if event is not None:
                self.emitted += 1
                yield event
        other = count_messages(mapping) - on_branch
        if other > 0:
            self.skipped["other-branch message"] = other
            self.notes.append(f"{other} message(s) on other branches (regenerated answers, edited prompts) are not included")
        yield end_event(
            counts={"messages": self.emitted},
            skipped=dict(self.skipped) or None,
            notes=self.notes or None,
            unknown={"content type": self.unknown} if self.unknown else None,
        )

    def _skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def message(self, node_id: str, message: dict) -> dict | None:
        author = _dict(message.get("author"))
        raw_role = author.get("role")
        role = raw_role if raw_role in ("user", "assistant", "system", "tool") else "assistant"
        metadata = _dict(message.get("metadata"))
        content_type, text, extra = render(message)
        if content_type not in KNOWN_CONTENT_TYPES:
            # Read as text all the same (render's unknown_text), and visible
            # even when it holds none.
            self.ctx.unknown(content_type, what="content type", path=f"{self.where}.mapping.{node_id}")
            self.unknown[content_type] = self.unknown.get(content_type, 0) + 1
            if not text:
                text = f"[{content_type}]"
        message_id = message.get("id") if isinstance(message.get("id"), str) else node_id
        recipient = message.get("recipient")
        refs = metadata.get("content_references")
        if text and isinstance(refs, list) and refs:
            text, sources = read_references(text, refs)
            if sources:
                extra["citations"] = sources
        if raw_role == "assistant" and recipient in (None, "all") and ("\ue200" in text or "\ue203" in text):
            text = unnamed_references(text)
        groups = metadata.get("search_result_groups")
        if not text and raw_role == "tool" and isinstance(groups, list):
            text = search_results(groups)
        hidden = bool(metadata.get("is_visually_hidden_from_conversation")) or message.get("weight") in (0, 0.0)
        is_error = extra.pop("_error", None)

        meta: dict[str, Any] = {}
        if raw_role != role:
            meta["authorRole"] = raw_role if isinstance(raw_role, str) else "unknown"
        fields: dict[str, Any] = {}
        if role == "assistant" and isinstance(recipient, str) and recipient != "all":
            call_id = f"call_{message_id}"
            self.tools.call(recipient, call_id)
            meta["kind"] = "tool_use"
            fields.update(toolName=recipient, toolCallId=call_id, toolInput=_tool_input(content_type, text, extra))
            role = "tool"
        elif role == "tool" and isinstance(metadata.get("finished_text"), str) and not self.tools.called(author.get("name")):
            # o1/o3-mini's reasoning (2025), written as a tool's message
            # ("Reasoned about … for 16 seconds") that no call asked for
            meta["kind"] = "thinking"
            meta["authorRole"] = "tool"
            role = "assistant"
        elif role == "tool":
            name = author.get("name") if isinstance(author.get("name"), str) else None
            if not text and metadata.get("status") == "running":
                self._skip("empty tool message (still running)")  # a search's spinner: its result follows
                return None
            call_id = self.tools.result_for(name)
            if not text and call_id is None:
                self._skip("empty tool message without a call")
                return None
            meta["kind"] = "tool_result"
            fields.update(toolName=name, toolCallId=call_id, isError=is_error)
            canvas = _dict(metadata.get("canvas"))
            if canvas:
                # the canvas document a canmore call made or changed
                # (textdoc_id, textdoc_type, title, version, create_source)
                meta["canvas"] = {k: v for k, v in canvas.items() if k in _CANVAS_KEYS and v is not None}
        elif content_type in THINKING_TYPES:
            meta["kind"] = "thinking"
            role = "assistant"
        elif content_type in CONTEXT_TYPES or metadata.get("is_user_system_message") or (hidden and role == "user"):
            if role != "system":
                meta["authorRole"] = role
            role = "system"
            meta["injected"] = True
        else:
            if role == "user":
                self.tools.end_turn()
            lines, attachments = _attachments(metadata, extra.get("assets") or [])
            if lines:
                text = "\n".join([text, *lines]) if text else "\n".join(lines)
            if attachments:
                meta["attachments"] = attachments

        if not text and meta.get("kind") not in ("tool_use", "tool_result"):
            self._skip("empty hidden message" if hidden or role == "system" else "empty message")
            return None
        meta = {"kind": meta.pop("kind", "text"), **meta}
        if content_type != "text":
            meta["contentType"] = content_type
        meta.update(extra)
        if hidden:
            meta["hidden"] = True
        for key, name in (("model_slug", "model"),):
            if isinstance(metadata.get(key), str):
                meta[name] = metadata[key]
        channel = message.get("channel")
        if isinstance(channel, str):
            meta["channel"] = channel
        finish = _dict(metadata.get("finish_details")).get("type")
        if isinstance(finish, str) and finish != "stop":
            meta["finish"] = finish
        status = message.get("status")
        if isinstance(status, str) and status != "finished_successfully":
            meta["status"] = status

        event = message_event(
            role,
            text,
            timestamp=iso_time(message.get("create_time")),
            id=message_id,
            parentId=self.previous_id,
            meta=meta,
            **fields,
        )
        self.previous_id = message_id
        return event
