"""The type-mutation fuzzer: every field of real files given every wrong type,
read with its importer, then written with every exporter and through redact.

For each fixture and corpus file, each field (every key and list element,
at any depth) of the first records of a JSONL file, or of the first paths
of a JSON document, is replaced in turn by each value of ``WRONG``.  The
mutant is read with the file's importer; the events are written with every
registered exporter, and passed through the ``redact`` stage and written
again.  The property: each step ends normally or with a sessionport error
(``SessionportError``: bad data, usage, output); any other exception is an
internal error, a bug, and fails the test with the file, field, value and
step that raised it.

The short run in the suite is seeded: a fixed sample of mutants per file.
The long run tries every field of the first 30 records with every value:

    SESSIONPORT_FUZZ=long pytest tests/test_mutation_fuzz.py -q

(``SESSIONPORT_FUZZ_RECORDS`` sets how many records, ``SESSIONPORT_FUZZ_MUTANTS``
how many mutants per file are sampled; see docs/reliability.md.)
"""

from __future__ import annotations

import io
import json
import os
import random
import traceback
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import CORPUS, FIXTURES
from sessionport import api
from sessionport.context import ReadContext, WriteContext
from sessionport.detect import detect, is_blank
from sessionport.errors import SessionportError
from sessionport.registry import get_registry

REGISTRY = get_registry()
EXPORTERS = sorted(REGISTRY.exporter_names())
LONG = os.environ.get("SESSIONPORT_FUZZ") == "long"
RECORDS = int(os.environ.get("SESSIONPORT_FUZZ_RECORDS", "30" if LONG else "8"))
# Mutants tried per file: a seeded sample in the short run, all in the long one.
MUTANTS_PER_FILE = int(os.environ["SESSIONPORT_FUZZ_MUTANTS"]) if os.environ.get("SESSIONPORT_FUZZ_MUTANTS") else None if LONG else 10
DOCUMENT_PATHS = 5000 if LONG else 400


def _deep(levels: int) -> Any:
    value: Any = "bottom"
    for index in range(levels):
        value = [value] if index % 2 else {"k": value}
    return value


# Every wrong type, and the awkward values of the right ones.
WRONG: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    1.5,
    1e300,
    2**64 - 1,
    2**70,
    "",
    "text\x1b]0;title\x07\u202e",
    [],
    [1, "a", None],
    {},
    {"k": {"k": 1}},
    _deep(120),  # just inside the readers' depth bound: reaches the writers
    _deep(300),  # beyond it: refused by the readers
)


def _input_files() -> list[Path]:
    files = []
    for root in (FIXTURES, CORPUS):
        if root.is_dir():
            files += [p for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in (".json", ".jsonl") and p.stat().st_size]
    return files


def _importer_of(path: Path) -> str | None:
    head = path.read_bytes()[: 64 * 1024]
    if is_blank(head):
        return None
    try:
        return detect(head, str(path), REGISTRY).name
    except SessionportError:
        return None


def _paths(value: Any, limit: int) -> list[tuple]:
    """Paths to the nodes of ``value`` (not the root), breadth first."""
    found: list[tuple] = []
    queue: list[tuple[tuple, Any]] = [((), value)]
    while queue and len(found) < limit:
        path, node = queue.pop(0)
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in children:
            found.append(path + (key,))
            queue.append((path + (key,), child))
    return found[:limit]


def _replaced(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    key = path[0]
    if isinstance(value, dict):
        copy = dict(value)
    else:
        copy = list(value)
    copy[key] = _replaced(value[key], path[1:], new)
    return copy


def _dump(value: Any) -> bytes:
    # The standard library writes what orjson cannot (integers beyond 64 bits).
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")


def mutants(path: Path) -> Iterator[tuple[str, bytes]]:
    """``(description, bytes)`` of each mutant of ``path``."""
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        lines = data.splitlines()
        records = []
        for index, line in enumerate(lines[:RECORDS]):
            try:
                records.append((index, json.loads(line)))
            except ValueError:
                continue
        kept = lines[: RECORDS + 5]
        for index, record in records:
            for field in _paths(record, 10_000):
                for new in WRONG:
                    mutated = list(kept)
                    mutated[index] = _dump(_replaced(record, field, new))
                    yield f"line {index + 1} {_show(field)} = {_short(new)}", b"\n".join(mutated) + b"\n"
    else:
        try:
            document = json.loads(data)
        except ValueError:
            return
        for field in _paths(document, DOCUMENT_PATHS):
            for new in WRONG:
                yield f"{_show(field)} = {_short(new)}", _dump(_replaced(document, field, new))


def _show(path: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "$"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 40 else text[:37] + "..."


def _read(importer: str, data: bytes, skip_bad: bool) -> list[dict]:
    ctx = ReadContext(name="<mutant>", skip_bad=skip_bad, on_warning=lambda message: None)
    ctx.open_seekable = lambda: io.BytesIO(data)
    return list(REGISTRY.importer(importer).read(io.BufferedReader(io.BytesIO(data)), ctx))


def _redacted(events: list[dict]) -> list[dict]:
    redact = REGISTRY.stages["redact"].build()
    return list(redact(iter(events)))


def _write(events: list[dict], exporter: str) -> None:
    api.write_events(iter(events), io.BytesIO(), format=exporter, context=WriteContext(on_warning=lambda message: None))


def run_mutant(importer: str, data: bytes) -> str | None:
    """None when every step ended well; else which step raised what."""
    step = f"read with {importer}"
    try:
        try:
            events = _read(importer, data, skip_bad=False)
        except SessionportError:
            events = _read(importer, data, skip_bad=True)
        for exporter in EXPORTERS:
            step = f"write {exporter}"
            try:
                _write(events, exporter)
            except SessionportError:
                pass
        step = "redact"
        redacted = _redacted(events)
        for exporter in EXPORTERS if LONG else ("portable-jsonl", "markdown"):
            step = f"redact, then write {exporter}"
            try:
                _write(redacted, exporter)
            except SessionportError:
                pass
    except SessionportError:
        return None
    except Exception as exc:  # what the test is looking for: an internal error
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return f"{step}: {type(exc).__name__}: {str(exc)[:120]} (at {Path(frame.filename).name}:{frame.lineno})"
    return None


FILES = _input_files()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(p.parents[1])) for p in FILES])
def test_no_mutant_ends_in_an_internal_error(path):
    importer = _importer_of(path)
    if importer is None:
        pytest.skip(f"{path.name}: no importer recognises it (an expected output, not an input)")
    all_mutants = list(mutants(path))
    if MUTANTS_PER_FILE is not None and len(all_mutants) > MUTANTS_PER_FILE:
        all_mutants = random.Random(path.name).sample(all_mutants, MUTANTS_PER_FILE)
    failures = []
    for description, data in all_mutants:
        problem = run_mutant(importer, data)
        if problem is not None:
            failures.append(f"{description}: {problem}")
    assert not failures, f"{path.name} ({importer}): {len(failures)} internal error(s):\n" + "\n".join(failures[:15])


def test_the_fuzzer_sees_every_exporter_and_wrong_types():
    assert {"portable-jsonl", "markdown", "html", "claude-code", "codex"} <= set(EXPORTERS)
    assert "redact" in REGISTRY.stages
    assert any(isinstance(v, int) and v >= 2**64 for v in WRONG) and any(isinstance(v, (dict, list)) for v in WRONG)
