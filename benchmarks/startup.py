"""Start-up a person feels: CPU seconds of ``--version``, ``--help``, shell
completion and the conversion and ``inspect`` of a small file (the fixed cost
of every run), and the time to the first output line of a small ``convert``,
each next to ``python -c pass`` measured alternately in the same run.

    python benchmarks/startup.py              # best of 7 rounds
    python benchmarks/startup.py --rounds 15 --json startup.json

Targets: at most 0.12 s of CPU for --version, --help and completion; at most
0.06 s of CPU for a conversion (Codex to portable-jsonl) and an ``inspect`` of
a small file; at most 0.2 s to the first line of ``convert`` on a small file.
Measure an installed copy (``pip install .`` into a fresh virtual
environment, run from outside the checkout): an editable install adds its
finder and paths to every start.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SMALL = ROOT / "fixtures" / "claude-code" / "session.jsonl"
SMALL_CODEX = ROOT / "fixtures" / "codex" / "rollout-envelope.jsonl"
SP = [sys.executable, "-m", "sessionport"]
BASELINE = "python -c pass"
CPU_TARGET = 0.12
RUN_TARGET = 0.06
FIRST_LINE_TARGET = 0.2


def _complete(words: str) -> dict[str, str]:
    parts = words.split(" ")
    return {"_SESSIONPORT_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(parts) - 1)}


def cases() -> dict[str, tuple[list[str], dict[str, str], float]]:
    """name -> (argv, extra environment, target seconds)."""
    return {
        BASELINE: ([sys.executable, "-c", "pass"], {}, 0.0),
        "sessionport --version": (SP + ["--version"], {}, CPU_TARGET),
        "sessionport --help": (SP + ["--help"], {}, CPU_TARGET),
        "complete: sessionport c<TAB>": (SP, _complete("sessionport c"), CPU_TARGET),
        "complete: convert fix<TAB>": (SP, _complete("sessionport convert fix"), CPU_TARGET),
        "complete: convert x --to m<TAB>": (SP, _complete("sessionport convert x --to m"), CPU_TARGET),
        "complete: convert --t<TAB>": (SP, _complete("sessionport convert --t"), CPU_TARGET),
        "complete: filter fix<TAB>": (SP, _complete("sessionport filter fix"), CPU_TARGET),
        "convert small codex --to portable-jsonl": (SP + ["convert", str(SMALL_CODEX), "--to", "portable-jsonl", "-o", os.devnull], {}, RUN_TARGET),
        "inspect small claude-code": (SP + ["inspect", str(SMALL)], {}, RUN_TARGET),
        "first line: convert small --to markdown": (SP + ["convert", str(SMALL), "--to", "markdown"], {}, FIRST_LINE_TARGET),
    }


def once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds of the child, wall seconds to its first output line)."""
    full_env = {**os.environ, **env}
    start = time.perf_counter()
    # Outside the checkout, so that ``-m sessionport`` imports the copy
    # installed for this Python, not the checkout's sources.
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=full_env, cwd=tempfile.gettempdir())
    assert proc.stdout is not None
    proc.stdout.readline()
    first_line = time.perf_counter() - start
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, None):
        raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, first_line


def measure(rounds: int) -> list[dict]:
    table = cases()
    best: dict[str, tuple[float, float]] = {}
    for _ in range(rounds):  # alternate the cases, so load changes hit them all alike
        for name, (argv, env, _target) in table.items():
            cpu, first = once(argv, env)
            old = best.get(name)
            best[name] = (min(cpu, old[0]), min(first, old[1])) if old else (cpu, first)
    base_cpu, base_first = best[BASELINE]
    rows = []
    for name, (_argv, _env, target) in table.items():
        cpu, first = best[name]
        is_first_line = name.startswith("first line")
        figure = first if is_first_line else cpu
        rows.append({
            "case": name,
            "cpu_seconds": round(cpu, 4),
            "first_line_seconds": round(first, 4),
            "cpu_ratio": round(cpu / base_cpu, 2) if base_cpu else None,
            "first_line_ratio": round(first / base_first, 2) if base_first else None,
            "measure": "first line (wall)" if is_first_line else "CPU",
            "target_seconds": target or None,
            "within_target": (figure <= target) if target else None,
        })
    return rows


def report(rounds: int = 7) -> dict:
    """Measure and print the table; returns the figures for a JSON report."""
    rows = measure(rounds)
    print(f"\nstart-up, best of {rounds} (ratios to `{BASELINE}` in the same run)")
    print(f"{'case':<42} {'CPU s':>7} {'ratio':>6} {'1st line s':>10} {'ratio':>6}  target")
    for r in rows:
        target = f"{r['measure']} <= {r['target_seconds']} s: {'yes' if r['within_target'] else 'NO'}" if r["target_seconds"] else ""
        print(f"{r['case']:<42} {r['cpu_seconds']:>7.3f} {r['cpu_ratio']:>5.1f}x {r['first_line_seconds']:>10.3f} {r['first_line_ratio']:>5.1f}x  {target}")
    return {"rows": rows, "loadavg": os.getloadavg()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", default=None, help="write the figures to this file")
    args = parser.parse_args()
    result = report(args.rounds)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
