"""A text with tens of thousands of findings costs time in proportion to
them: the overlap test of each new finding against those before is two
bisections in the covered ranges, not a scan of every finding."""

from __future__ import annotations

import random
import time

from sessionport.redaction import Redactor
from sessionport.redaction.engine import _Covered


def _naive(spans, start, end):
    return any(start < e and s < end for s, e in spans)


def test_covered_ranges_answer_as_the_list_of_spans_does():
    rng = random.Random(7)
    for _ in range(2000):
        covered, spans = _Covered(), []
        for _ in range(rng.randint(0, 30)):
            start = rng.randint(0, 60)
            end = start + rng.randint(1, 8)
            if rng.random() < 0.5:
                assert covered.overlaps(start, end) == _naive(spans, start, end)
            else:
                covered.add(start, end)
                spans.append((start, end))
        for start in range(70):
            for end in range(start + 1, start + 6):
                assert covered.overlaps(start, end) == _naive(spans, start, end), (spans, start, end)
        assert all(a < b for a, b in zip(covered.ends, covered.starts[1:]))  # disjoint, sorted


def test_tens_of_thousands_of_findings_in_one_text_take_linear_time():
    lines = [f"host 52.{i % 200}.{i % 250}.{i % 199} up, mail dev{i} <dev{i}@acmecorp.io>\n" for i in range(40_000)]
    text = "".join(lines)  # 2.3 MB, 80,000 findings: minutes when each was compared with all before it
    redactor = Redactor()
    began = time.perf_counter()
    out = redactor.redact_text(text)
    took = time.perf_counter() - began
    # (a few of the made-up addresses are network or broadcast ones, which are kept)
    assert redactor.counts["email"] == 40_000 and redactor.counts["ip-address"] >= 39_000
    assert "@acmecorp.io" not in out and out.count("host 52.") < 1_000
    assert took < 30, f"{took:.1f} s"
