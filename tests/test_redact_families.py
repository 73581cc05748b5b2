"""Credential families in the contexts of a coding-agent session
(``fixtures/redaction/families.py``): every family in every context is
caught, in plain text and inside Claude Code and Codex JSONL (escaped once
more there, twice in tool arguments and older outputs), and the harmless
look-alikes (hashes, ids, paths, placeholders, code references, row and
cache keys) are kept."""

from __future__ import annotations

import sys

import orjson
import pytest

from conftest import FIXTURES

from sessionport.redaction import Redactor

sys.path.insert(0, str(FIXTURES / "redaction"))
import classes  # noqa: E402
import families  # noqa: E402

SEEDS = (1, 2)


@pytest.fixture(scope="module", params=SEEDS, ids=lambda s: f"seed{s}")
def cases(request):
    return families.all_cases(request.param)


def _missed(cases, haystack_of) -> list[str]:
    return [f"{case.klass}: {secret[:50]!r} in {case.chunks[0][:120]!r}"
            for case in cases for secret in case.secrets if classes.survives(secret, haystack_of(case))]


def test_every_family_is_in_every_context(cases):
    names = {case.klass.split("/")[0] for case in cases}
    contexts = {case.klass.split("/", 1)[1] for case in cases if "/" in case.klass}
    assert len(names) >= 60
    assert {"export", "dotenv", "json", "yaml", "python", "js", "gh-secret-set", "stringified", "bearer", "query", "bare"} <= contexts


def test_plain_text(cases):
    redactor = Redactor()
    outputs = {id(case): redactor.redact_text(case.chunks[0]) for case in cases}
    missed = _missed(cases, lambda case: outputs[id(case)])
    assert not missed, "\n".join(missed)


@pytest.mark.parametrize("make_lines", [classes.claude_code_lines, classes.codex_lines], ids=["claude-code", "codex"])
def test_jsonl_transcripts(cases, make_lines):
    redactor = Redactor()
    out = [redactor.redact_json_line(line) for line in make_lines(cases)]
    strings: list[str] = []
    for line in out:
        classes.decoded_strings(orjson.loads(line), strings)  # every redacted line still parses
    haystack = b"\n".join(out).decode() + "\n\x00\n" + "\n\x00\n".join(strings)
    missed = _missed(cases, lambda case: haystack)
    assert not missed, "\n".join(missed)


@pytest.mark.parametrize("text, keep", families.NEGATIVES, ids=[keep[:30] for _, keep in families.NEGATIVES])
def test_look_alikes_are_kept(text, keep):
    out = Redactor().redact_text(text)
    assert keep in out, out
    assert "[REDACTED:" not in out, out


def test_tags_name_the_family():
    redactor = Redactor()
    f = families.Fakes(5)
    tokens = {
        "dynatrace-token": "dt0c01." + f.chars(families.UD, 24) + "." + f.chars(families.UD, 64),
        "alibaba-access-key-id": "LTAI" + f.chars(families.B62, 20),
        "hubspot-token": "pat-na1-" + "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0",
    }
    for kind, token in tokens.items():
        assert redactor.redact_text(f"token printed: {token}").endswith(f"[REDACTED:{kind}#1]"), kind
