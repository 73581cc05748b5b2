"""A directory of generated sessions converted with --jobs 1 and --jobs 2:
time of each, the speed-up, and whether the outputs are identical.

    python benchmarks/batch_jobs.py [--sessions 2000] [--to markdown]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import orjson

from measure import PYTHON, run

HERE = Path(__file__).resolve().parent


def generate(root: Path, sessions: int, seed: int = 11) -> int:
    rng = random.Random(seed)
    words = "test fix cart total discount error import return value build pass fail".split()
    total = 0
    for i in range(sessions):
        folder = root / f"project-{i % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        events = [{"type": "session", "schema": "sessionport/v1", "source": "benchmark", "sessionId": f"s-{i:05d}", "cwd": f"/work/p{i % 20}", "createdAt": "2025-01-01T00:00:00Z", "metadata": {}}]
        for turn in range(rng.randint(5, 40)):
            events.append({"type": "message", "role": "user", "text": " ".join(rng.choice(words) for _ in range(rng.randint(5, 60)))})
            events.append({"type": "message", "role": "tool", "text": "npm test", "toolName": "Bash", "toolCallId": f"t{turn}", "toolInput": {"command": "npm test"}, "meta": {"kind": "tool_use"}})
            events.append({"type": "message", "role": "tool", "text": "\n".join(" ".join(rng.choice(words) for _ in range(8)) for _ in range(rng.randint(1, 80))), "toolCallId": f"t{turn}", "meta": {"kind": "tool_result"}})
            events.append({"type": "message", "role": "assistant", "text": " ".join(rng.choice(words) for _ in range(rng.randint(10, 120)))})
        data = b"".join(orjson.dumps(e) + b"\n" for e in events)
        (folder / f"session-{i:05d}.jsonl").write_bytes(data)
        total += len(data)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--to", default="markdown")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="sessionport-batch-bench-"))
    try:
        size = generate(scratch / "in", args.sessions)
        print(f"input: {args.sessions} sessions, {size / 1e6:.1f} MB, {os.cpu_count()} cores")
        times = {}
        for jobs in (1, 2, 1, 2):
            out = scratch / f"out-{jobs}"
            shutil.rmtree(out, ignore_errors=True)
            result = run([PYTHON, "-m", "sessionport", "convert", str(scratch / "in"), "--to", args.to, "-o", str(out), "--jobs", str(jobs), "--quiet"])
            times[jobs] = min(times.get(jobs, float("inf")), result.seconds)
        same = not filecmp.dircmp(scratch / "out-1", scratch / "out-2").diff_files and all(
            (scratch / "out-1" / p.relative_to(scratch / "out-2")).read_bytes() == p.read_bytes() for p in (scratch / "out-2").rglob("*") if p.is_file()
        )
        print(f"--jobs 1: {times[1]:.2f} s   --jobs 2: {times[2]:.2f} s   speed-up {times[1] / times[2]:.2f}x   identical outputs: {same}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
