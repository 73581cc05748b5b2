"""What an importer or exporter knows about the run it is part of."""

from __future__ import annotations

import sys
from typing import Any, BinaryIO, Callable

from sessionport.errors import DataError
from sessionport.plain import Record
from sessionport.sanitise import terminal

MAX_REPORTED_PLACES = 10
# A read option: the roles of the messages the first stage may keep, when
# a message's role is all it reads (Stage.wanted_roles).  A reader may then
# hand over each other message as {type, role} alone, unbuilt.
WANTED_ROLES = "_wanted_roles"


def _stderr_warning(message: str) -> None:
    print(terminal(f"sessionport: warning: {message}"), file=sys.stderr)


class ReadContext(Record):
    """Passed to ``Importer.read``.

    ``name`` is how the input is named in messages; ``path`` its real path
    when it is a file.  Importers report problems through the methods below
    so that strictness is decided in one place:

    - :meth:`bad_record`: a record in the middle is unreadable.  Raises a
      :class:`DataError` unless ``skip_bad``, then counts it.
    - :meth:`damaged_tail`: the input ends in a torn line or NUL padding (a
      crash while writing).  Warns unless ``strict``, then raises.
    - :meth:`unknown`: a record or content-block type this version of
      sessionport does not know.  Never stops reading (unless ``strict``):
      counted by type, and :meth:`report_unknown` warns once per type with
      its count when the file (or session) is done.
    """

    _fields = (
        "name", "path", "strict", "skip_bad", "options", "on_warning", "bad_places", "bad_count", "warnings",
        "open_seekable", "position", "size", "compressed", "unknown_counts", "unknown_seen",
    )

    name: str
    path: str | None
    strict: bool
    skip_bad: bool
    options: dict[str, Any]
    on_warning: Callable[[str], None]
    bad_places: list[str]
    bad_count: int
    warnings: list[str]
    # Set by the input layer: returns a seekable binary file of the whole
    # (decompressed) input, spooling a pipe to a temporary file if needed.
    open_seekable: Callable[[], BinaryIO] | None
    # Set by the input layer: how far into the stored file reading has got,
    # and its size when known (for progress).
    position: Callable[[], int] | None
    size: int | None
    # Whether the stored file is compressed (its size then says little of
    # how much there is to read).
    compressed: bool
    # (what, type name) -> count, since the last report_unknown().
    unknown_counts: dict[tuple[str, str], int]
    # Every unknown type of the whole run (what -> type -> count), for inspect.
    unknown_seen: dict[str, dict[str, int]]

    def __init__(
        self,
        name: str = "<input>",
        path: str | None = None,
        strict: bool = False,
        skip_bad: bool = False,
        options: dict[str, Any] | None = None,
        on_warning: Callable[[str], None] = _stderr_warning,
        bad_places: list[str] | None = None,
        bad_count: int = 0,
        warnings: list[str] | None = None,
        open_seekable: Callable[[], BinaryIO] | None = None,
        position: Callable[[], int] | None = None,
        size: int | None = None,
        compressed: bool = False,
        unknown_counts: dict[tuple[str, str], int] | None = None,
        unknown_seen: dict[str, dict[str, int]] | None = None,
    ) -> None:
        self.name = name
        self.path = path
        self.strict = strict
        self.skip_bad = skip_bad
        self.options = {} if options is None else options
        self.on_warning = on_warning
        self.bad_places = [] if bad_places is None else bad_places
        self.bad_count = bad_count
        self.warnings = [] if warnings is None else warnings
        self.open_seekable = open_seekable
        self.position = position
        self.size = size
        self.compressed = compressed
        self.unknown_counts = {} if unknown_counts is None else unknown_counts
        self.unknown_seen = {} if unknown_seen is None else unknown_seen

    def unknown(self, name: str, *, what: str = "record", line: int | None = None, path: str | None = None) -> None:
        """A ``what`` (``record``, ``content block``, ``event``...) of a type
        this version does not know.  The caller keeps going: it counts the
        record in ``end.skipped`` or, for a content block, keeps a visible
        placeholder.  ``--strict`` makes it an error."""
        if self.strict:
            raise DataError(
                self.name,
                f"a {what} of a type this version of sessionport does not know: {name!r}",
                line=line,
                path=path,
                hint="drop --strict to read the file anyway (unknown types are counted and reported); please report the type",
            )
        key = (what, name)
        self.unknown_counts[key] = self.unknown_counts.get(key, 0) + 1
        seen = self.unknown_seen.setdefault(what, {})
        seen[name] = seen.get(name, 0) + 1

    def report_unknown(self) -> dict[str, dict[str, int]]:
        """Warn once per unknown type seen since the last call, and return
        them (``{what: {type: count}}``) for the ``end`` event."""
        found: dict[str, dict[str, int]] = {}
        for (what, name), count in self.unknown_counts.items():
            plural = "s" if count != 1 else ""
            self.warn(f"{count} {what}{plural} of a type this version of sessionport does not know: `{name}`; please report")
            found.setdefault(what, {})[name] = count
        self.unknown_counts = {}
        return found

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


class WriteContext(Record):
    """Passed to ``Exporter.write``: the exporter's options and a warning sink."""

    _fields = ("name", "options", "on_warning", "losses")

    name: str
    options: dict[str, Any]
    on_warning: Callable[[str], None]
    # What the exporter could not carry, by registry.LOSSES name, after writing.
    losses: dict[str, int]

    def __init__(
        self,
        name: str = "<stdout>",
        options: dict[str, Any] | None = None,
        on_warning: Callable[[str], None] = _stderr_warning,
        losses: dict[str, int] | None = None,
    ) -> None:
        self.name = name
        self.options = {} if options is None else options
        self.on_warning = on_warning
        self.losses = {} if losses is None else losses
        # What of the exporter's ``cannot_carry`` this output has a place for
        # after all (a shape chosen by the source or an option): not counted.
        self.carried: set[str] = set()

    def carries(self, *losses: str) -> None:
        """Said by an exporter whose output, this time, holds these of its
        ``cannot_carry`` (registry.LOSSES names): they are not reported as left out."""
        self.carried.update(losses)

    def warn(self, message: str) -> None:
        self.on_warning(message)
