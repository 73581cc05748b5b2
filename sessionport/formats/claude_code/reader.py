"""``claude-code``: Claude Code session transcripts (``~/.claude/projects/*/*.jsonl``).

Reads every version seen from 1.0.24 to 2.1.239.  The session file is
streamed line by line (see :mod:`.claude_code_records`); when it is a real
file, its subagent transcripts found on disk follow as their own sessions
(see :mod:`.claude_code_subagents`), unless ``--no-subagents``.
"""

from __future__ import annotations

import os
from typing import BinaryIO, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.io import open_regular
from sessionport.jsonl import BOM
from sessionport.registry import NO_SUBAGENTS, Importer
from sessionport.jsondoc import walk_document
from sessionport.formats.claude_code.order import calls_before_results
from sessionport.formats.claude_code.branch import BRANCH, latest_branch, wanted
from sessionport.formats.claude_code.records import AgentLink, FileResult, read_transcript
from sessionport.formats.claude_code.sniff import _LOGLINES, _STREAM_ARRAY, sniff
from sessionport.formats.claude_code.subagents import (
    WORKFLOWS,
    Subagents,
    agent_id_of,
    find_subagents,
    is_warmup,
    read_sidecar_tool_call,
)

READ_BUFFER = 1 << 20



def _subagent_notes(subs: Subagents, leave_out: bool) -> list[str]:
    notes = []
    for path in subs.warmups:
        notes.append(
            f"warmup agent file {os.path.basename(path)} skipped "
            "(a 'Warmup' prompt Claude Code sends at start-up, not part of the conversation)"
        )
    if subs.files:
        names = ", ".join(
            f"{WORKFLOWS}/{subs.runs[p]}/{os.path.basename(p)}" if p in subs.runs else os.path.basename(p)
            for p in subs.files
        )
        if leave_out:
            notes.append(f"{len(subs.files)} subagent transcript(s) left out (--no-subagents): {names}")
        else:
            notes.append(f"{len(subs.files)} subagent session(s) follow this one: {names}")
    return notes


def _loglines(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[int, bytes, bool]]:
    """The records of a web session as the lines a session file would hold."""
    index = 0
    dumps = orjson.dumps
    for kind, value in walk_document(stream, ctx, keys=("loglines",)):
        if kind != "item":
            continue
        index += 1
        yield index, dumps(value), True


def _is_web_session(stream: BinaryIO) -> bool:
    head = stream.peek(4096)[:4096] if hasattr(stream, "peek") else b""
    if head.startswith(BOM):
        head = head[3:]
    return _LOGLINES.match(head) is not None or _STREAM_ARRAY.match(head) is not None


def read(stream: BinaryIO, ctx: ReadContext, transcript_type: type | None = None) -> Iterator[dict]:
    """The events of a session file and its subagent transcripts;
    ``transcript_type`` replaces the per-file reader (the census's).  A
    result written before its call comes after it (see order.py)."""
    return calls_before_results(_events(stream, ctx, transcript_type))


def _events(stream: BinaryIO, ctx: ReadContext, transcript_type: type | None = None) -> Iterator[dict]:
    if _is_web_session(stream):
        # One session, no folder of subagents beside it (also the JSON
        # array of stream-json messages that claude-code-action saves).
        yield from read_transcript(stream, ctx, lines=_loglines(stream, ctx), transcript_type=transcript_type)
        return
    leave_out = bool(ctx.options.get("no_subagents"))
    result = FileResult()
    found = Subagents()
    discovered = False

    def following(session_id: str | None) -> list[str]:
        """Found when the session starts, so its event can name the
        subagent sessions that follow it (none with --no-subagents)."""
        nonlocal found, discovered
        if ctx.path is None:
            return []
        found, discovered = find_subagents(ctx.path, session_id), True
        return [] if leave_out else [agent_id_of(path) for path in found.files]

    def notes_after_reading(res: FileResult) -> list[str]:
        nonlocal found
        if ctx.path is None:
            return []
        if res.is_agent_file:
            if is_warmup(ctx.path):
                return ["this is a 'Warmup' agent file (noise Claude Code writes at start-up)"]
            return []
        if not discovered:
            found = find_subagents(ctx.path, res.session_id)
        return _subagent_notes(found, leave_out)

    result.subagents_following = following

    if wanted(ctx) == "latest":
        # The chain is chosen from the read events, so a census that counts
        # lines itself does not apply: the branch is read in full.
        yield from latest_branch(read_transcript)(stream, ctx, result=result, extra_notes=notes_after_reading)
    else:
        yield from read_transcript(stream, ctx, result=result, extra_notes=notes_after_reading, transcript_type=transcript_type)
    if leave_out:
        return
    for path in found.files:
        yield from _read_subagent(path, ctx, result, transcript_type, found.runs.get(path))


def _read_subagent(
    path: str, ctx: ReadContext, parent: FileResult, transcript_type: type | None = None, run: str | None = None
) -> Iterator[dict]:
    agent = agent_id_of(path)
    link = AgentLink(
        agent_id=agent,
        parent_session_id=parent.session_id,
        tool_call_id=parent.agent_calls.get(agent)
        or read_sidecar_tool_call(path)
        or (parent.run_calls.get(run) if run else None),
        workflow_run_id=run,
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
        handle = open_regular(path, buffering=READ_BUFFER)
    except OSError as exc:
        ctx.warn(f"subagent transcript {path} cannot be opened ({exc.strerror or exc}); left out")
        return
    try:
        yield from read_transcript(handle, child, link=link, transcript_type=transcript_type)
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
    census="sessionport.formats.claude_code.census:census",
    title_scan="sessionport.formats.claude_code.title_scan:title_scan",
    options=(NO_SUBAGENTS, BRANCH),
    versions=(
        "1.0.24", "1.0.29", "1.0.43", "1.0.51", "1.0.53", "1.0.55", "1.0.56", "1.0.95", "1.0.98", "1.0.108", "1.0.128",
        "2.0.0", "2.0.5", "2.0.14", "2.0.24", "2.0.26", "2.0.27", "2.0.28", "2.0.29", "2.0.31", "2.0.35", "2.0.37",
        "2.0.42", "2.0.44", "2.0.55", "2.1.17", "2.1.19", "2.1.20", "2.1.21", "2.1.22", "2.1.23", "2.1.38", "2.1.42", "2.1.68", "2.1.114", "2.1.117", "2.1.129", "2.1.138", "2.1.167", "2.1.204", "2.1.205", "2.1.212", "2.1.219", "2.1.222", "2.1.226", "2.1.229", "2.1.232", "2.1.239", "2.1.251", "2.1.280", "2.1.283", "2.1.332", "stream-json (2.1.332)",
    ),
)
