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

Two passes over the file keep memory flat: the first collects only the
``id -> parentId`` links of the messages (the importer resolves links through
lines that are not messages, such as hook progress), the second streams the
messages of the chosen chain.  The end event says how many were left out.
"""

from __future__ import annotations

import dataclasses
from typing import BinaryIO, Callable, Iterator

from sessionport.context import ReadContext
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
    type=None,
    default=None,
)


def wanted(ctx: ReadContext) -> str:
    value = ctx.options.get("branch") or "all"
    if value not in BRANCHES:
        from sessionport.errors import UsageError

        raise UsageError(f"--branch must be one of {', '.join(BRANCHES)}, found {value!r}")
    return value


def _links(events: Iterator[dict]) -> tuple[dict[str, str | None], str | None]:
    """Each main-thread message's parent, and the newest leaf."""
    parents: dict[str, str | None] = {}
    stamps: dict[str, str] = {}
    order: list[str] = []
    sessions = 0
    for event in events:
        kind = event.get("type")
        if kind == "session":
            sessions += 1
            if sessions > 1:  # subagent sessions follow the main one
                break
            continue
        if kind != "message" or (event.get("meta") or {}).get("sidechain"):
            continue
        uid = event.get("id")
        if not isinstance(uid, str) or uid in parents:
            continue
        parent = event.get("parentId")
        parents[uid] = parent if isinstance(parent, str) else None
        stamp = event.get("timestamp")
        stamps[uid] = stamp if isinstance(stamp, str) else ""
        order.append(uid)
    has_child = set(p for p in parents.values() if p is not None)
    leaf = None
    best = ""
    for uid in order:  # the newest leaf; a later line wins a tie
        if uid not in has_child and stamps[uid] >= best:
            leaf, best = uid, stamps[uid]
    return parents, leaf


def _chain(parents: dict[str, str | None], leaf: str | None) -> set[str]:
    chain: set[str] = set()
    node = leaf
    while node is not None and node not in chain:
        chain.add(node)
        node = parents.get(node)
    return chain


def latest_branch(read_transcript: Callable[..., Iterator[dict]]) -> Callable[..., Iterator[dict]]:
    """``read_transcript`` limited to the chain Claude Code resumes."""

    def read(stream: BinaryIO, ctx: ReadContext, **kwargs) -> Iterator[dict]:
        handle = ctx.open_seekable() if ctx.open_seekable is not None else spool_to_file(stream)
        quiet = dataclasses.replace(ctx, on_warning=lambda message: None, warnings=[], bad_places=[], bad_count=0)
        parents, leaf = _links(read_transcript(handle, quiet))
        chain = _chain(parents, leaf)
        handle.seek(0)
        left_out = 0
        keep = False  # a message without an id goes with the message before it
        main = True
        for event in read_transcript(handle, ctx, **kwargs):
            kind = event.get("type")
            if kind == "session":
                main = not (event.get("metadata") or {}).get("parentSessionId")
            elif kind == "message" and main:
                uid = event.get("id")
                if (event.get("meta") or {}).get("sidechain"):
                    keep = False
                elif isinstance(uid, str):
                    keep = uid in chain
                if not keep:
                    left_out += 1
                    continue
            elif kind == "end" and main and left_out:
                notes = list(event.get("notes") or [])
                notes.append(f"--branch latest: {left_out} message(s) on other branches or sidechains left out")
                event = {**event, "notes": notes}
            yield event

    return read
