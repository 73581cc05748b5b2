"""Options shared by the commands, and the run loop they all end in."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Sequence

import click

from .. import api, progress
from ..context import ReadContext
from ..registry import get_registry

WIRE_FORMAT = "portable-jsonl"


def _names(kind: str) -> list[str]:
    registry = get_registry()
    return registry.importer_names() if kind == "import" else registry.exporter_names()


class FormatChoice(click.ParamType):
    """A format name, checked against the registry when used."""

    name = "FORMAT"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def convert(self, value, param, ctx):
        names = _names(self.kind)
        if value not in names:
            self.fail(f"{value!r} is not a format that can be {'read' if self.kind == 'import' else 'written'}; choose from {', '.join(names)}", param, ctx)
        return value

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        return [CompletionItem(n) for n in _names(self.kind) if n.startswith(incomplete)]


def read_options(taken: Iterable[str] = ()) -> Callable:
    """--from, --strict, --skip-bad and every importer's own options."""
    importer_opts, _ = get_registry().option_sets()
    taken = set(taken)

    def decorate(f):
        for opt in reversed([o for o in importer_opts if not taken.intersection(o.flags)]):
            f = _attach(f, opt.click_option())
        f = click.option("-q", "--quiet", is_flag=True, help="No progress bar and no warnings on stderr (errors are still shown).")(f)
        f = click.option("--skip-bad", is_flag=True, help="Skip unreadable records, counting them on stderr, instead of stopping.")(f)
        f = click.option("--strict", is_flag=True, help="Treat a torn or NUL-padded end of input as an error (exit 1), not a warning.")(f)
        f = click.option("--from", "from_", type=FormatChoice("import"), help="Input format; detected from the first bytes when left out.")(f)
        return f

    return decorate


def exporter_options(taken: Iterable[str] = ()) -> Callable:
    """Every exporter's own options (those whose flags are not ``taken``)."""
    _, exporter_opts = get_registry().option_sets()
    taken = set(taken)

    def decorate(f):
        for opt in reversed([o for o in exporter_opts if not taken.intersection(o.flags)]):
            f = _attach(f, opt.click_option())
        return f

    return decorate


def write_options(*, to_option: bool, taken: Iterable[str] = ()) -> Callable:
    """-o, optionally --to, and every exporter's own options."""

    def decorate(f):
        f = exporter_options(taken)(f)
        f = click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), help="Write to this file (atomically) instead of stdout.")(f)
        if to_option:
            f = click.option("--to", "to", type=FormatChoice("export"), default=None, help=f"Output format (default: {WIRE_FORMAT}).")(f)
        return f

    return decorate


def _attach(f, option: click.Option):
    if not hasattr(f, "__click_params__"):
        f.__click_params__ = []
    f.__click_params__.append(option)
    return f


def split_format_options(kwargs: dict[str, Any]) -> tuple[dict, dict, dict]:
    """Separate importer options, exporter options and the rest."""
    importer_opts, exporter_opts = get_registry().option_sets()
    read_names = {o.name for o in importer_opts}
    write_names = {o.name for o in exporter_opts}
    reading = {k: kwargs.pop(k) for k in list(kwargs) if k in read_names}
    writing = {k: kwargs.pop(k) for k in list(kwargs) if k in write_names}
    return reading, writing, kwargs


def read_all(
    inputs: Sequence[str | None],
    *,
    from_: str | None,
    strict: bool,
    skip_bad: bool,
    options: dict[str, Any],
    quiet: bool = False,
) -> Iterator[dict]:
    """The events of every input in turn (stdin when there is none), with a
    progress bar when stderr is a terminal."""
    show = progress.wanted(quiet)
    for spec in inputs or (None,):
        ctx = ReadContext(on_warning=_silent) if quiet else ReadContext()
        events = api.read(spec, format=from_, strict=strict, skip_bad=skip_bad, options=dict(options), context=ctx)
        yield from progress.track(events, ctx) if show else events


def _silent(message: str) -> None:
    pass


def run(
    inputs: Sequence[str | None],
    *,
    from_: str | None,
    to: str,
    output: str | None,
    strict: bool = False,
    skip_bad: bool = False,
    read_opts: dict[str, Any] | None = None,
    write_opts: dict[str, Any] | None = None,
    stages: Sequence[Callable[[Iterable[dict]], Iterator[dict]]] = (),
    quiet: bool = False,
) -> None:
    events: Iterable[dict] = read_all(inputs, from_=from_, strict=strict, skip_bad=skip_bad, options=read_opts or {}, quiet=quiet)
    for stage in stages:
        events = stage(events)
    api.write(events, output, format=to, options=write_opts or {}, inputs=list(inputs))
