"""What an image or a document named by a URL or a file id refers to,
whichever API's part it was read from.

The provider readers keep such a part as it was (``meta.mediaRef``): it
holds no bytes, only a name.  :func:`media_ref` says what that name is
(an image or a document; a web URL, or a file id and whose) in one neutral
:class:`MediaRef`; each writer then writes its own API's part from it: the
part itself when it was read from the same API, else the same URL, or the
same file id where the id means something (OpenAI's Files API serves Chat
Completions and Responses alike; an Anthropic or Gemini file id names
nothing at another vendor, and the placeholder text stays).

The shapes read (see each reader):

- Anthropic: ``{type: image|document, reference: <source>, ...}``, the
  block's ``source`` (``url`` or ``file``) kept under ``reference``;
- AI SDK (Roo Code's v2 history): ``{type: image, image: <url>}`` and
  ``{type: file, data: <url>, mediaType, filename}``;
- Chat Completions: ``{type: image_url, image_url: {url, detail}}`` and
  ``{type: file, file: {file_id, filename}}``;
- Responses: ``{type: input_image, image_url | file_id, detail}`` and
  ``{type: input_file, file_id | file_url, filename}``;
- Gemini: ``{fileData: {fileUri, mimeType}}``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sessionport.formats.providers.content import nonempty_str, web_url
from sessionport.formats.providers.turns import Part, meta_of

ANTHROPIC, AI_SDK, CHAT, RESPONSES, GEMINI = "anthropic", "ai-sdk", "openai-chat", "openai-responses", "gemini"
# Whose Files API an id of each API's part belongs to.
_VENDOR = {ANTHROPIC: "anthropic", AI_SDK: None, CHAT: "openai", RESPONSES: "openai", GEMINI: "google"}
DETAILS = ("auto", "low", "high")


class MediaRef(NamedTuple):
    api: str  # the API of the part as read (ANTHROPIC ... GEMINI)
    kind: str  # "image" or "document"
    url: str | None  # a web URL (http or https)
    file_id: str | None  # an id of the vendor's Files API
    detail: str | None  # OpenAI's image detail, when one of DETAILS
    mime: str | None
    part: dict  # the part as read

    @property
    def vendor(self) -> str | None:
        """Whose Files API ``file_id`` belongs to."""
        return _VENDOR[self.api]

    def openai_file(self) -> str | None:
        """The file id, when OpenAI's Files API gave it."""
        return self.file_id if self.vendor == "openai" else None

    def pdf_url(self) -> str | None:
        """The URL of a PDF document (what Anthropic's URL document source takes)."""
        if self.kind != "document" or self.url is None:
            return None
        if self.mime == "application/pdf" or self.url.lower().split("?")[0].endswith(".pdf"):
            return self.url
        return None


def _kind_of_mime(mime: Any) -> str:
    return "image" if isinstance(mime, str) and mime.startswith("image/") else "document"


def media_ref(part: Part) -> MediaRef | None:
    """The reference a user part was read from (``meta.mediaRef``), or None."""
    if part.kind != "text":
        return None
    ref = meta_of(part).get("mediaRef")
    return read_ref(ref) if isinstance(ref, dict) else None


def read_ref(ref: dict) -> MediaRef | None:
    """:func:`media_ref` of a kept part."""
    rtype = ref.get("type")
    if rtype in ("image", "document") and isinstance(ref.get("reference"), dict):
        source = ref["reference"]
        url = web_url(source.get("url")) if source.get("type") == "url" else None
        file_id = nonempty_str(source.get("file_id")) if source.get("type") == "file" else None
        mime = source.get("media_type") if isinstance(source.get("media_type"), str) else None
        return MediaRef(ANTHROPIC, rtype, url, file_id, None, mime, ref)
    if rtype == "image" and isinstance(ref.get("image"), str):
        mime = ref.get("mediaType") if isinstance(ref.get("mediaType"), str) else None
        return MediaRef(AI_SDK, "image", web_url(ref["image"]), None, None, mime, ref)
    if rtype == "file" and isinstance(ref.get("data"), str):
        mime = ref.get("mediaType") if isinstance(ref.get("mediaType"), str) else None
        return MediaRef(AI_SDK, _kind_of_mime(mime), web_url(ref["data"]), None, None, mime, ref)
    if rtype == "image_url":
        image = ref.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        detail = image.get("detail") if isinstance(image, dict) and image.get("detail") in DETAILS else None
        return MediaRef(CHAT, "image", web_url(url), None, detail, None, ref)
    if rtype == "file" and isinstance(ref.get("file"), dict):
        return MediaRef(CHAT, "document", None, nonempty_str(ref["file"].get("file_id")), None, None, ref)
    if rtype in ("input_image", "input_file"):
        kind = "image" if rtype == "input_image" else "document"
        url = web_url(ref.get("image_url") if kind == "image" else ref.get("file_url"))
        detail = ref.get("detail") if ref.get("detail") in DETAILS else None
        return MediaRef(RESPONSES, kind, url, nonempty_str(ref.get("file_id")), detail, None, ref)
    data = ref.get("fileData")
    if isinstance(data, dict):
        mime = data.get("mimeType", data.get("mime_type"))
        uri = nonempty_str(data.get("fileUri", data.get("file_uri")))
        return MediaRef(GEMINI, _kind_of_mime(mime), None, uri, None, mime if isinstance(mime, str) else None, ref)
    return None
