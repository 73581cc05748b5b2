"""``claude-code``: Claude Code session transcripts (``~/.claude/projects/*/*.jsonl``).

Reads every version seen from 1.0.24 to 2.1.114.  The session file is
streamed line by line (see :mod:`.claude_code_records`); when it is a real
file, its subagent transcripts found on disk follow as their own sessions
(see :mod:`.claude_code_subagents`), unless ``--no-subagents``.
"""

from __future__ import annotations

import os
from typing import BinaryIO, Iterator

from sessionport.context import ReadContext
from sessionport.jsonl import BOM, first_json_line
from sessionport.registry import Importer, Option
from sessionport.formats.claude_code.branch import BRANCH, latest_branch, wanted
from sessionport.formats.claude_code.records import AgentLink, FileResult, read_transcript
from sessionport.formats.claude_code.subagents import Subagents, agent_id_of, find_subagents, is_warmup, read_sidecar_tool_call

CHAIN_TYPES = frozenset(("user", "assistant", "system", "progress", "attachment"))
ENVELOPE_ONLY_TYPES = frozenset(("queue-operation", "permission-mode", "last-prompt", "ai-title", "custom-title"))
READ_BUFFER = 1 << 20

NO_SUBAGENTS = Option(
    name="no_subagents",
    flags=("--no-subagents",),
    help="Claude Code: leave out the subagent transcripts found beside a session file.",
    is_flag=True,
)


def sniff(head: bytes) -> int:
    first = first_json_line(head)
    if isinstance(first, dict):
        rtype = first.get("type")
        if not isinstance(rtype, str):
            return 0
        if rtype in CHAIN_TYPES and "uuid" in first and ("sessionId" in first or "parentUuid" in first):
            return 95
        if rtype == "summary" and "leafUuid" in first:
            return 90
        if rtype == "file-history-snapshot" and "snapshot" in first:
            return 90
        if rtype in ENVELOPE_ONLY_TYPES and "sessionId" in first:
            return 85
        return 0
    # The first line may be longer than the head (a pasted image): judge
    # from its opening bytes.
    start = head[3:] if head.startswith(BOM) else head
    start = start.lstrip(b" \t\r\n")
    opening = start[:4096]
    if start.startswith(b'{"') and b'"sessionId":"' in opening and b'"parentUuid":' in opening:
        return 80
    if start.startswith((b'{"type":"file-history-snapshot"', b'{"type":"summary","summary":')):
        return 75
    return 0


def _subagent_notes(subs: Subagents, leave_out: bool) -> list[str]:
    notes = []
    for path in subs.warmups:
        notes.append(
            f"warmup agent file {os.path.basename(path)} skipped "
            "(a 'Warmup' prompt Claude Code sends at start-up, not part of the conversation)"
        )
    if subs.files:
        names = ", ".join(os.path.basename(p) for p in subs.files)
        if leave_out:
            notes.append(f"{len(subs.files)} subagent transcript(s) left out (--no-subagents): {names}")
        else:
            notes.append(f"{len(subs.files)} subagent session(s) follow this one: {names}")
    return notes


def read(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    leave_out = bool(ctx.options.get("no_subagents"))
    result = FileResult()
    found = Subagents()

    def notes_after_reading(res: FileResult) -> list[str]:
        nonlocal found
        if ctx.path is None:
            return []
        if res.is_agent_file:
            if is_warmup(ctx.path):
                return ["this is a 'Warmup' agent file (noise Claude Code writes at start-up)"]
            return []
        found = find_subagents(ctx.path, res.session_id)
        return _subagent_notes(found, leave_out)

    transcript = latest_branch(read_transcript) if wanted(ctx) == "latest" else read_transcript
    yield from transcript(stream, ctx, result=result, extra_notes=notes_after_reading)
    if leave_out:
        return
    for path in found.files:
        yield from _read_subagent(path, ctx, result)


def _read_subagent(path: str, ctx: ReadContext, parent: FileResult) -> Iterator[dict]:
    agent = agent_id_of(path)
    link = AgentLink(
        agent_id=agent,
        parent_session_id=parent.session_id,
        tool_call_id=parent.agent_calls.get(agent) or read_sidecar_tool_call(path),
    )
    child = ReadContext(
        name=path,
        path=path,
        strict=ctx.strict,
        skip_bad=ctx.skip_bad,
        options=ctx.options,
        on_warning=ctx.on_warning,
    )
    try:
        handle = open(path, "rb", buffering=READ_BUFFER)
    except OSError as exc:
        ctx.warn(f"subagent transcript {path} cannot be opened ({exc.strerror or exc}); left out")
        return
    try:
        yield from read_transcript(handle, child, link=link)
    finally:
        handle.close()
        ctx.warnings.extend(child.warnings)
        ctx.bad_count += child.bad_count
        ctx.bad_places.extend(child.bad_places[: max(0, 10 - len(ctx.bad_places))])


IMPORTER = Importer(
    name="claude-code",
    description="Claude Code session transcripts (~/.claude/projects/*/*.jsonl), subagents included",
    read=read,
    sniff=sniff,
    patterns=("*.jsonl",),
    options=(NO_SUBAGENTS, BRANCH),
)
