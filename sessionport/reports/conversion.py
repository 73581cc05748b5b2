"""``--json-report``: what a command that writes a format did, as one JSON object.

The commands that convert (``convert``, ``to``, the stage commands,
``chain``) say on stderr what they could not carry and what they did not
know; a script wants the same as data.  The report names every input with
its detected format, where it was written, how many messages were read and
written, what the target format has no place for (the ``registry.LOSSES``
names: ``media``, ``timestamps``, ``usage``), the record and content-block
types this version does not know, the unreadable records skipped, the
warnings, and its status; then the totals and the exit code.  Keys are
camelCase, as in ``inspect --json``.  docs/conversion-report.md describes it.
"""

from __future__ import annotations

from typing import Any, Sequence

from sessionport.errors import SessionportError, UsageError
from sessionport.registry import LOSSES

REPORT_SCHEMA = "sessionport/conversion-report/v1"


def check_target(report: str, output: str | None, inputs: Sequence[str | None]) -> None:
    """Refuse, before anything is read, a report on stdout when the
    conversion writes there too, and a report onto an input or the output."""
    if report == "":
        raise UsageError("--json-report '': the path is empty; give a file name, or - for stdout")
    if report == "-":
        if output in (None, "-"):
            raise UsageError(
                "--json-report -: the conversion itself writes to stdout; write the report to a file "
                "(--json-report report.json) or the conversion to one (-o PATH)"
            )
        return
    import os

    from sessionport.io import check_folder
    from sessionport.pipeline.targets import OutputGuard

    check_folder(os.path.dirname(report) or ".", report, "--json-report")  # before anything is written
    if OutputGuard(inputs).input_at(report) is not None:
        raise UsageError(f"{report}: refusing to write the report onto an input; choose another --json-report path")
    if output not in (None, "-") and OutputGuard([output]).input_at(report) is not None:
        raise UsageError(f"{report}: -o writes the conversion there; give the report another path")


def _output_of(outcome: Any, joined: str | None) -> str | None:
    if not outcome.ok or outcome.empty:
        return None  # nothing was written for it
    return joined or outcome.target or "-"


def _entry(outcome: Any, joined: str | None = None) -> dict[str, Any]:
    counts = outcome.report or {}
    status = "failed" if not outcome.ok else "empty" if outcome.empty else "ok"
    return {
        "input": outcome.source if outcome.source is not None else "-",
        "format": counts.get("format"),
        "output": _output_of(outcome, joined),
        "status": status,
        "messagesRead": counts.get("messagesRead"),
        "messages": counts.get("messages"),
        "losses": counts.get("losses"),
        "unknown": counts.get("unknown") or {},
        "unreadable": counts.get("unreadable", 0),
        "warnings": list(counts.get("warnings", outcome.warnings)),
        "error": outcome.error,
        # split: the files written from this input (one per session)
        **({"files": counts["files"]} if "files" in counts else {}),
    }


def document(command: str, to: str, output: str | None, result: Any, exit_code: int, error: str | None = None) -> dict[str, Any]:
    """The report of one run: ``result`` is the run's
    :class:`~sessionport.pipeline.run.Result`, None when the run failed
    before any input was read (then ``error`` says why)."""
    from sessionport.pipeline.targets import DIRECTORY

    # a batch written as one stream: every input went into the one output
    joined = (output or "-") if result is not None and result.batch and result.layout != DIRECTORY else None
    inputs = [_entry(o, joined) for o in result.outcomes] if result is not None else []
    losses = dict.fromkeys(LOSSES, 0)
    for entry in inputs:
        for name, n in (entry["losses"] or {}).items():
            losses[name] = losses.get(name, 0) + n
    totals = {
        "inputs": result.total if result is not None else 0,
        "converted": sum(e["status"] == "ok" for e in inputs),
        "empty": sum(e["status"] == "empty" for e in inputs),
        "failed": sum(e["status"] == "failed" for e in inputs),
        "messagesRead": sum(e["messagesRead"] or 0 for e in inputs),
        "messages": sum(e["messages"] or 0 for e in inputs),
        "losses": losses,
    }
    from sessionport.pipeline import signals
    from sessionport.registry import get_registry

    if signals.received is not None:
        # on the way out after a signal nothing more is imported: a module
        # the signal cut short would fail, and the report would not be written
        info = get_registry().formats.get(to)
        exporter = info.loaded("export") if info is not None else None
        cannot_carry = list(exporter.cannot_carry) if exporter is not None else []
    else:
        try:
            cannot_carry = list(get_registry().exporter(to).cannot_carry)
        except SessionportError:  # not a format that can be written: the run's error says so
            cannot_carry = []
    doc: dict[str, Any] = {
        "schema": REPORT_SCHEMA,
        "command": command,
        "to": to,
        "cannotCarry": cannot_carry,
        "output": output if output is not None else "-",
        "inputs": inputs,
        "totals": totals,
        "exitCode": exit_code,
    }
    if error is not None:
        doc["error"] = error
    return doc


def ended(exc: BaseException) -> tuple[int, str]:
    """The exit code and the error of a run ended by an interrupt, a
    signal or a bug (as the command line reports them), for the report
    that takes the place of an earlier run's."""
    from sessionport.pipeline.signals import Terminated

    if isinstance(exc, KeyboardInterrupt):
        return 130, "interrupted"
    if isinstance(exc, Terminated):
        return exc.exit_code, f"terminated ({exc.name})"
    if isinstance(exc, OSError) and exc.errno == 32:  # stdout closed: a quiet end
        return 0, "the output pipe was closed"
    return 1, f"internal error: {type(exc).__name__}: {exc}"


def write(path: str, doc: dict[str, Any], inputs: Sequence[str | None] = ()) -> None:
    """The report to ``path`` (atomically, never onto an input) or stdout (``-``)."""
    from sessionport import jsonout
    from sessionport.io import open_output
    from sessionport.sanitise import terminal_json

    data = jsonout.dumps(doc, option=jsonout.OPT_INDENT_2 | jsonout.OPT_APPEND_NEWLINE)
    if path == "-":
        data = terminal_json(data)  # stdout may be a terminal: no control sequences
    with open_output(None if path == "-" else path, [i for i in inputs if i]) as out:
        out.write(data)
