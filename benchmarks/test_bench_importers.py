"""Importers: generated input on disk -> events (includes opening and sniffing
only where the format is not given)."""

from __future__ import annotations

import pytest

import sessionport
from conftest import consume


@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_import(benchmark, inputs, kind):
    path = str(inputs[kind])
    count = benchmark(lambda: consume(sessionport.read(path, format=kind)))
    assert count > 100


@pytest.mark.parametrize("kind", ["claude-code", "codex"])
def test_import_portable_jsonl(benchmark, inputs, kind):
    """The wire format read back: what every hop of a pipe pays."""
    path = str(inputs[f"{kind}:portable-jsonl"])
    count = benchmark(lambda: consume(sessionport.read(path, format="portable-jsonl")))
    assert count > 100


def test_detect_and_import(benchmark, inputs):
    path = str(inputs["codex"])
    count = benchmark(lambda: consume(sessionport.read(path)))
    assert count > 100
