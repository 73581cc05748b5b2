"""Files of a Codex home (``~/.codex``) that hold no session of their own."""

from __future__ import annotations

import os

PROMPT_HISTORY = "history.jsonl"
SESSIONS = "sessions"


def is_prompt_history(path: str) -> bool:
    """``history.jsonl`` beside a ``sessions/`` folder: Codex's log of the
    prompts typed (``{"session_id", "ts", "text"}`` per line), each of which
    the rollouts under ``sessions/`` hold too.  Without a ``sessions/``
    folder it is all there is, and is not passed over."""
    if os.path.basename(path) != PROMPT_HISTORY:
        return False
    return os.path.isdir(os.path.join(os.path.dirname(path), SESSIONS))

