"""Detecting and replacing secrets and personal data in transcripts.

>>> from sessionport.redaction import Redactor
>>> r = Redactor()
>>> r.redact_text("export GITHUB_TOKEN=ghp_" + "a1B2c3D4e5" * 4)
'export GITHUB_TOKEN=[REDACTED:github-token#1]'
"""

from sessionport.redaction.engine import TOKEN, Redactor

__all__ = ["Redactor", "TOKEN", "redact_text"]


def redact_text(text: str, **options) -> str:
    """Redact one string with a fresh :class:`Redactor` (numbering starts at 1)."""
    return Redactor(**options).redact_text(text)
