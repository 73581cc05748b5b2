"""The title scan passes over blocks that hold none of the literals every
match of its pattern must hold: the lines it gives are the same as a scan
of every block with the pattern alone, for every format's pattern."""

from __future__ import annotations

import re

import pytest

from conftest import CORPUS, FIXTURES
from sessionport import title_scan as scanner
from sessionport.registry import get_registry

FORMATS = ("claude_code", "codex", "gemini_cli", "qwen_code")


def _pattern(module: str) -> re.Pattern:
    return __import__(f"sessionport.formats.{module}.title_scan", fromlist=["_PATTERN"])._PATTERN


@pytest.mark.parametrize(
    "pattern, literals",
    [
        (rb'\n\{"type":"(?:summary|ai-title)"', (b'\n{"type":"summary', b'\n{"type":"ai-title')),
        (rb"(ab)cdef", (b"cdef",)),
        (rb"x*abcdefg|zzzz", None),  # an alternative with no literal start
        (rb"ab.c", None),  # no run long enough to be worth a search
        (rb"abcdef", (b"abcdef",)),
    ],
)
def test_the_literals_every_match_holds(pattern, literals):
    assert scanner.required_literals(re.compile(pattern)) == literals
    assert scanner.required_literals(re.compile(pattern, re.IGNORECASE)) is None


@pytest.mark.parametrize("module", FORMATS)
def test_every_format_pattern_has_its_literals(module):
    literals = scanner.required_literals(_pattern(module))
    assert literals and all(len(literal) >= 8 for literal in literals)


def _inputs(corpus: bool) -> list:
    roots = [FIXTURES] + ([CORPUS] if corpus and CORPUS.is_dir() else [])
    return [p for root in roots for p in sorted(root.rglob("*.jsonl")) if p.is_file()]


@pytest.mark.parametrize("block", [64, 1 << 20])
def test_the_lines_are_those_of_a_scan_of_every_block(block, monkeypatch):
    monkeypatch.setattr(scanner, "BLOCK", block)
    for module in FORMATS:
        pattern = _pattern(module)
        for path in _inputs(corpus=block > 4096):  # small blocks: the small files
            fast = list(scanner.title_lines(str(path), pattern))
            with monkeypatch.context() as plain:
                plain.setattr(scanner, "required_literals", lambda p: None)
                assert list(scanner.title_lines(str(path), pattern)) == fast, (module, path)
    # the real scans find what they found before
    scan = get_registry().importer("claude-code").title_scan_function()
    assert scan(str(FIXTURES / "claude-code" / "session-2.1.243-late-titles.jsonl")) == "retry cap bug"
