"""Choosing an importer from the first bytes of an input."""

from __future__ import annotations

from sessionport.errors import DetectionError
from sessionport.registry import Importer, Registry

# How many leading lines may be set aside to find one a sniffer knows:
# new versions put new record types first (Claude Code 2.1.17x starts with
# ``mode``/``permission-mode``/``ai-title`` lines).
HEAD_LINES = 24
# What each line set aside costs: the line an importer knows first wins.
LINE_COST = 1


def is_blank(head: bytes) -> bool:
    return not head.strip(b" \t\r\n\x00\xef\xbb\xbf")


def _score(importer: Importer, head: bytes) -> int:
    try:
        return int(importer.sniff(head))
    except Exception:  # a sniffer must never break detection of the others
        return 0


def _later_heads(head: bytes):
    """``head`` without its first line, without its first two... (complete
    lines only: the last, cut-off line of the head is never a start)."""
    at = 0
    for _ in range(HEAD_LINES):
        nl = head.find(b"\n", at)
        if nl < 0:
            return
        at = nl + 1
        if head.find(b"\n", at) < 0:  # what is left is no complete line
            return
        yield head[at:]


def rank(head: bytes, registry: Registry) -> list[tuple[int, Importer]]:
    """Every importer with its score for ``head``, best first.

    Each importer looks only at ``head`` (the first decompressed bytes), so
    nothing of the stream is consumed.  When no sniffer knows the first
    line, the head is scored again from each of its next lines (a
    line set aside costs ``LINE_COST``), so that lines of types no sniffer
    knows are outvoted by the known records that follow them.  Ties go to
    the importer first by name, which keeps detection deterministic.
    """
    importers = [imp for imp in sorted(registry.importers(), key=lambda imp: imp.name) if imp.sniff is not None]
    scores = {imp.name: _score(imp, head) for imp in importers}
    # Only when no sniffer knows the first line at all: a file recognised
    # from its first line is detected as it always was.
    if max(scores.values(), default=0) <= 0:
        for k, later in enumerate(_later_heads(head), 1):
            for imp in importers:
                score = _score(imp, later) - LINE_COST * k
                if score > scores[imp.name]:
                    scores[imp.name] = score
    ranked = [(scores[imp.name], imp) for imp in importers if scores[imp.name] > 0]
    ranked.sort(key=lambda pair: -pair[0])  # stable: name order among equals
    return ranked


def detect(head: bytes, name: str, registry: Registry) -> Importer:
    """The importer that scores ``head`` highest (see :func:`rank`)."""
    ranked = rank(head, registry)
    if not ranked:
        tried = ", ".join(imp.name for imp in sorted(registry.importers(), key=lambda i: i.name) if imp.sniff)
        preview = head[:40].decode("utf-8", "replace").replace("\n", "\\n")
        raise DetectionError(
            name,
            f"the format could not be recognised from its first bytes ({preview!r}); tried {tried}",
            hint="name the format with --from FORMAT; `sessionport formats` lists them",
        )
    return ranked[0][1]
