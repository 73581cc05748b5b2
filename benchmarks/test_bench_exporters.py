"""Exporters: a list of events -> bytes in memory."""

from __future__ import annotations

import pytest

from conftest import write_to_memory


@pytest.mark.parametrize("kind", ["claude-code", "codex"])
@pytest.mark.parametrize("fmt", ["portable-jsonl", "portable", "markdown", "html"])
def test_export(benchmark, events, kind, fmt):
    written = benchmark(lambda: write_to_memory(events[kind], fmt))
    assert written > 1000


@pytest.mark.parametrize("fmt", ["claude-code", "codex", "openai-chat", "openai-responses", "anthropic-messages"])
def test_export_vendor(benchmark, events, fmt):
    """Writing back to the tools' own formats (from a Claude Code log)."""
    written = benchmark(lambda: write_to_memory(events["claude-code"], fmt))
    assert written > 1000
