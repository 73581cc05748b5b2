"""``filter``: keep the messages that match every given selection."""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

import click

from ..model import KINDS, ROLES, kind_of
from ..registry import Stage

Predicate = Callable[[dict], bool]


def select_messages(events: Iterable[dict], keep: Predicate, *, drop_empty: bool = False) -> Iterator[dict]:
    """Keep messages for which ``keep`` is true.

    A session event is held back until one of its messages is kept (or, when
    ``drop_empty`` is off, until the session ends), so it is written once and
    in front of its messages; at most one event is held.
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


def build(role: tuple[str, ...] = (), kind: tuple[str, ...] = (), **_: object) -> Callable[[Iterable[dict]], Iterator[dict]]:
    roles = frozenset(role)
    kinds = frozenset(kind)

    def keep(event: dict) -> bool:
        if roles and event.get("role") not in roles:
            return False
        if kinds and kind_of(event) not in kinds:
            return False
        return True

    def stage(events: Iterable[dict]) -> Iterator[dict]:
        return select_messages(events, keep)

    return stage


STAGE = Stage(
    name="filter",
    description="Keep only the messages that match",
    help="Keep only the messages that match every given option (values of one option are alternatives).",
    build=build,
    params=(
        click.Option(["--role"], multiple=True, type=click.Choice(ROLES), help="Keep messages with this role (repeatable)."),
        click.Option(["--kind"], multiple=True, metavar="KIND", help=f"Keep messages of this meta.kind (repeatable): {', '.join(KINDS)}, ..."),
    ),
)
