"""Fixtures of the micro-benchmarks (``pytest benchmarks/ --benchmark-only``).

Not part of the test run: the project's pytest configuration collects
``tests/`` only.  Inputs are generated with the seeded generator into a
temporary directory, small enough that a round takes milliseconds.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # generate.py and measure.py import as top-level modules

from generate import generate  # noqa: E402

import sessionport  # noqa: E402

SIZE = 2_000_000  # bytes per generated input


@pytest.fixture(scope="session")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """One generated Claude Code log and one Codex rollout, plus the
    portable-jsonl conversion of each."""
    root = tmp_path_factory.mktemp("bench-inputs")
    paths: dict[str, Path] = {}
    for kind in ("claude-code", "codex"):
        path = root / f"{kind}.jsonl"
        generate(kind, SIZE, str(path))
        paths[kind] = path
        wire = root / f"{kind}.portable.jsonl"
        wire.write_bytes(sessionport.dumps(sessionport.read(str(path), format=kind), "portable-jsonl"))
        paths[f"{kind}:portable-jsonl"] = wire
    return paths


@pytest.fixture(scope="session")
def events(inputs) -> dict[str, list[dict]]:
    """The events of each generated input, read once (exporters and stages
    are measured on them, without the import cost)."""
    return {kind: list(sessionport.read(str(inputs[kind]), format=kind)) for kind in ("claude-code", "codex")}


def consume(iterator) -> int:
    count = 0
    for _ in iterator:
        count += 1
    return count


def write_to_memory(events: list[dict], fmt: str) -> int:
    out = io.BytesIO()
    sessionport.write(events, out, format=fmt)
    return out.tell()
