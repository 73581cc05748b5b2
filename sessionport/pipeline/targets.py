"""Where the outputs of a run go, and the one guard every output path passes.

:class:`OutputGuard` knows every input of the run and every target it has
handed out.  A target is refused when it resolves onto an input (through
symlinks and hard links too), onto a target already handed out, or outside
the ``-o`` directory it was asked under (an object key or a zip member
holding ``..``, an absolute path, a symlinked folder pointing elsewhere).

:func:`layout` decides what ``-o`` means for a batch: a directory (one
output per input) or a file holding the combined stream.
"""

from __future__ import annotations

import os
import unicodedata
from typing import Iterable

from sessionport.errors import UsageError
from sessionport.io import is_stdin, is_url, stdin_file
from sessionport.registry import get_registry

COMPRESSED = (".zst", ".gz", ".bz2", ".xz")
DATA_SUFFIXES = (".jsonl", ".json", ".ndjson", ".zip")

STREAM, FILE, DIRECTORY = "stream", "file", "directory"


class RefusedTarget(UsageError):
    """An output path the guard will not write to."""


def folded(path: str) -> str:
    """``path`` as a file system that ignores case (macOS, Windows, vfat,
    ext4 casefold) or Unicode normalisation (APFS) compares names: two
    targets equal here are one file there."""
    return unicodedata.normalize("NFC", path).casefold()


def file_identity(path: str) -> tuple | None:
    """Which file is at ``path`` (device and inode), None when none is."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def landed(path: str, before: tuple | None) -> bool:
    """Whether a file was put at ``path`` since its :func:`file_identity`
    was ``before`` (another file is there than the one there then)."""
    now = file_identity(path)
    return now is not None and now != before


class OutputGuard:
    """Refuses outputs onto inputs, onto each other, or outside their directory."""

    def __init__(self, inputs: Iterable[str | None] = ()) -> None:
        # Real paths of folders, resolved once: a batch of thousands of
        # files in a few folders resolves each folder once, not each file.
        self._folders: dict[str, str] = {}
        self._inputs: dict[str, str] = {}
        self._input_ids: dict[tuple, str] = {}
        for spec in inputs:
            if is_stdin(spec):
                # ``< session.jsonl``: that file is an input too
                identity = stdin_file()
                if identity:
                    self._input_ids[identity] = "stdin"
                continue
            if is_url(spec):
                continue
            path = spec[len("file://") :] if spec.startswith("file://") else spec
            self._inputs[self._real(path)] = spec
            identity = file_identity(path)
            if identity:
                self._input_ids[identity] = spec
        # Targets handed out, and paths kept for other files of the run
        # (the --json-report), by ``folded`` real path.
        self._handed: set[str] = set()
        self._reserved: dict[str, str] = {}

    def reserve(self, path: str, what: str) -> None:
        """Keep ``path`` for ``what`` (another file the run writes): no
        target is handed out there."""
        self._reserved[folded(self._real(path))] = what

    def _real(self, path: str) -> str:
        """``os.path.realpath(path)``, its folder's part looked up once."""
        folder, name = os.path.split(os.path.abspath(path))
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = os.path.realpath(folder)
        real = os.path.join(real_folder, name)
        return os.path.realpath(real) if os.path.islink(real) else real

    def _inside(self, real: str, directory: str) -> bool:
        real_dir = self._real(directory.rstrip("/" + os.sep) or os.sep)
        return real == real_dir or real.startswith(real_dir.rstrip(os.sep) + os.sep)

    def input_at(self, path: str, real: str | None = None) -> str | None:
        """The input ``path`` would overwrite, if any (hard links too)."""
        found = self._inputs.get(real or self._real(path))
        if found is None and self._input_ids:
            identity = file_identity(path)
            found = self._input_ids.get(identity) if identity else None
        return found

    def check(self, path: str | None) -> None:
        """Refuse ``path`` (a single output) when it is one of the inputs."""
        if path is None or path == "-":
            return
        if self.input_at(path) is not None:
            raise RefusedTarget(f"{path}: refusing to write the output onto the input; choose another -o path")

    def claim(self, directory: str, relative: str, extension: str) -> str:
        """The path under ``directory`` for the input at ``relative``, with its
        data suffixes replaced by ``extension``.  When that name is taken (by
        another target or an input) the input's own suffix is kept
        (``a.json`` -> ``a.json.md``); when both are, the target is refused."""
        if "\x00" in relative:  # a zip member's or an object key's name: no file can bear it
            raise RefusedTarget(f"{relative!r}: this input's name holds a NUL byte, which no file name can; refusing it")
        normal = os.path.normpath(relative.replace("\\", "/")) if relative else ""
        if not normal or normal in (".", "..") or os.path.isabs(normal) or normal.split(os.sep)[0] == "..":
            raise RefusedTarget(f"{relative}: this input's path would be written outside {directory}; refusing it")
        stem = normal
        for suffix in COMPRESSED:
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        plain = stem
        for suffix in DATA_SUFFIXES:
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        blocked = None
        for candidate in dict.fromkeys((os.path.join(directory, stem + extension), os.path.join(directory, plain + extension))):
            key = self._real(candidate)
            if not self._inside(key, directory):
                raise RefusedTarget(f"{candidate}: resolves outside {directory} (through a link); refusing to write it")
            if folded(key) in self._handed:
                blocked = blocked or f"{candidate}: another input of this run is written there (or to a name differing only in case)"
                continue
            if folded(key) in self._reserved:
                blocked = blocked or f"{candidate}: the {self._reserved[folded(key)]} is written there"
                continue
            overwritten = self.input_at(candidate, key)
            if overwritten is not None:
                blocked = f"{candidate}: would overwrite the input {overwritten}"
                continue
            self._handed.add(folded(key))
            return candidate
        raise RefusedTarget(f"{blocked}; refusing to write it (choose another -o directory)")


def extension_of(format: str) -> str:
    extension = get_registry().exporter(format).extension
    return extension if extension.startswith(".") else "." + extension


def names_directory(output: str | None) -> bool:
    """``-o DIR/`` (a trailing slash) or a directory that exists."""
    return bool(output) and output != "-" and (output.endswith(("/", os.sep)) or os.path.isdir(output))


def layout(output: str | None, format: str) -> str:
    """What ``-o`` means for a batch: ``stream`` (stdout), ``file`` (one
    file holding the combined stream) or ``directory`` (one file per input).

    A path ending in ``/`` or naming an existing directory is a directory; a
    path ending in the format's extension is a file; a new path without an
    extension is a directory (created).  An existing file, or a new name
    with another extension (``-o notes.md`` for HTML), is refused rather
    than guessed at.
    """
    if output is None or output == "-":
        return STREAM
    if names_directory(output):
        return DIRECTORY
    exporter = get_registry().exporter(format)
    if output.endswith(extension_of(format)):
        if not exporter.multi_session:
            raise UsageError(
                f"{output}: the {format} format holds one session, so several inputs cannot go into one file; "
                f"write one file per input with -o {os.path.splitext(output)[0]}/, or pick one session with --session ID"
            )
        return FILE
    if os.path.exists(output) or os.path.splitext(os.path.basename(output))[1]:
        # An existing file, or a new name that looks like a file of another
        # format: guessing "a directory" would surprise, so say both ways.
        raise UsageError(
            f"{output}: several inputs need -o to be a directory (-o {output}/ for one output per input), "
            f"or a file ending in {extension_of(format)} for one {format} file holding them all"
        )
    return DIRECTORY
