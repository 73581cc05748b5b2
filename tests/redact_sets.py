"""What the tests of the redaction evaluation sets (held-out, outside,
placements) check the same way: recall and damage against floors, every
finding passing both screens, and the output without RE2."""

from __future__ import annotations

from sessionport.redaction import engine, screen


def check_score(score, min_recall: dict[str, float], overall_floor: float, keeps_at_least: int) -> None:
    """Recall per placement at or above its floor (1.0 when none is set),
    overall recall at or above ``overall_floor``, and no look-alike changed
    among at least ``keeps_at_least`` of them."""
    (contexts, missed), _, examples, (damaged, keeps, which) = score
    low = {c: round(1 - missed[c] / contexts[c], 3) for c in contexts if 1 - missed[c] / contexts[c] < min_recall.get(c, 1.0)}
    overall = 1 - sum(missed.values()) / sum(contexts.values())
    assert not low and overall >= overall_floor, f"recall {overall:.4f}, below the floor: {low}\n" + "\n".join(examples[:30])
    assert keeps >= keeps_at_least and damaged == 0, "\n".join(which)


def findings_pass_both_screens(redactor, cases) -> int:
    """Assert that every text of ``cases`` holding a finding passes the full
    screen and is not refused by the quick one; how many held findings."""
    with_findings = 0
    for case in cases:
        text = case.chunks[0]
        if not redactor.find(text):
            continue
        with_findings += 1
        raw = screen.one_byte_each(text)
        assert screen.might_hold(text, engine._lower(text), raw, screen.token_runs(text, raw), pii_on=True), text
        assert screen.quick_might_hold(text, pii_on=True) in (True, None), text
    return with_findings


def without_re2(monkeypatch) -> None:
    """The screen on Python's re alone, as where google-re2 is missing."""
    monkeypatch.setattr(screen, "_SET", None)
    monkeypatch.setattr(screen, "_MATCH", None)
    monkeypatch.setattr(screen, "MATCH", None)
