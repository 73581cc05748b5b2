"""Choosing whole sessions from a stream that holds several.

A ChatGPT export holds thousands of sessions; most target formats hold one.
:func:`select_sessions` keeps the sessions whose id starts with one of the
given prefixes and whose title matches one of the given regular expressions,
deciding at each session event and passing or dropping its messages and
end event as they flow (nothing is buffered).

>>> events = [{"type": "session", "sessionId": "abc", "title": "Tax"},
...           {"type": "message", "role": "user", "text": "hi"},
...           {"type": "session", "sessionId": "def", "title": "Trip"}]
>>> [e.get("sessionId") for e in select_sessions(events, session_prefixes=["ab"])]
['abc', None]
"""

from __future__ import annotations

from typing import Iterable, Iterator, Sequence

from sessionport.errors import UsageError
from sessionport.user_regex import UserPattern, compile_user


def compile_titles(patterns: Sequence[str]) -> list[UserPattern]:
    """The ``--title`` patterns, run by RE2 (linear time, see
    :mod:`sessionport.user_regex`); a pattern it cannot run is a usage error."""
    return [compile_user(pattern, "--title") for pattern in patterns]


def session_matches(session: dict, prefixes: Sequence[str], titles: Sequence[UserPattern]) -> bool:
    """True when the session passes both selections (an empty one passes all).

    Within one selection any entry may match; across the two, both must.
    A session with no id never matches an id prefix, and one with no title
    never matches a title pattern.
    """
    if prefixes:
        session_id = session.get("sessionId")
        if not isinstance(session_id, str) or not any(session_id.startswith(p) for p in prefixes):
            return False
    if titles:
        title = session.get("title")
        if not isinstance(title, str) or not any(t.contains(title) for t in titles):
            return False
    return True


def describe_selection(prefixes: Sequence[str], titles: Sequence[str]) -> str:
    parts = [f"--session {p!r}" for p in prefixes] + [f"--title {t!r}" for t in titles]
    return " ".join(parts)


def select_sessions(
    events: Iterable[dict],
    session_prefixes: Sequence[str] = (),
    title_patterns: Sequence[str] = (),
    *,
    require_match: bool = False,
) -> Iterator[dict]:
    """The events of the sessions that match.

    ``session_prefixes``: session ids or their beginnings; ``title_patterns``:
    regular expressions searched in the title (``(?i)`` for any case).  With
    neither, the stream passes unchanged.  Messages that come before any
    session event belong to no session and pass only when nothing is
    selected.  With ``require_match``, a stream in which nothing matched
    ends in a :class:`UsageError` naming the selection.  A bad pattern
    raises :class:`UsageError` at once, before the stream is read.
    """
    prefixes = tuple(p for p in session_prefixes if p is not None)
    titles = compile_titles(tuple(title_patterns))
    if not prefixes and not titles:
        return iter(events)
    return _select(events, prefixes, titles, require_match, describe_selection(prefixes, tuple(title_patterns)))


def _select(events, prefixes, titles, require_match: bool, described: str) -> Iterator[dict]:
    keep = False
    matched = 0
    seen = 0
    for event in events:
        if event.get("type") == "session":
            seen += 1
            keep = session_matches(event, prefixes, titles)
            matched += keep
            if keep:
                event = _announced_kept(event, prefixes, titles)
        if keep:
            yield event
    if require_match and not matched:
        raise no_match(described, seen)


def no_match(described: str, seen: int) -> UsageError:
    """The error of a selection that kept nothing from ``seen`` sessions."""
    return UsageError(
        f"no session matches {described} (the input holds {seen} session(s)); "
        "`sessionport inspect INPUT` lists their ids and titles"
    )


def _announced_kept(session: dict, prefixes: Sequence[str], titles: Sequence[UserPattern]) -> dict:
    """A kept session whose ``metadata.subagents`` names the subagent
    sessions that follow it (Claude Code, ``agent-<id>``) names only those
    the selection surely keeps too, so a viewer never links to one it drops:
    by id prefix that is known now; a title is not known before the
    subagent's session comes, so under a title selection none is named."""
    metadata = session.get("metadata")
    agents = metadata.get("subagents") if isinstance(metadata, dict) else None
    if not isinstance(agents, list):
        return session
    kept = [] if titles else [a for a in agents if isinstance(a, str) and any(f"agent-{a}".startswith(p) for p in prefixes)]
    if len(kept) == len(agents):
        return session
    metadata = {k: v for k, v in metadata.items() if k != "subagents"}
    if kept:
        metadata["subagents"] = kept
    return {**session, "metadata": metadata}


class Selection:
    """``--session``/``--title`` over several inputs' streams in turn: each
    stream is selected on its own (a session never runs on into the next
    input), and :meth:`check` fails when nothing was kept from any of them.
    A bad pattern raises :class:`UsageError` here, before anything is read."""

    def __init__(self, session_prefixes: Sequence[str] = (), title_patterns: Sequence[str] = ()) -> None:
        self.prefixes = tuple(p for p in session_prefixes if p is not None)
        self.titles = compile_titles(tuple(title_patterns))
        self.described = describe_selection(self.prefixes, tuple(title_patterns))
        self.seen = 0
        self.kept = 0

    @property
    def active(self) -> bool:
        return bool(self.prefixes or self.titles)

    def __call__(self, events: Iterable[dict]) -> Iterator[dict]:
        if not self.active:
            return iter(events)
        return self._kept(_select(self._seen(events), self.prefixes, self.titles, False, self.described))

    def _seen(self, events: Iterable[dict]) -> Iterator[dict]:
        for event in events:
            self.seen += event.get("type") == "session"
            yield event

    def _kept(self, events: Iterable[dict]) -> Iterator[dict]:
        for event in events:
            self.kept += event.get("type") == "session"
            yield event

    def check(self) -> None:
        if self.active and not self.kept:
            raise no_match(self.described, self.seen)
