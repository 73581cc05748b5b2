"""The contract every registered importer and exporter keeps.

Parametrized over the registry, so each new format inherits it: a sample
input per importer (``fixtures/<format>/``), empty, truncated and
invalid-UTF-8 input ending in events or a DataError (never another
exception), laziness (the first event before the input is read), and round
trips.
"""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

import sessionport
from sessionport.toolmap import map_call
from sessionport.context import ReadContext
from sessionport.errors import SessionportError
from sessionport.registry import get_registry

from conftest import FIXTURES

REGISTRY = get_registry()
IMPORTERS = sorted(REGISTRY.importer_names())
EXPORTERS = sorted(REGISTRY.exporter_names())
SAMPLE_STREAM = FIXTURES / "portable-jsonl" / "session.jsonl"


def sample_events() -> list[dict]:
    return [orjson.loads(line) for line in SAMPLE_STREAM.read_bytes().splitlines()]


def samples_for(name: str) -> list[Path]:
    folder = FIXTURES / name
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")) if folder.is_dir() else []


def read_bytes(name: str, data: bytes, **ctx_fields) -> list[dict]:
    importer = REGISTRY.importer(name)
    ctx = ReadContext(name=f"<{name} sample>", on_warning=lambda message: None, **ctx_fields)
    ctx.open_seekable = lambda: io.BytesIO(data)
    return list(importer.read(io.BufferedReader(io.BytesIO(data)), ctx))


def test_builtin_formats_all_load():
    assert REGISTRY.load_errors == []


def test_builtins_are_registered_through_entry_points():
    from importlib.metadata import entry_points

    names = {ep.value.split(":")[0] for ep in entry_points(group="sessionport.formats")}
    assert "sessionport.formats.portable.reader" in names
    assert {"portable", "portable-jsonl"} <= set(IMPORTERS) & set(EXPORTERS)


@pytest.mark.parametrize("name", IMPORTERS)
def test_importer_ships_a_sample_that_reads(name):
    samples = samples_for(name)
    assert samples, f"fixtures/{name}/ must hold at least one sample input"
    for sample in samples:
        events = list(sessionport.read(str(sample), format=name))
        sessions = [e for e in events if e["type"] == "session"]
        messages = [e for e in events if e["type"] == "message"]
        assert sessions, f"{sample}: no session event"
        assert events[0]["type"] == "session", f"{sample}: the stream must start with a session event"
        assert messages, f"{sample}: no messages"
        for event in messages:
            assert event["role"] in ("user", "assistant", "system", "tool")
            assert isinstance(event["text"], str)
            assert None not in event.values(), f"{sample}: unknown fields must be absent, not null"


@pytest.mark.parametrize("name", IMPORTERS)
def test_sample_is_detected_as_its_own_format(name):
    for sample in samples_for(name):
        with _opened(sample) as inp:
            from sessionport.detect import detect

            assert detect(inp.head, inp.name, REGISTRY).name == name, f"{sample} is detected as another format"


class _opened:
    def __init__(self, path):
        from sessionport.io import open_input

        self.inp = open_input(str(path))

    def __enter__(self):
        return self.inp

    def __exit__(self, *exc):
        self.inp.close()


def _ends_in_events_or_data_error(name: str, data: bytes, **ctx_fields) -> None:
    try:
        events = read_bytes(name, data, **ctx_fields)
    except SessionportError as exc:
        assert str(exc), "a sessionport error must say what went wrong"
        assert "<" in str(exc), "the error must name the input"
        return
    for event in events:
        assert event.get("type") in ("session", "message", "end")


@pytest.mark.parametrize("name", IMPORTERS)
def test_empty_input(name):
    _ends_in_events_or_data_error(name, b"")


@pytest.mark.parametrize("name", IMPORTERS)
@pytest.mark.parametrize("fraction", [0.33, 0.5, 0.67, 0.9])
def test_truncated_input(name, fraction):
    for sample in samples_for(name):
        data = sample.read_bytes()
        _ends_in_events_or_data_error(name, data[: int(len(data) * fraction)])
        _ends_in_events_or_data_error(name, data[: int(len(data) * fraction)], strict=True)


@pytest.mark.parametrize("name", IMPORTERS)
def test_invalid_utf8_input(name):
    for sample in samples_for(name):
        data = sample.read_bytes()
        # Break a byte inside the text: replace one letter in the middle.
        middle = len(data) // 2
        position = next((i for i in range(middle, len(data)) if chr(data[i]).isalpha()), middle)
        _ends_in_events_or_data_error(name, data[:position] + b"\xff\xfe" + data[position + 1 :])


@pytest.mark.parametrize("name", IMPORTERS)
def test_nul_padded_input(name):
    for sample in samples_for(name):
        _ends_in_events_or_data_error(name, sample.read_bytes() + b"\x00" * 4096)


def large_stream(messages: int = 20000) -> list[dict]:
    events = sample_events()
    session, body, end = events[0], events[1:-1], events[-1]
    out = [session]
    for i in range(messages):
        template = body[i % len(body)]
        event = dict(template)
        if "id" in event:
            event["id"] = f"{template['id']}-{i}"
        if "toolCallId" in event:
            event["toolCallId"] = f"{template['toolCallId']}_{i // len(body)}"
        event["text"] = f"{template['text']} ({i}) " + "lorem ipsum " * 20
        out.append(event)
    out.append(end)
    return out


class _CountingRaw(io.RawIOBase):
    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.position = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), len(self.data) - self.position)
        buffer[:n] = self.data[self.position : self.position + n]
        self.position += n
        return n


LAZY = [n for n in IMPORTERS if REGISTRY.formats[n].exporter is not None]


@pytest.mark.parametrize("name", LAZY)
def test_first_event_arrives_before_the_input_is_read(name):
    data = sessionport.dumps(large_stream(), format=name)
    raw = _CountingRaw(data)
    ctx = ReadContext(name="<large>", on_warning=lambda message: None)
    events = REGISTRY.importer(name).read(io.BufferedReader(raw, buffer_size=64 * 1024), ctx)
    first = next(iter(events))
    assert first["type"] == "session"
    assert raw.position < len(data) / 2, f"{name} read {raw.position} of {len(data)} bytes before its first event"


@pytest.mark.parametrize("name", EXPORTERS)
def test_exporter_writes_the_sample_stream(name):
    data = sessionport.dumps(sample_events(), format=name)
    assert data, f"{name} wrote nothing"


@pytest.mark.parametrize("name", EXPORTERS)
def test_exporter_accepts_an_empty_stream(name):
    out = io.BytesIO()
    try:
        sessionport.write_events([], out, format=name)
    except SessionportError:
        pass


ROUND_TRIP = [n for n in EXPORTERS if REGISTRY.formats[n].importer is not None]


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_round_trip_keeps_user_and_assistant_texts(name):
    events = sample_events()
    back = sessionport.loads(sessionport.dumps(events, format=name), format=name)
    def texts(stream):
        return [(e["role"], e["text"]) for e in stream if e["type"] == "message" and e["role"] in ("user", "assistant") and (e.get("meta") or {}).get("kind", "text") == "text"]
    assert texts(back) == texts(events)
    calls = [e["toolName"] for e in back if (e.get("meta") or {}).get("kind") == "tool_use"]
    # the apps' writers give another app's calls their own tools (sessionport.toolmap)
    wanted = [map_call(name, e["toolName"], e.get("toolInput"))[0] for e in events if (e.get("meta") or {}).get("kind") == "tool_use"]
    assert calls == wanted
    assert set(wanted) == {"Bash", "Edit"} or name in ("codex", "gemini-cli", "qwen-code")


@pytest.mark.parametrize("name", ["portable", "portable-jsonl"])
def test_portable_formats_are_lossless_and_byte_stable(name):
    events = sample_events()
    once = sessionport.dumps(events, format=name)
    back = sessionport.loads(once, format=name)
    assert back == events
    assert sessionport.dumps(back, format=name) == once
