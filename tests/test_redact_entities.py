"""HTML character references are decoded before judging, as terminal codes
and ``\\u`` escapes are: a page a tool fetched, or a log escaped for HTML,
spells the quotes and punctuation around a secret as ``&quot;``, ``&#95;``;
the tag replaces the whole original range, references inside it included."""

from __future__ import annotations

import pytest

from sessionport.redaction import Redactor, redact_text

TOKEN = "ghp_wnQrS7RPeMOx1jTy2BvKpL0sQa9dZc4fGh8J"


@pytest.mark.parametrize(
    "text, secret, redacted",
    [
        ("{&quot;password&quot;: &quot;Tiger#3068maple&quot;}", "Tiger#3068maple", "{&quot;password&quot;: &quot;[REDACTED:password#1]&quot;}"),
        ("<code>ghp&#95;" + TOKEN[4:] + "</code>", TOKEN[4:], "<code>[REDACTED:github-token#1]</code>"),
        ("x &#x67;hp_" + TOKEN[4:] + " y", TOKEN[4:], "x [REDACTED:github-token#1] y"),
        ("password&#61;Tiger#3068maple", "Tiger#3068maple", "password&#61;[REDACTED:password#1]"),
        ("<td>&apos;api_key&apos;: &apos;Zx9fQ2bz7Kq1Lm3Np&apos;</td>", "Zx9fQ2bz7Kq1Lm3Np", "<td>&apos;api_key&apos;: &apos;[REDACTED:api-key#1]&apos;</td>"),
    ],
)
def test_a_secret_spelled_with_character_references_is_redacted(text, secret, redacted):
    out = redact_text(text)
    assert secret not in out
    assert out == redacted
    assert redact_text(out) == out  # redacting twice equals redacting once


@pytest.mark.parametrize("text", ["a &amp; b &lt;tag&gt; AT&amp;T", "&#0; &#99999999; &#xD800; &#x110000;", "R&amp;D costs 5&nbsp;%", "&quot;hello&quot; said the page"])
def test_references_without_a_secret_are_kept_as_they_are(text):
    redactor = Redactor()
    assert redactor.redact_text(text) == text
    assert not redactor.counts


def test_the_same_secret_gets_one_tag_plain_and_escaped():
    redactor = Redactor()
    plain = redactor.redact_text(f"export GITHUB_TOKEN={TOKEN}")
    escaped = redactor.redact_text(f"export GITHUB&#95;TOKEN&#61;{TOKEN}")
    assert plain.endswith("[REDACTED:github-token#1]") and escaped.endswith("[REDACTED:github-token#1]")
