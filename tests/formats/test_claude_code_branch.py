"""``--branch latest``: a Claude Code session as ``claude --resume`` rebuilds it
(tests/conformance compares it with the real app's history)."""

from __future__ import annotations

import sessionport
from conftest import FIXTURES, corpus_path, run_cli


def texts(events, role="user"):
    # What a person typed or the model wrote; hook output and other context
    # the app injects (meta.injected) is left out.
    return [
        e["text"] for e in events
        if e["type"] == "message" and e["role"] == role and (e.get("meta") or {}).get("kind", "text") == "text" and not (e.get("meta") or {}).get("injected")
    ]


def test_latest_follows_the_newest_leaf_and_leaves_the_edited_branch_out():
    path = str(corpus_path("claude-code", "10_cc-2.1.42_03eb5929_hook-progress-branches.jsonl"))
    every = list(sessionport.read(path))
    latest = list(sessionport.read(path, options={"branch": "latest"}))
    # the first prompt of the abandoned branch, and the one that replaced it
    abandoned = [t for t in texts(every) if t.startswith("I very much like this idea")]
    kept = [t for t in texts(every) if t.startswith("I actually don't like much this idea")]
    assert abandoned and kept
    assert abandoned[0] not in texts(latest) and kept[0] in texts(latest)
    assert texts(latest)[0].startswith("Ok, so there's isn't much to see here")
    # the chain is whole: each message's parent is the message before it
    messages = [e for e in latest if e["type"] == "message"]
    assert all(b.get("parentId") == a["id"] for a, b in zip(messages, messages[1:]))
    end = latest[-1]
    assert end["type"] == "end" and any("--branch latest: 10 message(s)" in n for n in end["notes"])
    # the default is unchanged: every branch, in file order
    assert len([e for e in every if e["type"] == "message"]) == len(messages) + 10


def test_latest_keeps_every_block_and_result_of_parallel_calls():
    path = str(corpus_path("claude-code", "11_cc-2.1.114_project", "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"))
    latest = [e for e in sessionport.read(path, options={"branch": "latest", "no_subagents": True}) if e["type"] == "message"]
    calls = {e["toolCallId"] for e in latest if (e.get("meta") or {}).get("kind") == "tool_use"}
    results = {e["toolCallId"] for e in latest if (e.get("meta") or {}).get("kind") == "tool_result"}
    assert calls == results and len(calls) == 40
    assert texts(latest)[0].startswith("OK, we're going to make a little experiment here")


def test_a_linear_session_reads_the_same_either_way():
    path = str(corpus_path("claude-code", "04_cc-2.0.24_pomodoro_file-history-snapshot.jsonl"))
    every = [e for e in sessionport.read(path) if e["type"] == "message"]
    latest = [e for e in sessionport.read(path, options={"branch": "latest"}) if e["type"] == "message"]
    assert latest == every


def test_an_unknown_branch_is_a_usage_error():
    done = run_cli("convert", corpus_path("claude-code", "04_cc-2.0.24_pomodoro_file-history-snapshot.jsonl"), "--branch", "newest", "--to", "markdown")
    assert done.returncode == 2
    assert b"--branch must be one of all, latest" in done.stderr and b"Traceback" not in done.stderr


def test_latest_from_a_pipe(tmp_path):
    path = corpus_path("claude-code", "10_cc-2.1.42_03eb5929_hook-progress-branches.jsonl")
    done = run_cli("convert", "-", "--from", "claude-code", "--branch", "latest", "--to", "portable-jsonl", input=path.read_bytes())
    assert done.returncode == 0, done.stderr
    assert b"I very much like this idea" not in done.stdout and b"I actually don't like much this idea" in done.stdout


PARALLEL = FIXTURES / "claude-code" / "session-2.1.92-parallel-results.jsonl"


def test_latest_ends_where_the_turn_ends_when_system_lines_close_it():
    """A 2.1.9x turn ends with ``stop_hook_summary`` and ``turn_duration``
    system lines, and each result of a parallel call hangs off its own call:
    the newest leaf among user and assistant lines was a parallel result of
    an earlier answer, and the answers after it were left out (in a real
    2.1.90 session, Xu-Wentao/dotfile, 9 of its 28 messages, the last two
    turns, which Claude Code itself resumes)."""
    every = [e for e in sessionport.read(str(PARALLEL)) if e["type"] == "message"]
    events = list(sessionport.read(str(PARALLEL), options={"branch": "latest"}))
    latest = [e for e in events if e["type"] == "message"]
    assert [e["id"] for e in latest] == [e["id"] for e in every]
    assert latest[-1]["text"] == "The port comes from the PORT environment variable (default 8080)."
    assert not any("--branch latest" in n for n in events[-1].get("notes") or [])
