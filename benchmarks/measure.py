"""Whole-process measurement: wall time and peak RSS of a command.

Peak RSS comes from ``os.wait4`` on the child itself (not the cumulative
maximum over all children), so each figure belongs to one run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass

PYTHON = sys.executable


@dataclass
class Run:
    seconds: float
    peak_rss_mib: float
    returncode: int
    # user + system CPU of the child and every process it waited for (all
    # three of a shell pipe): steadier than wall time on a busy machine.
    cpu_seconds: float = 0.0


def run(argv: list[str], *, stdin_path: str | None = None, shell: bool = False) -> Run:
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, shell=shell)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    finally:
        if stdin_path:
            stdin.close()
    returncode = os.waitstatus_to_exitcode(status)
    if returncode != 0:
        err = process.stderr.read().decode(errors="replace") if process.stderr else ""
        raise SystemExit(f"command failed ({returncode}): {' '.join(argv) if not shell else argv}\n{err}")
    if process.stderr:
        process.stderr.close()
    # ru_maxrss is in KiB on Linux
    return Run(seconds, usage.ru_maxrss / 1024, returncode, usage.ru_utime + usage.ru_stime)


def best_of(rounds: int, commands: dict[str, list[str]]) -> dict[str, Run]:
    """Run each command ``rounds`` times, alternating, and keep each one's fastest run
    (peak RSS: the largest seen), so machine noise hits all of them alike."""
    best: dict[str, Run] = {}
    for _ in range(rounds):
        for name, argv in commands.items():
            result = run(argv)
            previous = best.get(name)
            if previous is None:
                best[name] = result
            else:
                best[name] = Run(min(previous.seconds, result.seconds), max(previous.peak_rss_mib, result.peak_rss_mib), 0, min(previous.cpu_seconds, result.cpu_seconds))
    return best
