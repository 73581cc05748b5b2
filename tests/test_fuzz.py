"""Fuzzing every importer: the run ends in events or a sessionport error that
names the input, never another exception.

The short run here is seeded (derandomized) so a failure reproduces; the long
run is documented in docs/reliability.md:

    SESSIONPORT_FUZZ=long pytest tests/test_fuzz.py -q
"""

from __future__ import annotations

import io
import os
import random

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS, FIXTURES
from sessionport.context import ReadContext
from sessionport.errors import SessionportError
from sessionport.registry import get_registry

REGISTRY = get_registry()
IMPORTERS = sorted(REGISTRY.importer_names())
LONG = os.environ.get("SESSIONPORT_FUZZ") == "long"

settings.register_profile("short", max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
settings.register_profile("long", max_examples=int(os.environ.get("SESSIONPORT_FUZZ_EXAMPLES", "20000")), deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile("long" if LONG else "short")


def seeds_for(name: str) -> list[bytes]:
    """Small real inputs to mutate: the format's fixtures, plus the first
    lines of corpus files of the same family when the corpus is present."""
    found = []
    folder = FIXTURES / name
    if folder.is_dir():
        found += [p.read_bytes()[:20000] for p in sorted(folder.iterdir()) if p.is_file()]
    family = CORPUS / name.split("-")[0]
    if family.is_dir():
        for path in sorted(family.rglob("*"))[:4]:
            if path.is_file():
                with open(path, "rb") as handle:
                    found.append(handle.read(20000))
    return [s for s in found if s] or [b"{}"]


def outcome(name: str, data: bytes, **fields) -> list[dict] | SessionportError:
    """Read ``data`` with importer ``name``.  Any exception other than a
    SessionportError fails the test with the input that caused it."""
    importer = REGISTRY.importer(name)
    ctx = ReadContext(name="<fuzz>", on_warning=lambda message: None, **fields)
    ctx.open_seekable = lambda: io.BytesIO(data)
    try:
        events = list(importer.read(io.BufferedReader(io.BytesIO(data)), ctx))
    except SessionportError as exc:
        assert "<fuzz>" in str(exc), f"{name}: error does not name the input: {exc}"
        return exc
    except RecursionError:
        raise AssertionError(f"{name}: RecursionError on {data[:200]!r}")
    for event in events:
        assert isinstance(event, dict) and event.get("type") in ("session", "message", "end"), f"{name}: bad event {event!r}"
        if event["type"] == "message":
            assert isinstance(event.get("text"), str), f"{name}: message text must be a string: {event!r}"
            assert event.get("role") in ("user", "assistant", "system", "tool"), f"{name}: bad role {event!r}"
    return events


@pytest.mark.parametrize("name", IMPORTERS)
@given(data=st.binary(max_size=2000))
def test_random_bytes(name, data):
    outcome(name, data)
    outcome(name, data, skip_bad=True)


@pytest.mark.parametrize("name", IMPORTERS)
@given(seed=st.integers(0, 2**32 - 1), flips=st.integers(1, 8))
def test_mutated_real_input(name, seed, flips):
    rng = random.Random(seed)
    base = bytearray(rng.choice(seeds_for(name)))
    for _ in range(flips):
        position = rng.randrange(len(base))
        base[position] = rng.randrange(256)
    outcome(name, bytes(base))
    outcome(name, bytes(base), skip_bad=True)


@pytest.mark.parametrize("name", IMPORTERS)
def test_truncated_at_many_positions(name):
    sample = seeds_for(name)[0][:6000]
    step = max(1, len(sample) // (2000 if LONG else 150))
    for cut in range(0, len(sample), step):
        outcome(name, sample[:cut])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=20,
)


def _replace_values(value, rng: random.Random, replacement):
    """Put random JSON values in place of some fields of a real record."""
    if isinstance(value, dict):
        return {k: (replacement if rng.random() < 0.3 else _replace_values(v, rng, replacement)) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_values(v, rng, replacement) for v in value]
    return value


@pytest.mark.parametrize("name", IMPORTERS)
@given(seed=st.integers(0, 2**32 - 1), replacement=json_values)
def test_random_values_in_place_of_fields(name, seed, replacement):
    rng = random.Random(seed)
    sample = rng.choice(seeds_for(name))
    lines = sample.splitlines()
    try:
        records = [orjson.loads(line) for line in lines if line.strip()]
        jsonl = True
    except orjson.JSONDecodeError:
        try:
            records = [orjson.loads(sample)]
        except orjson.JSONDecodeError:
            return
        jsonl = False
    mutated = [_replace_values(r, rng, replacement) for r in records]
    data = b"\n".join(orjson.dumps(r) for r in mutated) + b"\n" if jsonl else orjson.dumps(mutated[0])
    outcome(name, data)


@pytest.mark.parametrize("name", IMPORTERS)
def test_deep_nesting_is_a_clear_error_or_read(name):
    deep = b'{"a":' * 5000 + b"1" + b"}" * 5000
    outcome(name, deep)
    outcome(name, deep + b"\n" + deep + b"\n")
    outcome(name, b"[" * 100000)


@pytest.mark.parametrize("name", IMPORTERS)
def test_huge_string(name):
    huge = orjson.dumps({"type": "message", "role": "user", "text": "x" * 3_000_000, "content": "y" * 1_000_000})
    outcome(name, huge + b"\n")
