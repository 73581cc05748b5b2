"""The screening pass of ``redact`` never hides a finding.

Screening only decides whether the full detectors run on a string, so it
must answer "maybe" for every string in which they find something, in its
pure-Python form and in its RE2 form (when google-re2 is installed).
"""

from __future__ import annotations

import json
import sys

import pytest

from conftest import FIXTURES

from sessionport.redaction import Redactor, engine, screen

sys.path.insert(0, str(FIXTURES / "redaction"))
from cases import build_cases  # noqa: E402
import classes  # noqa: E402


def corpus_strings() -> list[str]:
    texts: list[str] = []
    for seed in (1, 2, 3):
        secrets, keeps = build_cases(seed)
        for case in secrets + keeps:
            texts += [case.text, json.dumps(case.text), json.dumps(json.dumps(case.text))]
            texts += case.text.splitlines()
    for case in classes.build(1, per_class=20):
        for text in classes.plain_texts(case):
            texts += [text, json.dumps(text)]
    texts += ["password\u00a0'Zq8vLm2Rx7'", "TOKEN\u2003\"Xk3pQ9vB\"", "caf\u00e9 api_key = 'Hr5tN8wQ2zLm'", "bad \ud800 surrogate password=Zq8vLm2Rx7"]
    return [t for t in dict.fromkeys(texts) if len(t) >= 6]


def pure(redactor: Redactor, text: str) -> bool:
    raw = screen.one_byte_each(text)
    return screen.might_hold(text, engine._lower(text), raw, screen.token_runs(text, raw), pii_on=redactor.pii, users=redactor._learned)


@pytest.mark.parametrize("pii", [True, False])
def test_every_string_with_a_finding_passes_both_screens(pii):
    redactor = Redactor(pii=pii)
    texts = corpus_strings()
    with_findings = 0
    for text in texts:
        if not redactor.find(text):
            continue
        with_findings += 1
        assert pure(redactor, text), text
        assert screen.quick_might_hold(text, pii_on=pii, users=redactor._learned) in (True, None), text
    assert with_findings > 300


def test_token_runs_equal_the_regex_runs():
    for text in corpus_strings():
        assert screen.token_runs(text) == [m.span() for m in engine.rules._TOKEN_RUN.finditer(text)]


def test_prose_and_code_are_screened_out():
    redactor = Redactor()
    for text in ("the token error at stream session be module is pass", "def total(items):\n    return sum(i.price for i in items)\nself.items = []"):
        assert not pure(redactor, text)
        assert screen.quick_might_hold(text, pii_on=True) in (False, None)
        assert redactor.redact_text(text) == text


def test_redaction_is_the_same_without_re2(monkeypatch):
    texts = corpus_strings()
    fast = [Redactor().redact_text(t) for t in texts]
    monkeypatch.setattr(screen, "_SET", None)
    monkeypatch.setattr(screen, "_MATCH", None)
    monkeypatch.setattr(screen, "MATCH", None)
    assert [Redactor().redact_text(t) for t in texts] == fast


def test_the_name_value_screen_only_widens_the_detector_it_stands_for():
    # The detector's bounded repetitions become "one or more" in the screen
    # (cheap to compile, and never narrower); none may survive or vanish.
    detector = screen._spell_spaces(screen.keywords._NAME_VALUE.pattern)
    screened = dict((name, pattern) for name, pattern, _ in screen._RE2_PATTERNS)["name-value"]
    assert "{1," not in screened
    assert screened == "(?i)" + detector.replace("{1,80}", "+").replace("{1,400}", "+")
    assert detector.count("{1,80}") + detector.count("{1,400}") == screened.count("+") - detector.count("+")


_JOINS = [
    # the end of one text and the start of the next, written to tempt a
    # pattern across the newline between them
    ["see curl", "-b session=1 for the jar"],
    ["-----BEGIN RSA PRIVATE", " KEY----- is a header"],
    ["the db password", "= is set elsewhere"],
    ["host 10.0.0", ".7 is private"],
    ["user", "@example.org wrote"],
    ["a" * 12, "b" * 12],
]


@pytest.mark.skipif(not screen.FAST, reason="google-re2 is not installed")
def test_a_join_is_clear_only_when_each_of_its_texts_is():
    import random

    texts = [t for t in corpus_strings() if t.isascii()]
    texts += ["plain words of prose", "    def total(items):", "import os"] * 50
    rng = random.Random(7)
    clear = 0
    groups = [[t for pair in _JOINS for t in pair], ["plain words of prose"] * 70, *_JOINS]
    for order in (texts, rng.sample(texts, len(texts))):
        groups += [order[start : start + n] for n in (1, 8, 64) for start in range(0, len(order), n)]
    for group in groups:
        verdict = screen.join_is_clear(group)
        if any(screen.MATCH(text.encode()) for text in group):
            assert verdict is False, group
        else:
            clear += verdict
    assert clear > 100  # the join's answer is the usual one for clean texts


@pytest.mark.skipif(not screen.FAST, reason="google-re2 is not installed")
def test_texts_a_screen_alone_would_not_take_are_never_marked_clear():
    redactor = Redactor()
    texts = ["short", None, 42, '{"password": "Zq8vLm2Rx7Tn"}', '  \n [1, 2, "x"]', "caf\u00e9 and more prose", "plain words of prose", " indented prose here"]
    assert redactor.screened_clear(texts) == [False, False, False, False, False, False, True, True]
    assert Redactor(patterns=("prose",)).screened_clear(texts) is None
