"""A differential test against detect-secrets (Yelp), an independent
scanner: every string it flags, on every file of the shared corpus and on
the generated corpus, is gone after ``redact`` or falls under one of the
reviewed reasons below (values sessionport keeps on purpose; each reason
is documented in docs/redaction.md)."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import CORPUS, FIXTURES, requires_corpus

import sessionport
from sessionport.errors import SessionportError
from sessionport.redaction import Redactor, blobs, keywords
from sessionport.stages.redact import build

sys.path.insert(0, str(FIXTURES / "redaction"))
import classes  # noqa: E402

detect_secrets = pytest.importorskip("detect_secrets", reason="detect-secrets is a test dependency (pip install -e '.[test]')")
from detect_secrets.core.scan import scan_file  # noqa: E402
from detect_secrets.settings import default_settings  # noqa: E402

_HEX = re.compile(r"^[0-9a-fA-F]{7,128}$")
_HOST = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$")

# (reason, predicate on (detect-secrets type, flagged value)); reviewed:
# each is a shape docs/redaction.md lists under "kept on purpose".
ALLOWED = [
    ("pure hex (git SHAs, digests, container ids, test vectors) is kept without a secret context",
     lambda kind, value: kind == "Hex High Entropy String" and _HEX.match(value) is not None),
    ("a regex fragment of a placeholder (detect-secrets reports the 'ghp' of 'ghp_xxxx...'), not a value",
     lambda kind, value: len(value) < 8),
    ("a template or placeholder (<YOUR_KEY>, xxxx, ${VAR}, YOUR_SECRET_HERE)",
     lambda kind, value: keywords.is_placeholder(value)),
    ("prose after a password label: UI text with spaces or in another script, not a credential",
     lambda kind, value: kind == "Secret Keyword" and (any(c.isspace() for c in value.strip()) or not value.isascii())),
    ("a host name, not a credential",
     lambda kind, value: kind == "Secret Keyword" and _HOST.match(value) is not None),
    ("base64 of data (an image, a font, an archive, a PDF, a protobuf) or a long opaque blob with no context",
     lambda kind, value: kind == "Base64 High Entropy String" and (blobs.judge(value)[0] == blobs.DATA or len(value) > 256)),
]


def flagged(texts) -> list[tuple[str, str]]:
    """(type, value) of everything detect-secrets reports in ``texts``,
    scanned as lines of a plain-text file with its default plugins."""
    lines: set[str] = set()
    for text in texts:
        lines.update(text.split("\n"))
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "strings.txt"
        path.write_text("\n".join(sorted(lines)), encoding="utf-8", errors="surrogatepass")
        with default_settings():
            return [(s.type, s.secret_value) for s in scan_file(str(path)) if s.secret_value]


def unexplained(found, haystack: str) -> list[tuple[str, str]]:
    left = []
    for kind, value in found:
        if value not in haystack:
            continue
        if not any(allowed(kind, value) for _, allowed in ALLOWED):
            left.append((kind, value))
    return left


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json") and p.stat().st_size)


@requires_corpus
@pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: p.name)
def test_every_detect_secrets_finding_in_the_corpus_is_redacted_or_reviewed(path):
    try:
        events = list(sessionport.read(str(path)))
    except SessionportError as exc:  # a file no importer reads
        pytest.skip(f"not a readable transcript: {exc}")
    strings: list[str] = []
    for event in events:
        classes.decoded_strings(event, strings)
    found = flagged(strings)
    redacted: list[str] = []
    for event in build()(iter(events)):
        classes.decoded_strings(event, redacted)
    left = unexplained(found, "\n\x00\n".join(redacted))
    assert not left, left[:20]


def test_every_detect_secrets_finding_in_the_generated_corpus_is_redacted_or_reviewed():
    cases = classes.build(1)
    texts = [t for case in cases for t in classes.plain_texts(case)]
    found = flagged(texts)
    assert len(found) > 100  # the scanner ran and saw the secrets
    redactor = Redactor()
    out = "\n\x00\n".join(redactor.redact_text(t) for t in texts)
    left = unexplained(found, out)
    assert not left, left[:20]


def test_the_reviewed_reasons_do_not_excuse_real_secrets():
    # the secrets of the generated corpus are never excused by a reason
    cases = classes.build(2)
    for case in cases:
        for secret in case.secrets:
            for kind in ("Secret Keyword", "Base64 High Entropy String"):
                excused = [reason for reason, allowed in ALLOWED if allowed(kind, secret)]
                assert not excused or case.klass in ("username", "public-ip", "card"), (case.klass, secret, excused)
