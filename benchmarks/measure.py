"""Whole-process measurement: wall time and peak RSS of a command.

Peak RSS comes from ``os.wait4`` on the child itself (not the cumulative
maximum over all children), so each figure belongs to one run.
"""

from __future__ import annotations

import os
import re
import shutil
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


def run(argv: list[str] | str, *, stdin_path: str | None = None, shell: bool = False, env: dict | None = None) -> Run:
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    full_env = {**os.environ, **env} if env else None
    try:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, shell=shell, env=full_env)
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


# -- instruction counts: the figure that does not depend on the load ------

_PERF_OK: bool | None = None


def perf_counts_instructions() -> bool:
    """Whether ``perf stat -e instructions`` counts here (virtual machines
    often have no hardware counters: perf then says ``<not supported>``)."""
    global _PERF_OK
    if _PERF_OK is None:
        _PERF_OK = False
        if shutil.which("perf"):
            done = subprocess.run(["perf", "stat", "-x,", "-e", "instructions", "true"], capture_output=True, text=True)
            _PERF_OK = done.returncode == 0 and "<not" not in done.stderr and done.stderr.strip()[:1].isdigit()
    return _PERF_OK


def instruction_tool() -> str | None:
    """``perf`` when it counts, else ``callgrind`` when valgrind is installed."""
    if perf_counts_instructions():
        return "perf"
    if shutil.which("valgrind"):
        return "callgrind"
    return None


_COLLECTED = re.compile(r"==\d+== Collected : (\d+)")


def instructions(argv: list[str] | str, *, shell: bool = False, env: dict | None = None) -> int:
    """Instructions executed by the command and every process it starts
    (all three of a shell pipe), user space only."""
    tool = instruction_tool()
    command = ["/bin/sh", "-c", argv] if shell else list(argv)  # type: ignore[arg-type]
    full_env = {**os.environ, **env} if env else None
    if tool == "perf":
        done = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "--", *command], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=full_env)
        for line in done.stderr.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
                return int(fields[0])
        raise SystemExit(f"perf gave no instruction count for {argv}:\n{done.stderr[-2000:]}")
    if tool == "callgrind":
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--trace-children=yes", *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=full_env,
        )
        counts = [int(n) for n in _COLLECTED.findall(done.stderr)]
        if done.returncode != 0 or not counts:
            raise SystemExit(f"callgrind failed ({done.returncode}) for {argv}:\n{done.stderr[-2000:]}")
        return sum(counts)
    raise SystemExit("no instruction counter: install valgrind (apt-get install valgrind) or run where perf counts instructions")
