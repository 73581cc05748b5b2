"""``filter``: keep the messages that match every given selection.

Selections are combined with AND across options and OR within one option
(``--role user --role assistant --grep TODO`` keeps user or assistant
messages that mention TODO).  Everything happens while the stream flows:

- ``--session`` drops whole sessions by id prefix;
- the message selections (role, kind, tool, grep, since/until, thinking,
  injected), optionally inverted with ``--invert``, decide each message;
- ``--with-results`` keeps a tool call and its result together, holding an
  undecided call only until its result arrives (bounded, see
  :data:`MAX_PENDING_CALLS`);
- ``--head N`` stops pulling from the input after N kept messages, so the
  reader stops too; ``--tail N`` keeps a window of N messages.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime
from fnmatch import fnmatchcase
from typing import Callable, Iterable, Iterator

import click
import orjson

from sessionport.errors import UsageError
from sessionport.model import KINDS, ROLES, kind_of
from sessionport.registry import Stage
from sessionport.timeparse import click_time_type, parse_event_time, parse_user_time

Predicate = Callable[[dict], bool]

# With --with-results, a tool call that does not match is held until its
# result shows whether it is wanted.  Past this many undecided calls the
# oldest is given up (dropped), so memory stays bounded on odd streams.
MAX_PENDING_CALLS = 1000


def select_messages(events: Iterable[dict], keep: Predicate, *, drop_empty: bool = False) -> Iterator[dict]:
    """Keep messages for which ``keep`` is true.

    A session event is held back until one of its messages is kept (or, when
    ``drop_empty`` is off, until the session ends), so it is written once and
    in front of its messages; at most one event is held.  With
    ``drop_empty``, a session with no kept message loses its session and end
    events too.
    """
    pending: dict | None = None
    for event in events:
        kind = event.get("type")
        if kind == "message":
            if keep(event):
                if pending is not None:
                    yield pending
                    pending = None
                yield event
        elif kind == "session":
            if pending is not None and not drop_empty:
                yield pending
            pending = event
        else:
            if pending is not None:
                if drop_empty:
                    pending = None
                    continue
                yield pending
                pending = None
            yield event
    if pending is not None and not drop_empty:
        yield pending


# -- message predicates -------------------------------------------------------


def _searchable_text(event: dict) -> str:
    text = event.get("text") or ""
    tool_input = event.get("toolInput")
    if tool_input is not None:
        # A tool call's text may be empty; its arguments are what people grep for.
        rendered = orjson.dumps(tool_input).decode("utf-8", "replace")
        text = f"{text}\n{rendered}" if text else rendered
    return text


def _time_predicate(since: datetime | None, until: datetime | None) -> Predicate:
    def in_range(event: dict) -> bool:
        when = parse_event_time(event.get("timestamp"))
        if when is None:
            return False
        if since is not None and when < since:
            return False
        if until is not None and when > until:
            return False
        return True

    return in_range


def _tool_predicate(globs: tuple[str, ...]) -> Predicate:
    open_calls: dict[str, None] = {}  # ids of matching calls whose result is still to come

    def tool_matches(e: dict) -> bool:
        name = e.get("toolName")
        call_id = e.get("toolCallId")
        if name and any(fnmatchcase(name.lower(), g) for g in globs):
            if call_id and kind_of(e) == "tool_use":
                open_calls[call_id] = None
                if len(open_calls) > MAX_PENDING_CALLS:
                    del open_calls[next(iter(open_calls))]
            elif call_id:
                open_calls.pop(call_id, None)
            return True
        if call_id and not name and kind_of(e) == "tool_result" and call_id in open_calls:
            del open_calls[call_id]
            return True
        return False

    return tool_matches


# Every meta.kind a reader writes (model.KINDS, and Codex's rollback marker):
# a value outside it can only be a typo, which would silently keep nothing.
MESSAGE_KINDS = (*KINDS, "rollback")


def _known(flag: str, given: frozenset[str], valid: tuple[str, ...]) -> None:
    unknown = sorted(given - set(valid))
    if unknown:
        raise UsageError(f"{flag}: unknown value {', '.join(map(repr, unknown))}; use one of {', '.join(valid)}")


def build_predicate(
    *,
    role: Iterable[str] = (),
    kind: Iterable[str] = (),
    tool: Iterable[str] = (),
    grep: Iterable[str] = (),
    ignore_case: bool = False,
    since: datetime | None = None,
    until: datetime | None = None,
    no_thinking: bool = False,
    no_injected: bool = False,
    invert: bool = False,
) -> Predicate:
    """One predicate over message events from the message-level selections."""
    checks: list[Predicate] = []
    globs = tuple(g.lower() for g in tool)
    if globs:
        # First in the chain so it sees every call and can recognise the
        # results of matching calls, which often carry no tool name.
        checks.append(_tool_predicate(globs))
    roles = frozenset(role)
    _known("--role", roles, ROLES)
    if roles:
        checks.append(lambda e: e.get("role") in roles)
    kinds = frozenset(kind)
    _known("--kind", kinds, MESSAGE_KINDS)
    if kinds:
        checks.append(lambda e: kind_of(e) in kinds)
    if grep:
        from sessionport.user_regex import compile_any

        pattern = compile_any(grep, "--grep", ignore_case=ignore_case)
        checks.append(lambda e: pattern.contains(_searchable_text(e)))
    if since is not None or until is not None:
        checks.append(_time_predicate(since, until))
    if no_thinking:
        checks.append(lambda e: kind_of(e) != "thinking")
    if no_injected:
        checks.append(lambda e: not (e.get("meta") or {}).get("injected"))

    if not checks:
        matched: Predicate = lambda e: True  # noqa: E731
    elif len(checks) == 1:
        matched = checks[0]
    else:
        matched = lambda e: all(check(e) for check in checks)  # noqa: E731
    if invert:
        return lambda e: not matched(e)
    return matched


# -- stream steps -------------------------------------------------------------


def _session_matches(session: dict, prefixes: tuple[str, ...]) -> bool:
    session_id = session.get("sessionId")
    return isinstance(session_id, str) and session_id.startswith(prefixes)


def filter_sessions(events: Iterable[dict], prefixes: tuple[str, ...]) -> Iterator[dict]:
    """Keep only sessions whose id starts with one of ``prefixes``."""
    try:
        from sessionport.pipeline.select import select_sessions  # shared with other commands when present
    except ImportError:
        select_sessions = None
    if select_sessions is not None:
        yield from select_sessions(events, session_prefixes=prefixes)
        return
    keeping = False
    for event in events:
        if event.get("type") == "session":
            keeping = _session_matches(event, prefixes)
        if keeping:
            yield event


def keep_matching(events: Iterable[dict], keep: Predicate) -> Iterator[dict]:
    """Session and end events, and the messages ``keep`` accepts."""
    for event in events:
        if event.get("type") != "message" or keep(event):
            yield event


def keep_with_results(events: Iterable[dict], keep: Predicate, *, max_pending: int = MAX_PENDING_CALLS) -> Iterator[dict]:
    """Like :func:`keep_matching`, but a tool call and its result stay together.

    A kept call brings its result; a kept result brings its call.  As the
    call comes first, an unmatched call is held (with everything kept after
    it, to preserve order) until its result decides; a new session, the end
    of the stream or more than ``max_pending`` open calls release it
    unkept.
    """
    kept_calls: set[str] = set()  # call ids whose call was kept and result not seen yet
    queue: deque[list] = deque()  # [event, state]; state: True kept, False dropped, None undecided
    held: dict[str, list] = {}  # call id -> queue slot of an undecided call

    def drain() -> Iterator[dict]:
        while queue and queue[0][1] is not None:
            event, state = queue.popleft()
            if state:
                yield event

    def release_all() -> Iterator[dict]:
        for slot in held.values():
            slot[1] = False
        held.clear()
        kept_calls.clear()
        yield from drain()

    for event in events:
        if event.get("type") != "message":
            if event.get("type") == "session":
                yield from release_all()
            if queue:
                queue.append([event, True])
            else:
                yield event
            continue
        wanted = keep(event)
        call_id = event.get("toolCallId")
        kind = kind_of(event)
        slot: list | None = None
        if call_id and kind == "tool_use":
            if wanted:
                kept_calls.add(call_id)
            else:
                slot = [event, None]
                held[call_id] = slot
                if len(held) > max_pending:
                    oldest = next(iter(held))
                    held.pop(oldest)[1] = False
        elif call_id and kind == "tool_result":
            call_slot = held.pop(call_id, None)
            if call_slot is not None:
                call_slot[1] = wanted
            elif call_id in kept_calls:
                kept_calls.discard(call_id)
                wanted = True
        if slot is not None:
            queue.append(slot)
        elif wanted:
            if queue:
                queue.append([event, True])
            else:
                yield event
        yield from drain()
    yield from release_all()


def take_head(events: Iterable[dict], count: int) -> Iterator[dict]:
    """Events up to the ``count``-th message; then stop pulling from the input."""
    if count <= 0:
        return
    seen = 0
    for event in events:
        yield event
        if event.get("type") == "message":
            seen += 1
            if seen >= count:
                return


def take_tail(events: Iterable[dict], count: int) -> Iterator[dict]:
    """The last ``count`` messages, each preceded by its session event and
    followed by its session's end event when that was seen.  Memory holds
    ``count`` messages and the session/end events they refer to."""
    if count <= 0:
        for _ in events:  # read to the end anyway, as tail(1) does
            pass
        return
    window: deque[tuple[int, dict]] = deque(maxlen=count)
    sessions: dict[int, dict] = {}
    ends: dict[int, dict] = {}
    number = -1
    for event in events:
        kind = event.get("type")
        if kind == "session":
            number += 1
            sessions[number] = event
        elif kind == "message":
            if number < 0:
                number = 0
            window.append((number, event))
            if len(sessions) > 2 * count:
                live = {n for n, _ in window} | {number}
                for key in [k for k in sessions if k not in live]:
                    sessions.pop(key, None)
                    ends.pop(key, None)
        elif kind == "end":
            ends[number] = event
    current: int | None = None
    for number, message in window:
        if number != current:
            if current is not None and current in ends:
                yield ends[current]
            current = number
            if number in sessions:
                yield sessions[number]
        yield message
    if current is not None and current in ends:
        yield ends[current]


def mark_filtered(events: Iterable[dict], select: Callable[[Iterable[dict]], Iterable[dict]]) -> Iterator[dict]:
    """``select(events)``, each end event of a session that lost messages
    on the way carrying ``filtered: {messages: kept, dropped: n}`` (``n``
    includes what earlier filters of the stream dropped).

    The end event holds the session's totals (its token usage above all);
    the mark tells whoever reads the stream (``inspect``, the readable
    exporters) that they cover messages no longer in it.  Ends come out in
    the order they went in (the selections never reorder), each the same
    object, so the count a session had going in is found by identity."""
    entered: deque[tuple[dict, int]] = deque()  # end events gone in, with their session's messages

    def counted() -> Iterator[dict]:
        messages = 0
        for event in events:
            kind = event.get("type")
            if kind == "message":
                messages += 1
            elif kind == "end":
                entered.append((event, messages))
                messages = 0
            elif kind == "session":
                messages = 0
            yield event

    kept = 0
    for event in select(counted()):
        kind = event.get("type")
        if kind == "message":
            kept += 1
        elif kind == "session":
            kept = 0
        elif kind == "end":
            total = None
            while entered:  # ends left behind were dropped with their session
                went_in, count = entered.popleft()
                if went_in is event:
                    total = count
                    break
            if total is not None and total > kept:
                # a filter before this one dropped some too: count them all
                earlier = event.get("filtered")
                before = earlier.get("dropped") if isinstance(earlier, dict) else None
                dropped = total - kept + (before if isinstance(before, int) and not isinstance(before, bool) else 0)
                event = {**event, "filtered": {"messages": kept, "dropped": dropped}}
            kept = 0
        yield event


# -- the stage ----------------------------------------------------------------


def _user_time(value: str | datetime | None, flag: str) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    try:
        return parse_user_time(value)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def build(
    role: tuple[str, ...] = (),
    kind: tuple[str, ...] = (),
    tool: tuple[str, ...] = (),
    grep: tuple[str, ...] = (),
    ignore_case: bool = False,
    since: str | None = None,
    until: str | None = None,
    session: tuple[str, ...] = (),
    head: int | None = None,
    tail: int | None = None,
    no_thinking: bool = False,
    no_injected: bool = False,
    invert: bool = False,
    drop_empty: bool = False,
    with_results: bool = False,
    **_: object,
) -> Callable[[Iterable[dict]], Iterator[dict]]:
    """The filter stage as a function over event iterators (see the module doc)."""
    if head is not None and tail is not None:
        raise UsageError("--head and --tail cannot be combined; pipe one filter into another")
    keep = build_predicate(
        role=role,
        kind=kind,
        tool=tool,
        grep=grep,
        ignore_case=ignore_case,
        since=_user_time(since, "--since"),
        until=_user_time(until, "--until"),
        no_thinking=no_thinking,
        no_injected=no_injected,
        invert=invert,
    )
    prefixes = tuple(session)

    def select(events: Iterable[dict]) -> Iterator[dict]:
        stream: Iterable[dict] = events
        if prefixes:
            stream = filter_sessions(stream, prefixes)
        stream = keep_with_results(stream, keep) if with_results else keep_matching(stream, keep)
        stream = select_messages(stream, lambda e: True, drop_empty=drop_empty)
        if head is not None:
            stream = take_head(stream, head)
        elif tail is not None:
            stream = take_tail(stream, tail)
        return iter(stream)

    def stage(events: Iterable[dict]) -> Iterator[dict]:
        return mark_filtered(events, select)

    return stage


# Options that never look at a message (a session's id, how many to keep)
# or only change what --role means: with no other option given, a message's
# role decides it.
_ROLE_ONLY = frozenset(("role", "invert", "session", "head", "tail", "drop_empty", "ignore_case"))


def wanted_roles(options: dict) -> frozenset | None:
    """The roles of the messages a filter built with ``options`` may keep,
    when their role is all it reads of them (see Stage.wanted_roles)."""
    roles = frozenset(options.get("role") or ())
    if not roles or any(value for key, value in options.items() if key not in _ROLE_ONLY):
        return None
    return frozenset(ROLES) - roles if options.get("invert") else roles


STAGE = Stage(
    name="filter",
    description="Keep only the messages that match",
    help=(
        "Keep only the messages that match every given option; the values of one "
        "repeated option are alternatives. Filtering happens while reading: with "
        "--head, reading stops as soon as enough messages were kept."
    ),
    build=build,
    # --head stops pulling once it has its messages: nothing to read ahead.
    reads_all=lambda options: options.get("head") is None,
    wanted_roles=wanted_roles,
    params=(
        click.Option(["--role"], multiple=True, type=click.Choice(ROLES), help="Keep messages with this role (repeatable)."),
        click.Option(["--kind"], multiple=True, type=click.Choice(MESSAGE_KINDS), help="Keep messages of this meta.kind (repeatable)."),
        click.Option(["--tool"], multiple=True, metavar="GLOB", help="Keep tool calls/results whose tool name matches this glob, case-insensitively (repeatable)."),
        click.Option(["--grep"], multiple=True, metavar="REGEX", help="Keep messages whose text (or tool input) matches this regular expression (repeatable)."),
        click.Option(["-i", "--ignore-case"], is_flag=True, help="Make --grep case-insensitive."),
        click.Option(["--since"], metavar="TIME", type=click_time_type(), help="Keep messages at or after TIME: ISO 8601 (local time unless an offset is given) or an age such as 2h, 3d."),
        click.Option(["--until"], metavar="TIME", type=click_time_type(), help="Keep messages at or before TIME (same forms as --since)."),
        click.Option(["--session"], multiple=True, metavar="ID-PREFIX", help="Keep only sessions whose id starts with this (repeatable)."),
        click.Option(["--head"], type=click.IntRange(min=0), metavar="N", help="Keep the first N matching messages, then stop reading."),
        click.Option(["--tail"], type=click.IntRange(min=0), metavar="N", help="Keep the last N matching messages."),
        click.Option(["--no-thinking"], is_flag=True, help="Drop thinking messages."),
        click.Option(["--no-injected"], is_flag=True, help="Drop context injected by the harness (meta.injected)."),
        click.Option(["-v", "--invert"], is_flag=True, help="Keep the messages that do NOT match the message selections (not --session/--head/--tail)."),
        click.Option(["--drop-empty"], is_flag=True, help="Drop sessions left with no message."),
        click.Option(["--with-results"], is_flag=True, help="Keep tool calls and their results together when either is kept."),
    ),
)
