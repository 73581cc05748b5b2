"""Images a transcript holds, carried in the stream on request.

With ``--keep-images`` (the ``keep_images`` read option) an importer puts
the images of a message into its ``media`` list, each
``{"type": "image", "mediaType": "image/png", "data": "<base64>"}``; the
message's text keeps the placeholder (``[image: image/png, 1.2 MB]``) every
exporter shows.  Without the option nothing here runs, so reading costs
nothing more.  Nothing is checked here beyond the shape: the readable
exporters check type, signature and size before they show an image (see
:mod:`sessionport.render.images`).
"""

from __future__ import annotations

import base64
import re
from typing import Any

# A file named by a transcript (a ChatGPT export's asset) is read only up to
# this size: past it the image could not be shown anyway.
MAX_FILE_BYTES = 5 << 20


def keeps_images(options: dict) -> bool:
    return bool(options.get("keep_images"))


def from_base64(mime: Any, data: Any) -> dict | None:
    """A media entry of base64 ``data`` of type ``mime`` (an image type)."""
    if not isinstance(data, str) or not data or not isinstance(mime, str) or not mime.lower().startswith("image/"):
        return None
    return {"type": "image", "mediaType": mime, "data": data}


def from_data_url(url: Any) -> dict | None:
    """A media entry of a ``data:image/...;base64,...`` URL (None for any
    other URL: nothing is fetched)."""
    if not isinstance(url, str) or not url.startswith("data:"):
        return None
    head, comma, data = url.partition(",")
    if not comma or ";base64" not in head:
        return None
    return from_base64(head[5:].split(";", 1)[0], data)


def from_bytes(mime: str, raw: bytes) -> dict | None:
    return from_base64(mime, base64.b64encode(raw).decode("ascii")) if raw else None


def attach(event: dict, media: list) -> dict:
    """``event`` with ``media`` added (when there is any)."""
    if media:
        event["media"] = media
    return event


# The placeholder every reader writes for an image (``[image: image/png, 1.2 MB]``).
IMAGE_PLACEHOLDER = re.compile(r"\[image(?::[^\]\n]*)?\]")


def carried_images(event: dict | None) -> list[dict]:
    """The images an event carries in ``media`` with their bytes (read with
    --keep-images)."""
    return [m for m in (event or {}).get("media") or () if isinstance(m, dict) and isinstance(m.get("data"), str) and isinstance(m.get("mediaType"), str)]


def in_place(text: str, images: list[dict]) -> list:
    """``text`` cut at its image placeholders, each replaced by the next of
    ``images`` (pieces of text as strings, images as their entries); images
    left over come last.  What a writer that holds images beside text
    writes for a message read with --keep-images."""
    out: list = []
    images = list(images)
    start = 0
    for found in IMAGE_PLACEHOLDER.finditer(text):
        if not images:
            break
        before = text[start:found.start()].strip("\n")
        if before:
            out.append(before)
        out.append(images.pop(0))
        start = found.end()
    rest = text[start:].strip("\n")
    if rest:
        out.append(rest)
    return out + images
