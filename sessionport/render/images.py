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
import contextlib
import errno
import hashlib
import os
from dataclasses import dataclass
from typing import Any, Iterator

from sessionport import companions

MAX_IMAGE_BYTES = 5 << 20
MAX_IMAGES_PER_MESSAGE = 20
# hex digits of the SHA-256 in an image file's name: 64 bits, so two
# different images at the same place of two documents never share one
HASH_CHARS = 16
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


# -- --images DIR: the files written ------------------------------------------
#
# The images of a document are written while the document is, beside it.
# Each image goes to a hidden partial file first and is linked to its name
# only when complete, so a name never holds half an image; the names this
# process wrote are noted in :mod:`sessionport.companions`, so when the
# document's output fails or is interrupted they are removed again, with
# the folders made for them, and a run that writes no document leaves no
# images.  Names are ``image-NNNN-HASH.EXT`` in the given folder (the
# image's place in its document, a hash of its bytes), nothing from the
# transcript, so no image lands outside it, and the same whatever order
# parallel workers write documents in; an existing name holding other
# bytes (an input, an earlier run's file, a link) is passed over, never
# written through.

_PARTIAL_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)

_reserved: set[str] = set()  # the documents' own paths: never an image's


def image_directory(directory: str, output: str) -> tuple[str, str]:
    """``--images DIR``: the directory (made when missing, recorded so a
    failed run removes it) and how the document links into it (relative
    to the document when it is a file)."""
    from sessionport.errors import UsageError

    if "<" in directory or ">" in directory or "\n" in directory:
        raise UsageError(f"--images {directory!r}: a directory name cannot hold '<', '>' or a line end")
    missing = []
    at = os.path.abspath(directory)
    while not os.path.lexists(at):
        missing.append(at)
        parent = os.path.dirname(at)
        if parent == at:
            break
        at = parent
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--images {directory!r}: cannot make the directory ({exc.strerror or exc})") from None
    for folder in reversed(missing):
        companions.note_folder(folder)
    if output and not output.startswith("<") and output != "-":
        _reserved.add(os.path.realpath(output))
        base = os.path.dirname(os.path.abspath(output))
        return directory, os.path.relpath(os.path.abspath(directory), base)
    return directory, os.path.normpath(directory)


def image_name(number: int, extension: str, data: bytes, attempt: int = 1) -> str:
    """``image-NNNN-HASH.EXT``: the image's place in its document and the
    start of its bytes' SHA-256, so a name depends on the document alone,
    never on which other document (in another worker) wrote first;
    ``attempt`` > 1 when the name was taken by something else."""
    digest = hashlib.sha256(data).hexdigest()[:HASH_CHARS]
    return f"image-{number:04d}-{digest}{'' if attempt == 1 else f'-{attempt}'}.{extension}"


def write_image(directory: str, number: int, extension: str, data: bytes) -> str:
    """Write the ``number``-th image of a document in ``directory`` (see
    :func:`image_name`): a name whose file holds other bytes (an earlier
    run's, a link, an input) is passed over, never overwritten; one holding
    these very bytes is linked again (a document written twice, or another
    document holding the same image at the same place).  Returns the name."""
    from sessionport.errors import OutputError

    attempt = 0
    while True:
        attempt += 1
        name = image_name(number, extension, data, attempt)
        path = os.path.join(directory, name)
        if os.path.realpath(path) in _reserved:
            continue
        if os.path.lexists(path):
            if _holds(path, data):
                return name
            continue
        partial = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.part")
        try:
            fd = os.open(partial, _PARTIAL_FLAGS, 0o666)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write the image: {_reason(exc)}") from None
        try:
            try:
                with open(fd, "wb") as handle:
                    handle.write(data)
                placed = _place(partial, path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(partial)
        except OSError as exc:
            raise OutputError(f"{path}: cannot write the image: {_reason(exc)}") from None
        if placed:
            companions.note_file(path)
            return name
        if _holds(path, data):  # another worker wrote the same image there first
            return name


def _place(partial: str, path: str) -> bool:
    """Give the complete ``partial`` its name ``path`` unless that name is
    taken (False then)."""
    try:
        os.link(partial, path)
        return True
    except FileExistsError:
        return False
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV):
            raise
    # a file system without hard links (vfat, some network mounts)
    if os.path.lexists(path):
        return False
    os.rename(partial, path)
    return True


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOSPC:
        return "no space left on device"
    return exc.strerror or str(exc)


def _holds(path: str, data: bytes) -> bool:
    """Whether ``path`` is a plain file (not a link) holding exactly ``data``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    with open(fd, "rb") as handle:
        if os.fstat(handle.fileno()).st_size != len(data):
            return False
        return handle.read() == data
