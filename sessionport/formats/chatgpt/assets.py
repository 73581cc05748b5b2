"""The image files of a ChatGPT export, for ``--keep-images``.

A message names its images by asset pointer (``file-service://file-AbC1``,
``sediment://file_0000…``); the export holds each uploaded or generated
image as a file whose name starts with that file id (``file-AbC1-chart.png``,
``file_0000…-<uuid>.png``, sometimes in a folder such as
``dalle-generations/`` or ``user-…/``, sometimes with a ``.dat`` name).
The files are listed once per read (names only), and a file is opened only
when a message names it; its type comes from its first bytes, never from its
name, and a file that is not PNG, JPEG, GIF or WebP, or larger than
:data:`sessionport.media.MAX_FILE_BYTES`, is not carried (its placeholder
stays).
"""

from __future__ import annotations

import os
import re
import zipfile
from typing import Callable

from sessionport import media
from sessionport.io import open_regular

_FILE_ID = re.compile(r"^(file[-_][A-Za-z0-9]+)(?:[-.]|$)")
MAX_FILES = 200_000  # names listed from one export, whatever it holds
# Times one image file is carried in a read.  Messages name an image by
# pointer, so a small export whose messages all name one 5 MB image would
# otherwise carry it again for each (300 messages: 1.2 GB of images written
# by --images DIR, 1.7 GB of portable-jsonl); past this the placeholder stays.
MAX_CARRIED = 8
# Only the export's folder and its folders are looked in (``dalle-generations/``,
# ``user-…/``): a conversations.json kept in a big folder is not a reason to
# walk all of it.
_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_type(head: bytes) -> str | None:
    for signature, mime in _SIGNATURES:
        if head.startswith(signature):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


class ExportAssets:
    def __init__(self, names: list[str], read: Callable[[str], bytes | None]) -> None:
        self.index: dict[str, str] = {}
        for name in names:
            found = _FILE_ID.match(name.rsplit("/", 1)[-1])
            if found is not None:
                self.index.setdefault(found.group(1), name)
        self.read = read
        self.carried: dict[str, int] = {}
        self.refused = 0

    def media(self, pointer: object) -> dict | None:
        """The media entry of the image an asset pointer names, if the export holds it."""
        if not isinstance(pointer, str) or "://" not in pointer:
            return None
        name = self.index.get(pointer.split("://", 1)[1])
        if name is not None:
            times = self.carried.get(name, 0)
            if times >= MAX_CARRIED:
                self.refused += 1
                return None
            self.carried[name] = times + 1
        raw = self.read(name) if name is not None else None
        mime = image_type(raw[:16]) if raw else None
        return media.from_bytes(mime, raw) if mime else None

    @classmethod
    def of_folder(cls, folder: str) -> "ExportAssets":
        names: list[str] = []
        for root, dirs, files in os.walk(folder):
            # the export's own folders hold them, one level down at most
            if root != folder:
                dirs[:] = []
            dirs.sort()
            for file in sorted(files):
                if len(names) >= MAX_FILES:
                    break
                if file.startswith("file"):
                    names.append(os.path.relpath(os.path.join(root, file), folder).replace(os.sep, "/"))

        def read(name: str) -> bytes | None:
            try:
                with open_regular(os.path.join(folder, name)) as handle:
                    raw = handle.read(media.MAX_FILE_BYTES + 1)
            except OSError:
                return None
            return raw if len(raw) <= media.MAX_FILE_BYTES else None

        return cls(names, read)

    @classmethod
    def of_zip(cls, archive: zipfile.ZipFile) -> "ExportAssets":
        infos = {info.filename: info for info in archive.infolist()[:MAX_FILES] if not info.is_dir()}

        def read(name: str) -> bytes | None:
            info = infos[name]
            if info.file_size > media.MAX_FILE_BYTES:
                return None
            try:
                with archive.open(info) as member:
                    raw = member.read(media.MAX_FILE_BYTES + 1)
            except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError, ValueError):
                return None
            return raw if len(raw) <= media.MAX_FILE_BYTES else None

        return cls(list(infos), read)


def with_images(events, assets: ExportAssets, warn: Callable[[str], None] | None = None):
    """``events`` with the images their messages' asset pointers name carried as ``media``."""
    for event in events:
        if event.get("type") == "message":
            meta = event.get("meta")
            pointers = meta.get("assets") if isinstance(meta, dict) else None
            if isinstance(pointers, list):
                media.attach(event, [entry for entry in map(assets.media, pointers) if entry is not None])
        if event.get("type") == "end" and assets.refused and warn is not None:
            warn(
                f"{assets.refused} image reference(s) kept as placeholders: an image file of the export is carried "
                f"at most {MAX_CARRIED} times (messages naming one image again and again would copy it for each)"
            )
            assets.refused = 0
        yield event
