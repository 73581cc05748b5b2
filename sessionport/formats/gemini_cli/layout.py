"""Files of a Gemini CLI project folder (``~/.gemini/tmp/<project>/``) that
hold no session of their own."""

from __future__ import annotations

import os

PROMPT_LOG = "logs.json"
CHATS = "chats"


def is_prompt_log(path: str) -> bool:
    """``logs.json`` beside a ``chats/`` folder: the project's log of the
    user's prompts (``[{sessionId, messageId, type: "user", message,
    timestamp}]``), each of which the session files in ``chats/`` hold too.
    Without a ``chats/`` folder (chat recording turned off) it is all there
    is, and is not passed over."""
    if os.path.basename(path) != PROMPT_LOG:
        return False
    return os.path.isdir(os.path.join(os.path.dirname(path), CHATS))
