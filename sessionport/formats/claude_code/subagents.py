"""Finding the subagent transcripts of a Claude Code session on disk.

Where Claude Code puts them depends on its version:

- 1.0.x: inline in the session file (``isSidechain: true``): nothing to find;
- 2.0.x: ``agent-<id>.jsonl`` beside the session file, holding the parent's
  ``sessionId`` on every line (so each candidate's first line is read);
- 2.1.x: ``<session-id>/subagents/agent-<id>.jsonl``;
- the agents a ``Workflow`` run starts (2026): one level deeper, in
  ``<session-id>/subagents/workflows/<run-id>/agent-<id>.jsonl``, beside the
  run's ``journal.jsonl`` (``started``/``result`` records, no conversation)
  and with the run's record in ``<session-id>/workflows/<run-id>.json``.

"Warmup" agent files (2.0.28–2.0.37: a one-word prompt answered by a small
model at start-up) are noise and are reported, not converted.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import orjson

from sessionport.io import open_regular
from sessionport.plain import Record

WARMUP_MAX_BYTES = 64 * 1024
HEAD_BYTES = 64 * 1024
SESSION_ID_BYTES = 16 * 1024
WORKFLOWS = "workflows"


class Subagents(Record):
    _fields = ("files", "warmups", "runs")
    files: list[str]
    warmups: list[str]
    # transcript path -> id of the workflow run that started it
    runs: dict[str, str]

    def __init__(
        self,
        files: list[str] | None = None,
        warmups: list[str] | None = None,
        runs: dict[str, str] | None = None,
    ) -> None:
        self.files = [] if files is None else files
        self.warmups = [] if warmups is None else warmups
        self.runs = {} if runs is None else runs


def _agent_id(path: str) -> str:
    name = os.path.basename(path)
    return name[len("agent-") : -len(".jsonl")] if name.startswith("agent-") else name


def agent_id_of(path: str) -> str:
    return _agent_id(path)


def _head_records(path: str, limit: int) -> list[Any]:
    try:
        with open_regular(path) as handle:
            head = handle.read(limit)
    except OSError:
        return []
    records = []
    for line in head.split(b"\n"):
        line = line.strip()
        if not line:
            continue
        try:
            records.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            break
    return records


def _prompt_text(record: Any) -> str | None:
    if not isinstance(record, dict) or record.get("type") != "user":
        return None
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        text = content[0].get("text")
        return text if isinstance(text, str) else None
    return None


def is_warmup(path: str) -> bool:
    """A small agent file whose only prompt is "Warmup"."""
    try:
        if os.path.getsize(path) > WARMUP_MAX_BYTES:
            return False
    except OSError:
        return False
    records = _head_records(path, WARMUP_MAX_BYTES)
    prompts = [text for text in map(_prompt_text, records) if text is not None]
    return len(records) <= 4 and prompts == ["Warmup"]


def _session_id_of(path: str) -> str | None:
    """The ``sessionId`` named near the start of an agent file.  A project
    folder may hold hundreds of agent files: only their first bytes are read."""
    try:
        with open_regular(path) as handle:
            head = handle.read(SESSION_ID_BYTES)
    except OSError:
        return None
    start = head.find(b'"sessionId":"')
    if start < 0:
        return None
    start += len(b'"sessionId":"')
    end = head.find(b'"', start)
    if end < 0:
        return None
    return head[start:end].decode("utf-8", "replace")


def _agent_files(folder: str) -> list[str]:
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(
        os.path.join(folder, n) for n in names if n.startswith("agent-") and n.endswith(".jsonl")
    )


def _stamp(folder: str) -> int:
    try:
        return os.stat(folder).st_mtime_ns
    except OSError:
        return 0


@functools.lru_cache(maxsize=8)
def _agents_by_session(folder: str, stamp: int) -> dict[str, tuple[str, ...]]:
    """The agent files beside sessions in ``folder`` (2.0.x), by the
    ``sessionId`` they name, read once per folder (and again when it
    changes): asking each session's files anew read every agent file's head
    once per session, so a batch over a project folder was quadratic."""
    found: dict[str, list[str]] = {}
    for file in _agent_files(folder):
        named = _session_id_of(file)
        if named:
            found.setdefault(named, []).append(file)
    return {named: tuple(files) for named, files in found.items()}


def _workflow_runs(subagents: str) -> list[str]:
    try:
        names = os.listdir(os.path.join(subagents, WORKFLOWS))
    except OSError:
        return []
    return sorted(n for n in names if os.path.isdir(os.path.join(subagents, WORKFLOWS, n)))


def find_subagents(path: str, session_id: str | None) -> Subagents:
    """Subagent transcripts of the session file at ``path`` (a real path)."""
    found = Subagents()
    folder = os.path.dirname(path)
    stem = os.path.basename(path)
    if stem.endswith(".jsonl"):
        stem = stem[: -len(".jsonl")]
    candidates: list[str] = []
    seen: set[str] = set()
    for name in dict.fromkeys(x for x in (stem, session_id) if x):
        subagents = os.path.join(folder, name, "subagents")
        for file in _agent_files(subagents):
            if file not in seen:
                seen.add(file)
                candidates.append(file)
        for run in _workflow_runs(subagents):
            for file in _agent_files(os.path.join(subagents, WORKFLOWS, run)):
                if file not in seen:
                    seen.add(file)
                    candidates.append(file)
                    found.runs[file] = run
    if session_id:
        for file in _agents_by_session(folder, _stamp(folder)).get(session_id, ()):
            if file not in seen and file != path:
                seen.add(file)
                candidates.append(file)
    for file in candidates:
        (found.warmups if is_warmup(file) else found.files).append(file)
    return found


def read_sidecar_tool_call(path: str) -> str | None:
    """``toolUseId`` from an ``agent-<id>.meta.json`` beside the transcript."""
    meta_path = path[: -len(".jsonl")] + ".meta.json"
    try:
        with open_regular(meta_path) as handle:
            data = orjson.loads(handle.read(HEAD_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return None
    value = data.get("toolUseId") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def _uuid_like(name: str) -> bool:
    return len(name) == 36 and all(name[i] == "-" for i in (8, 13, 18, 23)) and all(
        c in "0123456789abcdefABCDEF" for c in name.replace("-", "")
    )


@functools.lru_cache(maxsize=4096)
def _is_session_folder(folder: str) -> bool:
    # Claude Code names a session file and its folder by the session's
    # UUID: any other folder beside a same-named .jsonl is the user's own.
    # Gemini CLI and Qwen Code keep their logs in chats/, where a folder
    # named by a session holds sub-agent logs read as sessions of their own.
    return (
        _uuid_like(os.path.basename(folder))
        and os.path.basename(os.path.dirname(folder)) != "chats"
        and os.path.isfile(folder + ".jsonl")
    )


def in_session_folder(path: str, depth: int = 5) -> bool:
    """Whether ``path`` lies in the folder Claude Code keeps beside a session
    file (``<session-uuid>/`` next to ``<session-uuid>.jsonl``): its subagent
    transcripts and their ``.meta.json`` sidecars, workflow journals and run
    records, ``tool-results/`` of oversized outputs.  They are read with the
    session or hold none, so a directory walk leaves them to it."""
    folder = os.path.dirname(os.path.abspath(path))
    for _ in range(depth):
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        if _is_session_folder(folder):
            return True
        folder = parent
    return False
