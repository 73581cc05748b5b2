"""Walking an AgentScope trace action by action, for validation with flat memory.

A trace is ``{"schemaVersion", "runs": [{..., "actions": [...]}, ...]}``;
one run can hold thousands of actions with long outputs.  :func:`walk_trace`
follows ijson's token stream and yields each action as soon as it is
complete, then each run without its actions, then the document without its
runs, so at most one action (plus one run's small header) is in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

import ijson

from sessionport.context import ReadContext
from sessionport.jsondoc import Slicer, _locate_refused_value, check_depth, iter_chunks
from sessionport.jsonl import MAX_LINE_VALUES_ENV, max_line_values

RUNS, RUN, ACTIONS, ACTION = "runs", "runs.item", "runs.item.actions", "runs.item.actions.item"
_COMPLETES = frozenset(("end_map", "end_array", "string", "number", "boolean", "null"))


class TraceError(Exception):
    """The JSON itself is broken: ``problem`` says how, ``where`` is a readable path."""

    def __init__(self, problem: str, where: str) -> None:
        super().__init__(problem)
        self.problem, self.where = problem, where


class _Walker:
    def __init__(self) -> None:
        self.document = ijson.ObjectBuilder()
        self.run: ijson.ObjectBuilder | None = None
        self.action: ijson.ObjectBuilder | None = None
        self.pending_key: tuple[str, str] | None = None  # a key whose value decides the mode
        self.in_runs = self.in_actions = False
        self.runs_array = self.actions_array = False
        self.run_index = self.action_index = 0
        self.last_prefix = ""

    def feed(self, tokens) -> Iterator[tuple]:
        for prefix, event, value in tokens:
            self.last_prefix = prefix
            if self.pending_key is not None:
                yield from self._after_key(prefix, event, value)
                continue
            if self.in_actions:
                yield from self._in_actions(prefix, event, value)
            elif self.in_runs:
                yield from self._in_runs(prefix, event, value)
            elif prefix == "" and event == "map_key" and value == "runs":
                self.pending_key = ("", "runs")
            else:
                self.document.event(event, value)
                if prefix == "" and event in _COMPLETES:
                    yield "document", self.document.value, self.runs_array, self.run_index

    def _after_key(self, prefix: str, event: str, value: Any) -> Iterator[tuple]:
        owner, key = self.pending_key
        self.pending_key = None
        if event == "start_array":
            if owner == "":
                self.in_runs = self.runs_array = True
            else:
                self.in_actions = self.actions_array = True
            return
        # Not an array: the key and its value belong to the enclosing object.
        builder = self.document if owner == "" else self.run
        builder.event("map_key", key)
        if owner == "":
            self.document.event(event, value)
        else:
            yield from self._in_runs(prefix, event, value)

    def _in_runs(self, prefix: str, event: str, value: Any) -> Iterator[tuple]:
        if prefix == RUNS and event == "end_array":
            self.in_runs = False
            return
        if prefix == RUN and event == "map_key" and value == "actions" and self.run is not None:
            self.pending_key = (RUN, "actions")
            return
        if self.run is None:
            self.run, self.actions_array, self.action_index = ijson.ObjectBuilder(), False, 0
        self.run.event(event, value)
        if prefix == RUN and event in _COMPLETES:
            header = self.run.value
            if isinstance(header, dict) and self.actions_array and "actions" not in header:
                header["actions"] = []  # checked one by one already
            yield "run", self.run_index, header
            self.run = None
            self.run_index += 1

    def _in_actions(self, prefix: str, event: str, value: Any) -> Iterator[tuple]:
        if prefix == ACTIONS and event == "end_array":
            self.in_actions = False
            return
        if self.action is None:
            self.action = ijson.ObjectBuilder()
        self.action.event(event, value)
        if prefix == ACTION and event in _COMPLETES:
            yield "action", (self.run_index, self.action_index), self.action.value
            self.action = None
            self.action_index += 1


def _readable(prefix: str) -> str:
    return (prefix or "$").replace(".item", "[]")


def walk_trace(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple]:
    """Yield ``("action", (run, index), value)``, ``("run", index, header)`` and
    finally ``("document", document, runs_was_an_array, run_count)``.

    Raises :class:`TraceError` for broken JSON (a cut-off file included)."""
    tokens = ijson.sendable_list()
    parser = ijson.parse_coro(tokens, use_float=True)
    walker = _Walker()
    slicer = Slicer(iter_chunks(stream, ctx))
    limit = max_line_values(ctx)
    held = 0  # tokens since an action, a run or the document was complete: what the builders hold
    try:
        for piece in slicer:
            parser.send(piece)
            slicer.produced(bool(tokens))
            if tokens:
                check_depth(tokens[-1][0], ctx)
            held += len(tokens)
            for found in walker.feed(tokens):
                held = 0
                yield found
            if held > limit:
                raise TraceError(
                    f"this action (or run) holds more than {limit:,} keys and values, the limit per item: built, each would be "
                    f"a Python object (more than {limit * 55 >> 20:,} MB for them); raise the limit with {MAX_LINE_VALUES_ENV}=N if the file is genuine",
                    _readable(walker.last_prefix[:200]),
                )
            del tokens[:]
        parser.close()
        yield from walker.feed(tokens)
    except ijson.JSONError as exc:
        yield from walker.feed(tokens)
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        where = _readable(walker.last_prefix)
        if "premature EOF" in reason or "incomplete" in reason.lower():
            raise TraceError("the JSON document ends early here", where) from None
        # yajl names neither the value it refused nor where; a number out of
        # range or NaN/Infinity is looked up the way the importers do
        refused = _locate_refused_value(ctx, reason)
        if refused is not None:
            found, path, hint = refused
            raise TraceError(f"{found}; {hint}", path) from None
        raise TraceError(f"invalid JSON: {reason}", where) from None
