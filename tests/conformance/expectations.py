"""What the apps do differently from sessionport by design, named one by one."""

from __future__ import annotations

import pytest

from sessionport.toolmap import map_call

# Files the app itself cannot resume, and why.
NOT_RESUMABLE = {
    ("claude-code", "05_cc-2.0.37_agent-0c78cdae_warmup-sidechain.jsonl"): "a subagent transcript (sessionId agent-...), not a session of its own",
    ("claude-code", "12_cc_summary-only_4e27c414.jsonl"): "holds only a summary record, no conversation",
    ("claude-code", "13_cc-2.1.x_snapshot-only_a95fea4a.jsonl"): "holds only file-history snapshots, no conversation",
    ("claude-code", "14_cc_empty-0-bytes_2c5941bd.jsonl"): "an empty file",
    ("codex", "codex-legacy-2025-08-23-prenv-reasoning-text.jsonl"): "a pre-envelope rollout (before session_meta lines): Codex 0.171 reads it as empty",
    ("codex", "codex-legacy-2025-08-23-prenv-typical.jsonl"): "a pre-envelope rollout (before session_meta lines): Codex 0.171 reads it as empty",
}

IMPORT_XFAIL: dict = {}


def import_call_names(app: str, ours: list[dict]) -> str:
    """Claude Code 2.1 renamed its ``Task`` tool ``Agent`` and replays old
    calls under the new name: rename in sessionport's items, and say so."""
    if app != "claude-code":
        return ""
    n = 0
    for x in ours:
        if x["cat"] == "C" and x.get("name") == "Task":
            x["name"] = "Agent"
            n += 1
    return f"{n} Task call(s) replayed by the app as Agent" if n else ""

EXPORT_XFAIL: dict = {}

# (source format, target app, file name): exports the target app cannot resume, and why.
EXPORT_NOT_RESUMABLE = {
    ("claude-code", "claude-code", "05_cc-2.0.37_agent-0c78cdae_warmup-sidechain.jsonl"): (
        "a subagent transcript on its own is written as the sidechain it is; Claude Code resumes only a main thread"
    ),
}


def unpaired_calls(app: str, want: list[dict]) -> list[dict]:
    """Calls that have no result in the source: Claude Code leaves a
    ``tool_use`` without its ``tool_result`` out of the history it sends."""
    if app != "claude-code":
        return []
    answered = {x.get("id") for x in want if x["cat"] == "R"}
    return [x for x in want if x["cat"] == "C" and x.get("id") and x["id"] not in answered]


def expected_call(app: str, name, tool_input):
    """The call the app should hold for a source call: sessionport's tool-name
    mapping for the app, then the app's own renames (Claude Code 2.1 replays
    ``Task`` as ``Agent``)."""
    name, tool_input = map_call(app, name, tool_input)
    if app == "claude-code" and name == "Task":
        name = "Agent"
    return name, tool_input


# (app, file name): how many items of the original's replay may be missing
# from the replay of its export to the same app, and why.  Items only the
# export has are allowed for these files alone.
# Rollouts of 0.118 and later name a collaboration mode in their turn_context.
_TURN_SETTINGS = (
    "Codex states its collaboration-mode instructions afresh from the turn_context, and the export's "
    "turn_context carries the model, cwd and policies only, not collaboration_mode or personality"
)
OWN_REPLAY_DIFFERS = {
    ("codex", "rollout-typescript.json"): (0, "a TypeScript-era document: Codex 0.171 resumes it as an empty thread; the export is a rollout it replays in full"),
    ("codex", "rollout-0.146-event-first-prompts.jsonl"): (
        0,
        "prompts recorded only as user_message events: Codex does not replay them from the original, the export writes them as the messages they were",
    ),
    ("codex", "rollout-0.146-event-only.jsonl"): (
        1,
        "prompts, web searches, MCP calls and a shell result recorded only as events: the export writes them as items (the shell call's real output in place of the \"aborted\" output item)",
    ),
    ("codex", "rollout-0.155-context-compaction.jsonl"): (1, "the additional_tools item (tool definitions offered mid-thread) is not carried"),
    ("codex", "rollout-0.118-parallel-exec.jsonl"): (
        1,
        _TURN_SETTINGS,
    ),
    ("codex", "rollout-0.121-approval-between-call-and-output.jsonl"): (
        1,
        _TURN_SETTINGS,
    ),
    ("codex", "rollout-0.121-error-events.jsonl"): (
        1,
        "no answer names the model (both turns failed): the export writes no turn_context, so Codex adds a <model_switch> notice the original's replay has not",
    ),
    ("codex", "rollout-0.171-scripted.jsonl"): (
        0,
        "Codex states its skills afresh (a \"Skills update\" developer message): the export does not carry world_state, Codex's record of the context it already gave the model",
    ),
    ("codex", "rollout-0.17x-item-fields.jsonl"): (
        0,
        "the export records the prompt as a user_message event too, as Codex writes it beside the item; from that turn Codex 0.171 knows the "
        "earlier turn's model (gpt-5.5) and, resumed under another model, adds a <model_switch> notice; the original, whose turn has no "
        "such event, is replayed without it",
    ),
    ("gemini-cli", "session-2026-12-02T10-00-3e7b1d9a.jsonl"): (
        4,
        "Gemini CLI's history rewrite ($set.messages) gives each call of a parallel batch the whole batch of responses as its result, "
        "and its resume of that file sends every response once per call (4 for 2 calls); the export gives each call its own "
        "response, sent once",
    ),
}
