"""What ``inspect`` prints, written as the sessions come, in flat memory.

Each input's summaries are written, as each session ends, to a spool (in
memory up to :data:`SPOOL_MEMORY`, then a temporary file); when the input
ends the spool is copied to stdout and the input's totals join the run's.
An input that fails part-way is dropped whole, so the output is what it was
when every summary was held until the end: a failing input of a batch
shows none of its sessions, and a single input that fails prints nothing
on stdout.  What is held: the totals (a counter per role, kind and tool
name), and the warnings (the JSON document and the "no sessions" line end
with them).

``--json`` streams the document's ``sessions`` list, which comes first
(the totals follow it); ``--usage --json`` starts with the totals, so its
list is spooled whole and copied after them.
"""

from __future__ import annotations

import tempfile
from typing import IO, Any, Callable, Iterable

import click
import orjson

from sessionport import jsonout
from sessionport.sanitise import terminal, terminal_json
from sessionport.summary import SessionSummary, Totals, usage_fields

SPOOL_MEMORY = 1 << 20
_COPY = 1 << 16


def human(summary: dict) -> list[str]:
    lines = []
    for key in ("source", "sessionId", "title", "cwd", "parentSessionId"):
        if summary.get(key):
            lines.append(f"{key + ':':<12}{summary[key]}")
    if summary.get("start"):
        span = f"{summary['start']} -> {summary.get('end') or '?'}"
        if summary.get("duration_seconds") is not None:
            span += f" ({summary['duration_seconds']:.0f} s)"
        lines.append(f"{'time:':<12}{span}")
    filtered = summary.get("filtered")
    dropped = filtered.get("dropped") if isinstance(filtered, dict) else None
    lines.append(f"{'messages:':<12}{summary['messages']}" + (f" (a filter dropped {dropped})" if isinstance(dropped, int) else ""))
    for label, key in (("by role:", "byRole"), ("by kind:", "byKind"), ("by tool:", "byTool"), ("models:", "models"), ("skipped:", "skipped")):
        if summary.get(key):
            lines.append(f"{label:<12}" + "  ".join(f"{k}={v}" for k, v in summary[key].items()))
    for what, types in (summary.get("unknown") or {}).items():
        label = f"unknown {what}s" if not what.endswith("s") else f"unknown {what}"
        lines.append(f"{'unknown:':<12}{label}: " + "  ".join(f"{k}={v}" for k, v in types.items()))
    if "keptUsage" in summary:
        lines.extend(partial_usage(summary))
    else:
        usage = summary.get("usage") or {}
        if any(usage.values()):
            lines.append(f"{'usage:':<12}" + pairs(usage))
    for note in summary.get("notes", []):
        lines.append(f"{'note:':<12}{note}")
    return lines


def usage_lines(summary: dict) -> list[str]:
    """``inspect --usage``: a session's identity and usage."""
    lines = [f"{key + ':':<12}{summary[key]}" for key in ("source", "sessionId", "title", "cwd", "parentSessionId") if summary.get(key)]
    if "keptUsage" in summary:
        lines.extend(partial_usage(summary))
    else:
        usage = summary.get("usage") or {}
        lines.append(f"{'usage:':<12}" + (pairs(usage) if any(usage.values()) else "none recorded by the source"))
    return lines


def pairs(usage: dict) -> str:
    return "  ".join(f"{k}={v}" for k, v in usage.items())


def partial_usage(summary: dict) -> list[str]:
    """The two token figures of a session the stream holds only part of:
    the whole session's (from its end event, when the stream has it) and
    that of the messages here, each said to be which."""
    usage, kept, count = summary.get("usage"), summary.get("keptUsage"), summary["messages"]
    here = f"the {count} message{'s' if count != 1 else ''} here"
    if usage is None:
        whole = "whole session: not known (the stream ends before the session's end event)"
    else:
        whole = "whole session: " + (pairs(usage) if any(usage.values()) else "none recorded by the source")
    mine = f"{here}: {pairs(kept)}" if kept else f"none of {here} carries its own token usage"
    return [f"{'usage:':<12}{whole}", f"{'kept usage:':<12}{mine}"]


class Spool:
    """Text or bytes held in memory up to :data:`SPOOL_MEMORY`, then in a
    temporary file (most inputs hold a session or two: a list of pieces
    costs them less than a file object)."""

    __slots__ = ("text", "pieces", "size", "file")

    def __init__(self, text: bool) -> None:
        self.text = text
        self.pieces: list[Any] = []
        self.size = 0
        self.file: IO | None = None

    def write(self, piece: Any) -> None:
        if self.file is not None:
            self.file.write(piece)
            return
        self.pieces.append(piece)
        self.size += len(piece)
        if self.size > SPOOL_MEMORY:
            if self.text:
                self.file = tempfile.TemporaryFile(mode="w+", encoding="utf-8", newline="", errors="surrogatepass")
            else:
                self.file = tempfile.TemporaryFile(mode="w+b")
            for held in self.pieces:
                self.file.write(held)
            self.pieces = []

    def chunks(self) -> Iterable[Any]:
        if self.file is None:
            if self.pieces:
                yield ("" if self.text else b"").join(self.pieces)
            return
        self.file.seek(0)
        while chunk := self.file.read(_COPY):
            yield chunk

    def close(self) -> None:
        self.pieces = []
        if self.file is not None:
            self.file.close()


def _copy(spool: Spool) -> None:
    for chunk in spool.chunks():
        click.echo(chunk, nl=False)


class Report:
    """The sessions of a run, written as they come (see the module's doc)."""

    def __init__(self, as_json: bool, usage_only: bool) -> None:
        self.as_json, self.usage_only = as_json, usage_only
        self.total = Totals()
        self.warnings: list[str] = []
        self.shown = 0  # sessions of the inputs copied out
        # --usage --json: the sessions' list, copied after the totals
        self.held = Spool(False) if as_json and usage_only else None

    def consume(self, summaries: Iterable[SessionSummary]) -> tuple[Spool, Totals, int]:
        """One input's summaries, written to its spool as they come."""
        spool = Spool(not self.as_json)
        total = Totals()
        count = 0
        write: Callable[[Any], Any] = spool.write
        for summary in summaries:
            total.add(summary)
            data = summary.as_dict()
            first = self.shown + count == 0
            if self.as_json:
                body = jsonout.dumps(usage_fields(data) if self.usage_only else data, option=orjson.OPT_INDENT_2)
                write((b"" if first else b",\n") + b"    " + terminal_json(body).replace(b"\n", b"\n    "))
            else:
                lines = usage_lines(data) if self.usage_only else human(data)
                write(("" if first else "\n") + "".join(terminal(line) + "\n" for line in lines))
            count += 1
        return spool, total, count

    def keep(self, taken: tuple[Spool, Totals, int] | None, warnings: list[str]) -> None:
        """An input that ended well: its sessions out, its totals in."""
        self.warnings.extend(warnings)
        if taken is None:
            return
        spool, total, count = taken
        try:
            if count:
                if self.held is not None:
                    for chunk in spool.chunks():
                        self.held.write(chunk)
                else:
                    if self.as_json and self.shown == 0:
                        click.echo(b'{\n  "sessions": [\n', nl=False)
                    _copy(spool)
                self.shown += count
                self.total.merge(total)
        finally:
            spool.close()

    def drop(self, taken: tuple[Spool, Totals, int] | None, warnings: list[str]) -> None:
        self.warnings.extend(warnings)
        if taken is not None:
            taken[0].close()

    def finish(self) -> None:
        total = self.total.as_dict()
        if self.as_json:
            self._finish_json(total)
        elif not self.shown:
            click.echo(terminal("no sessions: " + ("; ".join(self.warnings) if self.warnings else "the input holds no conversation")))
        elif self.shown > 1:
            click.echo("")
            if self.usage_only:
                click.echo(f"{'total:':<12}{self.shown} sessions")
                kept = total.get("keptUsage")
                if kept is not None:
                    click.echo(f"{'usage:':<12}whole sessions (where known): " + pairs(total["usage"]))
                    click.echo(f"{'kept usage:':<12}the messages here: " + pairs(kept))
                else:
                    click.echo(f"{'usage:':<12}" + pairs(total["usage"]))
                return
            click.echo(f"{'total:':<12}{total['sessions']} sessions, {total['messages']} messages")
            usage = total["usage"]
            kept = total.get("keptUsage")
            if kept is not None:
                # some sessions are only partly here: say which figure is which
                click.echo(f"{'usage:':<12}whole sessions (where known): " + pairs(usage))
                click.echo(f"{'kept usage:':<12}the messages here: " + pairs(kept))
            elif any(usage.values()):
                click.echo(f"{'usage:':<12}" + pairs(usage))

    def _finish_json(self, total: dict) -> None:
        # The document is dumped without its list (an empty one stands in
        # for it) and the list spliced in where orjson put that.
        if self.usage_only:
            document: dict[str, Any] = {key: total[key] for key in ("usage", "keptUsage") if key in total}
            document["sessions"] = []
        else:
            document = {**total, "sessions": []}
        document["sessionCount"] = self.shown
        if self.warnings:
            document["warnings"] = self.warnings
        text = terminal_json(jsonout.dumps(document, option=orjson.OPT_INDENT_2))
        head, _, tail = text.partition(b'\n  "sessions": [],')
        if not self.shown:
            click.echo(text)
            return
        if self.held is None:  # the head is out, the list after it
            click.echo(b"\n  ]," + tail)
            return
        click.echo(head + b'\n  "sessions": [\n', nl=False)
        _copy(self.held)
        self.held.close()
        click.echo(b"\n  ]," + tail)
