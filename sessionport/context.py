"""What an importer or exporter knows about the run it is part of."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable

from sessionport.errors import DataError
from sessionport.sanitise import terminal

MAX_REPORTED_PLACES = 10


def _stderr_warning(message: str) -> None:
    print(terminal(f"sessionport: warning: {message}"), file=sys.stderr)


@dataclass
class ReadContext:
    """Passed to ``Importer.read``.

    ``name`` is how the input is named in messages; ``path`` its real path
    when it is a file.  Importers report problems through the methods below
    so that strictness is decided in one place:

    - :meth:`bad_record`: a record in the middle is unreadable.  Raises a
      :class:`DataError` unless ``skip_bad``, then counts it.
    - :meth:`damaged_tail`: the input ends in a torn line or NUL padding (a
      crash while writing).  Warns unless ``strict``, then raises.
    - :meth:`skip`: a record that is deliberately not part of the
      conversation (counted, reported in the ``end`` event).
    """

    name: str = "<input>"
    path: str | None = None
    strict: bool = False
    skip_bad: bool = False
    options: dict[str, Any] = field(default_factory=dict)
    on_warning: Callable[[str], None] = _stderr_warning
    bad_places: list[str] = field(default_factory=list)
    bad_count: int = 0
    warnings: list[str] = field(default_factory=list)
    # Set by the input layer: returns a seekable binary file of the whole
    # (decompressed) input, spooling a pipe to a temporary file if needed.
    open_seekable: Callable[[], BinaryIO] | None = None
    # Set by the input layer: how far into the stored file reading has got,
    # and its size when known (for progress).
    position: Callable[[], int] | None = None
    size: int | None = None

    def warn(self, message: str) -> None:
        self.warnings.append(message)
        self.on_warning(f"{self.name}: {message}")

    def bad_record(
        self,
        problem: str,
        *,
        line: int | None = None,
        path: str | None = None,
        hint: str | None = "use --skip-bad to skip unreadable records",
    ) -> None:
        error = DataError(self.name, problem, line=line, path=path, hint=hint)
        if not self.skip_bad:
            raise error
        self.bad_count += 1
        if len(self.bad_places) < MAX_REPORTED_PLACES:
            self.bad_places.append(error.where())

    def damaged_tail(self, problem: str, *, line: int | None = None) -> None:
        if self.strict:
            raise DataError(self.name, problem, line=line, hint="the file was cut off while being written; drop --strict to read what is there")
        where = f"line {line}: " if line is not None else ""
        self.warn(f"{where}{problem}; everything before it was read")

    def report_bad(self) -> None:
        if self.bad_count:
            places = ", ".join(self.bad_places)
            more = "" if self.bad_count <= len(self.bad_places) else ", ..."
            self.on_warning(f"skipped {self.bad_count} unreadable record(s): {places}{more}")


@dataclass
class WriteContext:
    """Passed to ``Exporter.write``: the exporter's options and a warning sink."""

    name: str = "<stdout>"
    options: dict[str, Any] = field(default_factory=dict)
    on_warning: Callable[[str], None] = _stderr_warning

    def warn(self, message: str) -> None:
        self.on_warning(message)
