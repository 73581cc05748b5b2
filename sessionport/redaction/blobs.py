"""Base64 judged by what it decodes to.

Transcripts carry a lot of base64 that is data, not a credential: inline
images (``data:image/png;base64,...``, image blocks), fonts, gzip and zip
archives, PDFs, serialized protobufs and test vectors.  Random-looking is
true of all of them, so the entropy layer asks this module first:

- bytes that start with a file format's magic number are **data**;
- bytes that are readable text are **text**: the caller looks for secrets
  in the decoded text and redacts the encoded form only when it holds one
  (``echo aGVsbG8= | base64 -d`` stays, a base64 ``.env`` goes);
- anything else is **opaque** and left to the entropy judgement.
"""

from __future__ import annotations

import binascii

from sessionport.lazy import lazy


def b64decode(text: str) -> bytes:
    # base64.b64decode of a str without importing base64 (and struct) on
    # every redacting run: the same non-strict decoding, the same errors
    # (a non-ASCII str: UnicodeEncodeError, a ValueError)
    return binascii.a2b_base64(text.encode("ascii"))


# (magic, offset) of formats whose base64 is data
_MAGIC: tuple[tuple[bytes, int], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0), (b"\xff\xd8\xff", 0), (b"GIF87a", 0), (b"GIF89a", 0), (b"RIFF", 0),
    (b"\x00\x00\x01\x00", 0), (b"II*\x00", 0), (b"MM\x00*", 0), (b"ftyp", 4), (b"\x1aE\xdf\xa3", 0), (b"OggS", 0),
    (b"fLaC", 0), (b"ID3", 0), (b"wOFF", 0), (b"wOF2", 0), (b"OTTO", 0), (b"\x00\x01\x00\x00\x00", 0),
    (b"\x1f\x8b\x08", 0), (b"PK\x03\x04", 0), (b"PK\x05\x06", 0), (b"%PDF", 0), (b"BZh", 0),
    (b"\xfd7zXZ\x00", 0), (b"(\xb5/\xfd", 0), (b"7z\xbc\xaf\x27\x1c", 0), (b"\x00asm", 0), (b"SQLite format 3", 0),
    (b"\x7fELF", 0), (b"\xca\xfe\xba\xbe", 0), (b"\xcf\xfa\xed\xfe", 0), (b"8BPS", 0), (b"\x80\x04\x95", 0),
    (b"\x04\x22\x4d\x18", 0), (b"ARROW1", 0), (b"PAR1", 0), (b"\x93NUMPY", 0), (b"\xd0\xcf\x11\xe0", 0),
)
_ZLIB_SECOND = frozenset((0x01, 0x5E, 0x9C, 0xDA))
_B64 = lazy(r"^[A-Za-z0-9+/]+={0,2}$")
_B64URL = lazy(r"^[A-Za-z0-9_-]+={0,2}$")

DATA, TEXT, OPAQUE = "data", "text", "opaque"


def decode(value: str, limit: int | None = None) -> bytes | None:
    """The bytes of a base64 or base64url string (``limit``: of a prefix
    of about that many characters), or None when it is neither."""
    core = value.rstrip("=")
    if len(core) < 8:
        return None
    if limit is not None and len(core) > limit:
        core = core[: limit // 4 * 4]
    elif len(core) % 4 == 1:
        return None
    if _B64.match(core):
        raw = core
    elif _B64URL.match(core):
        raw = core.replace("-", "+").replace("_", "/")
    else:
        return None
    try:
        return b64decode(raw + "=" * (-len(raw) % 4))
    except (binascii.Error, ValueError):
        return None


def is_data(head: bytes) -> bool:
    for magic, offset in _MAGIC:
        if head[offset : offset + len(magic)] == magic:
            return True
    # zlib: a two-byte header that one random string in 16,000 has, so the
    # stream must also inflate
    if len(head) >= 16 and head[0] == 0x78 and head[1] in _ZLIB_SECOND:
        import zlib

        try:
            zlib.decompressobj().decompress(head)
        except zlib.error:
            return False
        return True
    return False


def readable(raw: bytes) -> str | None:
    """``raw`` as text when it is mostly printable UTF-8."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not text:
        return None
    printable = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    return text if printable >= 0.95 * len(text) else None


def judge(value: str) -> tuple[str, str | None]:
    """(DATA | TEXT | OPAQUE, the decoded text when TEXT)."""
    head = decode(value, 64)
    if head is None:
        return OPAQUE, None
    if is_data(head):
        return DATA, None
    if readable(head) is None and not _cut_in_a_character(head):
        full = decode(value, 1 << 16)
        return (DATA, None) if full is not None and is_protobuf(full) else (OPAQUE, None)
    full = decode(value, 1 << 16)
    if full is None:
        return OPAQUE, None
    text = readable(full)
    if text is None:
        # a text cut by the prefix limit may end inside a character
        text = readable(full[:-3]) if len(full) > 8 else None
    return (TEXT, text) if text is not None else (OPAQUE, None)


def _varint(raw: bytes, at: int) -> tuple[int, int] | None:
    value = shift = 0
    while at < len(raw) and shift < 64:
        byte = raw[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7
    return None


def is_protobuf(raw: bytes, depth: int = 0) -> bool:
    """Whether ``raw`` parses, to its last byte, as a serialized protobuf
    message with several small-numbered fields and some structure (a
    nested message or a readable string).  Random key material almost
    never does: a length or a wire type goes wrong within a few fields."""
    at = fields = 0
    structured = False
    while at < len(raw):
        tag = _varint(raw, at)
        if tag is None:
            return False
        key, at = tag
        number, wire = key >> 3, key & 7
        if not 1 <= number <= 2048:
            return False
        if wire == 0:
            value = _varint(raw, at)
            if value is None:
                return False
            at = value[1]
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            length = _varint(raw, at)
            if length is None or length[1] + length[0] > len(raw):
                return False
            start, at = length[1], length[1] + length[0]
            payload = raw[start:at]
            if len(payload) >= 3 and (readable(payload) is not None or (depth < 3 and is_protobuf(payload, depth + 1))):
                structured = True
        else:
            return False
        fields += 1
        if at > len(raw):
            return False
    return fields >= 3 and structured or fields >= 5


def _cut_in_a_character(head: bytes) -> bool:
    for cut in (1, 2, 3):
        if len(head) > cut and readable(head[:-cut]) is not None:
            return True
    return False


# data:[<mime>][;param=value]*;base64,<payload>
DATA_URI = lazy(r"data:(?P<mime>[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+)?(?:;[A-Za-z0-9.+-]+=[^;,\s\"']*)*;base64,(?P<b64>[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+={0,2})")
_TEXTUAL = ("text/", "application/json", "application/xml", "application/x-sh", "application/javascript", "application/x-yaml", "application/yaml", "application/toml", "application/x-www-form-urlencoded")


def data_uris(text: str):
    """(start, end, decoded text or None) of each data URL's payload; the
    text is given for textual media types, which may hold secrets."""
    if "base64," not in text:
        return
    for match in DATA_URI.finditer(text):
        mime = (match.group("mime") or "text/plain").lower()
        decoded = None
        if mime.startswith(_TEXTUAL) or mime.endswith(("+json", "+xml")):
            raw = decode(match.group("b64"), 1 << 16)
            decoded = readable(raw) if raw is not None else None
        yield match.start("b64"), match.end("b64"), decoded
