"""One registry for importers, exporters and stages.

Built-in formats are declared as entry points in ``pyproject.toml`` exactly as
a third-party plugin declares its own (groups ``sessionport.formats`` and
``sessionport.stages``), so the plugin path is exercised by the core itself.
An entry point names an :class:`Importer`, :class:`Exporter` or :class:`Stage`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from sessionport.errors import PluginError
from sessionport.plain import Frozen

FORMATS_GROUP = "sessionport.formats"
STAGES_GROUP = "sessionport.stages"


class Option(Frozen):
    """A format- or stage-specific command-line option.

    ``name`` is the Python keyword the format receives in ``ctx.options``;
    ``flags`` are the click declarations (``("--max-output",)``).  Options of
    several formats that share a flag must mean the same thing.
    """

    __slots__ = ("name", "flags", "help", "type", "default", "is_flag", "multiple")
    name: str
    flags: tuple[str, ...]
    help: str
    type: Any
    default: Any
    is_flag: bool
    multiple: bool

    def __init__(self, name: str, flags: tuple[str, ...], help: str, type: Any = None, default: Any = None,
                 is_flag: bool = False, multiple: bool = False) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "flags", flags)
        _set(self, "help", help)
        _set(self, "type", type)
        _set(self, "default", default)
        _set(self, "is_flag", is_flag)
        _set(self, "multiple", multiple)

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
    Option(
        name="keep_images",
        flags=("--keep-images",),
        help=(
            "Carry the images a transcript holds in the stream (as `media`), for `--images` of the Markdown/HTML exporters: "
            "Claude Code pasted and tool-result images, Codex `input_image`, Gemini CLI and Gemini `inlineData`, "
            "Anthropic `image` blocks, OpenAI `image_url`/`input_image` data URLs, ChatGPT export images found in the export."
        ),
        is_flag=True,
    ),
)

# Shared by the readers of apps that keep sub-agent sessions in files of
# their own beside the session's, read after it.
NO_SUBAGENTS = Option(
    name="no_subagents",
    flags=("--no-subagents",),
    help="Claude Code, Gemini CLI: leave out the subagent sessions found beside a session file "
    "(Claude Code's subagent transcripts, Gemini CLI's chats/<session id>/ logs).",
    is_flag=True,
)


class Importer(Frozen):
    """Reads one format.

    ``read(stream, ctx)`` takes a binary stream and a :class:`ReadContext`
    and yields events; it must yield the first event before it has read the
    whole input.  ``sniff(head)`` scores the first bytes of an input (already
    decompressed, at most ``detect.HEAD_SIZE`` bytes) from 0 (not this
    format) to 100 (certainly this format).
    """

    __slots__ = ("name", "description", "read", "sniff", "patterns", "options", "needs_seekable", "versions",
                 "census", "usage", "title_scan")
    name: str
    description: str
    read: Callable[..., Iterator[dict]]
    sniff: Callable[[bytes], int] | None
    patterns: tuple[str, ...]
    options: tuple[Option, ...]
    # An importer that needs a real file (zip members, sibling subagent
    # files) says so; the input layer spools a pipe to a temp file for it.
    needs_seekable: bool
    # The versions of the writing tool this importer was checked against
    # (``sessionport formats --json``; the format's docs page says how).
    versions: tuple[str, ...]

    def __init__(self, name: str, description: str, read: Callable[..., Iterator[dict]],
                 sniff: Callable[[bytes], int] | None = None, patterns: tuple[str, ...] = (),
                 options: tuple[Option, ...] = (), needs_seekable: bool = False, versions: tuple[str, ...] = (),
                 census: Callable[..., list] | str | None = None, usage: Callable[..., list] | str | None = None,
                 title_scan: Callable[[str], str | None] | str | None = None) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "description", description)
        _set(self, "read", read)
        _set(self, "sniff", sniff)
        _set(self, "patterns", patterns)
        _set(self, "options", options)
        _set(self, "needs_seekable", needs_seekable)
        _set(self, "versions", versions)
        _set(self, "census", census)
        _set(self, "usage", usage)
        _set(self, "title_scan", title_scan)

    # Optional: ``census(stream, ctx)`` returns the ``inspect`` summaries of
    # the input (a list of ``reports.summary.SessionSummary``) exactly as
    # summarizing ``read`` would, without building message events.  A
    # ``"module:function"`` string is imported on first use, so what only
    # ``inspect`` needs is not loaded at every start.
    census: Callable[..., list] | str | None

    def census_function(self) -> Callable[..., list] | None:
        census = self.census
        if isinstance(census, str):
            from importlib import import_module

            module, _, attr = census.partition(":")
            census = getattr(import_module(module), attr)
        return census

    # Optional: ``usage(stream, ctx)`` returns summaries exact in what
    # ``inspect --usage`` prints (identity and token usage), reading only
    # the records that carry them; named as ``census`` is.  Without one,
    # ``inspect --usage`` takes the census (or the read).
    usage: Callable[..., list] | str | None

    def usage_function(self) -> Callable[..., list] | None:
        usage = self.usage
        if isinstance(usage, str):
            from importlib import import_module

            module, _, attr = usage.partition(":")
            usage = getattr(import_module(module), attr)
        return usage

    # Optional: ``title_scan(path)`` returns the title the app shows for the
    # session of the plain file at ``path`` (the last one it records, as the
    # reader ranks them), from a byte scan (see ``sessionport.title_scan``),
    # or None; named as ``census`` is.  The readable exporters' heading.
    title_scan: Callable[[str], str | None] | str | None

    def title_scan_function(self) -> Callable[[str], str | None] | None:
        scan = self.title_scan
        if isinstance(scan, str):
            from importlib import import_module

            module, _, attr = scan.partition(":")
            scan = getattr(import_module(module), attr)
        return scan


class Loss(Frozen):
    """Something the canonical stream can hold that an exporter cannot write.

    ``count(event)`` says how many of it one event holds; ``what`` names
    ``n`` of them in a sentence (``"the timestamps of 12 messages"``).
    ``count`` is None for what the write path counts itself, not message
    by message (the subagent sessions a one-session format leaves out)."""

    __slots__ = ("name", "what", "count")
    name: str
    what: Callable[[int], str]
    count: Callable[[dict], int] | None

    def __init__(self, name: str, what: Callable[[int], str], count: Callable[[dict], int] | None) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "what", what)
        _set(self, "count", count)


def _media_count(event: dict) -> int:
    # Readers keep no media bytes: an image or document is placeholder text
    # (``[image: image/png, 1.0 MB]``, see model.human_size) or meta.attachment.
    if event.get("type") != "message":
        return 0
    meta = event.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("mediaRef"), dict):
        return 0  # named by a URL or file id (kept in meta.mediaRef), which its placeholder shows: no bytes to lose
    text = event.get("text")
    found = 0
    if isinstance(text, str) and ("[image" in text or "[document" in text):
        import re

        found = len(re.findall(r"\[(?:image|document)(?::[^\]\n]*)?\]", text))
    if not found and isinstance(meta, dict) and meta.get("attachment"):
        found = 1
    return found


def _has_timestamp(event: dict) -> int:
    return int(event.get("type") == "message" and isinstance(event.get("timestamp"), (str, int, float)))


def _has_usage(event: dict) -> int:
    meta = event.get("meta")
    return int(event.get("type") == "message" and isinstance(meta, dict) and isinstance(meta.get("usage"), dict))


def _kept_item(event: dict) -> int:
    # An OpenAI Responses item kept whole by its reader (hosted tools, MCP
    # approvals and tool lists, tool search, programs, encrypted compaction):
    # another format gets its calls, results and text, not the item.
    meta = event.get("meta")
    return int(type(meta) is dict and "item" in meta and "itemType" in meta and isinstance(meta["item"], dict))


def _media_outside_prompts(event: dict) -> int:
    # A writer that puts the images of a prompt and of a tool's result back
    # (Codex) loses those it was given no bytes of (read without
    # --keep-images) and every other one (an answer's).
    found = _media_count(event)
    if found and isinstance(event.get("media"), list):
        meta = event.get("meta")
        kind = meta.get("kind", "text") if isinstance(meta, dict) else "text"
        if (event.get("role") == "user" and kind == "text") or (event.get("role") == "tool" and kind == "tool_result"):
            found = max(0, found - len(event["media"]))
    return found


# The vocabulary of :attr:`Exporter.cannot_carry`.
LOSSES: dict[str, Loss] = {
    loss.name: loss
    for loss in (
        Loss("media", lambda n: f"the bytes of {n} image(s) or document(s) (their placeholder text is written instead)", _media_count),
        Loss(
            "media outside prompts",
            lambda n: f"the bytes of {n} image(s) or document(s) of answers, or read without --keep-images (their placeholder text is written instead)",
            _media_outside_prompts,
        ),
        Loss("timestamps", lambda n: f"the timestamps of {n} message(s)", _has_timestamp),
        Loss("usage", lambda n: f"the token usage of {n} message(s)", _has_usage),
        Loss(
            "responses items",
            lambda n: f"the OpenAI Responses shape of {n} hosted-tool, MCP, tool-search, program, compaction or configuration item(s) "
            "(written as tool calls, results and text; an encrypted compaction as its placeholder)",
            _kept_item,
        ),
        Loss(
            "subagent sessions",
            lambda n: f"{n} subagent session(s) (the format holds one session per file; `sessionport split` writes each)",
            None,
        ),
    )
}


class Exporter(Frozen):
    """Writes one format: ``write(events, out, ctx)`` with ``out`` a binary
    stream.  ``multi_session`` is False for formats that hold one session.

    ``cannot_carry`` names what of the stream the format has no place for
    (keys of :data:`LOSSES`); the write path counts each in the events it
    writes and says once, on stderr, what was dropped."""

    __slots__ = ("name", "description", "write", "extension", "multi_session", "options", "cannot_carry")
    name: str
    description: str
    write: Callable[..., None]
    extension: str
    multi_session: bool
    options: tuple[Option, ...]
    cannot_carry: tuple[str, ...]

    def __init__(self, name: str, description: str, write: Callable[..., None], extension: str = ".json",
                 multi_session: bool = False, options: tuple[Option, ...] = (), cannot_carry: tuple[str, ...] = ()) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "description", description)
        _set(self, "write", write)
        _set(self, "extension", extension)
        _set(self, "multi_session", multi_session)
        _set(self, "options", options)
        if not multi_session and "subagent sessions" not in cannot_carry:
            # a one-session format leaves out the subagents that follow a session (stream.one_session_only)
            cannot_carry = (*cannot_carry, "subagent sessions")
        _set(self, "cannot_carry", cannot_carry)


class LossCounter:
    """Counts, while events pass to an exporter, what it cannot carry."""

    def __init__(self, exporter: Exporter) -> None:
        self.exporter = exporter
        self.losses = [LOSSES[name] for name in exporter.cannot_carry if name in LOSSES and LOSSES[name].count is not None]
        self.counts: dict[str, int] = {}

    def watch(self, events: Iterable[dict]) -> Iterator[dict]:
        if not self.losses:
            yield from events
            return
        counts = self.counts
        losses = self.losses
        for event in events:
            if event.get("type") == "message":
                for loss in losses:
                    n = loss.count(event)
                    if n:
                        counts[loss.name] = counts.get(loss.name, 0) + n
            yield event

    def sentence(self) -> str | None:
        """One sentence naming everything left out, or None when nothing was."""
        parts = [loss.what(self.counts[loss.name]) for loss in self.losses if self.counts.get(loss.name)]
        return f"{self.exporter.name} has no place for {'; '.join(parts)}: left out" if parts else None


class Stage(Frozen):
    """A transformation of an event stream.

    ``build(**options)`` returns a function ``Iterable[dict] -> Iterator[dict]``.
    ``params`` are the click parameters of the stage's command; the CLI builds
    both the stand-alone command and the in-process chain step from them.
    ``check(inputs, **options)``, when given, is what the stand-alone
    command runs under ``--check``: a report over every input that returns
    the exit code, instead of a conversion.  ``reads_all``: the stage pulls
    every event of its input, never stopping early, so a big input may be
    read ahead in pieces by other processes (see pipeline/chunks.py); a
    function of the stage's options when that depends on them.
    ``wanted_roles(options)``, when given: the roles of the messages the
    stage built with these options may keep, when a message's role is all
    it needs to drop it (else None).  The reader of the wire format then
    leaves the other messages unbuilt: each comes as ``{type, role}`` alone,
    which the stage drops (see formats/portable/jsonl_reader.py).
    """

    __slots__ = ("name", "description", "build", "params", "help", "check", "reads_all", "wanted_roles")
    name: str
    description: str
    build: Callable[..., Callable[[Iterable[dict]], Iterator[dict]]]
    params: tuple[Any, ...]
    help: str
    check: Callable[..., int] | None
    reads_all: bool | Callable[[dict], bool]
    wanted_roles: Callable[[dict], frozenset | None] | None

    def __init__(self, name: str, description: str, build: Callable[..., Callable[[Iterable[dict]], Iterator[dict]]],
                 params: tuple[Any, ...] = (), help: str = "", check: Callable[..., int] | None = None,
                 reads_all: bool | Callable[[dict], bool] = False,
                 wanted_roles: Callable[[dict], frozenset | None] | None = None) -> None:
        _set = object.__setattr__
        _set(self, "name", name)
        _set(self, "description", description)
        _set(self, "build", build)
        _set(self, "params", params)
        _set(self, "help", help)
        _set(self, "check", check)
        _set(self, "reads_all", reads_all)
        _set(self, "wanted_roles", wanted_roles)


class FormatInfo:
    """One format's importer and exporter.  Either may still be an entry point
    not yet loaded: it is loaded on first access, so naming the formats (for
    ``--to`` and ``--from`` and their completion) imports none of them."""

    def __init__(self, name: str, importer: Importer | None = None, exporter: Exporter | None = None,
                 registry: "Registry | None" = None) -> None:
        self.name = name
        self._importer = importer
        self._exporter = exporter
        self._registry = registry
        self.pending: dict[str, Any] = {}  # "import" / "export" -> entry point

    def _part(self, role: str):
        ep = self.pending.get(role)
        if ep is not None and self._registry is not None:
            # Still pending while it loads: an interrupt in the import leaves
            # it to be loaded again, not taken for a format without this part.
            self._registry.load_entry_point(ep)
            self.pending.pop(role, None)
        return self._importer if role == "import" else self._exporter

    @property
    def importer(self) -> Importer | None:
        return self._part("import")

    @importer.setter
    def importer(self, value: Importer | None) -> None:
        self.pending.pop("import", None)
        self._importer = value

    @property
    def exporter(self) -> Exporter | None:
        return self._part("export")

    @exporter.setter
    def exporter(self, value: Exporter | None) -> None:
        self.pending.pop("export", None)
        self._exporter = value

    def loaded(self, role: str) -> Importer | Exporter | None:
        """The importer or exporter, only if already loaded (no import)."""
        return self._importer if role == "import" else self._exporter

    def declares(self, role: str) -> bool:
        """Whether the format has (or names, unloaded) an importer/exporter."""
        loaded = self._importer if role == "import" else self._exporter
        return loaded is not None or role in self.pending

    @property
    def description(self) -> str:
        part = self.importer or self.exporter
        return part.description if part else ""


class Registry:
    def __init__(self, formats: dict[str, FormatInfo] | None = None, load_errors: list[str] | None = None,
                 stage_loader: Callable[["Registry"], None] | None = None, without_format_options: bool = False) -> None:
        self.formats: dict[str, FormatInfo] = {} if formats is None else formats
        self.load_errors: list[str] = [] if load_errors is None else load_errors
        # Stages load on first use of ``stages``: a plain conversion needs none,
        # and a stage module may import much (redact: its rule tables).
        self.stage_loader = stage_loader
        self._stages: dict[str, Stage] = {}
        # Shell completion of anything but an option name needs no format's own
        # options (the built-in formats' come from sessionport.option_table, a
        # plugin's entry point is loaded for its options).
        self.without_format_options = without_format_options

    def __repr__(self) -> str:
        return (f"Registry(formats={self.formats!r}, load_errors={self.load_errors!r}, "
                f"stage_loader={self.stage_loader!r}, without_format_options={self.without_format_options!r})")

    def __eq__(self, other: object):
        if other.__class__ is not self.__class__:
            return NotImplemented
        mine = (self.formats, self.load_errors, self.stage_loader, self._stages, self.without_format_options)
        return mine == (other.formats, other.load_errors, other.stage_loader, other._stages, other.without_format_options)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  (mutable, as a dataclass without frozen)

    @property
    def stages(self) -> dict[str, Stage]:
        self.load_stages()
        return self._stages

    def load_stages(self) -> None:
        loader, self.stage_loader = self.stage_loader, None
        if loader is not None:
            loader(self)

    def _info(self, name: str) -> FormatInfo:
        info = self.formats.get(name)
        if info is None:
            info = self.formats[name] = FormatInfo(name, registry=self)
        return info

    def add(self, obj: Any, origin: str = "") -> None:
        if isinstance(obj, Importer):
            self._info(obj.name).importer = obj
        elif isinstance(obj, Exporter):
            self._info(obj.name).exporter = obj
        elif isinstance(obj, Stage):
            self._stages[obj.name] = obj
        else:
            self.load_errors.append(
                f"{origin}: is a {type(obj).__name__}, not an Importer, Exporter or Stage"
            )

    def declare(self, ep: Any) -> None:
        """Name a format from its entry point without importing it.

        An entry point named ``<format>-import`` or ``<format>-export`` (as
        every built-in format is) is loaded when its part is first needed;
        one named otherwise is loaded now, as its format name is unknown."""
        for role in ("import", "export"):
            suffix = f"-{role}"
            if ep.name.endswith(suffix) and len(ep.name) > len(suffix):
                self._info(ep.name[: -len(suffix)]).pending[role] = ep
                return
        self.load_entry_point(ep)

    def load_entry_point(self, ep: Any) -> None:
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plugin must not take the others down
            from sessionport.pipeline import signals

            if signals.received is not None:
                # a module whose import a signal cut short fails when imported
                # again: the signal ended the run, not a broken plugin
                raise signals.exception(signals.received) from exc
            self.load_errors.append(f"{ep.name} ({ep.value}): {type(exc).__name__}: {exc}")
            return
        self.add(obj, origin=f"{ep.name} ({ep.value})")

    def load_all(self) -> None:
        for info in list(self.formats.values()):
            info.importer  # noqa: B018  (loads the entry point, if still pending)
            info.exporter  # noqa: B018
        self._forget_failed()

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
        self.load_all()
        return [f.importer for f in self.formats.values() if f.importer]

    def importer_names(self) -> list[str]:
        return sorted(f.name for f in self.formats.values() if f.declares("import"))

    def exporter_names(self) -> list[str]:
        return sorted(f.name for f in self.formats.values() if f.declares("export"))

    def option_sets(self) -> tuple[list[Option], list[Option]]:
        """All importer options and all exporter options, one per flag
        (only the core's while :attr:`without_format_options` is set).  A
        built-in format not loaded yet is not imported for its options:
        they come from :mod:`sessionport.option_table`."""
        if self.without_format_options:
            return list(CORE_READ_OPTIONS), []
        read_opts: dict[tuple, Option] = {opt.flags: opt for opt in CORE_READ_OPTIONS}
        write_opts: dict[tuple, Option] = {}
        for info in list(self.formats.values()):
            for opt in self._options_of(info, "import"):
                read_opts.setdefault(opt.flags, opt)
            for opt in self._options_of(info, "export"):
                write_opts.setdefault(opt.flags, opt)
        self._forget_failed()
        return list(read_opts.values()), list(write_opts.values())

    def export_options_by_format(self) -> dict[str, tuple[Option, ...]]:
        """Each writable format's own options (from the option table for a
        built-in format not loaded yet)."""
        found = {name: self._options_of(info, "export") for name, info in list(self.formats.items()) if info.declares("export")}
        self._forget_failed()
        return found

    def _options_of(self, info: FormatInfo, role: str) -> tuple[Option, ...]:
        ep = info.pending.get(role)
        if ep is not None:
            from sessionport import option_table

            table = option_table.options(ep.value)
            if table is not None:
                return table
        part = info.importer if role == "import" else info.exporter
        return part.options if part else ()

    def sniffers(self) -> list[tuple[str, Callable[[bytes], int]]]:
        """``(importer name, sniff)`` of every importer that has a sniffer,
        by name.  A built-in importer not loaded yet is not imported: only
        the module its sniffer lives in is (see :mod:`sessionport.option_table`)."""
        found = []
        for info in list(self.formats.values()):
            ep = info.pending.get("import")
            known = None
            if ep is not None:
                from sessionport import option_table

                known = option_table.sniffer(ep.value)
            if known is None:
                importer = info.importer
                known = (importer.name, importer.sniff) if importer is not None else None
            if known is not None and known[1] is not None:
                found.append(known)
        self._forget_failed()
        return sorted(found, key=lambda pair: pair[0])

    def _forget_failed(self) -> None:
        for name in [n for n, i in self.formats.items() if not i.declares("import") and not i.declares("export")]:
            del self.formats[name]  # named by an entry point that failed to load


_REGISTRY: Registry | None = None


def _entry_points(group: str) -> list:
    from sessionport.entrypoints import entry_points

    return sorted(entry_points(group=group), key=lambda e: e.name)


def _load_group(registry: Registry, group: str) -> None:
    for ep in _entry_points(group):
        registry.load_entry_point(ep)


def get_registry() -> Registry:
    """The process-wide registry.  Its formats are named from entry-point
    metadata on first use and each is imported when first needed; its
    stages load when first asked for."""
    global _REGISTRY
    if _REGISTRY is None:
        registry = Registry(stage_loader=lambda r: _load_group(r, STAGES_GROUP))
        for ep in _entry_points(FORMATS_GROUP):
            registry.declare(ep)
        _REGISTRY = registry
    return _REGISTRY


def stage_names() -> list[str]:
    """The names of the registered stages, without importing any."""
    return [ep.name for ep in _entry_points(STAGES_GROUP)]


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
