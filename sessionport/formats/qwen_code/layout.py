"""Where Qwen Code keeps its files beside the session logs of a project.

``~/.qwen/projects/<sanitized cwd>/chats/`` holds ``<sessionId>.jsonl``
(the session) and, while an interactive session runs (0.24.x),
``<sessionId>.runtime.json``: a sidecar of its process (``schema_version``,
``pid``, ``session_id``, ``work_dir``, ``hostname``, ``started_at``,
``qwen_version``) that holds no conversation; a stale one stays after a
crash.
"""

from __future__ import annotations

import os

CHATS = "chats"
RUNTIME_SUFFIX = ".runtime.json"


def is_runtime_sidecar(path: str) -> bool:
    """Whether ``path`` is a session's runtime sidecar in a ``chats`` folder."""
    name = os.path.basename(path)
    if not name.endswith(RUNTIME_SUFFIX) or len(name) == len(RUNTIME_SUFFIX):
        return False
    return os.path.basename(os.path.dirname(path)) == CHATS
