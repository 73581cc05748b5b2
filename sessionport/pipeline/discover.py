"""Finding the sessions on this machine (``ls``; ``@ID-PREFIX`` references are
resolved from it by :mod:`sessionport.pipeline.inputs`).

Each tool keeps its sessions in its own place:

- Claude Code: ``$CLAUDE_CONFIG_DIR/projects`` or ``~/.claude/projects``,
  ``<encoded-cwd>/<session-id>.jsonl`` (subagent files are read with their
  parent and not listed on their own);
- Codex: ``$CODEX_HOME`` or ``~/.codex``, ``sessions/YYYY/MM/DD/rollout-*.jsonl``
  and ``archived_sessions/``, plain or ``.jsonl.zst``;
- Gemini CLI: ``~/.gemini/tmp/<project>/chats/*.json`` and ``*.jsonl``;
- Qwen Code: ``~/.qwen/projects/<project>/chats/<session-id>.jsonl``.

Listing reads only the beginning of each file: the importer is a generator,
so it is stopped as soon as the session event and the first real prompt
have come out.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Iterator

from sessionport.context import ReadContext
from sessionport.errors import SessionportError

PROMPT_CHARS = 200
# Events read at most to find the first prompt (a session that opens with
# hundreds of tool calls still lists quickly).
HEAD_EVENTS = 400
# ... and at most this many bytes of each file: a file of records that
# yield no event (snapshots, progress) was otherwise read to its end, so
# `ls` over a few big ones took minutes.
HEAD_BYTES = 32 << 20


@dataclass
class Found:
    source: str
    sessionId: str | None
    path: str
    cwd: str | None
    start: str | None
    size: int
    prompt: str | None
    relative: str

    def as_dict(self) -> dict:
        data = asdict(self)
        data.pop("relative")
        return data


def roots(home: str | None = None) -> list[tuple[str, str, tuple[str, ...]]]:
    """(source, directory, file patterns) for every place sessions live."""
    home = home or os.path.expanduser("~")
    claude = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    codex = os.environ.get("CODEX_HOME") or os.path.join(home, ".codex")
    gemini = os.path.join(home, ".gemini", "tmp")
    qwen = os.path.join(home, ".qwen", "projects")
    return [
        ("claude-code", os.path.join(claude, "projects"), ("*.jsonl",)),
        ("codex", os.path.join(codex, "sessions"), ("rollout-*.jsonl", "rollout-*.jsonl.zst", "rollout-*.json")),
        ("codex", os.path.join(codex, "archived_sessions"), ("rollout-*.jsonl", "rollout-*.jsonl.zst", "rollout-*.json")),
        ("gemini-cli", gemini, ("*.json", "*.jsonl")),
        ("qwen-code", qwen, ("*.jsonl",)),
    ]


def _files(source: str, root: str, patterns: tuple[str, ...]) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "subagents")
        for name in sorted(files):
            if not any(fnmatch.fnmatch(name, p) for p in patterns):
                continue
            if source == "claude-code" and name.startswith("agent-"):
                continue  # read as part of its parent session
            if source in ("gemini-cli", "qwen-code") and os.path.basename(folder) != "chats":
                continue
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue  # a named pipe (opening it would wait for a writer), a device, a broken link
            yield path


def _first_prompt(events, found: dict | None = None) -> tuple[dict | None, str | None]:
    """The session event and its first prompt.  A Claude Code command
    (``<command-name>/context</command-name>``) is the prompt only when no
    typed prompt follows it; its output and caveats never are.  ``found``
    gets the session event as soon as it is read (kept when the read fails
    later)."""
    from sessionport.render.commands import command_title, is_caveat, parse_command

    session = None
    command = None
    for event in itertools.islice(events, HEAD_EVENTS):
        kind = event.get("type")
        if kind == "session":
            if session is not None:
                break
            session = event
            if found is not None:
                found["session"] = event
        elif kind == "message" and event.get("role") == "user":
            meta = event.get("meta") or {}
            text = event.get("text", "")
            if meta.get("kind", "text") != "text" or meta.get("injected") or not text.strip():
                continue
            if is_caveat(text):
                continue
            if parse_command(text) is None:
                return session, text
            command = command or command_title(text)
    return session, command


def _start_time(session: dict | None, path: str) -> str | None:
    if session and isinstance(session.get("createdAt"), str):
        return session["createdAt"]
    try:
        return datetime.fromtimestamp(os.path.getmtime(path), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        return None


def describe(source: str, path: str, relative: str) -> Found:
    from sessionport.pipeline import stream

    ctx = ReadContext(on_warning=lambda message: None)
    events = stream.read(path, format=source, options={"no_subagents": True}, context=ctx, head=HEAD_BYTES)
    found: dict = {}
    try:
        session, prompt = _first_prompt(events, found)
    except SessionportError:  # a damaged file, or one cut at HEAD_BYTES inside a document
        session, prompt = found.get("session"), None
    finally:
        events.close()
    if prompt:
        prompt = " ".join(prompt.split())
        if len(prompt) > PROMPT_CHARS:
            prompt = prompt[: PROMPT_CHARS - 1] + "…"
    return Found(
        source=source,
        sessionId=(session or {}).get("sessionId"),
        path=path,
        cwd=(session or {}).get("cwd"),
        start=_start_time(session, path),
        size=os.path.getsize(path),
        prompt=prompt,
        relative=relative,
    )


def discover(home: str | None = None, sources: tuple[str, ...] = ()) -> Iterator[Found]:
    """Every session found on this machine, tool by tool, in path order."""
    for source, root, patterns in roots(home):
        if sources and source not in sources:
            continue
        if not os.path.isdir(root):
            continue
        for path in _files(source, root, patterns):
            relative = os.path.join(source, os.path.relpath(path, root))
            yield describe(source, path, relative)
