"""Whole-process measurements: wall time, MB/s and peak RSS of the main jobs,
each next to the floor measured alternately in the same run, and the ratio.

The floor is the least a JSONL -> JSONL conversion can do: an orjson
parse-and-dump loop over every line of the same file.

    python benchmarks/run.py                 # 200 MB inputs
    python benchmarks/run.py --big 1GB       # plus memory at 1 GB
    python benchmarks/run.py --rounds 5 --json results.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from generate import generate, parse_size
from measure import PYTHON, Run, run
from startup import report as startup_report

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SP = [PYTHON, "-m", "sessionport"]

FLOOR = """
import sys, orjson
loads, dumps = orjson.loads, orjson.dumps
with open(sys.argv[1], 'rb') as src, open('/dev/null', 'wb') as out:
    write = out.write
    for line in src:
        write(dumps(loads(line)) + b'\\n')
"""


def data_file(kind: str, size: str) -> Path:
    DATA.mkdir(exist_ok=True)
    path = DATA / f"{kind}-{size.lower()}.jsonl"
    if not path.exists():
        print(f"generating {path.name} ...", file=sys.stderr)
        generate(kind, parse_size(size), str(path))
    return path


def cases(codex: Path, claude: Path) -> dict[str, tuple[Path, list[str] | str]]:
    sh = " ".join
    q = lambda p: f"'{p}'"  # noqa: E731
    return {
        "codex -> portable-jsonl": (codex, SP + ["convert", str(codex), "--to", "portable-jsonl", "-o", "/dev/null"]),
        "claude-code -> portable-jsonl": (claude, SP + ["convert", str(claude), "--to", "portable-jsonl", "-o", "/dev/null"]),
        "claude-code -> markdown": (claude, SP + ["convert", str(claude), "--to", "markdown", "-o", "/dev/null"]),
        "codex -> html": (codex, SP + ["convert", str(codex), "--to", "html", "-o", "/dev/null"]),
        "claude-code -> redact -> portable-jsonl": (claude, SP + ["redact", str(claude), "-o", "/dev/null"]),
        "codex -> redact -> portable-jsonl": (codex, SP + ["redact", str(codex), "-o", "/dev/null"]),
        "3-process pipe: convert | filter | to markdown": (
            claude,
            f"{sh(SP)} convert {q(claude)} --to portable-jsonl | {sh(SP)} filter --role user --role assistant | {sh(SP)} to markdown > /dev/null",
        ),
        "one process: chain filter to markdown": (claude, SP + ["chain", "-i", str(claude), "filter", "--role", "user", "--role", "assistant", "to", "markdown", "-o", "/dev/null"]),
    }


def keep_best(previous: Run | None, result: Run) -> Run:
    """The fastest wall time and the least CPU seen, and the largest peak RSS."""
    if previous is None:
        return result
    return Run(min(previous.seconds, result.seconds), max(previous.peak_rss_mib, result.peak_rss_mib), 0, min(previous.cpu_seconds, result.cpu_seconds))


def measure(rounds: int, codex: Path, claude: Path, only: list[str] | None = None) -> list[dict]:
    table = cases(codex, claude)
    if only:
        table = {name: case for name, case in table.items() if any(word in name for word in only)}
    best: dict[str, Run] = {}
    floors: dict[Path, Run] = {}
    for _ in range(rounds):
        for name, (path, command) in table.items():
            # The floor for this input, right before the case: alternating
            # keeps slow phases of the machine from favouring either.
            floor = run([PYTHON, "-c", FLOOR, str(path)])
            floors[path] = keep_best(floors.get(path), floor)
            result = run(command, shell=isinstance(command, str))
            best[name] = keep_best(best.get(name), result)
    rows = []
    for name, (path, _) in table.items():
        size_mb = os.path.getsize(path) / 1e6
        result, floor = best[name], floors[path]
        rows.append({"case": name, "input": path.name, "mb": round(size_mb, 1), "seconds": round(result.seconds, 3), "mb_per_s": round(size_mb / result.seconds, 1), "peak_rss_mib": round(result.peak_rss_mib, 1), "floor_seconds": round(floor.seconds, 3), "ratio": round(result.seconds / floor.seconds, 2), "cpu_seconds": round(result.cpu_seconds, 3), "floor_cpu_seconds": round(floor.cpu_seconds, 3), "cpu_ratio": round(result.cpu_seconds / floor.cpu_seconds, 2)})
    return rows


def memory(size: str) -> list[dict]:
    rows = []
    for kind in ("codex", "claude-code"):
        path = data_file(kind, size)
        result = run(SP + ["convert", str(path), "--to", "portable-jsonl", "-o", "/dev/null"])
        rows.append({"case": f"{kind} -> portable-jsonl", "input": path.name, "mb": round(os.path.getsize(path) / 1e6, 1), "seconds": round(result.seconds, 2), "peak_rss_mib": round(result.peak_rss_mib, 1)})
    return rows


def precompile() -> None:
    """Compile sessionport's modules to bytecode once.  An installed package
    has its .pyc files; a checkout run with PYTHONDONTWRITEBYTECODE=1 would
    otherwise compile every module from source in every process (about 0.1 s
    of each run's start-up, three times in a 3-process pipe)."""
    import compileall

    import sessionport

    compileall.compile_dir(os.path.dirname(sessionport.__file__), quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="200MB")
    parser.add_argument("--big", default=None, help="also measure memory on inputs of this size (e.g. 1GB)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default=None, help="write the figures to this file")
    parser.add_argument("--only", action="append", metavar="WORDS", help="measure only the cases whose name holds WORDS (repeatable)")
    args = parser.parse_args()
    precompile()
    load_start = os.getloadavg()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in load_start)} ({os.cpu_count()} cores)")
    codex, claude = data_file("codex", args.size), data_file("claude-code", args.size)
    rows = measure(args.rounds, codex, claude, args.only)
    print(f"{'case':<48} {'MB':>6} {'s':>7} {'MB/s':>7} {'RSS MiB':>8} {'floor s':>8} {'ratio':>6} {'CPU s':>7} {'floor':>6} {'ratio':>6}")
    for r in rows:
        print(f"{r['case']:<48} {r['mb']:>6.0f} {r['seconds']:>7.2f} {r['mb_per_s']:>7.1f} {r['peak_rss_mib']:>8.1f} {r['floor_seconds']:>8.2f} {r['ratio']:>5.2f}x {r['cpu_seconds']:>7.2f} {r['floor_cpu_seconds']:>6.2f} {r['cpu_ratio']:>5.2f}x")
    by = {r["case"]: r for r in rows}
    result: dict = {"rows": rows, "loadavg_start": load_start}
    print()
    if "3-process pipe: convert | filter | to markdown" in by and "one process: chain filter to markdown" in by:
        pipe = by["3-process pipe: convert | filter | to markdown"]["seconds"] / by["one process: chain filter to markdown"]["seconds"]
        pipe_cpu = by["3-process pipe: convert | filter | to markdown"]["cpu_seconds"] / by["one process: chain filter to markdown"]["cpu_seconds"]
        print(f"3-process pipe / one process: {pipe:.2f}x wall, {pipe_cpu:.2f}x CPU (target <= 2)")
        result["pipe_cpu_ratio"] = round(pipe_cpu, 2)
        result["pipe_ratio"] = round(pipe, 2)
    for kind in ("claude-code", "codex"):
        with_redact, without = by.get(f"{kind} -> redact -> portable-jsonl"), by.get(f"{kind} -> portable-jsonl")
        if with_redact and without:
            redact = with_redact["seconds"] / without["seconds"]
            redact_cpu = with_redact["cpu_seconds"] / without["cpu_seconds"]
            print(f"{kind}: redact / same conversion without it: {redact:.2f}x wall, {redact_cpu:.2f}x CPU (target <= 1.6)")
            result[f"{kind}_redact_ratio"] = round(redact, 2)
            result[f"{kind}_redact_cpu_ratio"] = round(redact_cpu, 2)
    if "codex -> portable-jsonl" in by:
        print(f"codex -> portable-jsonl / floor: {by['codex -> portable-jsonl']['ratio']:.2f}x wall, {by['codex -> portable-jsonl']['cpu_ratio']:.2f}x CPU (target <= 1.2)")
    if "claude-code -> markdown" in by:
        print(f"claude-code -> markdown / floor: {by['claude-code -> markdown']['ratio']:.2f}x wall, {by['claude-code -> markdown']['cpu_ratio']:.2f}x CPU (target <= 1.5)")
    if args.big:
        small = memory(args.size)
        big = memory(args.big)
        print("\nmemory: peak RSS converting to portable-jsonl")
        for a, b in zip(small, big):
            growth = (b["peak_rss_mib"] / a["peak_rss_mib"] - 1) * 100
            print(f"{a['case']:<32} {a['mb']:>6.0f} MB: {a['peak_rss_mib']:6.1f} MiB   {b['mb']:>6.0f} MB: {b['peak_rss_mib']:6.1f} MiB   growth {growth:+.1f}% (target < 10%, <= 48 MiB)")
        result["memory"] = {"small": small, "big": big}
    result["startup"] = startup_report(max(7, args.rounds))
    result["loadavg_end"] = os.getloadavg()
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in result['loadavg_end'])}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
