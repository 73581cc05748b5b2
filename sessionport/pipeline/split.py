"""One output file per session.

:func:`split_sessions` streams: each session's events go straight through
the exporter into that session's file (written atomically with
:func:`sessionport.io.open_output`), and the next session starts only when
the previous file is complete.  Only formats whose exporter itself needs a
whole session buffer one session.

File names come from :func:`session_file_name`: an ASCII slug of the title
plus a slug of the session id, so equal titles never collide, no name can
climb out of the directory or be a reserved device name, and every name
stays well under file system limits.
"""

from __future__ import annotations

import contextlib
import os
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from sessionport.pipeline.stream import write_events
from sessionport.pipeline.targets import file_identity, landed
from sessionport.context import WriteContext
from sessionport.errors import UsageError
from sessionport.io import check_folder, open_output
from sessionport.model import session_event
from sessionport.registry import get_registry

TITLE_CHARS = 60
ID_CHARS = 40
# Device names Windows reserves whatever the extension.
RESERVED = frozenset(
    ["con", "prn", "aux", "nul", "clock$"]
    + [f"com{i}" for i in range(10)]
    + [f"lpt{i}" for i in range(10)]
)


def slug(text: Any, limit: int) -> str:
    """Lower-case ASCII letters, digits and single hyphens, at most ``limit`` long."""
    if not isinstance(text, str):
        return ""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    cleaned = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return cleaned[:limit].rstrip("-")


def session_file_name(session: dict, extension: str, taken: set[str], number: int, tried: dict[str, int] | None = None) -> str:
    """A safe file name for ``session`` that is not in ``taken`` (compared
    without case, as on case-insensitive file systems); adds it to ``taken``.

    ``tried`` (kept by the caller across calls) holds, per name, the last
    number found taken: ``taken`` only grows, so the search for the next
    free ``-N`` goes on from there.  Without it, 30,000 sessions of one
    title and id (a 3 MB input) cost half a billion look-ups."""
    parts = [p for p in (slug(session.get("title"), TITLE_CHARS), slug(session.get("sessionId"), ID_CHARS)) if p]
    stem = "-".join(parts) or f"session-{number}"
    if stem in RESERVED:
        stem = f"{stem}-session"
    if extension and not extension.startswith("."):
        extension = "." + extension
    key = (stem + extension).lower()
    suffix = tried.get(key, 1) if tried is not None else 1
    candidate = stem if suffix == 1 else f"{stem}-{suffix}"
    while (candidate + extension).lower() in taken:
        suffix += 1
        candidate = f"{stem}-{suffix}"
    if tried is not None:
        tried[key] = suffix
    name = candidate + extension
    taken.add(name.lower())
    return name


class _Sessions:
    """Hands out the events of one session at a time from a single stream."""

    def __init__(self, events: Iterable[dict]) -> None:
        self.events = iter(events)
        self.pending: dict | None = None

    def next_session(self) -> dict | None:
        if self.pending is None:
            try:
                self.pending = next(self.events)
            except StopIteration:
                return None
        first = self.pending
        if first.get("type") != "session":
            # Messages before any session event: a session nobody named.
            first = session_event("unknown")
        else:
            self.pending = None
        return first

    def body(self) -> Iterator[dict]:
        """The events after a session event, up to the next session event."""
        while True:
            if self.pending is None:
                try:
                    self.pending = next(self.events)
                except StopIteration:
                    return
            if self.pending.get("type") == "session":
                return
            event, self.pending = self.pending, None
            yield event


@dataclass
class SplitResult:
    directory: str
    files: list[str] = field(default_factory=list)
    # What each file's format had no place for (registry.LOSSES names), by path.
    losses: dict[str, dict[str, int]] = field(default_factory=dict)


def split_sessions(
    events: Iterable[dict],
    directory: str,
    *,
    format: str,
    force: bool = False,
    options: dict[str, Any] | None = None,
    inputs: Iterable[str | None] = (),
    on_file: Callable[[str, dict], None] | None = None,
    result: SplitResult | None = None,
) -> SplitResult:
    """Write each session of ``events`` to its own file in ``directory``.

    The directory is created when the first file is written (a run that
    fails before it, or writes nothing, leaves none).  An existing file is never
    overwritten unless ``force``: the run stops with a :class:`UsageError`
    at the first session whose file exists (files written before it stay).
    ``on_file(path, session)`` is called after each file is complete.
    ``result``, when given, is filled as files are written, so a caller
    knows what was written before an error.
    """
    return split_streams([events], directory, format=format, force=force, options=options, inputs=inputs, on_file=on_file, result=result)


def split_streams(
    streams: Iterable[Iterable[dict]],
    directory: str,
    *,
    format: str,
    force: bool = False,
    options: dict[str, Any] | None = None,
    inputs: Iterable[str | None] = (),
    on_file: Callable[[str, dict], None] | None = None,
    result: SplitResult | None = None,
    reserved: Iterable[str] = (),
) -> SplitResult:
    """:func:`split_sessions` over several inputs' streams, one after the
    other into the same directory (names stay unique across them).  A
    session never runs on from one stream into the next, and the next
    stream is started only when the files of the one before are complete,
    so an input that fails leaves every file of the inputs before it whole.
    ``inputs`` are the files read (a session's file is never written onto
    one, --force or not); ``reserved``, paths of other files the run writes
    (the --json-report), whose names the sessions' files never take."""
    from sessionport.pipeline.targets import OutputGuard, folded

    exporter = get_registry().exporter(format)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise UsageError(f"{directory}: is a file; split writes into a directory (-o DIR)")
    check_folder(directory, directory)
    result = result if result is not None else SplitResult(directory)
    made = not os.path.isdir(directory)
    names = _Names()
    guard = OutputGuard(inputs)
    real_directory = folded(os.path.realpath(directory))
    for path in reserved:
        folder, name = os.path.split(os.path.realpath(path))
        if folded(folder) == real_directory:
            names.taken.add(name.lower())
    try:
        for events in streams:
            _split(_Sessions(events), directory, names, result, exporter, format, force, options, guard, on_file)
    except BaseException:
        if made:  # made by this run and nothing kept in it: gone again
            with contextlib.suppress(OSError):
                os.rmdir(directory)
        raise
    return result


class _Names:
    """The file names taken so far, and the sessions counted (for unnamed ones)."""

    __slots__ = ("taken", "number", "tried")

    def __init__(self) -> None:
        self.taken: set[str] = set()
        self.number = 0
        self.tried: dict[str, int] = {}


def _split(stream: _Sessions, directory: str, names: _Names, result: SplitResult, exporter, format: str, force: bool, options, guard, on_file) -> None:
    while True:
        session = stream.next_session()
        if session is None:
            break
        names.number += 1
        path = os.path.join(directory, session_file_name(session, exporter.extension, names.taken, names.number, names.tried))
        if not force and os.path.lexists(path):
            raise UsageError(
                f"{path}: already exists; remove it, choose another -o directory, or pass --force to overwrite"
            )
        overwritten = guard.input_at(path)
        if overwritten is not None:
            raise UsageError(f"{path}: refusing to write the output onto the input {overwritten}; choose another -o directory")
        if os.path.islink(path) and not _inside(os.path.realpath(path), directory):
            # --force over a link planted in the folder would write its
            # target, wherever that is (a batch refuses the same).
            raise UsageError(f"{path}: resolves outside {directory} (through a link); refusing to write it")
        body = stream.body()
        os.makedirs(directory, exist_ok=True)
        # Listed before it can appear: a signal lands between any two
        # bytecodes, and one between the file's rename into place and its
        # listing would leave a file the report does not name.  Unlisted
        # again if the run ends before this file replaced what was there;
        # listed inside the try, so that a signal landing right after the
        # listing unlists it too.
        before = file_identity(path)
        listed = len(result.files)
        try:
            result.files.append(path)
            with open_output(path) as out:
                written = write_events(_chain(session, body), out, format=format, options=dict(options or {}), context=WriteContext(name=path))
        except BaseException:
            if not landed(path, before) and len(result.files) > listed:
                del result.files[listed]
            raise
        for _ in body:  # an exporter that stopped early leaves the rest of its session
            pass
        result.losses[path] = dict(written.losses)
        if on_file is not None:
            on_file(path, session)


def _inside(real: str, directory: str) -> bool:
    folder = os.path.realpath(directory)
    return os.path.dirname(real) == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


def _chain(first: dict, rest: Iterator[dict]) -> Iterator[dict]:
    yield first
    yield from rest
