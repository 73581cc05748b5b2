"""A progress bar by bytes read, on stderr, only where a person is watching."""

from __future__ import annotations

import sys
from typing import Iterable, Iterator

import click

from sessionport.context import ReadContext
from sessionport.sanitise import terminal

# Below this size a conversion is over before a bar would be useful.
MIN_SIZE = 8 << 20
CHECK_EVERY = 512  # events between position checks: cheap enough for the hot loop


def wanted(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def track(events: Iterable[dict], ctx: ReadContext, label: str = "") -> Iterator[dict]:
    """Yield ``events`` while drawing a bar of ``ctx.position()`` out of ``ctx.size``."""
    bar = None
    shown = 0
    count = 0
    try:
        for event in events:
            count += 1
            if count % CHECK_EVERY == 0 and ctx.position is not None and ctx.size and ctx.size >= MIN_SIZE:
                if bar is None:
                    bar = click.progressbar(length=ctx.size, label=terminal(label or ctx.name), file=sys.stderr, show_eta=True, show_percent=True)
                    bar.__enter__()
                position = min(ctx.position(), ctx.size)
                if position > shown:
                    bar.update(position - shown)
                    shown = position
            yield event
        if bar is not None and ctx.size and ctx.size > shown:
            bar.update(ctx.size - shown)
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
