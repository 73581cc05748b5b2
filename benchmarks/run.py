"""Whole-process measurements of sessionport's main jobs and of its peers,
each case next to its floor measured alternately in the same run.

The floor is the least a JSONL -> JSONL conversion can do: an orjson
parse-and-dump loop over every line of the case's own input.  Each case
reports its CPU and wall time as ratios to that floor, and, when valgrind
(or a perf that counts) is installed, its instruction count as a ratio to
the floor's: the figure that does not depend on the machine's load.

    python benchmarks/run.py --install-peers   # once: peers, valgrind, jq
    python benchmarks/run.py                   # 200 MB inputs, 3 rounds
    python benchmarks/run.py --big 1GiB        # plus memory at 1 GiB
    python benchmarks/run.py --rounds 5 --json results.json
    python benchmarks/run.py --only inspect --no-peers --no-instructions

Holding under load (the machine may be shared): every case runs right
after its floor, round after round, so a busy phase hits both; each keeps
its least CPU time and its fastest wall time over the rounds (noise only
adds time); the load average is read before every round and a warning says
when it exceeded the cores, since wall ratios then mean little; CPU ratios
are steadier and instruction counts are not affected at all.

Cases are registered in ``CASES`` (see :func:`register`); peers are cases of
the group ``peer``, measured only when installed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from generate import generate, parse_size
from measure import PYTHON, Run, instruction_tool, instructions, run
from startup import report as startup_report

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
PEERS = HERE / "peers"
SP = [PYTHON, "-m", "sessionport"]

FLOOR = """
import sys, orjson
loads, dumps = orjson.loads, orjson.dumps
with open(sys.argv[1], 'rb') as src, open('/dev/null', 'wb') as out:
    write = out.write
    for line in src:
        write(dumps(loads(line)) + b'\\n')
"""

# The peers, pinned: the versions the figures in docs/performance.md used.
PEER_PYTHON = ("claude-code-log==1.7.0", "cc2md==1.0")
PEER_NPM = ("ccusage@20.0.24",)
PEER_APT = ("valgrind", "jq")


@dataclass
class Case:
    """One measured command.  ``command(path)`` gives an argv list, or a
    shell string (a pipe).  ``input`` is ``codex`` or ``claude-code``;
    ``small`` cases (slow peers) run on the ``--small`` input instead of the
    main one.  ``missing()`` says why the case cannot run here (None: it
    can); ``env(path)`` adds environment variables."""

    name: str
    input: str
    command: Callable[[Path], list[str] | str]
    group: str = "sessionport"
    small: bool = False
    instructions: bool = True
    missing: Callable[[], str | None] = lambda: None
    env: Callable[[Path], dict] | None = None
    notes: str = ""


CASES: list[Case] = []


def register(case: Case) -> Case:
    CASES.append(case)
    return case


# -- sessionport --------------------------------------------------------------

def _convert(to: str, jobs: int = 1) -> Callable[[Path], list[str]]:
    # --jobs 1: one process, whatever the cores (a big rollout is
    # otherwise read in pieces by every core)
    return lambda p: SP + ["convert", str(p), "--to", to, "-o", "/dev/null", "--jobs", str(jobs)]


def _pipe(p: Path) -> str:
    sp = " ".join(SP)
    return f"{sp} convert '{p}' --to portable-jsonl | {sp} filter --role user --role assistant | {sp} to markdown > /dev/null"


register(Case("codex -> portable-jsonl", "codex", _convert("portable-jsonl")))
register(Case("codex in pieces (--jobs 2) -> portable-jsonl", "codex", _convert("portable-jsonl", jobs=2), instructions=False, notes="wall against the --jobs 1 case: <= 0.75x when both cores are free"))
register(Case("claude-code -> portable-jsonl", "claude-code", _convert("portable-jsonl")))
register(Case("claude-code -> markdown", "claude-code", _convert("markdown")))
register(Case("claude-code -> html", "claude-code", _convert("html")))
register(Case("codex -> markdown", "codex", _convert("markdown")))
register(Case("codex -> html", "codex", _convert("html")))
register(Case("codex in pieces (--jobs 2) -> html", "codex", _convert("html", jobs=2), instructions=False, notes="wall against the --jobs 1 case: the workers read, this process renders"))
register(Case("claude-code -> redact -> portable-jsonl", "claude-code", lambda p: SP + ["redact", str(p), "-o", "/dev/null", "--jobs", "1"]))
register(Case("codex -> redact -> portable-jsonl", "codex", lambda p: SP + ["redact", str(p), "-o", "/dev/null", "--jobs", "1"]))
register(Case("3-process pipe: convert | filter | to markdown", "claude-code", _pipe))
register(Case("one process: chain filter to markdown", "claude-code", lambda p: SP + ["chain", "-i", str(p), "filter", "--role", "user", "--role", "assistant", "to", "markdown", "-o", "/dev/null"]))
register(Case("inspect codex", "codex", lambda p: SP + ["inspect", "--json", str(p)]))
register(Case("inspect claude-code", "claude-code", lambda p: SP + ["inspect", "--json", str(p)]))
register(Case("inspect --usage codex", "codex", lambda p: SP + ["inspect", "--usage", "--json", str(p)], notes="identity and token usage only: the token_count lines"))
register(Case("inspect --usage claude-code", "claude-code", lambda p: SP + ["inspect", "--usage", "--json", str(p)], notes="identity and token usage only (the census)"))


# -- peers --------------------------------------------------------------------

def peer_program(name: str) -> str | None:
    """A peer's program: from ``benchmarks/peers`` (``--install-peers``),
    else from PATH."""
    for candidate in (PEERS / "venv" / "bin" / name, PEERS / "node" / "node_modules" / ".bin" / name):
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


def _needs(name: str) -> Callable[[], str | None]:
    return lambda: None if peer_program(name) else f"{name} is not installed (python benchmarks/run.py --install-peers)"


def _link(path: Path, target: Path) -> None:
    """The input where a peer looks for it: a hard link (the same bytes,
    no copy), or a copy across file systems."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() and target.stat().st_ino == path.stat().st_ino:
        return
    target.unlink(missing_ok=True)
    try:
        os.link(path, target)
    except OSError:
        shutil.copyfile(path, target)


def _codex_home(path: Path) -> dict:
    """ccusage reads ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``."""
    home = DATA / "peer-homes" / f"codex-{path.stem}"
    _link(path, home / "sessions" / "2025" / "10" / "01" / "rollout-2025-10-01T09-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl")
    return {"CODEX_HOME": str(home)}


def _claude_home(path: Path) -> dict:
    """ccusage reads ``$CLAUDE_CONFIG_DIR/projects/<project>/<session>.jsonl``."""
    home = DATA / "peer-homes" / f"claude-{path.stem}"
    _link(path, home / "projects" / "-home-dev-shop" / "0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl")
    return {"CLAUDE_CONFIG_DIR": str(home)}


def _out(name: str) -> str:
    (DATA / "peer-out").mkdir(parents=True, exist_ok=True)
    return str(DATA / "peer-out" / name)


register(Case("ccusage codex session", "codex", lambda p: [peer_program("ccusage") or "ccusage", "codex", "session", "--json", "--offline"], group="peer", missing=_needs("ccusage"), env=_codex_home, notes="token totals per session (the same totals as inspect)"))
register(Case("ccusage claude session", "claude-code", lambda p: [peer_program("ccusage") or "ccusage", "claude", "session", "--json", "--offline"], group="peer", missing=_needs("ccusage"), env=_claude_home, notes="token totals and cost per session"))
register(Case("jq -c . (codex)", "codex", lambda p: [peer_program("jq") or "jq", "-c", ".", str(p)], group="peer", missing=_needs("jq"), notes="parse and print every line"))
register(Case("jq -c . (claude-code)", "claude-code", lambda p: [peer_program("jq") or "jq", "-c", ".", str(p)], group="peer", missing=_needs("jq"), notes="parse and print every line"))
register(Case("cc2md claude-code -> markdown", "claude-code", lambda p: [peer_program("cc2md") or "cc2md", str(p), "-o", "/dev/null"], group="peer", missing=_needs("cc2md")))
register(Case("cc2md codex -> markdown", "codex", lambda p: [peer_program("cc2md") or "cc2md", "--agent", "codex", str(p), "-o", "/dev/null"], group="peer", missing=_needs("cc2md")))
register(Case("claude-code-log claude-code -> html", "claude-code", lambda p: [peer_program("claude-code-log") or "claude-code-log", "convert", str(p), "--no-cache", "-o", _out("claude-code-log.html")], group="peer", small=True, instructions=False, missing=_needs("claude-code-log"), notes="on the small input: 10-40x slower"))


# -- inputs -------------------------------------------------------------------

def data_file(kind: str, size: str) -> Path:
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"{kind}-{size.lower()}.jsonl"
    if not path.exists():
        print(f"generating {path.name} ...", file=sys.stderr)
        generate(kind, parse_size(size), str(path))
    return path


def install_peers() -> None:
    """Install the peers into benchmarks/peers (a virtual environment and an
    npm prefix), and valgrind and jq from the system's packages when they
    are missing and this runs as root."""
    PEERS.mkdir(exist_ok=True)
    venv = PEERS / "venv"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *PEER_PYTHON], check=True)
    if shutil.which("npm"):
        subprocess.run(["npm", "install", "--prefix", str(PEERS / "node"), "--no-audit", "--no-fund", *PEER_NPM], check=True)
    else:
        print("npm is missing: ccusage not installed (apt-get install npm)", file=sys.stderr)
    missing = [name for name in PEER_APT if not shutil.which(name)]
    if missing:
        if os.geteuid() == 0 and shutil.which("apt-get"):
            subprocess.run(["apt-get", "install", "-y", "-q", *missing], check=True)
        else:
            print(f"also install: apt-get install {' '.join(missing)}", file=sys.stderr)
    print(f"peers installed in {PEERS}")


# -- measuring ----------------------------------------------------------------

@dataclass
class Best:
    """The least CPU and the fastest wall time seen, the largest peak RSS."""

    run: Run | None = None
    loads: list[float] = field(default_factory=list)

    def add(self, result: Run) -> None:
        previous = self.run
        if previous is None:
            self.run = result
        else:
            self.run = Run(min(previous.seconds, result.seconds), max(previous.peak_rss_mib, result.peak_rss_mib), 0, min(previous.cpu_seconds, result.cpu_seconds))


def _argv(case: Case, path: Path) -> tuple[list[str] | str, dict | None]:
    return case.command(path), case.env(path) if case.env else None


def floor_argv(path: Path) -> list[str]:
    return [PYTHON, "-c", FLOOR, str(path)]


def measure(cases: list[Case], inputs: dict[tuple[str, bool], Path], rounds: int) -> tuple[list[dict], list[float]]:
    best = {case.name: Best() for case in cases}
    floors: dict[Path, Best] = {}
    round_loads = []
    cores = os.cpu_count() or 1
    for number in range(rounds):
        load = os.getloadavg()[0]
        round_loads.append(load)
        busy = f" (more than the {cores} cores)" if load > cores else ""
        print(f"round {number + 1}/{rounds}: load average {load:.2f}{busy}", file=sys.stderr)
        for case in cases:
            path = inputs[(case.input, case.small)]
            # The floor for this input, right before the case: alternating
            # keeps slow phases of the machine from favouring either.
            floors.setdefault(path, Best()).add(run(floor_argv(path)))
            command, env = _argv(case, path)
            best[case.name].add(run(command, shell=isinstance(command, str), env=env))
    rows = []
    for case in cases:
        path = inputs[(case.input, case.small)]
        size_mb = os.path.getsize(path) / 1e6
        result, floor = best[case.name].run, floors[path].run
        assert result is not None and floor is not None
        rows.append(
            {
                "case": case.name,
                "group": case.group,
                "input": path.name,
                "mb": round(size_mb, 1),
                "seconds": round(result.seconds, 3),
                "mb_per_s": round(size_mb / result.seconds, 1),
                "peak_rss_mib": round(result.peak_rss_mib, 1),
                "floor_seconds": round(floor.seconds, 3),
                "ratio": round(result.seconds / floor.seconds, 2),
                "cpu_seconds": round(result.cpu_seconds, 3),
                "floor_cpu_seconds": round(floor.cpu_seconds, 3),
                "cpu_ratio": round(result.cpu_seconds / floor.cpu_seconds, 2),
                "notes": case.notes,
            }
        )
    return rows, round_loads


def count_instructions(cases: list[Case], inputs: dict[str, Path], rows: list[dict]) -> None:
    """Instructions of each case and of its floor on the instruction-count
    input (smaller: valgrind runs programs 20-100 times slower)."""
    by_name = {row["case"]: row for row in rows}
    floors: dict[Path, int] = {}
    for case in cases:
        if not case.instructions:
            continue
        path = inputs[case.input]
        print(f"counting instructions: {case.name} ({path.name})", file=sys.stderr)
        if path not in floors:
            floors[path] = instructions(floor_argv(path))
        command, env = _argv(case, path)
        count = instructions(command, shell=isinstance(command, str), env=env)
        row = by_name[case.name]
        row["instructions_input"] = path.name
        row["instructions"] = count
        row["floor_instructions"] = floors[path]
        row["instructions_ratio"] = round(count / floors[path], 2)


def memory(size: str) -> list[dict]:
    rows = []
    # Peak RSS from wait4 is that of the largest process of the run (the
    # parent or one of its workers).
    for kind, jobs in (("codex", 1), ("claude-code", 1), ("codex", 2)):
        path = data_file(kind, size)
        result = run(SP + ["convert", str(path), "--to", "portable-jsonl", "-o", "/dev/null", "--jobs", str(jobs)])
        case = f"{kind} -> portable-jsonl" + (f", --jobs {jobs}" if jobs > 1 else "")
        rows.append({"case": case, "input": path.name, "mb": round(os.path.getsize(path) / 1e6, 1), "seconds": round(result.seconds, 2), "peak_rss_mib": round(result.peak_rss_mib, 1)})
    return rows


def precompile() -> None:
    """Compile sessionport's modules to bytecode once.  An installed package
    has its .pyc files; a checkout run with PYTHONDONTWRITEBYTECODE=1 would
    otherwise compile every module from source in every process (about 0.1 s
    of each run's start-up, three times in a 3-process pipe)."""
    import compileall

    import sessionport

    compileall.compile_dir(os.path.dirname(sessionport.__file__), quiet=1)


# -- reporting ----------------------------------------------------------------

def print_table(rows: list[dict]) -> None:
    print(f"{'case':<46} {'MB':>5} {'wall s':>7} {'MB/s':>6} {'RSS MiB':>7} {'floor':>6} {'ratio':>6} {'CPU s':>6} {'floor':>6} {'ratio':>6} {'instr':>6}")
    for r in rows:
        instr = f"{r['instructions_ratio']:>5.2f}x" if "instructions_ratio" in r else f"{'-':>6}"
        print(f"{r['case']:<46} {r['mb']:>5.0f} {r['seconds']:>7.2f} {r['mb_per_s']:>6.0f} {r['peak_rss_mib']:>7.1f} {r['floor_seconds']:>6.2f} {r['ratio']:>5.2f}x {r['cpu_seconds']:>6.2f} {r['floor_cpu_seconds']:>6.2f} {r['cpu_ratio']:>5.2f}x {instr}")


def comparisons(by: dict[str, dict]) -> dict:
    """The project's targets and the comparisons with peers, from the rows."""
    result: dict = {}

    def both(a: str, b: str, label: str, target: str, key: str) -> None:
        if a in by and b in by:
            wall = by[a]["seconds"] / by[b]["seconds"]
            cpu = by[a]["cpu_seconds"] / by[b]["cpu_seconds"]
            print(f"{label}: {wall:.2f}x wall, {cpu:.2f}x CPU ({target})")
            result[key] = {"wall": round(wall, 2), "cpu": round(cpu, 2)}

    both("3-process pipe: convert | filter | to markdown", "one process: chain filter to markdown", "3-process pipe / one process", "target <= 1.8", "pipe")
    for kind in ("claude-code", "codex"):
        both(f"{kind} -> redact -> portable-jsonl", f"{kind} -> portable-jsonl", f"{kind}: redact / same conversion", "target <= 1.4", f"{kind}_redact")
    for case, target in (("codex -> portable-jsonl", 1.2), ("claude-code -> portable-jsonl", 1.0), ("claude-code -> markdown", 1.6), ("codex -> html", 2.0)):
        if case in by:
            r = by[case]
            instr = f", {r['instructions_ratio']:.2f}x instructions" if "instructions_ratio" in r else ""
            print(f"{case} / floor: {r['ratio']:.2f}x wall, {r['cpu_ratio']:.2f}x CPU{instr} (target <= {target})")
    both("codex in pieces (--jobs 2) -> portable-jsonl", "codex -> portable-jsonl", "codex: one file in pieces, --jobs 2 / --jobs 1", "target <= 0.75 wall with both cores free", "codex_pieces")
    both("codex in pieces (--jobs 2) -> html", "codex -> html", "codex -> html: one file in pieces, --jobs 2 / --jobs 1", "wall, both cores free", "codex_pieces_html")
    both("inspect codex", "ccusage codex session", "inspect codex / ccusage codex session", "target < 1", "inspect_codex_vs_ccusage")
    both("inspect claude-code", "ccusage claude session", "inspect claude-code / ccusage claude session", "target < 1", "inspect_claude_vs_ccusage")
    both("inspect --usage codex", "ccusage codex session", "inspect --usage codex / ccusage codex session", "target < 1", "inspect_usage_codex_vs_ccusage")
    both("inspect --usage claude-code", "ccusage claude session", "inspect --usage claude-code / ccusage claude session", "target < 1", "inspect_usage_claude_vs_ccusage")
    both("claude-code -> markdown", "cc2md claude-code -> markdown", "claude-code -> markdown / cc2md", "lower is faster", "markdown_vs_cc2md")
    both("codex -> markdown", "cc2md codex -> markdown", "codex -> markdown / cc2md", "lower is faster", "codex_markdown_vs_cc2md")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="200MB", help="size of the main inputs (default 200MB)")
    parser.add_argument("--small", default="20MB", help="size of the inputs of slow peers (default 20MB)")
    parser.add_argument("--instructions-size", default="20MB", help="size of the inputs whose instructions are counted (default 20MB)")
    parser.add_argument("--big", default=None, help="also measure memory on inputs of this size (e.g. 1GiB)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default=None, help="write the figures to this file")
    parser.add_argument("--only", action="append", metavar="WORDS", help="measure only the cases whose name holds WORDS (repeatable)")
    parser.add_argument("--no-peers", action="store_true", help="leave out the peers")
    parser.add_argument("--no-instructions", action="store_true", help="do not count instructions")
    parser.add_argument("--install-peers", action="store_true", help="install the peers into benchmarks/peers (and valgrind, jq), then stop")
    parser.add_argument("--data", default=None, help="where generated inputs go (default benchmarks/data)")
    args = parser.parse_args()
    if args.data:
        global DATA
        DATA = Path(args.data).resolve()
    if args.install_peers:
        install_peers()
        return
    json_path = Path(args.json).resolve() if args.json else None
    # Run every process from the data directory: started from a checkout,
    # ``python -m sessionport`` would import the checkout's package instead
    # of the one installed in the interpreter's environment.
    DATA.mkdir(parents=True, exist_ok=True)
    os.chdir(DATA)
    cases = [c for c in CASES if not (args.no_peers and c.group == "peer")]
    if args.only:
        cases = [c for c in cases if any(word in c.name for word in args.only)]
    skipped = {c.name: why for c in cases if (why := c.missing())}
    for name, why in skipped.items():
        print(f"skipped: {name}: {why}", file=sys.stderr)
    cases = [c for c in cases if c.name not in skipped]
    precompile()
    cores = os.cpu_count() or 1
    load_start = os.getloadavg()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in load_start)} ({cores} cores)")
    inputs = {}
    for case in cases:
        inputs[(case.input, case.small)] = data_file(case.input, args.small if case.small else args.size)
    rows, round_loads = measure(cases, inputs, args.rounds)
    tool = None if args.no_instructions else instruction_tool()
    if tool is None and not args.no_instructions:
        print("warning: no instruction counts (install valgrind: python benchmarks/run.py --install-peers)", file=sys.stderr)
    if tool:
        count_instructions(cases, {kind: data_file(kind, args.instructions_size) for kind in {c.input for c in cases}}, rows)
    load_end = os.getloadavg()
    print()
    print_table([r for r in rows if r["group"] != "peer"])
    peers = [r for r in rows if r["group"] == "peer"]
    if peers:
        print("\npeers (same run, same inputs, same floor)")
        print_table(peers)
    print()
    by = {r["case"]: r for r in rows}
    result: dict = {"rows": rows, "cores": cores, "loadavg_start": load_start, "round_loads": round_loads, "instruction_tool": tool, "skipped": skipped}
    result.update(comparisons(by))
    if args.big:
        small = memory(args.size)
        big = memory(args.big)
        print("\nmemory: peak RSS converting to portable-jsonl")
        for a, b in zip(small, big):
            growth = (b["peak_rss_mib"] / a["peak_rss_mib"] - 1) * 100
            print(f"{a['case']:<32} {a['mb']:>6.0f} MB: {a['peak_rss_mib']:6.1f} MiB   {b['mb']:>6.0f} MB: {b['peak_rss_mib']:6.1f} MiB   growth {growth:+.1f}% (target <= 48 MiB, flat)")
        result["memory"] = {"small": small, "big": big}
    result["startup"] = startup_report(max(7, args.rounds))
    result["loadavg_end"] = load_end
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in load_end)}; before each round: {', '.join(f'{x:.2f}' for x in round_loads)}")
    if max([*round_loads, load_start[0], load_end[0]]) > cores:
        print(f"warning: the load average exceeded the {cores} cores during this run: wall times and wall ratios are unreliable; trust the CPU ratios (least of {args.rounds} rounds) and the instruction counts", file=sys.stderr)
        result["overloaded"] = True
    if json_path:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        json_path.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
