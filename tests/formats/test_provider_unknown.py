"""The one policy for the unknown in the provider readers: a content part of
a type the reader does not know stays visible as a placeholder, is counted
in ``end.unknown``, warned about once per type, and is an error with
``--strict``."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli

CASES = {
    "anthropic-messages": [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "holo_block", "x": 1}, {"type": "holo_block", "x": 2}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
    ],
    "openai-chat": [
        {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "holo_block", "x": 1}, {"type": "holo_block", "x": 2}]},
        {"role": "assistant", "content": "hello"},
    ],
    "openai-responses": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}, {"type": "holo_block"}, {"type": "holo_block"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]},
    ],
    "gemini": {"contents": [
        {"role": "user", "parts": [{"text": "hi"}, {"holoBlock": {"x": 1}}, {"holoBlock": {"x": 2}}]},
        {"role": "model", "parts": [{"text": "hello"}]},
    ]},
}


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_an_unknown_part_is_kept_counted_and_reported_once(fmt, tmp_path):
    path = tmp_path / f"{fmt}.json"
    path.write_text(json.dumps(CASES[fmt]))
    done = run_cli("convert", path, "--from", fmt, "--to", "portable-jsonl")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    name = "holoBlock" if fmt == "gemini" else "holo_block"
    texts = [e["text"] for e in events if e["type"] == "message"]
    assert texts.count(f"[{name}]") == 2 and "hi" in texts and "hello" in texts
    what = "content part" if fmt == "gemini" else "content block"
    assert events[-1]["type"] == "end" and events[-1]["unknown"] == {what: {name: 2}}
    warning = f"2 {what}s of a type this version of sessionport does not know: `{name}`".encode()
    assert done.stderr.count(warning) == 1, done.stderr


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_strict_makes_an_unknown_part_an_error(fmt, tmp_path):
    path = tmp_path / f"{fmt}.json"
    path.write_text(json.dumps(CASES[fmt]))
    done = run_cli("convert", path, "--from", fmt, "--to", "portable-jsonl", "--strict")
    assert done.returncode == 1
    assert b"does not know" in done.stderr and b"Traceback" not in done.stderr
