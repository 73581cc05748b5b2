"""A home directory holding sessions where Claude Code and Codex keep them,
made from the project's own fixtures, so ``ls`` and ``@ID`` find them."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import FIXTURES

CLAUDE_ID = "5a1c2e3f-0000-4000-8000-000000000001"
CODEX_ID = "019a9f00-0000-7000-8000-000000000001"


def fake_home(root: Path) -> dict[str, str]:
    """Fill ``root`` as a HOME; returns the environment that points at it."""
    project = root / ".claude" / "projects" / "-home-user-demo"
    project.mkdir(parents=True)
    shutil.copy(FIXTURES / "claude-code" / "session.jsonl", project / f"{CLAUDE_ID}.jsonl")
    day = root / ".codex" / "sessions" / "2025" / "11" / "20"
    day.mkdir(parents=True)
    shutil.copy(FIXTURES / "codex" / "rollout-envelope.jsonl", day / f"rollout-2025-11-20T10-00-00-{CODEX_ID}.jsonl")
    return {"HOME": str(root), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""}
