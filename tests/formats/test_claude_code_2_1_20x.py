"""Claude Code 2.1.204/2.1.205: how their files open.

Real homes of these versions show two openings detection must know:

- a forked sub-agent's transcript (``<session>/subagents/agent-<id>.jsonl``)
  starts with a ``fork-context-ref`` line that has no ``sessionId`` (only
  ``agentId``, ``parentSessionId``, ``parentLastUuid``, ``contextLength``);
  ``fixtures/claude-code/subagent-2.1.204-fork.jsonl``;
- 2.x writes a chain record's envelope after its message, so the
  ``sessionId`` of a first prompt with a large pasted image sits megabytes
  into the line; ``fixtures/claude-code/session-2.1.205-image-first.jsonl``.

The fixtures hold invented content in the records' real shape.
"""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

FORK = FIXTURES / "claude-code" / "subagent-2.1.204-fork.jsonl"
IMAGE_FIRST = FIXTURES / "claude-code" / "session-2.1.205-image-first.jsonl"


def lines(path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def events_of(path) -> list[dict]:
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_fork_transcript_reads_with_its_reference_counted():
    events = events_of(FORK)
    end = events[-1]
    assert end["skipped"] == {"fork-context-ref": 1}
    assert not end.get("unknown")
    messages = [e for e in events if e["type"] == "message"]
    raw = [json.loads(line) for line in lines(FORK)]
    assert len(messages) == sum(len(r["message"]["content"]) for r in raw if r["type"] in ("user", "assistant"))
    calls = {m["toolCallId"] for m in messages if m.get("meta", {}).get("kind") == "tool_use"}
    results = {m["toolCallId"] for m in messages if m.get("meta", {}).get("kind") == "tool_result"}
    assert calls == results == {"toolu_01Fork000000000000001"}


def test_fork_reference_alone_is_known(tmp_path):
    # a fork stopped before it wrote a message: only its reference line
    path = tmp_path / "agent-a1b2c3d4e5f60718a.jsonl"
    path.write_text(lines(FORK)[0] + "\n", encoding="utf-8")
    result = run_cli("inspect", path)
    assert b"could not be recognised" not in result.stderr, result.stderr
    assert b"fork-context-ref" in result.stdout + result.stderr


def test_fork_reference_before_a_line_longer_than_the_head(tmp_path):
    ref, call, result_line, answer = lines(FORK)
    record = json.loads(result_line)
    record["message"]["content"][1]["text"] += " and the rows after it" * 8000  # about 170 KB
    path = tmp_path / "agent-a1b2c3d4e5f60718a.jsonl"
    path.write_text("\n".join([ref, json.dumps(record, ensure_ascii=False), call, answer]) + "\n", encoding="utf-8")
    events = events_of(path)
    assert events[0]["type"] == "session"
    assert sum(1 for e in events if e["type"] == "message") == 4


def test_first_line_past_the_detection_look_with_envelope_last(tmp_path):
    # a first prompt with a pasted image of more than the 4 MiB detection
    # reads of a first line: its sessionId comes after the image
    prompt, answer = lines(IMAGE_FIRST)
    record = json.loads(prompt)
    record["message"]["content"][0]["source"]["data"] = "iVBOR" + "A" * (5 << 20)
    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
    assert text.index('"sessionId"') > 4 << 20
    path = tmp_path / "3d4e5f60-7182-4a3b-9c4d-5e6f708192a3.jsonl"
    path.write_text(text + "\n" + answer + "\n", encoding="utf-8")
    events = events_of(path)
    assert events[0]["type"] == "session"
    assert events[0]["sessionId"] == "3d4e5f60-7182-4a3b-9c4d-5e6f708192a3"
    messages = [e for e in events if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["text"].startswith("[image: image/png")
    assert events[-1]["usage"]["output_tokens"] == 9


def test_image_first_session_as_written():
    events = events_of(IMAGE_FIRST)
    messages = [e for e in events if e["type"] == "message"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert events[0]["metadata"]["version"] == "2.1.205"
