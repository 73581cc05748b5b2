"""Checks that ``redact`` gives byte-identical output, stderr and exit codes
to a baseline installation (not a test the suite collects: it needs the
baseline and takes minutes).

    python tests/redact_equivalence.py --base /path/to/baseline/bin/python [--big]

Inputs: every file of the shared corpus, every fixture, the labelled
redaction corpora written as Claude Code and Codex JSONL, and the generated
benchmark inputs (10 MB; with ``--big`` also 100 MB).  Modes: ``--report``,
``--check --report``, ``--no-pii``, ``--pattern``/``--allow`` and ``--to
markdown``; the plain-text API (shared and fresh redactors, ``pii=False``,
values with identifiers) is compared too.  The baseline runs from a
directory outside this checkout, so it imports its own installed copy.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
MODES = [["--report"], ["--check", "--report"], ["--no-pii", "--report"], ["--pattern", r"shop|cart\w*", "--allow", "example", "--report"], ["--to", "markdown"]]

TEXTS = """
import json, sys
from sessionport.redaction import Redactor
texts = json.load(open(sys.argv[1]))
shared = Redactor()
out = {"shared": [shared.redact_text(t) for t in texts], "shared_counts": dict(shared.counts)}
out["fresh"] = [Redactor().redact_text(t) for t in texts]
nopii = Redactor(pii=False)
out["nopii"] = [nopii.redact_text(t) for t in texts]
values = Redactor()
out["values"] = [values.redact_metadata({"a": t, "list": [t, {"password": t[:40]}], "id": t[:20]}) for t in texts]
out["values_counts"] = dict(values.counts)
sys.stdout.write(json.dumps(out, sort_keys=True))
"""


def generated(folder: Path) -> tuple[list[Path], Path]:
    sys.path.insert(0, str(ROOT / "fixtures" / "redaction"))
    import cases
    import classes

    secrets, keeps = cases.build_cases()
    labelled = classes.build()
    files = {
        "cases-claude.jsonl": cases.claude_code_lines(secrets + keeps),
        "cases-codex.jsonl": cases.codex_lines(secrets + keeps),
        "classes-claude.jsonl": classes.claude_code_lines(labelled),
        "classes-codex.jsonl": classes.codex_lines(labelled),
    }
    for name, lines in files.items():
        (folder / name).write_text("\n".join(lines) + "\n")
    texts = folder / "texts.json"
    texts.write_text(json.dumps([c.text for c in secrets + keeps] + [t for c in labelled for t in classes.plain_texts(c)]))
    return [folder / name for name in files], texts


def run(python: str, cwd: str, args: list[str]) -> tuple:
    done = subprocess.run([python, *args], cwd=cwd, capture_output=True)
    return done.returncode, hashlib.sha256(done.stdout).hexdigest(), done.stderr, len(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="the baseline's python")
    parser.add_argument("--base-cwd", default=tempfile.gettempdir())
    parser.add_argument("--big", action="store_true", help="also the 100 MB benchmark inputs")
    options = parser.parse_args()
    base = (options.base, options.base_cwd)
    mine = (sys.executable, str(ROOT))
    with tempfile.TemporaryDirectory() as folder:
        made, texts = generated(Path(folder))
        inputs = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name not in ("README.md", "SOURCES.tsv"))
        inputs += sorted(p for p in (ROOT / "fixtures").rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
        inputs += made
        sizes = ("10mb", "100mb") if options.big else ("10mb",)
        inputs += [ROOT / "benchmarks" / "data" / f"{kind}-{size}.jsonl" for kind in ("claude-code", "codex") for size in sizes]
        compared = differences = 0
        for path in inputs:
            for mode in MODES if path.stat().st_size < 20_000_000 else [["--report"]]:
                args = ["-m", "sessionport", "redact", str(path), *mode]
                compared += 1
                a, b = run(*base, args), run(*mine, args)
                if a != b:
                    differences += 1
                    print("DIFF", path, mode, a[0], b[0], a[3], b[3], a[2][-300:], b[2][-300:])
        script = Path(folder) / "texts.py"
        script.write_text(TEXTS)
        a, b = run(*base, [str(script), str(texts)]), run(*mine, [str(script), str(texts)])
        compared += 1
        if a != b or a[0] != 0:
            differences += 1
            print("DIFF plain-text API", a[2][-300:], b[2][-300:])
    print(f"{compared} comparisons over {len(inputs)} inputs, {differences} differences")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
