"""Round-trip properties over arbitrary valid event streams.

For the lossless formats, import(export(stream)) == stream, byte-stably.
For every other format that reads and writes, the user and assistant texts
and the tool calls survive, as their docs promise.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sessionport
from sessionport.registry import get_registry

REGISTRY = get_registry()
LOSSLESS = ["portable", "portable-jsonl"]
BOTH_WAYS = sorted(n for n, f in REGISTRY.formats.items() if f.importer and f.exporter and n not in LOSSLESS)

settings.register_profile("properties", max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile("properties")

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
plain_text = st.text(alphabet=st.characters(whitelist_categories=("L", "N"), max_codepoint=0x2FFF), min_size=1, max_size=30)
stamp = st.datetimes(timezones=st.none()).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.000Z"))
json_leaf = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text
json_object = st.dictionaries(st.text(max_size=8), st.recursive(json_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=3), max_leaves=6), max_size=4)


@st.composite
def message(draw, index: int):
    event = {"type": "message", "role": draw(st.sampled_from(["user", "assistant", "system", "tool"])), "text": draw(text)}
    for key, strategy in (("timestamp", stamp), ("id", st.text(min_size=1, max_size=12)), ("parentId", st.text(min_size=1, max_size=12)), ("toolName", st.text(min_size=1, max_size=12)), ("toolCallId", st.text(min_size=1, max_size=12)), ("toolInput", json_object), ("isError", st.booleans()), ("meta", json_object)):
        if draw(st.booleans()):
            event[key] = draw(strategy)
    return event


@st.composite
def stream(draw, max_sessions: int = 3):
    events = []
    for s in range(draw(st.integers(1, max_sessions))):
        session = {"type": "session", "schema": "sessionport/v1", "source": draw(st.sampled_from(["claude-code", "codex", "x"]))}
        for key, strategy in (("sessionId", st.text(min_size=1, max_size=20)), ("cwd", text), ("createdAt", stamp), ("title", text)):
            if draw(st.booleans()):
                session[key] = draw(strategy)
        session["metadata"] = draw(json_object)
        events.append(session)
        for i in range(draw(st.integers(0, 6))):
            events.append(draw(message(i)))
        if draw(st.booleans()):
            events.append({"type": "end", "usage": {"input_tokens": draw(st.integers(0, 10**9)), "output_tokens": draw(st.integers(0, 10**6))}})
    return events


@pytest.mark.parametrize("name", LOSSLESS)
@given(events=stream())
def test_lossless_round_trip(name, events):
    data = sessionport.dumps(events, format=name)
    back = sessionport.loads(data, format=name)
    assert back == events
    assert sessionport.dumps(back, format=name) == data


@st.composite
def conversation(draw):
    """One session of a typical shape: prompts, answers, paired tool calls."""
    events = [{"type": "session", "schema": "sessionport/v1", "source": "x", "sessionId": "s-1", "cwd": "/work", "createdAt": "2025-01-01T00:00:00.000Z", "metadata": {}}]
    for turn in range(draw(st.integers(1, 4))):
        events.append({"type": "message", "role": "user", "text": draw(plain_text), "timestamp": "2025-01-01T00:00:01.000Z"})
        for call in range(draw(st.integers(0, 2))):
            call_id = f"call_{turn}_{call}"
            events.append({"type": "message", "role": "tool", "text": "", "toolName": draw(st.sampled_from(["Bash", "Read", "shell"])), "toolCallId": call_id, "toolInput": {"command": draw(plain_text)}, "meta": {"kind": "tool_use"}})
            events.append({"type": "message", "role": "tool", "text": draw(plain_text), "toolCallId": call_id, "meta": {"kind": "tool_result"}})
        events.append({"type": "message", "role": "assistant", "text": draw(plain_text), "timestamp": "2025-01-01T00:00:02.000Z"})
    return events


def _texts(events, role):
    return [e["text"].strip() for e in events if e.get("type") == "message" and e["role"] == role and (e.get("meta") or {}).get("kind", "text") == "text"]


@pytest.mark.parametrize("name", BOTH_WAYS)
@given(events=conversation())
def test_texts_and_calls_survive(name, events):
    back = sessionport.loads(sessionport.dumps(events, format=name), format=name)
    assert " ".join(_texts(back, "user")).split() == " ".join(_texts(events, "user")).split()
    assert " ".join(_texts(back, "assistant")).split() == " ".join(_texts(events, "assistant")).split()
    calls = [e for e in back if (e.get("meta") or {}).get("kind") == "tool_use"]
    results = [e for e in back if (e.get("meta") or {}).get("kind") == "tool_result"]
    assert len(calls) == len([e for e in events if (e.get("meta") or {}).get("kind") == "tool_use"])
    assert {r["toolCallId"] for r in results} <= {c["toolCallId"] for c in calls}, "every result stays paired with a call"
