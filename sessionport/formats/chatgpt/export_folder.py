"""An unpacked ChatGPT data export: which of its files hold conversations.

The export's folder holds ``conversations.json`` or, since 2025, its shards
``conversations-000.json``, ``conversations-001.json``..., beside files that
are not conversations (``export_manifest.json``, ``user.json``,
``message_feedback.json``, ``shared_conversations.json``, ``chat.html``,
images).  A directory walk reads the conversations and leaves the rest.
"""

from __future__ import annotations

import os
import re

CONVERSATIONS = re.compile(r"^conversations(?:-\d+)?\.json$")
# Files only a ChatGPT export has beside its conversations.
MARKERS = ("export_manifest.json", "chat.html", "user.json", "message_feedback.json")


def is_export_sidecar(path: str) -> bool:
    """True for a file of a ChatGPT export folder that holds no conversations."""
    name = os.path.basename(path)
    if CONVERSATIONS.match(name):
        return False
    folder = os.path.dirname(path)
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    return any(CONVERSATIONS.match(n) for n in names) and any(m in names for m in MARKERS)
