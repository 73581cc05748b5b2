"""The agents of a Claude Code ``Workflow`` run, and the other files a
session keeps in its folder.

Since mid-2026 a ``Workflow`` tool call starts a run whose agents write
their transcripts one level below the usual subagents:
``<session-id>/subagents/workflows/<run-id>/agent-<id>.jsonl``, beside the
run's ``journal.jsonl`` and an ``agent-<id>.meta.json`` sidecar, with the
run's record in ``<session-id>/workflows/<run-id>.json``; oversized tool
outputs go to ``<session-id>/tool-results/``.  The layout and the run ids
(``wf_<8 hex>-<3 hex>``) are as real paths are quoted in public chat
archives and notes (``…/subagents/workflows/wf_50e0dddc-a58/agent-a198ab9394efa0ce5.jsonl``,
``…/tool-results/toolu_….json``), the ``Workflow`` result text and its
``toolUseResult`` (``runId``, ``transcriptDir``) as daaain/claude-code-log's
``test/test_data/workflow_scriptpath`` fixtures (commit
637b65cec1cbab0fcc6dfd7ab7f688c833c3bbc8) and a quoted real result show
them.  The fixture ``fixtures/claude-code/workflow-project`` has that
layout with synthetic texts.
"""

from __future__ import annotations

import json
import shutil

import orjson

import sessionport
from conftest import FIXTURES, run_cli, jsonl_records as records

PROJECT = FIXTURES / "claude-code" / "workflow-project"
SESSION = PROJECT / "7c0e3b52-9d41-4f6a-b8e2-0a5d6c1f2e93.jsonl"
RUN = "wf_3fa9c1d2-8e4"
AGENT_FILE = PROJECT / SESSION.stem / "subagents" / "workflows" / RUN / "agent-a5d81c07e2b94f36a.jsonl"


def test_the_agents_of_a_workflow_run_follow_the_session():
    (call,) = [b for r in records(SESSION) if r["type"] == "assistant" for b in r["message"]["content"] if b["type"] == "tool_use"]
    agent_texts = [r["message"]["content"] if r["type"] == "user" else r["message"]["content"][0]["text"] for r in records(AGENT_FILE)]

    result = run_cli("convert", SESSION, "--to", "portable-jsonl", "--strict")
    assert result.returncode == 0, result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    sessions = [e for e in events if e["type"] == "session"]
    assert [s["sessionId"] for s in sessions] == [SESSION.stem, "agent-a5d81c07e2b94f36a"]
    assert sessions[0]["metadata"]["subagents"] == ["a5d81c07e2b94f36a"]
    agent = sessions[1]["metadata"]
    assert agent["parentSessionId"] == SESSION.stem
    assert agent["parentToolCallId"] == call["id"]  # the Workflow call that started the run
    assert agent["workflowRunId"] == RUN
    start = events.index(sessions[1])
    assert [e["text"] for e in events[start:] if e["type"] == "message"] == agent_texts
    (first_end, _) = [e for e in events if e["type"] == "end"]
    assert any(f"workflows/{RUN}/agent-a5d81c07e2b94f36a.jsonl" in n for n in first_end["notes"])
    assert b"does not know" not in result.stderr


def test_no_subagents_leaves_the_run_out_and_says_so():
    events = list(sessionport.read(str(SESSION), options={"no_subagents": True}))
    assert [e["sessionId"] for e in events if e["type"] == "session"] == [SESSION.stem]
    assert any("left out (--no-subagents)" in n and RUN in n for n in events[-1]["notes"])


def _with_session_folder_files(tmp_path):
    """The project, with the other files Claude Code keeps in a session's
    folder: the run's journal and the agent's sidecar, the run record, an
    oversized tool output."""
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    folder = project / SESSION.stem
    run = folder / "subagents" / "workflows" / RUN
    journal = [{"type": "started", "key": "v2:guides", "agentId": AGENT_FILE.stem[len("agent-"):]},
               {"type": "result", "key": "v2:guides", "agentId": AGENT_FILE.stem[len("agent-"):], "result": "guides/setup.md: /install/legacy is dead"}]
    (run / "journal.jsonl").write_text("".join(json.dumps(r) + "\n" for r in journal))
    (run / (AGENT_FILE.stem + ".meta.json")).write_text(json.dumps({"agentType": "general-purpose", "description": "guides batch", "spawnDepth": 1}))
    (folder / "workflows").mkdir()
    (folder / "workflows" / f"{RUN}.json").write_text(json.dumps({"runId": RUN, "status": "completed"}))
    (folder / "tool-results").mkdir()
    (folder / "tool-results" / "toolu_01WfLaunch0000000000009.json").write_text(json.dumps([{"type": "text", "text": "a long output"}]))
    return project


def test_a_directory_walk_reads_the_session_once_and_skips_its_folder(tmp_path):
    """The journal, sidecars, run records and tool results in a session's
    folder hold no session of their own: a walk of the projects folder used
    to stop on each of them as an unrecognised file (exit 1)."""
    project = _with_session_folder_files(tmp_path)
    out = tmp_path / "out"
    result = run_cli("convert", project, "--to", "markdown", "-o", f"{out}/")
    assert result.returncode == 0, result.stderr
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [f"{SESSION.stem}.md"]
    text = (out / f"{SESSION.stem}.md").read_text()
    assert "/install/legacy, which no longer exists" in text  # the workflow agent, read with its session
    assert b"could not be recognised" not in result.stderr


def test_a_folder_of_the_users_own_beside_a_jsonl_is_still_walked(tmp_path):
    """Only a session-UUID folder beside its session file is Claude Code's."""
    shutil.copy(SESSION, tmp_path / "notes.jsonl")
    (tmp_path / "notes").mkdir()
    shutil.copy(SESSION, tmp_path / "notes" / "kept.jsonl")
    out = tmp_path / "out"
    result = run_cli("convert", tmp_path / "notes.jsonl", tmp_path / "notes", "--to", "markdown", "-o", f"{out}/")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.rglob("*.md")) == ["kept.md", "notes.md"]


def test_a_chats_folder_named_by_a_session_is_still_walked(tmp_path):
    """Gemini CLI and Qwen Code keep sub-agent logs in ``chats/<session id>/``;
    those are sessions of their own, not a Claude Code session's folder."""
    chats = tmp_path / "chats"
    (chats / SESSION.stem).mkdir(parents=True)
    shutil.copy(SESSION, chats / SESSION.name)
    shutil.copy(SESSION, chats / SESSION.stem / "child.jsonl")
    out = tmp_path / "out"
    result = run_cli("convert", chats, "--to", "markdown", "-o", f"{out}/")
    assert result.returncode == 0, result.stderr
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.md")) == [f"{SESSION.stem}.md", f"{SESSION.stem}/child.md"]
