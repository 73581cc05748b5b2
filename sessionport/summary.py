"""What ``inspect`` reports: counts, span and usage of each session, never bodies."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Iterator

from sessionport.plain import Record

USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def empty_usage() -> dict[str, int]:
    return dict.fromkeys(USAGE_KEYS, 0)


def add_usage(total: dict[str, int], usage: dict[str, Any] | None) -> None:
    if not usage:
        return
    for key in USAGE_KEYS:
        value = usage.get(key)
        if isinstance(value, (int, float)):
            total[key] += int(value)


class SessionSummary(Record):
    _fields = (
        "source", "sessionId", "title", "cwd", "parentSessionId", "first", "last", "messages", "roles", "kinds",
        "tools", "models", "usage", "skipped", "unknown", "notes", "message_usage", "filtered", "ended",
    )
    source: str | None
    sessionId: str | None
    title: str | None
    cwd: str | None
    parentSessionId: str | None
    first: str | None
    last: str | None
    messages: int
    roles: Counter
    kinds: Counter
    tools: Counter
    models: Counter
    usage: dict[str, int] | None
    skipped: dict[str, int]
    # Types the importer did not know ({"record": {type: n}, "content block": ...}).
    unknown: dict[str, dict[str, int]]
    notes: list[str]
    # The usage the message events carry (``meta.usage``, once per API
    # message id), None when none carries any: after a filter, what was kept.
    # A census does not count it: it reads unfiltered files, where ``usage``
    # (the end event's, the whole session's) says it all.
    message_usage: dict[str, int] | None
    # The end event's ``filtered`` (the filter stage dropped messages of the
    # session), and whether an end event was seen at all.
    filtered: dict[str, Any] | None
    ended: bool

    def __init__(
        self,
        source: str | None = None,
        sessionId: str | None = None,
        title: str | None = None,
        cwd: str | None = None,
        parentSessionId: str | None = None,
        first: str | None = None,
        last: str | None = None,
        messages: int = 0,
        roles: Counter | None = None,
        kinds: Counter | None = None,
        tools: Counter | None = None,
        models: Counter | None = None,
        usage: dict[str, int] | None = None,
        skipped: dict[str, int] | None = None,
        unknown: dict[str, dict[str, int]] | None = None,
        notes: list[str] | None = None,
        message_usage: dict[str, int] | None = None,
        filtered: dict[str, Any] | None = None,
        ended: bool = False,
    ) -> None:
        self.source = source
        self.sessionId = sessionId
        self.title = title
        self.cwd = cwd
        self.parentSessionId = parentSessionId
        self.first = first
        self.last = last
        self.messages = messages
        self.roles = Counter() if roles is None else roles
        self.kinds = Counter() if kinds is None else kinds
        self.tools = Counter() if tools is None else tools
        self.models = Counter() if models is None else models
        self.usage = usage
        self.skipped = {} if skipped is None else skipped
        self.unknown = {} if unknown is None else unknown
        self.notes = [] if notes is None else notes
        self.message_usage = message_usage
        self.filtered = filtered
        self.ended = ended

    @property
    def partial(self) -> bool:
        """The stream holds part of the session: a filter dropped messages
        (and said so), or it ends before the session's end event (cut short,
        as by ``filter --head``) with messages that carry their own usage."""
        return self.filtered is not None or (not self.ended and self.message_usage is not None)

    def count(self, role: Any, kind: Any, tool: Any, model: Any, stamp: Any) -> None:
        """One message: its role, its kind (``text`` unless the event says),
        the tool it calls (None for anything but a call) and its model."""
        self.messages += 1
        self.roles[role] += 1
        self.kinds[kind] += 1
        if tool:
            self.tools[tool] += 1
        if model:
            self.models[model] += 1
        if isinstance(stamp, str):
            if self.first is None or stamp < self.first:
                self.first = stamp
            if self.last is None or stamp > self.last:
                self.last = stamp

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "source": self.source,
            "sessionId": self.sessionId,
            "title": self.title,
            "cwd": self.cwd,
            "start": self.first,
            "end": self.last,
            "duration_seconds": _duration(self.first, self.last),
            "messages": self.messages,
            "byRole": dict(self.roles),
            "byKind": dict(self.kinds),
            "byTool": dict(self.tools.most_common()),
            "models": dict(self.models.most_common()),
            "usage": self.usage or empty_usage(),
            "skipped": self.skipped,
        }
        if self.unknown:
            data["unknown"] = self.unknown
        if self.parentSessionId:
            data["parentSessionId"] = self.parentSessionId
        if self.notes:
            data["notes"] = self.notes
        if self.partial:
            # "usage" stays the whole session's figure; without the end event
            # that figure is not known, which zeros would hide
            if not self.ended:
                data["usage"] = None
            data["keptUsage"] = self.message_usage
            if self.filtered is not None:
                data["filtered"] = self.filtered
        return data


def _duration(first: str | None, last: str | None) -> float | None:
    from datetime import datetime

    if not first or not last:
        return None
    try:
        a = datetime.fromisoformat(first.replace("Z", "+00:00"))
        b = datetime.fromisoformat(last.replace("Z", "+00:00"))
    except ValueError:
        return None
    try:
        return round((b - a).total_seconds(), 3)
    except TypeError:  # one aware, one naive
        return None


class Summarizer:
    """Builds the summaries of a stream of events, one event at a time.

    :meth:`take` is what ``summarize`` does per event; an importer's census
    calls :meth:`SessionSummary.count` directly for the messages it never
    builds, at the point of the stream where the reader would have yielded
    them (so counters keep their first-seen order).
    """

    __slots__ = ("sessions", "current", "usage_ids")

    def __init__(self) -> None:
        self.sessions: list[SessionSummary] = []
        self.current: SessionSummary | None = None
        self.usage_ids: dict[str, None] = {}

    def session(self) -> SessionSummary:
        """The session messages count into (an anonymous one if none started)."""
        current = self.current
        if current is None:
            current = self.current = SessionSummary()
            self.sessions.append(current)
        return current

    def take(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "session":
            metadata = event.get("metadata") or {}
            current = self.current = SessionSummary(
                source=event.get("source"),
                sessionId=event.get("sessionId"),
                title=event.get("title"),
                cwd=event.get("cwd"),
                parentSessionId=metadata.get("parentSessionId") if isinstance(metadata, dict) else None,
                first=event.get("createdAt"),
            )
            notes = metadata.get("notes") if isinstance(metadata, dict) else None
            if isinstance(notes, list):
                current.notes.extend(str(n) for n in notes)
            self.sessions.append(current)
        elif kind == "message":
            meta = event.get("meta") or {}
            tool = event.get("toolName")
            usage = meta.get("usage") if isinstance(meta, dict) else None
            if isinstance(usage, dict):
                self._message_usage(usage, meta.get("messageId"))
            self.session().count(
                event.get("role"),
                meta.get("kind", "text"),
                tool if tool and meta.get("kind", "tool_use") == "tool_use" else None,
                meta.get("model"),
                event.get("timestamp"),
            )
        elif kind == "end" and self.current is not None:
            current = self.current
            current.ended = True
            filtered = event.get("filtered")
            if isinstance(filtered, dict):
                current.filtered = dict(filtered)
            usage = event.get("usage")
            if isinstance(usage, dict):
                current.usage = empty_usage()
                add_usage(current.usage, usage)
            skipped = event.get("skipped")
            if isinstance(skipped, dict):
                current.skipped = dict(skipped)
            unknown = event.get("unknown")
            if isinstance(unknown, dict):
                current.unknown = {k: dict(v) for k, v in unknown.items() if isinstance(v, dict)}
            notes = event.get("notes")
            if isinstance(notes, list):
                current.notes.extend(str(n) for n in notes)
            # A title recorded after the session event was written (a
            # rename, a generated title): the reader ranked it, and it is
            # the one the app shows
            title = event.get("title")
            if isinstance(title, str) and title:
                current.title = title

    def _message_usage(self, usage: dict, api_id: Any) -> None:
        # The blocks of one API message may each repeat its usage: count it
        # once (ids remembered for the last few hundred messages, whose
        # blocks come together), as the readable exporters' footer does.
        if isinstance(api_id, str):
            if api_id in self.usage_ids:
                return
            self.usage_ids[api_id] = None
            if len(self.usage_ids) > 512:
                del self.usage_ids[next(iter(self.usage_ids))]
        current = self.session()
        if current.message_usage is None:
            current.message_usage = empty_usage()
        add_usage(current.message_usage, usage)


def summarize(events: Iterable[dict]) -> list[SessionSummary]:
    return list(iter_summaries(events))


def iter_summaries(events: Iterable[dict]) -> Iterator[SessionSummary]:
    """The summaries of a stream of events, each given as soon as the next
    session starts (nothing counts into a session after that) or the stream
    ends: one summary held at a time, whatever the number of sessions."""
    summarizer = Summarizer()
    take = summarizer.take
    sessions = summarizer.sessions
    for event in events:
        take(event)
        if len(sessions) > 1:
            done = sessions[0]
            del sessions[0]
            yield done
    yield from sessions


# Below this size (a file's, when known) the census is not worth its
# start: it loads msgspec, which costs a small file's inspect a tenth of its
# time, and its read is short anyway.
CENSUS_FROM = 2 << 20


def census_or_read(importer: Any, stream: Any, ctx: Any) -> Iterable[SessionSummary]:
    """The summaries of one opened input (a ``run`` for ``stream.read``):
    from the importer's census when it has one and the input is not known
    to be small (counts taken from the records, no message events built),
    else from the events of its read, each as its session ends.  Both give
    the same summaries."""
    size = getattr(ctx, "size", None)
    if size is not None and size < CENSUS_FROM and not getattr(ctx, "compressed", False):
        return iter_summaries(importer.read(stream, ctx))
    census = importer.census_function()
    if census is not None:
        return census(stream, ctx)
    return iter_summaries(importer.read(stream, ctx))


def usage_or_census(importer: Any, stream: Any, ctx: Any) -> Iterable[SessionSummary]:
    """The summaries ``inspect --usage`` prints of one opened input: from
    the importer's usage scan when it has one (exact in :data:`USAGE_FIELDS`
    only), else as :func:`census_or_read`."""
    scan = importer.usage_function()
    if scan is not None:
        return scan(stream, ctx)
    return census_or_read(importer, stream, ctx)


# What ``inspect --usage`` prints of a session (``SessionSummary.as_dict``),
# each the same as ``inspect`` reports it.
USAGE_FIELDS = ("source", "sessionId", "title", "cwd", "parentSessionId", "usage", "keptUsage")


def usage_fields(summary: dict[str, Any]) -> dict[str, Any]:
    return {key: summary[key] for key in USAGE_FIELDS if key in summary}


class Totals:
    """The totals ``inspect`` prints, added one summary at a time: a few
    counters (one entry per role, kind and tool name), never the sessions."""

    __slots__ = ("sessions", "messages", "roles", "kinds", "tools", "usage", "kept", "partial")

    def __init__(self) -> None:
        self.sessions = 0
        self.messages = 0
        self.roles: Counter = Counter()
        self.kinds: Counter = Counter()
        self.tools: Counter = Counter()
        self.usage = empty_usage()
        # the usage of the messages in the stream, over every session: said
        # only when some session is partly here
        self.kept = empty_usage()
        self.partial = False

    def add(self, s: SessionSummary) -> None:
        self.sessions += 1
        self.messages += s.messages
        add_usage(self.usage, s.usage)
        self.roles.update(s.roles)
        self.kinds.update(s.kinds)
        self.tools.update(s.tools)
        partial = s.partial
        self.partial = self.partial or partial
        add_usage(self.kept, s.message_usage if partial else s.usage)

    def merge(self, other: Totals) -> None:
        """Another run's totals added (an input's, to the run's): the same
        figures, in the same first-seen order, as adding its sessions."""
        self.sessions += other.sessions
        self.messages += other.messages
        add_usage(self.usage, other.usage)
        self.roles.update(other.roles)
        self.kinds.update(other.kinds)
        self.tools.update(other.tools)
        self.partial = self.partial or other.partial
        add_usage(self.kept, other.kept)

    def as_dict(self) -> dict[str, Any]:
        total: dict[str, Any] = {
            "sessions": self.sessions,
            "messages": self.messages,
            "byRole": dict(self.roles),
            "byKind": dict(self.kinds),
            "byTool": dict(self.tools.most_common()),
            "usage": dict(self.usage),
        }
        if self.partial:
            # "usage" sums the whole sessions' figures that are known
            total["keptUsage"] = dict(self.kept)
        return total


def totals(sessions: Iterable[SessionSummary]) -> dict[str, Any]:
    total = Totals()
    for s in sessions:
        total.add(s)
    return total.as_dict()
