"""One registry for importers, exporters and stages.

Built-in formats are declared as entry points in ``pyproject.toml`` exactly as
a third-party plugin declares its own (groups ``sessionport.formats`` and
``sessionport.stages``), so the plugin path is exercised by the core itself.
An entry point names an :class:`Importer`, :class:`Exporter` or :class:`Stage`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Callable, Iterable, Iterator

from sessionport.errors import PluginError

FORMATS_GROUP = "sessionport.formats"
STAGES_GROUP = "sessionport.stages"


@dataclass(frozen=True)
class Option:
    """A format- or stage-specific command-line option.

    ``name`` is the Python keyword the format receives in ``ctx.options``;
    ``flags`` are the click declarations (``("--max-output",)``).  Options of
    several formats that share a flag must mean the same thing.
    """

    name: str
    flags: tuple[str, ...]
    help: str
    type: Any = None
    default: Any = None
    is_flag: bool = False
    multiple: bool = False

    def click_option(self):
        import click

        kwargs: dict[str, Any] = {"help": self.help, "default": self.default}
        if self.is_flag:
            kwargs["is_flag"] = True
        elif self.type is not None:
            kwargs["type"] = self.type
        if self.multiple:
            kwargs["multiple"] = True
        return click.Option([*self.flags, self.name], **kwargs)


def _size(text: str) -> int:
    from sessionport.jsonl import parse_size

    return parse_size(text)


_size.__name__ = "SIZE"

# Read options of the core readers, offered by every command that reads
# (they reach ``ctx.options`` like an importer's own options).
CORE_READ_OPTIONS = (
    Option(
        name="max_line_size",
        flags=("--max-line-size",),
        help="Longest JSON line accepted (default 64M; also SESSIONPORT_MAX_LINE_SIZE); a longer line is an unreadable record.",
        type=_size,
    ),
)


@dataclass(frozen=True)
class Importer:
    """Reads one format.

    ``read(stream, ctx)`` takes a binary stream and a :class:`ReadContext`
    and yields events; it must yield the first event before it has read the
    whole input.  ``sniff(head)`` scores the first bytes of an input (already
    decompressed, at most ``detect.HEAD_SIZE`` bytes) from 0 (not this
    format) to 100 (certainly this format).
    """

    name: str
    description: str
    read: Callable[..., Iterator[dict]]
    sniff: Callable[[bytes], int] | None = None
    patterns: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    # An importer that needs a real file (zip members, sibling subagent
    # files) says so; the input layer spools a pipe to a temp file for it.
    needs_seekable: bool = False


@dataclass(frozen=True)
class Exporter:
    """Writes one format: ``write(events, out, ctx)`` with ``out`` a binary
    stream.  ``multi_session`` is False for formats that hold one session."""

    name: str
    description: str
    write: Callable[..., None]
    extension: str = ".json"
    multi_session: bool = False
    options: tuple[Option, ...] = ()


@dataclass(frozen=True)
class Stage:
    """A transformation of an event stream.

    ``build(**options)`` returns a function ``Iterable[dict] -> Iterator[dict]``.
    ``params`` are the click parameters of the stage's command; the CLI builds
    both the stand-alone command and the in-process chain step from them.
    """

    name: str
    description: str
    build: Callable[..., Callable[[Iterable[dict]], Iterator[dict]]]
    params: tuple[Any, ...] = ()
    help: str = ""


@dataclass
class FormatInfo:
    name: str
    importer: Importer | None = None
    exporter: Exporter | None = None

    @property
    def description(self) -> str:
        part = self.importer or self.exporter
        return part.description if part else ""


@dataclass
class Registry:
    formats: dict[str, FormatInfo] = field(default_factory=dict)
    load_errors: list[str] = field(default_factory=list)
    # Stages load on first use of ``stages``: a plain conversion needs none,
    # and a stage module may import much (redact: its rule tables).
    stage_loader: Callable[["Registry"], None] | None = None
    _stages: dict[str, Stage] = field(default_factory=dict, init=False, repr=False)

    @property
    def stages(self) -> dict[str, Stage]:
        self.load_stages()
        return self._stages

    def load_stages(self) -> None:
        loader, self.stage_loader = self.stage_loader, None
        if loader is not None:
            loader(self)

    def add(self, obj: Any, origin: str = "") -> None:
        if isinstance(obj, Importer):
            self.formats.setdefault(obj.name, FormatInfo(obj.name)).importer = obj
        elif isinstance(obj, Exporter):
            self.formats.setdefault(obj.name, FormatInfo(obj.name)).exporter = obj
        elif isinstance(obj, Stage):
            self._stages[obj.name] = obj
        else:
            self.load_errors.append(
                f"{origin}: is a {type(obj).__name__}, not an Importer, Exporter or Stage"
            )

    def importer(self, name: str) -> Importer:
        info = self.formats.get(name)
        if info is None or info.importer is None:
            raise PluginError(
                f"no importer named {name!r}; readable formats: {', '.join(self.importer_names())}"
            )
        return info.importer

    def exporter(self, name: str) -> Exporter:
        info = self.formats.get(name)
        if info is None or info.exporter is None:
            raise PluginError(
                f"no exporter named {name!r}; writable formats: {', '.join(self.exporter_names())}"
            )
        return info.exporter

    def stage(self, name: str) -> Stage:
        if name not in self.stages:
            raise PluginError(f"no stage named {name!r}; stages: {', '.join(sorted(self.stages))}")
        return self.stages[name]

    def importers(self) -> list[Importer]:
        return [f.importer for f in self.formats.values() if f.importer]

    def importer_names(self) -> list[str]:
        return sorted(f.name for f in self.formats.values() if f.importer)

    def exporter_names(self) -> list[str]:
        return sorted(f.name for f in self.formats.values() if f.exporter)

    def option_sets(self) -> tuple[list[Option], list[Option]]:
        """All importer options and all exporter options, one per flag."""
        read_opts: dict[tuple, Option] = {opt.flags: opt for opt in CORE_READ_OPTIONS}
        write_opts: dict[tuple, Option] = {}
        for info in self.formats.values():
            for opt in info.importer.options if info.importer else ():
                read_opts.setdefault(opt.flags, opt)
            for opt in info.exporter.options if info.exporter else ():
                write_opts.setdefault(opt.flags, opt)
        return list(read_opts.values()), list(write_opts.values())


_REGISTRY: Registry | None = None


def _load_group(registry: Registry, group: str) -> None:
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plugin must not take the others down
            registry.load_errors.append(f"{ep.name} ({ep.value}): {type(exc).__name__}: {exc}")
            continue
        registry.add(obj, origin=f"{ep.name} ({ep.value})")


def get_registry() -> Registry:
    """The process-wide registry, loaded from entry points on first use
    (its stages when first asked for)."""
    global _REGISTRY
    if _REGISTRY is None:
        registry = Registry(stage_loader=lambda r: _load_group(r, STAGES_GROUP))
        _load_group(registry, FORMATS_GROUP)
        _REGISTRY = registry
    return _REGISTRY


def reset_registry() -> None:
    """Forget the loaded registry (tests that install formats use this)."""
    global _REGISTRY
    _REGISTRY = None


def lazy_parts(parts: dict[str, tuple[str, str]]):
    """A module ``__getattr__`` that imports ``parts[name] = (module, attribute)``
    on first use: a format package names its ``IMPORTER``/``EXPORTER`` without
    importing its writer whenever its reader is loaded."""
    from importlib import import_module

    def __getattr__(name: str):
        try:
            module, attr = parts[name]
        except KeyError:
            raise AttributeError(name) from None
        return getattr(import_module(module), attr)

    return __getattr__
