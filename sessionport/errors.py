"""Typed errors of the library.  The CLI maps them to exit codes in one place."""

from __future__ import annotations


class SessionportError(Exception):
    """Base class.  ``exit_code`` is what the CLI exits with."""

    exit_code = 1


class DataError(SessionportError):
    """The input is not what its format says it should be.

    Every message names the input, where in it (line or JSON path), what was
    found, and what to try.
    """

    def __init__(
        self,
        source: str,
        problem: str,
        *,
        line: int | None = None,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.source = source
        self.problem = problem
        self.line = line
        self.path = path
        self.hint = hint
        super().__init__(self.describe())

    def where(self) -> str:
        place = self.source
        if self.line is not None:
            place += f", line {self.line}"
        if self.path:
            place += f", at {self.path}"
        return place

    def describe(self) -> str:
        text = f"{self.where()}: {self.problem}"
        if self.hint:
            text += f" ({self.hint})"
        return text


class DetectionError(DataError):
    """No importer recognised the input."""


class UsageError(SessionportError):
    """The request cannot be carried out as given (wrong option combination,
    output onto an input, a one-session format fed several sessions)."""

    exit_code = 2


class OutputError(SessionportError):
    """Writing the output failed (disk full, permission denied)."""


class PluginError(SessionportError):
    """A registered format or stage could not be loaded."""
