"""Recall and damage of ``redact`` on the labelled corpus of fake secrets.

A secret counts as caught only when neither it nor its middle 12 characters
survive anywhere in the output (decoded, including JSON inside strings).  A
must-keep string is damaged when it no longer appears intact.  Targets:
recall >= 0.98, damage <= 2%, in plain text and inside Claude Code and Codex
JSONL, and every redacted JSONL line still parses.
"""

from __future__ import annotations

import sys

import orjson
import pytest

from conftest import FIXTURES

import sessionport
from sessionport.redaction import Redactor
from sessionport.registry import get_registry
from sessionport.stages.redact import build

sys.path.insert(0, str(FIXTURES / "redaction"))
from cases import build_cases, claude_code_lines, codex_lines  # noqa: E402
from classes import decoded_strings, survives  # noqa: E402  (one scoring for both labelled corpora)

RECALL_TARGET = 0.98
DAMAGE_LIMIT = 0.02


def score(secrets: list[tuple[str, str]], keeps: list[str], haystack: str):
    missed = [(kind, value) for kind, value in secrets if survives(value, haystack)]
    damaged = [value for value in keeps if value not in haystack]
    recall = 1 - len(missed) / len(secrets)
    damage = len(damaged) / len(keeps)
    return recall, damage, missed, damaged


def describe(missed, damaged) -> str:
    lines = [f"missed {kind}: {value[:60]!r}" for kind, value in missed]
    lines += [f"damaged: {value[:60]!r}" for value in damaged]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def corpus():
    return build_cases()


def test_corpus_is_large_and_labelled(corpus):
    secret_cases, keep_cases = corpus
    secrets = [s for c in secret_cases for s in c.secrets]
    keeps = [k for c in secret_cases + keep_cases for k in c.keeps]
    assert len(secrets) >= 100 and len(keeps) >= 100
    assert len({kind for kind, _ in secrets}) >= 50


def test_plain_text_recall_and_damage(corpus):
    secret_cases, keep_cases = corpus
    redactor = Redactor()
    outputs = [redactor.redact_text(case.text) for case in secret_cases + keep_cases]
    haystack = "\n\x00\n".join(outputs)
    secrets = [s for c in secret_cases for s in c.secrets]
    keeps = [k for c in secret_cases + keep_cases for k in c.keeps]
    recall, damage, missed, damaged = score(secrets, keeps, haystack)
    assert recall >= RECALL_TARGET and damage <= DAMAGE_LIMIT, f"recall {recall:.3f}, damage {damage:.3f}\n{describe(missed, damaged)}"


def test_every_secret_case_is_caught_alone(corpus):
    # stricter than the aggregate: each template on its own, fresh numbering
    secret_cases, _ = corpus
    missed = []
    for case in secret_cases:
        out = Redactor().redact_text(case.text)
        missed += [(kind, value) for kind, value in case.secrets if survives(value, out)]
    assert len(missed) <= 1, describe(missed, [])


def _jsonl_labels(corpus, user: str):
    secret_cases, keep_cases = corpus
    cases = secret_cases + keep_cases
    secrets = [s for c in secret_cases for s in c.secrets] + [("username", user)]
    keeps = [k for c in cases for k in c.keeps]
    return cases, secrets, keeps


@pytest.mark.parametrize("make_lines", [claude_code_lines, codex_lines], ids=["claude-code", "codex"])
def test_raw_jsonl_recall_damage_and_validity(corpus, make_lines):
    user = "jdoe1"
    cases, secrets, keeps = _jsonl_labels(corpus, user)
    lines = make_lines(cases, user=user)
    redactor = Redactor()
    out_lines = [redactor.redact_json_line(line) for line in lines]
    records = [orjson.loads(line) for line in out_lines]  # every line still parses
    strings: list[str] = []
    for record in records:
        decoded_strings(record, strings)
    haystack = b"\n".join(out_lines).decode() + "\n\x00\n" + "\n\x00\n".join(strings)
    recall, damage, missed, damaged = score(secrets, keeps, haystack)
    assert recall >= RECALL_TARGET and damage <= DAMAGE_LIMIT, f"recall {recall:.3f}, damage {damage:.3f}\n{describe(missed, damaged)}"
    # structure survives: ids and links are untouched
    before = [orjson.loads(line) for line in lines]
    for old, new in zip(before, records):
        for key in ("uuid", "parentUuid", "sessionId", "requestId", "timestamp", "type"):
            assert old.get(key) == new.get(key)
        old_payload, new_payload = old.get("payload") or {}, new.get("payload") or {}
        assert old_payload.get("call_id") == new_payload.get("call_id")
        assert old_payload.get("id") == new_payload.get("id")


@pytest.mark.parametrize("fmt, make_lines", [("claude-code", claude_code_lines), ("codex", codex_lines)])
def test_through_the_importer(corpus, tmp_path, fmt, make_lines):
    if fmt not in get_registry().importer_names():
        pytest.skip(f"the {fmt} importer is not installed")
    user = "jdoe1"
    cases, secrets, keeps = _jsonl_labels(corpus, user)
    path = tmp_path / f"session.{fmt}.jsonl"
    path.write_text("\n".join(make_lines(cases, user=user)) + "\n", encoding="utf-8")
    events = list(build()(sessionport.read(str(path), format=fmt)))
    out = sessionport.dumps(events)
    for line in out.splitlines():
        orjson.loads(line)
    strings: list[str] = []
    for event in events:
        decoded_strings(event, strings)
    haystack = out.decode() + "\n\x00\n" + "\n\x00\n".join(strings)
    recall, _, missed, _ = score(secrets, keeps, haystack)
    assert recall >= RECALL_TARGET, describe(missed, [])
    # damage is measured only on strings the importer carried over
    unredacted: list[str] = []
    for event in sessionport.read(str(path), format=fmt):
        decoded_strings(event, unredacted)
    present = "\n\x00\n".join(unredacted)
    carried = [k for k in keeps if k in present]
    damaged = [k for k in carried if k not in haystack]
    assert len(damaged) <= DAMAGE_LIMIT * max(len(carried), 1), describe([], damaged)


def test_redacted_corpus_is_stable_under_a_second_pass(corpus):
    secret_cases, keep_cases = corpus
    for case in secret_cases + keep_cases:
        once = Redactor().redact_text(case.text)
        assert Redactor().redact_text(once) == once, case.text[:80]
