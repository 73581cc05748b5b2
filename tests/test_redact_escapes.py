"""Recall and damage on fixtures/redaction/escapes.py: quoted values with
an escaped quote inside (also JSON in a JSON string), URL passwords that
start with symbols reading as code, and chain private keys told from
transaction hashes by the words before them."""

from __future__ import annotations

import sys

import pytest

from conftest import FIXTURES

from sessionport.redaction import Redactor

sys.path.insert(0, str(FIXTURES / "redaction"))
import escapes  # noqa: E402
from classes import survives  # noqa: E402


@pytest.mark.parametrize("seed", (1, 2, 3))
def test_every_secret_goes(seed):
    redactor = Redactor()
    missed = [(klass, text) for klass, text, secret in escapes.secrets(seed) if survives(secret, redactor.redact_text(text))]
    assert not missed, missed


@pytest.mark.parametrize("seed", (1, 2, 3))
def test_look_alikes_are_kept(seed):
    redactor = Redactor()
    changed = [(klass, redactor.redact_text(text)) for klass, text in escapes.look_alikes(seed) if redactor.redact_text(text) != text]
    assert not changed, changed


def test_the_escaped_value_is_removed_whole_and_the_json_stays_valid():
    import json

    text = json.dumps(json.dumps({"password": 'ab"cd9Xq!z'}))
    out = Redactor().redact_text(text)
    assert "cd9Xq" not in out
    assert json.loads(json.loads(out)) == {"password": "[REDACTED:password#1]"}
