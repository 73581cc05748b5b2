"""benchmarks/run.py: the whole-process benchmark runs, alternates each case
with its floor, and reports CPU, wall and instruction ratios and the load.

Tiny inputs and one round: these tests check the method and its report,
not the figures (those are in docs/performance.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "benchmarks" / "run.py"


def bench(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, str(RUN), "--size", "150KB", "--small", "100KB", "--instructions-size", "50KB", "--rounds", "2", "--data", str(tmp_path / "data"), "--json", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done, json.loads(out.read_text())


def test_each_case_is_measured_next_to_its_floor_with_the_load(tmp_path):
    done, figures = bench(tmp_path, "--only", "inspect", "--only", "codex -> portable", "--only", "claude-code-log", "--no-instructions")
    names = [row["case"] for row in figures["rows"]]
    assert names[:3] == ["codex -> portable-jsonl", "inspect codex", "inspect claude-code"]
    for row in figures["rows"]:
        assert row["floor_cpu_seconds"] > 0 and row["cpu_seconds"] > 0
        # (the figures are rounded to ms, the ratios computed before)
        assert row["cpu_ratio"] == pytest.approx(row["cpu_seconds"] / row["floor_cpu_seconds"], rel=0.05)
        assert row["ratio"] == pytest.approx(row["seconds"] / row["floor_seconds"], rel=0.05)
    assert len(figures["round_loads"]) == 2 and figures["cores"] >= 1
    assert "load average at start" in done.stdout and "before each round" in done.stdout
    assert ("overloaded" in figures) == (max(figures["round_loads"] + [figures["loadavg_start"][0], figures["loadavg_end"][0]]) > figures["cores"])
    if figures.get("overloaded"):
        assert "exceeded the" in done.stderr
    # A peer is measured in the same run when installed, else named and left out.
    peer = [row for row in figures["rows"] if row["case"].startswith("claude-code-log")]
    if peer:
        assert peer[0]["group"] == "peer" and peer[0]["input"].endswith("100kb.jsonl")  # slow peers: the small input
    else:
        assert "claude-code-log" in " ".join(figures["skipped"]) and "--install-peers" in done.stderr


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed (python benchmarks/run.py --install-peers)")
def test_instruction_counts_are_ratios_to_the_floors(tmp_path):
    _, figures = bench(tmp_path, "--only", "inspect codex", "--no-peers", "--rounds", "1")
    row = figures["rows"][0]
    assert row["instructions"] > row["floor_instructions"] > 1_000_000
    assert row["instructions_ratio"] == round(row["instructions"] / row["floor_instructions"], 2)
    assert figures["instruction_tool"] in ("perf", "callgrind")
