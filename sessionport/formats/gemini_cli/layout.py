"""Files of a Gemini CLI project folder (``~/.gemini/tmp/<project>/``) that
hold no session of their own."""

from __future__ import annotations

import functools
import os
import re

from sessionport.io import open_regular

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


# gemini-cli (0.39 and later) keeps a sub-agent's log in
# ``chats/<parent session id>/<agent id>.jsonl`` and the parent's in
# ``chats/session-<YYYY-MM-DDTHH-MM>-<first 8 characters of its id>.jsonl``
# (ChatRecordingService); a nested sub-agent's goes to the same folder (it
# keeps the main session's id).  Nothing else links the two.
LOG_SUFFIXES = (".jsonl", ".json")
SESSION_PREFIX = "session-"
_ID_HEAD = 16 * 1024
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')


def _plain_id(session_id: object) -> bool:
    return isinstance(session_id, str) and session_id not in ("", ".", "..") and "/" not in session_id and os.sep not in session_id


def named_for(path: str, session_id: str) -> bool:
    """The file name gemini-cli gives the log of session ``session_id``."""
    name = os.path.basename(path)
    return name.startswith(SESSION_PREFIX) and any(name.endswith(f"-{session_id[:8]}{suffix}") for suffix in LOG_SUFFIXES)


def subagent_logs(path: str, session_id: object) -> list[str]:
    """The sub-agent logs of the session log at ``path`` (a main session of
    id ``session_id``, in ``chats/`` under the app's name for it), sorted."""
    if not _plain_id(session_id) or not named_for(path, session_id):  # type: ignore[arg-type]
        return []
    chats = os.path.dirname(os.path.abspath(path))
    if os.path.basename(chats) != CHATS:
        return []
    folder = os.path.join(chats, session_id)  # type: ignore[arg-type]
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names if n.endswith(LOG_SUFFIXES) and not n.startswith(".") and os.path.isfile(os.path.join(folder, n)))


def is_subagent_log(path: str) -> bool:
    """A log in ``chats/<id>/`` whose parent, the session ``<id>``, has its
    log in ``chats/``: read after that log, so a directory walk passes it."""
    if not path.endswith(LOG_SUFFIXES):
        return False
    folder = os.path.dirname(os.path.abspath(path))
    chats = os.path.dirname(folder)
    return os.path.basename(chats) == CHATS and _has_parent_log(chats, os.path.basename(folder))


@functools.lru_cache(maxsize=4096)
def _has_parent_log(chats: str, session_id: str) -> bool:
    if not _plain_id(session_id):
        return False
    try:
        names = os.listdir(chats)
    except OSError:
        return False
    for name in names:
        path = os.path.join(chats, name)
        if named_for(path, session_id) and _session_id_of(path) == session_id:
            return True
    return False


def _session_id_of(path: str) -> str | None:
    try:
        with open_regular(path) as handle:
            head = handle.read(_ID_HEAD)
    except OSError:
        return None
    found = _SESSION_ID.search(head)
    return found.group(1).decode("utf-8", "replace") if found else None
