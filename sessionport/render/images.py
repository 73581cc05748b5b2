"""Images a message carries, checked before a page or document shows them.

The stream holds an image only when its importer was asked to carry it: a
message then has ``media``, a list of ``{"type": "image", "mediaType":
"image/png", "data": "<base64>"}`` (see docs/formats/html.md); its text keeps
the placeholder (``[image: image/png, 1.2 MB]``) every exporter shows.
With ``--images embed`` the readable exporters show such an image inline as a
``data:`` URL, and the Markdown exporter can write it to a directory instead
(``--images DIR``) and link it.  An image is shown only when it is PNG, JPEG,
GIF or WebP, its bytes begin with that type's signature, and it is at most
:data:`MAX_IMAGE_BYTES`; SVG (which can hold script) never is.  Anything
else stays its placeholder, with the reason.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Iterator

MAX_IMAGE_BYTES = 5 << 20
MAX_IMAGES_PER_MESSAGE = 20
EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


def _signature_matches(mime: str, head: bytes) -> bool:
    if mime == "image/png":
        return head.startswith(b"\x89PNG\r\n\x1a\n")
    if mime == "image/jpeg":
        return head.startswith(b"\xff\xd8\xff")
    if mime == "image/gif":
        return head.startswith((b"GIF87a", b"GIF89a"))
    if mime == "image/webp":
        return head[:4] == b"RIFF" and head[8:12] == b"WEBP"
    return False


@dataclass
class Image:
    mime: str
    data: bytes | None  # None when refused
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.data is not None

    def data_url(self) -> str:
        return f"data:{self.mime};base64," + base64.b64encode(self.data or b"").decode("ascii")

    @property
    def extension(self) -> str:
        return EXTENSIONS.get(self.mime, "bin")


def check(item: Any) -> Image:
    """One ``media`` entry, decoded and checked."""
    if not isinstance(item, dict) or item.get("type", "image") != "image":
        return Image("", None, "not an image")
    mime = item.get("mediaType")
    mime = mime.strip().lower() if isinstance(mime, str) else ""
    data = item.get("data")
    if mime not in EXTENSIONS:
        return Image(mime, None, f"{mime or 'unknown type'} is not shown (PNG, JPEG, GIF and WebP only)")
    if not isinstance(data, str) or not data:
        return Image(mime, None, "no image data")
    if len(data) * 3 // 4 > MAX_IMAGE_BYTES + 3:
        return Image(mime, None, f"larger than {MAX_IMAGE_BYTES >> 20} MB")
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return Image(mime, None, "not valid base64")
    if len(raw) > MAX_IMAGE_BYTES:
        return Image(mime, None, f"larger than {MAX_IMAGE_BYTES >> 20} MB")
    if not _signature_matches(mime, raw[:16]):
        return Image(mime, None, f"its bytes are not {mime}")
    return Image(mime, raw)


def images_of(message: dict) -> Iterator[Image]:
    media = message.get("media")
    if not isinstance(media, list):
        return
    for n, item in enumerate(media):
        if n >= MAX_IMAGES_PER_MESSAGE:
            yield Image("", None, f"more than {MAX_IMAGES_PER_MESSAGE} images in one message")
            return
        yield check(item)
