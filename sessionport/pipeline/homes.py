"""Agent homes met in a directory walk, and the folders of each that hold sessions.

A user points sessionport at a backup of ``~/.claude``, at a dotfiles repository
that committed ``.codex/`` or at a whole home folder.  Beside its sessions an
agent home holds the app's own state, much of it JSON: Claude Code's
``history.jsonl``, ``settings.json``, ``todos/*.json``, ``plugins/*.json`` and
``mcp-needs-auth-cache.json``; Codex's ``auth.json``, ``version.json`` and
``models_cache.json``; Gemini CLI's ``settings.json`` and ``oauth_creds.json``.
Read as sessions, each failed the batch with "the format could not be
recognised".  A walk that meets a home therefore goes down only into its session
folders, and goes into the hidden homes (``.claude``, ``.codex``, ``.gemini``,
``.qwen``) that it would otherwise pass over like ``.git``.
"""

from __future__ import annotations

from typing import Collection

# The folders that hold sessions, by the home's layout (Qwen Code keeps
# Claude Code's ``projects/``; Gemini CLI its ``tmp/<project hash>/chats``
# and checkpoints).
_SESSION_FOLDERS = {
    "claude": ("projects",),
    "qwen": ("projects",),
    "codex": ("sessions", "archived_sessions"),
    "gemini": ("tmp",),
}
# What else each home holds, seen in real homes, left to names no project
# folder is likely to hold together.  A folder named as the home
# (``.claude``) needs only its session folder; one named as the app
# (``claude``, a backup) one of these beside it; any other folder two.
_MARKERS = {
    "claude": frozenset({
        "history.jsonl", "settings.json", "todos", "statsig", "plugins", "file-history",
        "shell-snapshots", "ide", "plans", "session-env", "debug", "paste-cache", "backups",
        "mcp-needs-auth-cache.json", "stats-cache.json",
    }),
    "qwen": frozenset({"settings.json", "oauth_creds.json", "installation_id", "todos"}),
    "codex": frozenset({
        "config.toml", "auth.json", "history.jsonl", "version.json", "log", "models_cache.json",
        "internal_storage.json",
    }),
    "gemini": frozenset({
        "settings.json", "oauth_creds.json", "installation_id", "google_accounts.json", "user_id",
        "mcp-oauth-tokens.json",
    }),
}
# Hidden folders a walk goes into although it passes over other hidden ones.
HIDDEN_HOMES = frozenset("." + app for app in _SESSION_FOLDERS)


def session_folders(name: str, dirs: Collection[str], files: Collection[str]) -> tuple[str, ...] | None:
    """The subfolders holding sessions when the folder ``name``, listing
    ``dirs`` and ``files``, is an agent home; ``None`` when it is not."""
    listed = None  # built only for a folder holding a session folder: most folders of a walk hold none
    for app, folders in _SESSION_FOLDERS.items():
        present = tuple(f for f in folders if f in dirs)
        if not present:
            continue
        listed = listed or {*dirs, *files}
        needed = 0 if name == "." + app else 1 if name.lower() == app else 2
        if len(_MARKERS[app] & listed) >= needed:
            return present
    return None
