"""An unpacked ChatGPT data export: which of its files hold conversations.

The export's folder holds ``conversations.json`` or, since 2025, its shards
``conversations-000.json``, ``conversations-001.json``..., beside files that
are not conversations (``export_manifest.json``, ``user.json``,
``message_feedback.json``, ``shared_conversations.json``, ``chat.html``,
``group_chats.json``, ``sora.json``, images, the canvas documents of
``textdocs/``).  A directory walk reads the conversations and leaves the rest.
"""

from __future__ import annotations

import os
import re

CONVERSATIONS = re.compile(r"^conversations(?:-\d+)?\.json$")
# Files only a ChatGPT export has beside its conversations.
MARKERS = ("export_manifest.json", "chat.html", "user.json", "message_feedback.json")
# Folders of an export that hold documents, not conversations: the canvas
# documents (``textdocs/``, one JSON file each, in exports of 2026), whose
# making and every edit are the ``canmore`` tool calls of the conversations.
DOCUMENT_FOLDERS = ("textdocs",)


def is_export_sidecar(path: str, in_export: bool | None = None) -> bool:
    """True for a file of a ChatGPT export folder that holds no conversations.
    ``in_export``: whether its folder is an export's (:func:`is_export_folder`
    of its names), when the caller knows it (a walk asks once per folder,
    not once per file)."""
    name = os.path.basename(path)
    if CONVERSATIONS.match(name):
        return False
    if in_export is not None:
        return in_export
    try:
        names = os.listdir(os.path.dirname(path))
    except OSError:
        return False
    return is_export_folder(names)


def document_folders(folders, names) -> list[str]:
    """The ``folders`` of a folder listing ``names`` that hold an export's
    documents, not conversations: none unless the folder is an export's.
    A walk leaves them out."""
    documents = [n for n in folders if n in DOCUMENT_FOLDERS]
    return documents if documents and is_export_folder(names) else []


def is_export_folder(names) -> bool:
    """Whether a folder holding these names is an unpacked ChatGPT export."""
    names = set(names)
    return any(m in names for m in MARKERS) and any(CONVERSATIONS.match(n) for n in names)
