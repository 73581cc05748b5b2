"""Checking files against the JSON Schemas shipped beside their formats (``agentscope/schemas``, ``formats/portable/schemas``).

Three kinds of file are recognised from their first bytes: an AgentScope
trace (``agentscope-trace``), a portable document (``portable``) and a
portable-jsonl stream (``portable-jsonl``).  The checks are those of the
schemas, run by the ``jsonschema`` library; nothing is checked by hand.

Memory stays flat: a portable-jsonl stream is checked line by line; a
portable document is walked with ijson and checked header, then message by
message; a trace is checked action by action, then each run's header
(:mod:`.validate_trace`).
Every problem names its JSON path and the rule it breaks, e.g.
``runs[0].trustScore: 140 is greater than the maximum of 100``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Iterator

import orjson

from sessionport.context import ReadContext
from sessionport.errors import DataError
from sessionport.io import HEAD_SIZE, open_input
from sessionport.jsondoc import first_significant_byte, walk_document
from sessionport.jsonl import BOM, first_json_line, iter_lines
from sessionport.agentscope.validate_trace import TraceError, walk_trace

if TYPE_CHECKING:  # jsonschema is imported when a check runs, not with the CLI
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from referencing import Registry

TRACE, PORTABLE, PORTABLE_JSONL = "agentscope-trace", "portable", "portable-jsonl"
KINDS = (TRACE, PORTABLE, PORTABLE_JSONL)
# Each schema lives beside the format it describes.
SCHEMA_PACKAGES = {
    TRACE: "sessionport.agentscope",
    PORTABLE: "sessionport.formats.portable",
    PORTABLE_JSONL: "sessionport.formats.portable",
}
SCHEMA_FILES = {
    TRACE: "agentscope-trace.schema.json",
    PORTABLE: "portable.schema.json",
    PORTABLE_JSONL: "portable-jsonl.schema.json",
}
BASE = "https://sessionport.dev/schemas/"
MAX_MESSAGE = 240
DEFAULT_MAX_PROBLEMS = 50
# Patterns, not compiled objects: ``re`` compiles and caches each on first
# use, so importing the validate command (shell completion) compiles nothing.
_IDENTIFIER = r"^[A-Za-z_$][A-Za-z0-9_$-]*$"
_TRACE_KEYS = rb'"(schemaVersion|runs)"\s*:'
_MESSAGES_ARRAY = rb'"messages"\s*:\s*\['
_PORTABLE_MARK = rb'"schema"\s*:\s*"sessionport/v1"|"messages"\s*:'


@dataclass
class Problem:
    """One broken rule: where (line and/or JSON path), what, and the schema keyword."""

    path: str
    message: str
    rule: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.path}: {self.message}"


@dataclass
class Report:
    """The result of checking one file.  ``problems`` holds at most ``max_problems``;
    ``problem_count`` counts them all."""

    name: str
    kind: str | None = None
    problems: list[Problem] = field(default_factory=list)
    problem_count: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    max_problems: int = DEFAULT_MAX_PROBLEMS

    @property
    def valid(self) -> bool:
        return self.problem_count == 0

    def add(self, problem: Problem) -> None:
        self.problem_count += 1
        if len(self.problems) < self.max_problems:
            self.problems.append(problem)

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def as_dict(self) -> dict:
        return {
            "file": self.name,
            "kind": self.kind,
            "valid": self.valid,
            "counts": self.counts,
            "problemCount": self.problem_count,
            "problems": [
                {k: v for k, v in (("line", p.line), ("path", p.path), ("rule", p.rule), ("message", p.message)) if v is not None}
                for p in self.problems
            ],
        }


# -- schemas ------------------------------------------------------------------

def load_schema(kind: str) -> dict:
    text = resources.files(SCHEMA_PACKAGES[kind]).joinpath("schemas", SCHEMA_FILES[kind]).read_bytes()
    return orjson.loads(text)


@lru_cache(maxsize=None)
def _registry() -> Registry:
    from referencing import Registry, Resource

    resources_ = [(BASE + SCHEMA_FILES[k], Resource.from_contents(load_schema(k))) for k in KINDS]
    return Registry().with_resources(resources_)


@lru_cache(maxsize=None)
def validator(kind: str, pointer: str = "") -> Draft202012Validator:
    """A validator for a whole schema, or for the part of it at ``pointer`` (``/$defs/run``)."""
    from jsonschema import Draft202012Validator

    target = {"$ref": f"{BASE}{SCHEMA_FILES[kind]}#{pointer}"}
    return Draft202012Validator(target, registry=_registry())


@lru_cache(maxsize=None)
def _trace_skeleton_validator() -> Draft202012Validator:
    # The document without its runs, which are checked one by one.
    from jsonschema import Draft202012Validator

    schema = load_schema(TRACE)
    schema["properties"]["runs"] = {"type": "array", "minItems": 1}
    return Draft202012Validator(schema)


# -- paths and messages ---------------------------------------------------------

def json_path(parts: Iterable[Any]) -> str:
    """``["runs", 0, "trustScore"]`` -> ``runs[0].trustScore``; the root is ``$``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.match(_IDENTIFIER, str(part)):
            text += f".{part}" if text else str(part)
        else:
            text += f"[{orjson.dumps(str(part)).decode()}]"
    return text or "$"


def _short(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def check(report: Report, value: Any, checker: Draft202012Validator, prefix: tuple = (), line: int | None = None) -> bool:
    """Add every error of ``value`` to ``report``; True when there was none."""
    errors = sorted(checker.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    for error in errors:
        report.add(_problem(error, prefix, line))
    return not errors


def _problem(error: ValidationError, prefix: tuple, line: int | None) -> Problem:
    return Problem(json_path((*prefix, *error.absolute_path)), _short(error.message), str(error.validator), line)


# -- detection --------------------------------------------------------------------

def detect_kind(head: bytes) -> str | None:
    """Which of the three kinds ``head`` (the first bytes of a file) starts, or None."""
    if head.startswith(BOM):
        head = head[3:]
    start = head.lstrip(b" \t\r\n")
    if start.startswith(b"{"):
        first = first_json_line(start)
        if isinstance(first, dict) and first.get("type") in ("session", "message", "end"):
            return PORTABLE_JSONL
        if re.search(_TRACE_KEYS, start[:HEAD_SIZE]):
            return TRACE
        if re.search(_PORTABLE_MARK, start):
            return PORTABLE
        return None
    if start.startswith(b"[") and re.search(_PORTABLE_MARK, start):
        return PORTABLE
    return None


# -- the three checks -------------------------------------------------------------

def _strict_context(name: str) -> ReadContext:
    # Any damage is a problem to report, never something to read past.  A
    # file on disk may be read again to name a value the parser refused.
    path = name if os.path.isfile(name) else None
    return ReadContext(name=name, path=path, strict=True, on_warning=lambda message: None)


def check_portable_jsonl(stream: BinaryIO, report: Report, head: bytes = b"") -> None:
    ctx = _strict_context(report.name)
    checker = validator(PORTABLE_JSONL)
    # The event schema picks its branch by "type"; picking it here first
    # saves jsonschema the if/then evaluation on every line.
    by_type = {t: validator(PORTABLE, f"/$defs/{t}") for t in ("session", "message", "end")}
    line_no = 0
    try:
        for line_no, line, complete in iter_lines(stream, ctx):
            try:
                event = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                state = "incomplete last line" if not complete else "invalid JSON"
                report.add(Problem("$", f"{state}: {exc.msg}", "json", line_no))
                continue
            report.count("events")
            kind = event.get("type") if isinstance(event, dict) else None
            if kind in ("session", "message"):
                report.count(f"{kind}s")
            check(report, event, by_type.get(kind, checker) if isinstance(kind, str) else checker, line=line_no)
    except DataError as exc:
        report.add(Problem("$", exc.problem, "json", exc.line or line_no or None))


def check_portable(stream: BinaryIO, report: Report, head: bytes = b"") -> None:
    ctx = _strict_context(report.name)
    in_array = first_significant_byte(stream) == b"["
    document_check = validator(PORTABLE, "/$defs/document")
    message_check = validator(PORTABLE, "/$defs/message")
    doc = -1
    index = 0
    try:
        for kind, value in walk_document(stream, ctx, ("messages",), docs_in_array=True):
            if kind == "start":
                doc, index = doc + 1, 0
                report.count("sessions")
            elif kind == "item":
                prefix = (doc, "messages", index) if in_array else ("messages", index)
                check(report, value, message_check, prefix)
                report.count("messages")
                index += 1
            elif kind == "end":
                # The messages were checked one by one; the rest is checked
                # with an empty list in their place.  walk_document leaves the
                # array out, so an empty one is only visible in the head (or,
                # for an array of documents, assumed).
                skeleton = dict(value)
                if "messages" not in skeleton and (index or in_array or re.search(_MESSAGES_ARRAY, head)):
                    skeleton["messages"] = []
                check(report, skeleton, document_check, (doc,) if in_array else ())
    except DataError as exc:
        report.add(Problem(exc.path or "$", exc.problem, "json"))


def check_trace(stream: BinaryIO, report: Report, head: bytes = b"") -> None:
    ctx = _strict_context(report.name)
    if first_significant_byte(stream) != b"{":
        report.add(Problem("$", "an AgentScope trace is a JSON object {schemaVersion, runs}", "type"))
        return
    action_check = validator(TRACE, "/$defs/action")
    run_check = validator(TRACE, "/$defs/run")
    report.counts.update(runs=0, actions=0)  # in reading order: runs first
    try:
        for kind, where, *rest in walk_trace(stream, ctx):
            if kind == "action":
                run, index = where
                check(report, rest[0], action_check, ("runs", run, "actions", index))
                report.count("actions")
            elif kind == "run":
                check(report, rest[0], run_check, ("runs", where))
                report.count("runs")
            else:
                # The runs were checked one by one; the rest is checked with
                # a stand-in list of the same emptiness in their place.
                skeleton, was_array, runs = where, rest[0], rest[1]
                if isinstance(skeleton, dict) and was_array:
                    skeleton = dict(skeleton, runs=[{}] * min(runs, 1))
                check(report, skeleton, _trace_skeleton_validator())
    except TraceError as exc:
        report.add(Problem(exc.where, exc.problem, "json"))
    except DataError as exc:
        report.add(Problem(exc.path or "$", exc.problem, "json"))


CHECKS = {TRACE: check_trace, PORTABLE: check_portable, PORTABLE_JSONL: check_portable_jsonl}


def validate_stream(stream: BinaryIO, name: str, kind: str | None = None, head: bytes | None = None,
                    max_problems: int = DEFAULT_MAX_PROBLEMS) -> Report:
    report = Report(name, max_problems=max_problems)
    if head is None:
        head = stream.peek(HEAD_SIZE)[:HEAD_SIZE] if hasattr(stream, "peek") else b""
    if kind is None:
        kind = detect_kind(head)
    if kind is None:
        from sessionport.detect import is_blank

        report.add(Problem(
            "$",
            "the file is empty: it holds no trace, portable document or portable-jsonl stream" if is_blank(head) else
            "not an AgentScope trace, a portable document or a portable-jsonl stream "
            "(name the kind with --as agentscope-trace|portable|portable-jsonl)",
            "kind",
        ))
        return report
    report.kind = kind
    CHECKS[kind](stream, report, head)
    return report


def validate_file(path: str, kind: str | None = None, max_problems: int = DEFAULT_MAX_PROBLEMS) -> Report:
    """Check one file (a path or ``-``; compressed files are read through).

    A missing file is a usage error (raised); a file that cannot be read or
    decompressed is reported as a problem."""
    try:
        inp = open_input(path)
    except DataError as exc:
        report = Report(path, max_problems=max_problems)
        report.add(Problem("$", exc.problem, "read"))
        return report
    try:
        report = validate_stream(inp.stream, inp.name, kind, inp.head, max_problems)
        if inp.damage is not None:
            report.add(Problem("$", inp.damage, "read"))
        return report
    finally:
        inp.close()


def validate_files(paths: Iterable[str], kind: str | None = None, max_problems: int = DEFAULT_MAX_PROBLEMS) -> Iterator[Report]:
    for path in paths:
        yield validate_file(path, kind, max_problems)
