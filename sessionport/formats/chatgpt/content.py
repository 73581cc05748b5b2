"""Readable text for each ``content_type`` of a ChatGPT export message.

Every renderer takes the ``content`` dict and returns ``(text, meta)``:
the text a reader sees (images and audio as short placeholders, never
their data) and a few keys that say what the text came from.  Unknown
content types keep whatever strings they hold, so nothing readable is
dropped when OpenAI adds a new one.
"""

from __future__ import annotations

from typing import Any, Callable
from sessionport.model import human_size as model_human_size

Rendered = tuple[str, dict[str, Any]]


def human_size(size: Any) -> str | None:
    """The shared size text, or None when the export gives no usable size."""
    if not isinstance(size, (int, float)) or isinstance(size, bool) or size < 0:
        return None
    return model_human_size(size)

def _strings(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _image_placeholder(part: dict) -> str:
    details: list[str] = []
    metadata = part.get("metadata") if isinstance(part.get("metadata"), dict) else {}
    mime = part.get("mime_type") or metadata.get("mime_type")
    if isinstance(mime, str):
        details.append(mime)
    width, height = part.get("width"), part.get("height")
    if isinstance(width, int) and isinstance(height, int):
        details.append(f"{width}x{height}")
    size = human_size(part.get("size_bytes"))
    if size:
        details.append(size)
    if metadata.get("dalle") or metadata.get("generation"):
        details.append("generated")
    return "[image" + (": " + ", ".join(details) if details else "") + "]"


def _part(part: Any, assets: list[str]) -> str:
    """One element of ``parts``: a string, or an object with its own content_type."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return "" if part is None else str(part)
    kind = part.get("content_type")
    pointer = part.get("asset_pointer")
    if isinstance(pointer, str):
        assets.append(pointer)
    if kind == "image_asset_pointer":
        return _image_placeholder(part)
    if kind == "audio_transcription":
        return _strings(part.get("text"))
    if kind == "real_time_user_audio_video_asset_pointer":
        # a voice turn: its audio (and frames of video) in the pointers it holds
        audio = part.get("audio_asset_pointer") if isinstance(part.get("audio_asset_pointer"), dict) else {}
        inner = audio.get("asset_pointer")
        if isinstance(inner, str) and inner:
            assets.append(inner)
        size = human_size(part.get("size_bytes") or audio.get("size_bytes"))
        return "[audio/video" + (f": {size}" if size else "") + "]"
    if kind == "audio_asset_pointer":
        size = human_size(part.get("size_bytes"))
        return "[audio" + (f": {size}" if size else "") + "]"
    if kind == "video_asset_pointer":
        # a video the user sent; what was said in it, when the app transcribed it
        metadata = part.get("metadata") if isinstance(part.get("metadata"), dict) else {}
        details = [str(x) for x in (part.get("format"), human_size(part.get("size_bytes"))) if x]
        label = "[video" + (": " + ", ".join(details) if details else "") + "]"
        said = metadata.get("transcription") if isinstance(metadata.get("transcription"), dict) else {}
        text = said.get("text")
        return f"{label}\n{text}" if isinstance(text, str) and text.strip() else label
    if kind == "app_pairing_content":
        return "\n".join(_app_pairing_lines(part)) or f"[{kind}]"
    text = part.get("text")
    if isinstance(text, str):
        return text
    return f"[{kind or 'object'}]"


def parts_text(content: dict) -> Rendered:
    parts = content.get("parts")
    if not isinstance(parts, list):
        parts = [] if parts is None else [parts]
    assets: list[str] = []
    pieces = [_part(p, assets) for p in parts]
    meta: dict[str, Any] = {}
    if assets:
        meta["assets"] = assets
    return "\n".join(p for p in pieces if p), meta


def code_text(content: dict) -> Rendered:
    language = content.get("language")
    meta = {"language": language} if isinstance(language, str) and language != "unknown" else {}
    return _strings(content.get("text")), meta


def execution_output_text(content: dict, message: dict) -> Rendered:
    text = _strings(content.get("text"))
    metadata = message.get("metadata") if isinstance(message.get("metadata"), dict) else {}
    result = metadata.get("aggregate_result") if isinstance(metadata.get("aggregate_result"), dict) else {}
    meta: dict[str, Any] = {}
    images = [m for m in result.get("messages") or () if isinstance(m, dict) and m.get("message_type") == "image"]
    if not images and text.strip() == "<<ImageDisplayed>>":
        # an image a tool showed the model (container.open_image): the file it opened
        files = [a for a in metadata.get("attachments") or () if isinstance(a, dict)]
        names = [f.get("name") for f in files if isinstance(f.get("name"), str) and f.get("name")]
        return "\n".join(f"[image: {name}]" for name in names) or "[image: shown to the model]", {}
    if images:
        placeholders = ["[image: code output]" for _ in images]
        # The export writes this marker where the images were shown.
        marker = "<<ImageDisplayed>>"
        if marker in text:
            text = text.replace(marker, "\n".join(placeholders), 1)
        else:
            text = "\n".join([text, *placeholders]) if text else "\n".join(placeholders)
        meta["assets"] = [m["image_url"] for m in images if isinstance(m.get("image_url"), str)]
    status = result.get("status")
    if isinstance(status, str):
        meta["runStatus"] = status
    if status in ("failed", "error") or result.get("in_kernel_exception"):
        meta["_error"] = True
    return text.strip("\n") if images else text, meta


def browsing_text(content: dict) -> Rendered:
    for key in ("result", "summary"):
        value = content.get(key)
        if isinstance(value, str) and value:
            return value, {}
    return "", {}


def quote_text(content: dict) -> Rendered:
    title, url, text = (_strings(content.get(k)) for k in ("title", "url", "text"))
    head = f"{title} ({url})" if title and url else title or url
    return "\n".join(x for x in (head, text) if x), ({"url": url} if url else {})


def webpage_text(content: dict) -> Rendered:
    """``sonic_webpage`` (2026): a page the ``web.run`` tool fetched, with its
    ``title``, ``url``, ``domain``, ``snippet`` and scraped ``text``."""
    title, url, text = (_strings(content.get(k)) for k in ("title", "url", "text"))
    head = f"{title} ({url})" if title and url else title or url
    body = text or _strings(content.get("snippet"))
    return "\n".join(x for x in (head, body) if x), ({"url": url} if url else {})


def _app_pairing_lines(content: dict) -> list[str]:
    lines = []
    workspaces, parts = content.get("workspaces"), content.get("context_parts")
    for workspace in workspaces if isinstance(workspaces, list) else ():
        if not isinstance(workspace, dict):
            continue
        name = _strings(workspace.get("app_name")) or _strings(workspace.get("content_type"))
        title = _strings(workspace.get("title"))
        label = f"{name}: {title}" if name and title else name or title
        if label:
            lines.append(f"[app: {label}]")
    for part in parts if isinstance(parts, list) else ():
        text = part.get("text") if isinstance(part, dict) else part
        if isinstance(text, str) and text:
            lines.append(text)
    return lines


def app_pairing_text(content: dict) -> Rendered:
    """``app_pairing_content``: the windows of other apps (a terminal, an
    editor, a browser tab) the desktop app or the Atlas browser shared with
    the model, each ``[app: name: window title]``, then the text it read
    from them (``context_parts``)."""
    return "\n".join(_app_pairing_lines(content)), {}


def computer_text(content: dict) -> Rendered:
    """``computer_output`` (Operator / agent mode): the screenshot a
    ``computer.*`` tool took, as a placeholder (its asset pointer in
    ``meta.assets``), then what the state names: a browser tab's title and
    URL, or the machine the computer started as."""
    lines: list[str] = []
    meta: dict[str, Any] = {}
    screenshot = content.get("screenshot")
    if isinstance(screenshot, dict):
        lines.append(_image_placeholder(screenshot).replace("[image", "[screenshot", 1))
        if isinstance(screenshot.get("asset_pointer"), str):
            meta["assets"] = [screenshot["asset_pointer"]]
    state = content.get("state") if isinstance(content.get("state"), dict) else {}
    title, url = _strings(state.get("title")), _strings(state.get("url"))
    if title or url:
        lines.append(f"{title} ({url})" if title and url else title or url)
    elif _strings(state.get("os_name")):
        lines.append(" ".join(x for x in ("[computer:", _strings(state.get("os_name")), _strings(state.get("os_version"))) if x) + "]")
    if url:
        meta["url"] = url
    return "\n".join(lines), meta


def citable_output_text(content: dict) -> Rendered:
    """``citable_code_output``: a tool's output kept for citing (``output_str``)."""
    return _strings(content.get("output_str")), {}


def thoughts_text(content: dict) -> Rendered:
    blocks = []
    for thought in content.get("thoughts") or ():
        if not isinstance(thought, dict):
            continue
        summary, body = _strings(thought.get("summary")), _strings(thought.get("content"))
        if not body and isinstance(thought.get("chunks"), list):
            body = "".join(c for c in thought["chunks"] if isinstance(c, str))
        block = "\n".join(x for x in (summary, body) if x)
        if block:
            blocks.append(block)
    return "\n\n".join(blocks), {}


def recap_text(content: dict) -> Rendered:
    return _strings(content.get("content")), {"recap": True}


def user_context_text(content: dict) -> Rendered:
    sections = []
    for key, label in (("user_profile", "User profile"), ("user_instructions", "User instructions")):
        value = content.get(key)
        if isinstance(value, str) and value.strip():
            sections.append(f"{label}:\n{value}")
    return "\n\n".join(sections), {}


def model_context_text(content: dict) -> Rendered:
    sections = []
    for key in ("model_set_context", "repo_summary"):
        value = content.get(key)
        if isinstance(value, str) and value.strip():
            sections.append(value)
    return "\n\n".join(sections), {}


def error_text(content: dict) -> Rendered:
    name = content.get("name")
    return _strings(content.get("text")), ({"errorName": name, "_error": True} if isinstance(name, str) else {"_error": True})


def unknown_text(content: dict) -> Rendered:
    """A content type not known yet: every readable string it holds."""
    if "parts" in content:
        return parts_text(content)
    for key in ("text", "result", "content", "summary"):
        value = content.get(key)
        if isinstance(value, str) and value:
            return value, {}
    return "", {}


RENDERERS: dict[str, Callable[[dict], Rendered]] = {
    "text": parts_text,
    "multimodal_text": parts_text,
    "code": code_text,
    "tether_browsing_display": browsing_text,
    "tether_quote": quote_text,
    "sonic_webpage": webpage_text,
    "app_pairing_content": app_pairing_text,
    "computer_output": computer_text,
    "citable_code_output": citable_output_text,
    "thoughts": thoughts_text,
    "reasoning_recap": recap_text,
    "user_editable_context": user_context_text,
    "model_editable_context": model_context_text,
    "system_error": error_text,
}


def render(message: dict) -> tuple[str, str, dict[str, Any]]:
    """``(content_type, text, meta)`` of one message."""
    content = message.get("content")
    if isinstance(content, str):
        return "text", content, {}
    if not isinstance(content, dict):
        return "text", "", {}
    kind = content.get("content_type")
    kind = kind if isinstance(kind, str) else "unknown"
    if kind == "execution_output":
        text, meta = execution_output_text(content, message)
    else:
        text, meta = RENDERERS.get(kind, unknown_text)(content)
    return kind, text, meta
