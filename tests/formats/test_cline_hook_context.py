"""Cline's hooks (TaskStart, UserPromptSubmit, TaskResume, PreToolUse,
PostToolUse, 2025-11 on) put what they return in the user's turn as a block
``<hook_context source="…">``: harness text, not what the user typed."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext


def _messages(path) -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append)))
    assert warnings == []
    return [e for e in events if e["type"] == "message"]


def test_a_hook_context_block_is_injected_not_typed(tmp_path):
    """Cline's hooks add ``<hook_context source="UserPromptSubmit">`` as a text
    block of its own beside what the user typed (cline/cline: the
    task's ``hookContextModification``; src/shared/messages/constants.ts at
    64fde3a39be0f0311a2c97729c8fa927b01ff8b0 lists ``<hook_context`` among its
    SYSTEM_CONTENT_MARKERS, beside ``[TASK RESUMPTION]``)."""
    task = tmp_path / "tasks" / "1790000000000"
    task.mkdir(parents=True)
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps([
        {"role": "user", "content": [
            {"type": "text", "text": "<task>\nfix the bug\n</task>"},
            {"type": "text", "text": '<hook_context source="UserPromptSubmit">\nBranch: main, 2 files changed\n</hook_context>'},
        ], "ts": 1790000000000},
        {"role": "assistant", "content": [{"type": "text", "text": "On it."}], "modelInfo": {"modelId": "claude-sonnet-4-6", "providerId": "anthropic", "mode": "act"}, "ts": 1790000001000},
    ]))
    users = [m for m in _messages(path) if m["role"] == "user"]
    assert [m["meta"].get("injectedKind") for m in users] == [None, "hook_context"]


def test_a_hook_context_message_of_a_cline_3_session_is_injected(tmp_path):
    # Cline 3 (@cline/core) writes a hook's context as a user message shown as
    # a system line (metadata.displayRole "system"): <hook_context source="RunStart">
    sid = "1795300000000_h00k5"
    folder = tmp_path / sid
    folder.mkdir()
    path = folder / f"{sid}.messages.json"
    path.write_text(json.dumps({
        "version": 1, "updated_at": "2026-11-20T10:00:05.000Z", "agent": "lead", "sessionId": sid,
        "origin": {"source": "cli", "mode": "act", "version": "3.0.65"},
        "messages": [
            {"id": "m1", "role": "user", "content": [{"type": "text", "text": '<hook_context source="RunStart">\n<memory version="1" phase="0">prefers tabs</memory>\n</hook_context>'}],
             "metadata": {"displayRole": "system"}, "ts": 1795300000500},
            {"id": "m2", "role": "user", "content": [{"type": "text", "text": "Rename the module"}], "ts": 1795300001000},
            {"id": "m3", "role": "assistant", "content": [{"type": "text", "text": "Renamed."}], "ts": 1795300002000},
        ],
        "system_prompt": "You are Cline.",
    }))
    users = [m for m in _messages(path) if m["role"] == "user"]
    assert [(m["text"].split("\n")[0], m["meta"].get("injectedKind")) for m in users] == [
        ('<hook_context source="RunStart">', "hook_context"),
        ("Rename the module", None),
    ]
