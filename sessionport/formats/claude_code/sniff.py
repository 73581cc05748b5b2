"""How a Claude Code session file is told from its first bytes: the record
types and the envelope every record carries.

Apart from the reader, so that detecting the format of an input imports no
reader but the one that reads it.
"""

from __future__ import annotations


from sessionport.jsonl import BOM, first_json_line
from sessionport.lazy import lazy

# Session-scoped records that are never conversation (state Claude Code
# keeps for its UI and for resuming): counted, never an event.  Seen up to
# 2.1.2xx; a type outside this set, the chain types and the title types is
# unknown (counted and warned about, see ReadContext.unknown).
STATE_TYPES = frozenset((
    "file-history-snapshot", "permission-mode", "last-prompt", "mode", "tag",
    "agent-name", "agent-color", "agent-setting", "worktree-state", "pr-link",
    "attribution-snapshot", "content-replacement", "speculation-accept",
    "marble-origami-commit", "marble-origami-snapshot", "task-summary",
    # 2.1.2xx: a preview link (frame-link), a moved working directory
    # (relocated), the remote-control bridge's session ids (bridge-session)
    # and a flag whose value is seen empty (atis-latch).
    "frame-link", "relocated", "bridge-session", "atis-latch",
    # 2.1.3xx: the log of the API requests a session made (the system prompt
    # and tools once per shape, content blobs by hash, each request's
    # parameters) and the tools each turn used; what the model was sent is
    # the chain itself.
    "api-request-shape", "api-request-blob", "api-request", "api-request-resumed", "tools-used",
    # 2.1.332 lists these beside the message types as rows its resume
    # ignores, keeps the last or every one of: ownership, latches, memory
    # and REPL modes, data-flow and file-history bookkeeping, a pointer to
    # the session a conversation continued in, a fork's reference to its
    # parent's context, resume checksums.
    "file-history-delta", "session-owner", "hybrid-organization", "isolation-latch", "dev-mods",
    "repl-mode", "memory-mode", "derived-from", "data-flow-records", "data-flow-incomplete",
    "history-suppression", "ended-by-model", "artifact-comment-monitor", "artifact-autoreact-ledger",
    "continued-in", "fork-context-ref", "observer-ref", "resume-head-vouch", "host-row",
    # 2.1.8x: the first line of a session brought from Claude Code on the
    # web (`claude --teleport`): the remote session's id, its git branch and
    # how many messages it held; no sessionId, uuid or timestamp.
    "teleported-from",
))
CHAIN_TYPES = frozenset(("user", "assistant", "system", "progress", "attachment"))
ENVELOPE_ONLY_TYPES = STATE_TYPES | {"queue-operation", "ai-title", "custom-title", "cost-state"}
# The fields every record of a session shares (its envelope), whatever its
# type: a record that has them is Claude Code's even if its type is new.
ENVELOPE_FIELDS = ("sessionId", "uuid", "parentUuid", "timestamp", "version", "cwd", "isSidechain", "userType")
# How a 2.x chain record opens: ``{"parentUuid":null|"<uuid>","isSidechain":true|false,``.
_CHAIN_OPENING = lazy(rb'\{"parentUuid":(?:null|"[0-9a-fA-F-]{36}"),"isSidechain":(?:true|false),')
_LOGLINES = lazy(rb'\s*\{\s*"loglines"\s*:\s*\[')
# The stream-json messages of a run saved as one JSON array (the execution
# file of claude-code-action): its first element is the init record.
_STREAM_ARRAY = lazy(rb'\s*\[\s*\{\s*"type"\s*:\s*"system"\s*,\s*"subtype"\s*:\s*"init"\s*,')


def sniff(head: bytes) -> int:
    start = head[3:] if head.startswith(BOM) else head
    if _LOGLINES.match(start):
        # A web session ({"loglines": [records]}): its records are ours.
        return 90 if b'"sessionId"' in start[:65536] or b'"parentUuid"' in start[:65536] else 70
    if _STREAM_ARRAY.match(start) and b'"session_id"' in start[:8192]:
        return 88
    first = first_json_line(head)
    if isinstance(first, dict):
        rtype = first.get("type")
        if not isinstance(rtype, str):
            return 0
        message = first.get("message")
        if isinstance(message, dict) and "parts" in message and "content" not in message:
            return 0  # Gemini-style parts: Qwen Code, a fork with the same envelope
        if rtype in CHAIN_TYPES and "uuid" in first and ("sessionId" in first or "parentUuid" in first):
            return 95
        if rtype == "system" and first.get("subtype") == "init" and isinstance(first.get("session_id"), str) and ("tools" in first or "model" in first):
            return 90  # the stream-json output of ``claude -p`` and the Agent SDK
        if rtype == "summary" and "leafUuid" in first:
            return 90
        if rtype == "file-history-snapshot" and "snapshot" in first:
            return 90
        if rtype == "teleported-from" and isinstance(first.get("remoteSessionId"), str):
            return 90
        if rtype in ENVELOPE_ONLY_TYPES and "sessionId" in first:
            return 85
        if rtype == "fork-context-ref" and isinstance(first.get("parentSessionId"), str) and isinstance(first.get("agentId"), str):
            # 2.1.20x: the first line of a forked sub-agent's transcript
            # (``subagents/agent-<id>.jsonl``), naming the parent session and
            # how much of its context the fork was given; no sessionId.
            return 90
        envelope = sum(1 for key in ENVELOPE_FIELDS if key in first)
        if isinstance(first.get("sessionId"), str) and envelope >= 3:
            return 60  # a record type of a newer version, in our envelope
        if isinstance(first.get("sessionId"), str) and len(first) <= 4 and "payload" not in first:
            return 45  # a small session-state record of a newer version
        return 0
    # The first line may be longer than the head (a pasted image): judge
    # from its opening bytes.
    start = head[3:] if head.startswith(BOM) else head
    start = start.lstrip(b" \t\r\n")
    opening = start[:4096]
    if start.startswith(b'{"') and b'"sessionId":"' in opening and b'"parentUuid":' in opening:
        return 80
    if _CHAIN_OPENING.match(opening):
        # 2.x writes a record's envelope after its message (the sessionId
        # near the end of the line): a chain record opens with its parent
        # and whether it is a sidechain.
        return 80
    if start.startswith((b'{"type":"file-history-snapshot"', b'{"type":"summary","summary":')):
        return 75
    return 0
