"""Codex session identity: ``session_meta`` payloads, pre-envelope headers,
and the clues a rollout gives about where and when it ran."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sessionport.formats.codex.items import content_text
from sessionport.lazy import lazy

_CWD = lazy(r"<cwd>([^<\n]+)</cwd>")
_CREDENTIALS = lazy(r"(://)[^/@\s]+@")


def seconds(timestamp: Any) -> float | None:
    if not isinstance(timestamp, (str, bytes)):
        return None
    if isinstance(timestamp, bytes):
        timestamp = timestamp.decode("ascii", "replace")
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def scrub_url(url: Any) -> Any:
    """Drop credentials embedded in a git remote URL (seen in real files)."""
    return _CREDENTIALS.sub(r"\1***@", url) if isinstance(url, str) else url


# The session_meta keys read into the session event (its id, cwd and
# timestamp; the metadata below) or by the reader (the start of a
# sub-agent's own history; ``session_id``, the thread's id again).
_MAPPED = frozenset((
    "id", "timestamp", "cwd", "session_id", "base_instructions", "history_base", "dynamic_tools", "git",
    "subagent_history_start_ordinal",
))
_FIELDS = (
    ("cli_version", "cliVersion"),
    ("originator", "originator"),
    ("source", "codexSource"),
    ("model_provider", "modelProvider"),
    ("forked_from_id", "forkedFromId"),
    ("parent_thread_id", "parentThreadId"),
    ("agent_nickname", "agentNickname"),
    ("agent_role", "agentRole"),
    ("agent_path", "agentPath"),
    ("history_mode", "historyMode"),
    ("thread_source", "threadSource"),
    ("multi_agent_version", "multiAgentVersion"),
    ("instructions", "instructions"),
)
_MAPPED |= frozenset(key for key, _ in _FIELDS)


def meta_metadata(meta: dict) -> dict:
    """Session metadata from a ``session_meta`` payload (or pre-envelope header)."""
    out: dict[str, Any] = {}
    for key, name in _FIELDS:
        value = meta.get(key)
        if value is not None:
            out[name] = value
    base = meta.get("base_instructions")
    if isinstance(base, dict) and isinstance(base.get("text"), str):
        out["baseInstructions"] = base["text"]
        # 0.154+: whether the text was configured (``{"type": "custom"}``,
        # kept through a model change) or made from a model's template
        # (``{"type": "model", "model": …}``, made anew for another model)
        provenance = base.get("provenance")
        if isinstance(provenance, dict) and provenance:
            out["baseInstructionsProvenance"] = provenance
    elif isinstance(base, str) and base:
        out["baseInstructions"] = base
    # 0.16x paginated history: a rollout that continues another one (a
    # reverted or forked thread) names the rollout holding the history
    # before its first ordinal, which this file does not repeat
    history_base = meta.get("history_base")
    if isinstance(history_base, dict) and isinstance(history_base.get("thread_id"), str):
        out["historyBase"] = history_base
    # 0.118+: tools a host (Codex Desktop, an SDK) offered the thread, which
    # Codex offers the model again on resume (``dynamic_tools``)
    tools = meta.get("dynamic_tools")
    if isinstance(tools, list) and tools:
        out["dynamicTools"] = tools
    git = meta.get("git")
    if isinstance(git, dict) and git:
        out["git"] = {k: scrub_url(v) if k == "repository_url" else v for k, v in git.items()}
    # the other fields, as written (0.171: ``account_scoped``,
    # ``runtime_workspace_roots``, ``context_window``; whatever a later
    # version adds): facts of the original run, not written back
    rest = {k: v for k, v in meta.items() if k not in _MAPPED}
    if rest:
        out["codexSessionMeta"] = rest
    return out


def is_header(record: dict) -> bool:
    """The first line of a pre-envelope rollout: ``{id, timestamp, instructions?, git?}``."""
    return "id" in record and "timestamp" in record and "type" not in record and "payload" not in record


def find_cwd(records: list) -> str | None:
    """The ``<cwd>`` of the first injected environment context among ``records``."""
    for _, record in records:
        if record.get("type") == "message" and record.get("role") == "user":
            found = _CWD.search(content_text(record.get("content"))[:4096])
            if found:
                return found.group(1).strip()
    return None
