"""``--branch latest``: a Claude Code session as the app itself resumes it.

A transcript is a tree: each line names its parent (``parentUuid``), and
editing an earlier prompt, or resuming from an earlier point, starts a new
branch beside the old one in the same file.  By default sessionport reads
every branch, in file order (nothing in the file is lost).  ``claude
--resume`` instead follows one chain: from the newest leaf of the main
thread back to the root (or to the last compaction boundary, which starts a
chain of its own).  ``--branch latest`` gives that chain alone, without
inline sidechains, which is what another app should be given to continue
the conversation.

Two passes over the file keep memory small: the first collects only the
``uuid -> parentUuid`` links of the lines (hook progress and attachments are
links of the chain too), the second streams the messages of the chosen
chain, with every block of the API responses on it and the results of
every call they made (parallel calls and their results hang off one
another, not off the chain, and the app keeps them all).  The end event says how many
messages were left out.
"""

from __future__ import annotations

from typing import BinaryIO, Callable, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.errors import UsageError
from sessionport.io import spool_to_file
from sessionport.registry import Option

BRANCHES = ("all", "latest")

BRANCH = Option(
    name="branch",
    flags=("--branch",),
    help=(
        "Claude Code: which branches of the session to read: all (default; every branch in file order) "
        "or latest (the chain Claude Code resumes, from the newest leaf; use it to move a session to another app)."
    ),
    default=None,
)


def wanted(ctx: ReadContext) -> str:
    value = ctx.options.get("branch") or "all"
    if value not in BRANCHES:
        raise UsageError(f"--branch must be one of {', '.join(BRANCHES)}, found {value!r}")
    return value


_CHAIN_TYPES = frozenset(("user", "assistant", "system", "progress", "attachment"))


def _links(handle: BinaryIO) -> tuple[dict[str, str | None], str | None, dict[str, str]]:
    """Each main-thread line's parent, the newest leaf, and the ``message.id``
    of each assistant line, from the raw
    lines (the links run through hook progress and attachments, which are
    not messages)."""
    parents: dict[str, str | None] = {}
    leaves: list[tuple[str, str]] = []  # (uuid, timestamp) of the thread's lines, in file order
    responses: dict[str, str] = {}  # uuid -> message.id of assistant lines
    for line in handle:
        if b'"uuid"' not in line:
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(record, dict) or record.get("type") not in _CHAIN_TYPES or record.get("isSidechain") is True:
            continue
        uid = record.get("uuid")
        if not isinstance(uid, str) or uid in parents:
            continue
        parent = record.get("parentUuid")
        parents[uid] = parent if isinstance(parent, str) else None
        message = record.get("message")
        if record["type"] == "assistant" and isinstance(message, dict) and isinstance(message.get("id"), str):
            responses[uid] = message["id"]
        # Any line of the thread can be its newest leaf: a turn of 2.1.x ends
        # with system lines (stop_hook_summary, turn_duration), and the
        # result of a parallel call is a leaf of its own, older than they are.
        stamp = record.get("timestamp")
        leaves.append((uid, stamp if isinstance(stamp, str) else ""))
    has_child = set(p for p in parents.values() if p is not None)
    leaf = None
    best = ""
    for uid, stamp in leaves:  # the newest leaf; a later line wins a tie
        if uid not in has_child and stamp >= best:
            leaf, best = uid, stamp
    return parents, leaf, responses


def _chain(parents: dict[str, str | None], leaf: str | None) -> set[str]:
    chain: set[str] = set()
    node = leaf
    while node is not None and node not in chain:
        chain.add(node)
        node = parents.get(node)
    return chain


def _line_uuid(event_id: str) -> str:
    """The uuid of the line a message came from: the second and later
    blocks of one line are ``<uuid>#<n>`` (a line whose message has no
    ``id`` to keep them by, such as an answer rebuilt from its stream)."""
    base, mark, n = event_id.rpartition("#")
    return base if mark and n.isdigit() else event_id


def latest_branch(read_transcript: Callable[..., Iterator[dict]]) -> Callable[..., Iterator[dict]]:
    """``read_transcript`` limited to the chain Claude Code resumes."""

    def read(stream: BinaryIO, ctx: ReadContext, **kwargs) -> Iterator[dict]:
        handle = ctx.open_seekable() if ctx.open_seekable is not None else spool_to_file(stream)
        parents, leaf, responses = _links(handle)
        chain = _chain(parents, leaf)
        # the blocks of one API response are lines of their own, and parallel
        # calls hang off one another: the app keeps the whole response
        kept_responses = {responses[u] for u in chain if u in responses}
        del parents, responses
        handle.seek(0)
        left_out = 0
        keep = False  # a message without an id goes with the message before it
        main = True
        calls: set[str] = set()  # tool calls on the chain
        for event in read_transcript(handle, ctx, **kwargs):
            kind = event.get("type")
            if kind == "session":
                main = not (event.get("metadata") or {}).get("parentSessionId")
            elif kind == "message" and main:
                uid = event.get("id")
                meta = event.get("meta") or {}
                if meta.get("sidechain"):
                    keep = False
                elif isinstance(uid, str):
                    # the results of parallel calls hang off one another, not
                    # off the chain: the app keeps every result of a kept call
                    keep = (
                        uid in chain
                        or _line_uuid(uid) in chain
                        or meta.get("messageId") in kept_responses
                        or (meta.get("kind") == "tool_result" and event.get("toolCallId") in calls)
                    )
                if keep and meta.get("kind") == "tool_use" and isinstance(event.get("toolCallId"), str):
                    calls.add(event["toolCallId"])
                if not keep:
                    left_out += 1
                    continue
            elif kind == "end" and main and left_out:
                notes = list(event.get("notes") or [])
                notes.append(f"--branch latest: {left_out} message(s) on other branches or sidechains left out")
                event = {**event, "notes": notes}
            yield event

    return read
