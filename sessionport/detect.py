"""Choosing an importer from the first bytes of an input."""

from __future__ import annotations

from sessionport.errors import DetectionError
from sessionport.registry import Importer, Registry


def is_blank(head: bytes) -> bool:
    return not head.strip(b" \t\r\n\x00\xef\xbb\xbf")


def detect(head: bytes, name: str, registry: Registry) -> Importer:
    """The importer whose ``sniff`` scores ``head`` highest.

    Each importer looks only at ``head`` (the first decompressed bytes), so
    nothing of the stream is consumed.  Ties go to the importer registered
    first by name, which keeps detection deterministic.
    """
    best: Importer | None = None
    best_score = 0
    for importer in sorted(registry.importers(), key=lambda imp: imp.name):
        if importer.sniff is None:
            continue
        try:
            score = int(importer.sniff(head))
        except Exception:  # a sniffer must never break detection of the others
            score = 0
        if score > best_score:
            best, best_score = importer, score
    if best is None:
        tried = ", ".join(imp.name for imp in sorted(registry.importers(), key=lambda i: i.name) if imp.sniff)
        preview = head[:40].decode("utf-8", "replace").replace("\n", "\\n")
        raise DetectionError(
            name,
            f"the format could not be recognised from its first bytes ({preview!r}); tried {tried}",
            hint="name the format with --from FORMAT; `sessionport formats` lists them",
        )
    return best
