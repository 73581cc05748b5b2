"""The attack reproductions in ``../shared/redteam/`` against the installed program.

Each script builds its own hostile input, runs ``sessionport`` and ends with
``OK`` (exit 0) or ``DEFECT PRESENT`` (exit 1); exit 2 means a need of the
script is not met here (root for a mount, a missing tool), which skips.
They take from seconds to about two minutes each, so they run only when
asked: ``pytest -m redteam`` (``.ci/run`` does).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

REDTEAM = Path(os.environ.get("SESSIONPORT_REDTEAM", ROOT.parent / "shared" / "redteam"))
SCRIPTS = sorted(p for p in REDTEAM.glob("*") if p.suffix in (".sh", ".py")) if REDTEAM.is_dir() else []

pytestmark = pytest.mark.redteam


def _program() -> str:
    found = shutil.which("sessionport", path=str(Path(sys.executable).parent)) or shutil.which("sessionport")
    if not found:
        pytest.skip("the sessionport program is not installed on PATH")
    return found


@pytest.mark.skipif(not SCRIPTS, reason="the red-team reproductions (../shared/redteam) are not present in this checkout")
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_reproduction_prints_ok(script: Path, tmp_path: Path) -> None:
    program = _program()
    bindir = str(Path(program).parent)
    env = {**os.environ, "SESSIONPORT": program, "TMPDIR": str(tmp_path), "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    command = [sys.executable, str(script)] if script.suffix == ".py" else ["bash", str(script)]
    done = subprocess.run(command, capture_output=True, timeout=600, env=env, cwd=tmp_path, stdin=subprocess.DEVNULL)
    out = done.stdout.decode("utf-8", "replace")
    err = done.stderr.decode("utf-8", "replace")
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    if done.returncode == 2 and (not lines or lines[-1] not in ("OK", "DEFECT PRESENT")):
        pytest.skip(f"{script.name}: a need of the script is not met here: {(lines or [err.strip()])[-1][:200]}")
    assert lines and lines[-1] == "OK", f"{script.name} exit {done.returncode}\n{out[-3000:]}\n{err[-2000:]}"
