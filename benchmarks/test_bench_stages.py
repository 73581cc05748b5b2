"""Stages over a list of events, without reading or writing."""

from __future__ import annotations

import pytest

from conftest import consume
from sessionport.registry import get_registry


def stage(name: str, **options):
    return get_registry().stage(name).build(**options)


@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_filter_role(benchmark, events, kind):
    run = stage("filter", role=("user", "assistant"))
    count = benchmark(lambda: consume(run(events[kind])))
    assert 0 < count < len(events[kind])


def test_filter_grep(benchmark, events):
    run = stage("filter", grep=("discount",))
    count = benchmark(lambda: consume(run(events["claude-code"])))
    assert count > 0


@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_redact(benchmark, events, kind):
    run = stage("redact")
    # redact may change events in place: give every round its own copies
    count = benchmark.pedantic(lambda batch: consume(run(batch)), setup=lambda: (([dict(e) for e in events[kind]],), {}), rounds=3, iterations=1)
    assert count >= len(events[kind]) - 1
