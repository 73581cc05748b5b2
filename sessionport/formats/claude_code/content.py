"""Rendering Claude Code / Anthropic content blocks as canonical text.

Images and documents become short placeholders (``[image: image/png, 1.0 MB]``)
whose size is computed from the base64 length, so a 1 MB image costs no
decoding and never reaches the output.  Every function here accepts any JSON
value: real files change shape between versions and a hostile file may put
anything anywhere.
"""

from __future__ import annotations

from typing import Any

from sessionport.gemini_parts import compact_json, response_text
from sessionport.model import human_size

# Fields of a tool input that make a good one-line label, first match wins.
_LABEL_KEYS = (
    "command",
    "file_path",
    "absolute_path",  # Gemini CLI and its forks (iFlow CLI writes Claude Code lines)
    "notebook_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
    "subject",
    "prompt",
)
_LABEL_MAX = 200


def _base64_bytes(data: str) -> int:
    padding = len(data) - len(data.rstrip("="))
    return max(0, len(data) * 3 // 4 - padding)


def media_placeholder(kind: str, block: dict) -> str:
    """``[image: image/png, 1.0 MB]`` / ``[document: title, application/pdf, 12.0 KB]``."""
    parts: list[str] = []
    title = block.get("title")
    if isinstance(title, str) and title:
        parts.append(title)
    source = block.get("source")
    if isinstance(source, dict):
        media = source.get("media_type")
        stype = source.get("type")
        if isinstance(media, str) and media:
            parts.append(media)
        elif stype == "text":
            parts.append("text/plain")
        data = source.get("data")
        if stype == "base64" and isinstance(data, str):
            parts.append(human_size(_base64_bytes(data)))
        elif isinstance(data, str):
            parts.append(human_size(len(data.encode("utf-8", "replace"))))
        url = source.get("url")
        if isinstance(url, str) and url:
            parts.append(url)
        file_id = source.get("file_id")
        if isinstance(file_id, str) and file_id:
            parts.append(file_id)
    return f"[{kind}: {', '.join(parts)}]" if parts else f"[{kind}]"


def block_text(block: Any) -> str:
    """A readable rendering of one input-side block (user content or tool
    result content): text as is, media as placeholders, the rest as a tag."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return "" if block is None else str(block)
    btype = block.get("type")
    if btype == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    if btype in ("image", "document"):
        return media_placeholder(btype, block)
    if btype == "tool_reference":
        name = block.get("tool_name")
        return f"[tool_reference: {name}]" if isinstance(name, str) else "[tool_reference]"
    if btype == "search_result":
        title = block.get("title")
        return f"[search_result: {title}]" if isinstance(title, str) else "[search_result]"
    return f"[{btype}]" if isinstance(btype, str) else "[unknown block]"


def content_text(content: Any, sep: str = "\n") -> str:
    """Text of a string-or-list ``content`` field."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        # Most tool results hold one block: no generator and join for it.
        if len(content) == 1:
            return block_text(content[0])
        return sep.join(block_text(b) for b in content)
    if content is None:
        return ""
    return block_text(content)


def object_result_text(content: dict) -> tuple[str, bool, str | None]:
    """``(text, is_error, unknown)`` of a tool result whose ``content`` is
    one object rather than a string or a list of blocks.

    iFlow CLI (a Gemini CLI fork writing Claude Code's line format) keeps
    there Gemini CLI's result: ``{callId, responseParts: {functionResponse},
    resultDisplay}``, or ``{functionResponse}`` alone; its text is the
    response's output.  An object with a ``type`` is read as one block.  Any
    other object is kept whole as JSON text, and ``unknown`` names it for a
    warning."""
    kind = content.get("type")
    if isinstance(kind, str):
        return block_text(content), False, None
    parts = content.get("responseParts")
    if parts is None and "functionResponse" in content:
        parts = content
    if isinstance(parts, (dict, list)):
        pieces: list[str] = []
        is_error = False
        for part in parts if isinstance(parts, list) else (parts,):
            if not isinstance(part, dict):
                continue
            response = part.get("functionResponse")
            if isinstance(response, dict):
                text, _, error = response_text(response.get("response"))
                pieces.append(text)
                is_error = is_error or error
            elif isinstance(part.get("text"), str):
                pieces.append(part["text"])
        text = "\n".join(p for p in pieces if p)
        display = content.get("resultDisplay")
        if not text and isinstance(display, str):
            text = display
        return text, is_error, None
    return compact_json(content), False, "object"


_LABEL_SET = frozenset(_LABEL_KEYS)


def tool_label(name: str, tool_input: Any) -> str:
    """Short text for a tool call: ``Bash: ls -la`` or the tool name."""
    if isinstance(tool_input, dict):
        # Which label keys the input holds, found by one pass in C over its
        # keys (most inputs hold one or none): the ordered look-ups only
        # when it holds several.
        found = _LABEL_SET.intersection(tool_input)
        if not found:
            return name
        for key in _LABEL_KEYS if len(found) > 1 else found:
            value = tool_input.get(key)
            if isinstance(value, str) and value:
                line = value.strip().replace("\n", " ")
                if len(line) > _LABEL_MAX:
                    line = line[: _LABEL_MAX - 1] + "…"
                return f"{name}: {line}"
    return name


def search_results_text(content: Any) -> str:
    """Text of a ``web_search_tool_result`` block's content."""
    if isinstance(content, list):
        lines = []
        for item in content:
            if isinstance(item, dict):
                title, url = item.get("title"), item.get("url")
                lines.append(" ".join(str(x) for x in (title, url) if isinstance(x, str)))
        return "\n".join(lines)
    if isinstance(content, dict):
        code = content.get("error_code")
        return f"[error: {code}]" if code else ""
    return content_text(content)


# Where an attachment keeps what the model is shown, first found wins:
# 2.1.1xx and later keep the changed lines of a file edited outside the session
# (``edited_text_file``) in ``snippet`` and the notice that a Read showed
# part of a file (``read_truncation_notice``) in ``banner``.
_ATTACHMENT_TEXT_KEYS = ("content", "prompt", "text", "message", "memory", "snippet", "banner")


def attachment_text(attachment: dict) -> str:
    """What an ``attachment`` record puts before the model, as text; empty
    when it holds nothing to show (a hook that printed nothing)."""
    kind = attachment.get("type")
    if kind == "async_hook_response":
        # 2.1.2xx: what a hook run in the background answered; the model is
        # given the additionalContext of its hookSpecificOutput.
        response = attachment.get("response")
        output = response.get("hookSpecificOutput") if isinstance(response, dict) else None
        context = output.get("additionalContext") if isinstance(output, dict) else None
        return context if isinstance(context, str) else ""
    if kind == "deferred_tools_delta":
        parts = []
        for key, label in (("addedNames", "added"), ("removedNames", "removed")):
            names = attachment.get(key)
            if isinstance(names, list) and names:
                parts.append(f"{label}: " + ", ".join(str(n) for n in names))
        if parts:
            return f"[deferred tools {'; '.join(parts)}]"
    for key in _ATTACHMENT_TEXT_KEYS:
        value = attachment.get(key)
        if value is None or value == "" or value == []:
            continue
        if isinstance(value, list) and all(isinstance(v, dict) and "subject" in v for v in value):
            # task reminders: one line per task
            return "\n".join(f"- [{v.get('status', '')}] {v.get('subject', '')}" for v in value)
        if isinstance(value, list) and all(isinstance(v, dict) and isinstance(v.get("content"), str) and "type" not in v for v in value):
            # todo reminders (TodoWrite items {content, status, activeForm})
            return "\n".join(f"- [{v.get('status', '')}] {v['content']}" for v in value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return "\n".join(value)
        if isinstance(value, (str, list)):
            return content_text(value)
        if isinstance(value, dict):
            return content_text(value.get("content")) if "content" in value else ""
    return ""


_RENDERED_ROLES = frozenset(("system", "user"))
# Attachment kinds whose own fields hold what the model is sent (a queued
# prompt, a hook's context): read from those fields when the line does not
# say the role of its rendering, so that a writer rebuilds the attachment
# from the text, not from its wrapper.
OWN_TEXT_KINDS = frozenset(("queued_command", "hook_additional_context", "hook_success"))
_REMINDER_OPEN = "<system-reminder>\n"
_REMINDER_CLOSE = "\n</system-reminder>"


def rendered_attachment(record: dict) -> tuple[str, str] | None:
    """The role and text an attachment line says it is sent to the model as
    (``rendered`` [{content}] since 2.1.27x, ``renderedRole`` since about
    2.1.29x), or None for a line without them.  Claude Code sends the system ones as one mid-conversation
    system message, each without its ``<system-reminder>`` wrapper."""
    rendered = record.get("rendered")
    # 2.1.27x-2.1.28x write the rendering without its role: what they send
    # in a user turn, the wrapper included
    role = record.get("renderedRole", "user")
    if type(rendered) is not list or type(role) is not str or role not in _RENDERED_ROLES:
        return None
    pieces = []
    for piece in rendered:
        body = piece.get("content") if type(piece) is dict else piece
        text = body if type(body) is str else content_text(body) if type(body) is list else ""
        if role == "system" and text.startswith(_REMINDER_OPEN) and text.endswith(_REMINDER_CLOSE):
            text = text[len(_REMINDER_OPEN):-len(_REMINDER_CLOSE)]
        if text:
            pieces.append(text)
    return role, "\n".join(pieces)
