"""Gemini CLI sub-agent logs (``chats/<parent session id>/<agent id>.jsonl``)
are read after their parent's log, as Claude Code's subagent transcripts
are: from the parent file, and from a directory walk that then passes over
them; a log whose parent is not there is still read on its own."""

from __future__ import annotations

import json
import shutil

import sessionport
from conftest import FIXTURES, run_cli

PROJECT = FIXTURES / "gemini-cli-subagents"
PARENT_ID = "5a1c9e2f-3b4d-4e6f-8a0b-1c2d3e4f5a6b"
AGENT_ID = "7e0d3c4b-9a8b-4c6d-8e2f-0a1b2c3d4e5f"
PARENT = PROJECT / "chats" / f"session-2026-12-01T20-10-{PARENT_ID[:8]}.jsonl"
AGENT = PROJECT / "chats" / PARENT_ID / f"{AGENT_ID}.jsonl"


def _sessions(events) -> list[dict]:
    return [e for e in events if e["type"] == "session"]


def test_the_parent_file_is_followed_by_its_sub_agent():
    events = list(sessionport.read(str(PARENT)))
    parent, agent = _sessions(events)
    assert parent["sessionId"] == PARENT_ID and parent["metadata"]["subagents"] == [AGENT_ID]
    assert agent["sessionId"] == AGENT_ID
    assert agent["metadata"]["parentSessionId"] == PARENT_ID and agent["metadata"]["agentId"] == AGENT_ID
    call = next(e for e in events if e.get("meta", {}).get("agentId") == AGENT_ID)
    assert agent["metadata"]["parentToolCallId"] == call["toolCallId"]
    # the parent's messages, its end, then the agent's session
    assert events.index(agent) > max(i for i, e in enumerate(events[: events.index(agent)]) if e["type"] == "end")
    assert [e["text"] for e in events[events.index(agent) :] if e["type"] == "message" and e["role"] == "assistant"] == ["src/retry.ts sets MAX_RETRIES = 3 (line 12)."]


def test_no_subagents_leaves_them_out():
    events = list(sessionport.read(str(PARENT), options={"no_subagents": True}))
    [parent] = _sessions(events)
    assert "subagents" not in parent["metadata"]
    printed = json.loads(run_cli("inspect", "--json", "--no-subagents", PARENT).stdout)
    assert printed["sessionCount"] == 1


def test_a_directory_walk_reads_each_session_once_parent_first():
    printed = json.loads(run_cli("inspect", "--json", PROJECT).stdout)
    assert [s["sessionId"] for s in printed["sessions"]] == [PARENT_ID, AGENT_ID]
    assert printed["sessions"][1]["parentSessionId"] == PARENT_ID
    # named on its own, the agent's log is its own session, as before
    alone = json.loads(run_cli("inspect", "--json", AGENT).stdout)
    assert [s["sessionId"] for s in alone["sessions"]] == [AGENT_ID]


def test_a_sub_agent_without_its_parent_log_is_read_by_the_walk(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    (project / "chats" / PARENT.name).unlink()
    printed = json.loads(run_cli("inspect", "--json", project).stdout)
    assert [s["sessionId"] for s in printed["sessions"]] == [AGENT_ID]


def test_a_parent_log_not_named_by_the_app_leaves_its_folder_to_the_walk(tmp_path):
    # gemini-cli names a session's log session-<time>-<first 8 of its id>;
    # under another name it is not taken as the parent: the walk reads the
    # agent's log itself, and nothing is read twice or lost
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    (project / "chats" / PARENT.name).rename(project / "chats" / "session-renamed.jsonl")
    printed = json.loads(run_cli("inspect", "--json", project).stdout)
    assert sorted(s["sessionId"] for s in printed["sessions"]) == sorted([PARENT_ID, AGENT_ID])
    parent = _sessions(sessionport.read(str(project / "chats" / "session-renamed.jsonl")))
    assert len(parent) == 1 and "subagents" not in parent[0]["metadata"]
