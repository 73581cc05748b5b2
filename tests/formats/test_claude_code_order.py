"""Claude Code 2.1.97 sometimes writes a tool's result a line or three
before the line of the call it answers (its ``parentUuid`` names that
line): the reader puts the result after its call, and leaves every other
order as the file has it (formats/claude_code/order.py)."""

from __future__ import annotations

import json

from sessionport.formats.claude_code.order import HOLD_EVENTS, calls_before_results

from conftest import FIXTURES, run_cli


def _msg(kind: str, call_id: str | None = None, n: int = 0) -> dict:
    event = {"type": "message", "role": "tool" if kind.startswith("tool") else "assistant", "text": f"{kind} {n}", "meta": {"kind": kind}}
    if call_id:
        event["toolCallId"] = call_id
    return event


def test_a_result_before_its_call_comes_after_it():
    session, end = {"type": "session", "sessionId": "s"}, {"type": "end"}
    text, call, result, later = _msg("text"), _msg("tool_use", "a"), _msg("tool_result", "a"), _msg("text", n=1)
    assert list(calls_before_results([session, result, text, call, later, end])) == [session, text, call, result, later, end]


def test_results_whose_calls_are_in_order_or_never_come_keep_their_place():
    call, result = _msg("tool_use", "a"), _msg("tool_result", "a")
    assert list(calls_before_results([call, result])) == [call, result]
    orphan = _msg("tool_result", "gone")  # a session resumed mid-way: its call is in no file
    rest = [_msg("text", n=n) for n in range(HOLD_EVENTS + 3)]
    assert list(calls_before_results([orphan, *rest])) == [orphan, *rest]
    end = {"type": "end"}
    assert list(calls_before_results([orphan, rest[0], end])) == [orphan, rest[0], end]


def test_several_results_before_their_calls():
    r1, r2, c1, c2 = _msg("tool_result", "a"), _msg("tool_result", "b"), _msg("tool_use", "a"), _msg("tool_use", "b")
    assert list(calls_before_results([r1, r2, c1, c2])) == [c1, r1, c2, r2]


def test_a_session_of_results_before_their_calls_writes_back_each_call_once(tmp_path):
    """The fixture with each result line moved before its call line, as
    2.1.97 writes them: read in causal order, written back with no call made
    up for a result."""
    lines = [json.loads(line) for line in (FIXTURES / "claude-code" / "session.jsonl").read_text().splitlines() if line.strip()]
    calls = {b["id"]: n for n, r in enumerate(lines) if r.get("type") == "assistant"
             for b in r["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}
    moved = list(lines)
    for n, record in enumerate(lines):
        content = record.get("message", {}).get("content")
        if record.get("type") == "user" and isinstance(content, list) and any(b.get("type") == "tool_result" for b in content if isinstance(b, dict)):
            call_at = calls[next(b["tool_use_id"] for b in content if b.get("type") == "tool_result")]
            moved.remove(record)
            moved.insert(moved.index(lines[call_at]), record)
    assert moved != lines
    source = tmp_path / "session.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in moved))

    def events(path):
        done = run_cli("convert", path, "--to", "portable-jsonl")
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()], done.stderr

    original, _ = events(FIXTURES / "claude-code" / "session.jsonl")
    reordered, _ = events(source)
    kinds = lambda evs: [(e.get("meta") or {}).get("kind", "text") + ":" + str(e.get("toolCallId")) for e in evs if e["type"] == "message"]  # noqa: E731
    assert kinds(reordered) == kinds(original)
    back = tmp_path / "back.jsonl"
    done = run_cli("convert", source, "--to", "claude-code", "-o", back)
    assert done.returncode == 0 and b"without a call" not in done.stderr, done.stderr
    written_calls = [b["id"] for line in back.read_text().splitlines() for r in [json.loads(line)] if r.get("type") == "assistant"
                     for b in r["message"]["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]
    assert sorted(written_calls) == sorted(calls) and len(set(written_calls)) == len(written_calls)
