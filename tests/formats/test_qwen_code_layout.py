"""The files Qwen Code keeps beside its session logs: a directory walk
reads the sessions and passes over the rest."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import run_cli
from sessionport.pipeline.inputs import walk

FIXTURES = Path(__file__).resolve().parent.parent.parent / "fixtures"
SESSION = next((FIXTURES / "qwen-code-0.24").glob("*.jsonl"))
SIDECAR = FIXTURES / "qwen-code-0.24" / "runtime" / f"{SESSION.stem}.runtime.json"


def test_a_running_sessions_runtime_sidecar_is_no_session(tmp_path):
    """0.24.x writes ``chats/<sessionId>.runtime.json`` (the process that
    runs the session) beside ``chats/<sessionId>.jsonl``: the walk reads the
    log alone, so no file is reported as unrecognised."""
    chats = tmp_path / ".qwen" / "projects" / "-home-me-app" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(SESSION, chats / SESSION.name)
    shutil.copy(SIDECAR, chats / SIDECAR.name)
    assert [s.relative for s in walk(str(tmp_path))] == [f".qwen/projects/-home-me-app/chats/{SESSION.name}"]
    result = run_cli("inspect", str(tmp_path), "-q")
    assert result.returncode == 0, result.stderr
    assert b"could not be recognised" not in result.stderr
    assert b"runtime.json" not in result.stderr


def test_a_runtime_json_outside_a_chats_folder_is_still_read(tmp_path):
    shutil.copy(SIDECAR, tmp_path / SIDECAR.name)
    assert [s.relative for s in walk(str(tmp_path))] == [SIDECAR.name]
