"""Files of a Codex home (``~/.codex``) that hold no session of their own."""

from __future__ import annotations

import os

SESSIONS = "sessions"
# Beside ``sessions/`` in real homes (0.34, 0.46): the log of the prompts
# typed (``{"session_id", "ts", "text"}`` per line, each prompt also in its
# rollout), the login (``{"OPENAI_API_KEY", "tokens", "last_refresh"}``) and
# the update check (``{"latest_version", "last_checked_at"}``).
HOME_FILES = ("history.jsonl", "auth.json", "version.json")


def is_home_file(path: str) -> bool:
    """One of ``HOME_FILES`` beside a ``sessions/`` folder.  Without that
    folder the file is not known to be a Codex home's, and is not passed
    over (a prompt history is then all there is)."""
    if os.path.basename(path) not in HOME_FILES:
        return False
    return os.path.isdir(os.path.join(os.path.dirname(path), SESSIONS))
