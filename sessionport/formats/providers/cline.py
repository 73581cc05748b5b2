"""What a Cline task folder adds to its ``api_conversation_history.json``.

``ui_messages.json`` beside it (the messages the extension shows) holds, in
each ``api_req_started`` message, the request's token counts as a JSON text:
``{"request": …, "tokensIn", "tokensOut", "cacheWrites", "cacheReads",
"cost"}``.  The history's own ``metrics.tokens`` give ``cached`` as cache
reads and writes together; these split it.  Its ``api_req_failed`` messages
are errors the history never held.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import orjson

from sessionport.context import ReadContext
from sessionport.errors import SessionportError
from sessionport.io import open_regular
from sessionport.jsondoc import walk_document

UI_MESSAGES = "ui_messages.json"


@dataclass(frozen=True)
class RequestTokens:
    tokens_in: int
    tokens_out: int
    cache_writes: int
    cache_reads: int


def _counts(entry: Any) -> RequestTokens | None:
    if not isinstance(entry, dict) or entry.get("say") != "api_req_started" or not isinstance(entry.get("text"), str):
        return None
    try:
        info = orjson.loads(entry["text"])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(info, dict):
        return None
    values = [info.get(k, 0) for k in ("tokensIn", "tokensOut", "cacheWrites", "cacheReads")]
    if not all(type(v) is int and v >= 0 for v in values) or "tokensIn" not in info:
        return None
    return RequestTokens(*values)


@dataclass(frozen=True)
class UiNotice:
    """An error the extension showed and the history never held."""

    after: int | None  # the history index it follows (-1: before the first message); None: placed by ``ts``
    ts: Any
    ask: str  # the ``ask`` (or ``say``) of the UI message
    text: str
    detail: dict  # the error's ``code``, ``request_id``, ``modelId``, ``providerId``
    type: str = "ask"  # the UI message's ``type``


# ``{"ts", "type": "ask", "ask": "api_req_failed", "text": "{\"message\": …}",
# "conversationHistoryIndex"}``: a request that failed after its retries
# (real tasks of 2026-01).  ``conversationHistoryIndex`` is the index of the
# history's last message when the UI message was added (-1 before the
# first), which places it among the history's messages.
_UI_ERRORS = ("api_req_failed",)


# ``{"ts", "type": "say", "say": "condense_context_error", "text": "Condensing
# API call failed: …"}``: Roo Code's condense failed (real task of 2026-08);
# Roo writes no ``conversationHistoryIndex``, so it is placed by its time,
# before the first history message written after it.
_UI_SAY_ERRORS = ("condense_context_error",)


# ``{"ts", "type": "say", "say": "reasoning", "text", "partial": false}``: the
# model's reasoning as the extension showed it.  Roo Code keeps it in the
# history only when the provider returned it as a block (or as
# ``reasoning_content``); a local OpenAI-compatible model's reasoning is in
# ui_messages.json alone (real task of 2026-08).  Placed by its time, and
# left out when the assistant message after it holds reasoning of its own.
# Cline (which writes ``conversationHistoryIndex``) keeps the reasoning in the
# history: its entries are not read.
UI_REASONING = "reasoning"


def _notice(entry: Any) -> UiNotice | None:
    if (
        isinstance(entry, dict)
        and entry.get("type") == "say"
        and entry.get("say") == UI_REASONING
        and entry.get("partial") is not True
        and "conversationHistoryIndex" not in entry  # Cline's history keeps its reasoning as thinking blocks
        and type(entry.get("ts")) is int
        and isinstance(entry.get("text"), str)
        and entry["text"].strip()
    ):
        return UiNotice(None, entry["ts"], UI_REASONING, entry["text"], {}, type="say")
    if isinstance(entry, dict) and entry.get("type") == "say" and entry.get("say") in _UI_SAY_ERRORS:
        after = entry.get("conversationHistoryIndex")
        placed = after if type(after) is int and after >= -1 else None
        if placed is None and type(entry.get("ts")) is not int:
            return None
        text = entry.get("text") if isinstance(entry.get("text"), str) else ""
        return UiNotice(placed, entry.get("ts"), entry["say"], text, {}, type="say")
    if not isinstance(entry, dict) or entry.get("type") != "ask" or entry.get("ask") not in _UI_ERRORS:
        return None
    after = entry.get("conversationHistoryIndex")
    if type(after) is not int or after < -1:
        return None
    text = entry.get("text") if isinstance(entry.get("text"), str) else ""
    try:
        info = orjson.loads(text) if text[:1] == "{" else None
    except orjson.JSONDecodeError:
        info = None
    detail: dict = {}
    if isinstance(info, dict) and isinstance(info.get("message"), str):
        text = info["message"]
        detail = {k: info[k] for k in ("code", "request_id", "modelId", "providerId") if isinstance(info.get(k), str)}
    return UiNotice(after, entry.get("ts"), entry["ask"], text, detail)


@dataclass(frozen=True)
class UiMessages:
    requests: list[RequestTokens]
    notices: list[UiNotice]  # in file order


def ui_messages(history_path: str, ctx: ReadContext) -> UiMessages:
    """What the ``ui_messages.json`` beside ``history_path`` adds: the token
    counts of its requests and the errors it alone holds, in order; none
    when there is no such file or it cannot be read (said once: the usage is
    then given without the cache split)."""
    path = os.path.join(os.path.dirname(history_path), UI_MESSAGES)
    if not os.path.isfile(path):
        return UiMessages([], [])
    child = ReadContext(name=path, path=path, on_warning=ctx.on_warning)
    found: list[RequestTokens] = []
    notices: list[UiNotice] = []
    try:
        with open_regular(path) as handle:
            for kind, value in walk_document(handle, child):
                if kind == "item":
                    counts = _counts(value)
                    if counts is not None:
                        found.append(counts)
                        continue
                    notice = _notice(value)
                    if notice is not None:
                        notices.append(notice)
    except (OSError, SessionportError) as exc:
        ctx.warn(f"{path} cannot be read ({exc}); the cached share of the usage is not split into reads and writes, and the errors it shows are not read")
        return UiMessages([], [])
    return UiMessages(found, notices)


TASK_METADATA = "task_metadata.json"
# More than this is not a task's metadata file (real ones are a few KB).
_TASK_METADATA_MAX = 8 << 20


def task_metadata(history_path: str, ctx: ReadContext) -> dict:
    """Session metadata from the ``task_metadata.json`` beside a task's
    history (Cline's FileContextTracker and model tracking; Roo Code and its
    forks write ``files_in_context`` only): ``filesInContext``,
    ``modelUsage`` and ``environmentHistory`` verbatim, the last model used
    as ``model`` / ``provider``, the last ``cline_version`` as
    ``clientVersion``; ``{}`` when there is none, and a warning when it
    cannot be read."""
    path = os.path.join(os.path.dirname(history_path), TASK_METADATA)
    if not os.path.isfile(path):
        return {}
    try:
        with open_regular(path) as handle:
            raw = handle.read(_TASK_METADATA_MAX + 1)
        if len(raw) > _TASK_METADATA_MAX:
            raise SessionportError(f"larger than {_TASK_METADATA_MAX >> 20} MB")
        document = orjson.loads(raw)
    except (OSError, SessionportError, orjson.JSONDecodeError) as exc:
        ctx.warn(f"{path} cannot be read ({exc}); the files in context and models it lists are not in the session metadata")
        return {}
    if not isinstance(document, dict):
        return {}
    found: dict = {}
    for key, name in (("files_in_context", "filesInContext"), ("model_usage", "modelUsage"), ("environment_history", "environmentHistory")):
        if isinstance(document.get(key), list) and document[key]:
            found[name] = document[key]
    usage = [u for u in found.get("modelUsage", []) if isinstance(u, dict)]
    if usage and isinstance(usage[-1].get("model_id"), str) and usage[-1]["model_id"]:
        found["model"] = usage[-1]["model_id"]
        if isinstance(usage[-1].get("model_provider_id"), str) and usage[-1]["model_provider_id"]:
            found["provider"] = usage[-1]["model_provider_id"]
    versions = [e.get("cline_version") for e in found.get("environmentHistory", []) if isinstance(e, dict)]
    versions = [v for v in versions if isinstance(v, str) and v]
    if versions:
        found["clientVersion"] = versions[-1]
    other = sorted(k for k in document if k not in ("files_in_context", "model_usage", "environment_history"))
    if other:
        found["taskMetadataKeys"] = other  # named, so that a newer file's additions are seen
    return found


# The VS Code global-storage folders of the extensions (their ids): a task
# read where the app keeps it says which of them wrote it.
_EXTENSION_FOLDERS = (
    ("saoudrizwan.claude-dev", "cline"),
    ("rooveterinaryinc.roo-cline", "roo-code"),
    ("kilocode.kilo-code", "kilo-code"),
)


def client_by_folder(history_path: str) -> str | None:
    """The extension whose global-storage folder holds ``history_path``
    (``…/globalStorage/kilocode.kilo-code/tasks/<id>/…``), if any."""
    parts = [p.lower() for p in os.path.abspath(history_path).split(os.sep)]
    for folder, client in _EXTENSION_FOLDERS:
        if folder in parts:
            return client
    return None


def roo_task_metadata(found: dict) -> bool:
    """Whether task metadata is Roo Code's (its file records say ``roo_read_date``)."""
    return any(isinstance(f, dict) and any(k.startswith("roo_") for k in f) for f in found.get("filesInContext", []))


HISTORY_FILES = ("api_conversation_history.json", "claude_messages.json")
# Cline 3 (the SDK-based CLI) keeps each session in ``<sessions>/<id>/``:
# ``<id>.messages.json`` (``{version, updated_at, agent, sessionId, origin,
# messages, system_prompt}``) beside the manifest ``<id>.json`` and the
# compaction state ``<id>.compaction.json``.
SESSION_MESSAGES_SUFFIX = ".messages.json"
_SESSION_SIDECAR_SUFFIXES = (".compaction.json", ".json")


def session_messages_id(path: str) -> str | None:
    """The session id of a Cline 3 ``<id>/<id>.messages.json``, else None."""
    name = os.path.basename(path)
    if not name.endswith(SESSION_MESSAGES_SUFFIX):
        return None
    sid = name[: -len(SESSION_MESSAGES_SUFFIX)]
    return sid if sid and os.path.basename(os.path.dirname(os.path.abspath(path))) == sid else None


def is_task_sidecar(path: str) -> bool:
    """Another JSON file of a Cline (or Roo Code) task folder, one that
    holds the history (``ui_messages.json``, ``task_metadata.json``…): the
    history is the conversation, read on its own; these are not."""
    name = os.path.basename(path)
    if name in HISTORY_FILES or not name.endswith(".json"):
        return False
    folder = os.path.dirname(path)
    sid = os.path.basename(os.path.abspath(folder))
    if sid and not name.endswith(SESSION_MESSAGES_SUFFIX) and name in (sid + suffix for suffix in _SESSION_SIDECAR_SUFFIXES):
        # a Cline 3 session's manifest or compaction state
        return os.path.isfile(os.path.join(folder, sid + SESSION_MESSAGES_SUFFIX))
    return any(os.path.isfile(os.path.join(folder, history)) for history in HISTORY_FILES)


_MANIFEST_LIMIT = 1 << 20
# Manifest fields kept in the session's metadata (the rest is process state).
MANIFEST_FIELDS = (("cwd", "cwd"), ("workspace_root", "workspaceRoot"), ("provider", "provider"), ("model", "model"), ("status", "status"), ("source", "launchedFrom"))


def session_manifest(path: str) -> dict:
    """The manifest ``<id>.json`` beside a Cline 3 ``<id>.messages.json``
    (``{version, session_id, source, started_at, ended_at, status, provider,
    model, cwd, workspace_root, prompt, messages_path, ...}``), or {} when
    there is none or it cannot be read."""
    sid = session_messages_id(path)
    if sid is None:
        return {}
    manifest = os.path.join(os.path.dirname(path), sid + ".json")
    try:
        if os.path.getsize(manifest) > _MANIFEST_LIMIT:
            return {}
        with open_regular(manifest) as handle:
            value = orjson.loads(handle.read(_MANIFEST_LIMIT + 1))
    except (OSError, orjson.JSONDecodeError):
        return {}
    return value if isinstance(value, dict) and value.get("session_id") == sid else {}

