"""A 200 MB portable document streamed to portable-jsonl: flat memory, and time as
a ratio to orjson parsing the same data (measured alternately in the same run).

    python benchmarks/portable_stream.py [--mb 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import random
from pathlib import Path

import orjson

from measure import PYTHON, best_of

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

FLOOR = """
import sys, orjson
doc = orjson.loads(open(sys.argv[1], 'rb').read())
out = open('/dev/null', 'wb')
for m in doc['messages']:
    out.write(orjson.dumps(m) + b'\\n')
"""


def generate(path: Path, megabytes: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    words = "the a test file run fix error pass cart total discount value return import def class".split()
    target = megabytes * 1_000_000
    with open(path, "wb") as out:
        out.write(b'{"schema":"sessionport/v1","source":"benchmark","sessionId":"bench-1","cwd":"/work","createdAt":"2025-01-01T00:00:00Z","metadata":{},"messages":[\n')
        written, index = 0, 0
        while written < target:
            role = ("user", "assistant", "tool")[index % 3]
            size = int(rng.lognormvariate(6, 1.4))
            text = " ".join(rng.choice(words) for _ in range(max(1, size // 5)))
            message = {"role": role, "text": text, "timestamp": "2025-01-01T00:00:00Z", "id": f"m{index}"}
            if role == "tool":
                message.update(toolName="Bash", toolCallId=f"toolu_{index}", toolInput={"command": "npm test"}, meta={"kind": "tool_use"})
            line = (b"" if index == 0 else b",\n") + orjson.dumps(message)
            out.write(line)
            written += len(line)
            index += 1
        out.write(b"\n]}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    path = DATA / f"portable-{args.mb}mb.json"
    if not path.exists():
        generate(path, args.mb)
    size_mb = os.path.getsize(path) / 1e6
    results = best_of(
        args.rounds,
        {
            "floor: orjson load + dump per message": [PYTHON, "-c", FLOOR, str(path)],
            "sessionport convert --to portable-jsonl": [PYTHON, "-m", "sessionport", "convert", str(path), "--to", "portable-jsonl", "-o", "/dev/null"],
        },
    )
    floor = results["floor: orjson load + dump per message"].seconds
    print(f"input: {path.name}, {size_mb:.0f} MB")
    for name, result in results.items():
        print(f"{name:<45} {result.seconds:7.2f} s  {size_mb / result.seconds:7.1f} MB/s  peak RSS {result.peak_rss_mib:7.1f} MiB  ratio {result.seconds / floor:5.2f}x")
    peak = results["sessionport convert --to portable-jsonl"].peak_rss_mib
    print(f"target: peak RSS under 48 MiB -> {'met' if peak < 48 else 'NOT met'} ({peak:.1f} MiB)")


if __name__ == "__main__":
    main()
