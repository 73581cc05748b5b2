"""What each input of a one-stream run gave, for ``--json-report``.

``split`` reads its inputs one after another in one process and
``import-session`` reads one; neither goes through the batch machinery that
counts the other commands' inputs.  :class:`InputLedger` hands out each
input's stream in turn: each input is read with its own context (its
warnings, unknown types and unreadable records), its messages are counted
as they are read and as they go on to the writer, and whatever is written
(a file, what its format had no place for) is put down to it.  At the end (or
at an error) :meth:`InputLedger.outcomes` gives one
:class:`~sessionport.pipeline.batch.Outcome` per input read, in the shape
:func:`sessionport.reports.conversion.document` reports.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Sequence

from sessionport.context import ReadContext
from sessionport.errors import SessionportError
from sessionport.pipeline.batch import Outcome, Tally
from sessionport.pipeline.inputs import Source
from sessionport.pipeline.run import Reading, read_source


def _silent(message: str) -> None:
    pass


class _Entry:
    __slots__ = ("source", "ctx", "warnings", "tally", "files", "losses", "done")

    def __init__(self, source: Source, quiet: bool) -> None:
        self.source = source
        self.ctx = ReadContext(on_warning=_silent) if quiet else ReadContext()
        self.warnings: list[str] = []
        shown = self.ctx.on_warning

        def warn(message: str) -> None:
            self.warnings.append(message)
            shown(message)

        self.ctx.on_warning = warn
        self.tally = Tally()
        self.files: list[str] = []
        self.losses: dict[str, int] = {}
        self.done = False


class InputLedger:
    """The events of ``sources``, one stream per input read in turn, counted per input."""

    def __init__(self, sources: Sequence[Source], reading: Reading) -> None:
        self.sources = list(sources)
        self.reading = reading
        self.entries: list[_Entry] = []

    @property
    def current(self) -> _Entry | None:
        return self.entries[-1] if self.entries else None

    @property
    def finished(self) -> bool:
        """Every input read to its end (an error now is the run's, not an input's)."""
        return len(self.entries) == len(self.sources) and all(e.done for e in self.entries)

    def streams(self, stage: Callable[[Iterator[dict]], Iterable[dict]] | None = None) -> Iterator[Iterator[dict]]:
        """Each input's events (through ``stage``, when given), an input
        opened only when the one before has been read to its end."""
        for source in self.sources:
            entry = _Entry(source, self.reading.quiet)
            self.entries.append(entry)
            events = entry.tally.reading(self._read(entry))
            yield entry.tally.writing(stage(events) if stage else events)

    def _read(self, entry: _Entry) -> Iterator[dict]:
        yield from read_source(entry.source, self.reading, entry.ctx)
        entry.done = True

    def wrote(self, path: str, losses: dict[str, int] | None = None) -> None:
        """A file complete, from the input being read."""
        entry = self.entries[-1]
        entry.files.append(path)
        for name, n in (losses or {}).items():
            entry.losses[name] = entry.losses.get(name, 0) + n

    def outcomes(self, target: str | None, error: SessionportError | None = None, *, files: bool = True) -> list[Outcome]:
        """One outcome per input read, ``target`` its output when it wrote a
        file (``files``: list them, as split writes several); ``error`` (an
        input's, not the run's) fails the input being read when it came."""
        out = []
        for entry in self.entries:
            failed = error is not None and entry is self.current
            read = entry.tally.read
            report = entry.tally.report(entry.ctx, entry.losses, written=not failed)
            if files:
                report["files"] = list(entry.files)
            out.append(Outcome(entry.source.spec, target if entry.files else None, not failed, str(error) if failed else None, entry.warnings, empty=not failed and read == 0, report=report))
        return out
