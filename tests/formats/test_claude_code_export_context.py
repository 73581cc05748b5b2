"""The claude-code exporter writes what Claude Code sends its model again on
resume the way Claude Code itself writes it: a background task's
notification as a user turn naming its origin, hook context and queued
prompts as attachments in the chain, ToolSearch results as ``tool_reference``
blocks.  The listings the app states afresh on resume stay beside the chain.
(tests/conformance checks with the real apps that 2.1.197 and 2.1.332 replay them.)"""

from __future__ import annotations

import orjson

import sessionport

from conftest import corpus_path, requires_corpus

TEAM = "claude-code/11_cc-2.1.114_project/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
NOTICE = (
    "<task-notification>\n<task-id>af2f8636f57c98d89</task-id>\n<tool-use-id>toolu_script_5</tool-use-id>\n"
    "<status>completed</status>\n<summary>Agent \"Sub task\" finished</summary>\n<result>Sub-agent done.</result>\n</task-notification>"
)


def lines_of(events: list[dict]) -> list[dict]:
    return [orjson.loads(x) for x in sessionport.dumps(events, "claude-code").splitlines()]


def session(*messages: dict) -> list[dict]:
    head = {"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "6b1f0c3e-2a4d-4e8f-9c1b-7d2e5f3a9b10", "metadata": {"version": "2.1.332"}}
    return [head, *messages]


def message(role: str, text: str, **meta) -> dict:
    return {"type": "message", "role": role, "text": text, "meta": meta}


def test_a_task_notification_is_a_user_turn_that_names_its_origin(tmp_path):
    events = session(
        message("user", "run the sub task"),
        message("assistant", "All steps done."),
        message("user", NOTICE, injected=True, injectedKind="task-notification"),
        message("assistant", "The sub-agent is done."),
    )
    lines = lines_of(events)
    (notice,) = [x for x in lines if "task-notification" in orjson.dumps(x).decode()]
    assert notice["type"] == "user" and notice["message"] == {"role": "user", "content": NOTICE}
    assert notice["origin"] == {"kind": "task-notification"}
    assert lines[-1]["parentUuid"] == notice["uuid"], "the answer follows the notification in the chain"
    path = tmp_path / "s.jsonl"
    path.write_bytes(sessionport.dumps(events, "claude-code"))
    back = [e for e in sessionport.read(str(path)) if e["type"] == "message"]
    assert [(e["role"], e["text"], (e.get("meta") or {}).get("injectedKind")) for e in back] == [
        ("user", "run the sub task", None),
        ("assistant", "All steps done.", None),
        ("user", NOTICE, "task-notification"),
        ("assistant", "The sub-agent is done.", None),
    ]


def test_a_queued_prompt_is_a_queued_command_attachment_in_the_chain():
    events = session(message("user", "fix the test"), message("user", "also keep the default at 3", injected=True, injectedKind="queued_command"), message("assistant", "Done."))
    lines = lines_of(events)
    (queued,) = [x for x in lines if x["type"] == "attachment"]
    assert queued["attachment"] == {"type": "queued_command", "prompt": "also keep the default at 3", "commandMode": "prompt"}
    assert lines[-1]["parentUuid"] == queued["uuid"]


def test_a_result_that_is_only_tool_references_is_written_as_blocks():
    call = {"type": "message", "role": "tool", "text": "", "toolName": "ToolSearch", "toolInput": {"query": "select:TaskGet"}, "toolCallId": "toolu_1", "meta": {"kind": "tool_use"}}
    refs = {"type": "message", "role": "tool", "text": "[tool_reference: TaskGet]\n[tool_reference: mcp__srv__do-it]", "toolCallId": "toolu_1", "meta": {"kind": "tool_result"}}
    other = {**refs, "text": "[tool_reference: TaskGet]\nand a line of text", "toolCallId": "toolu_2"}
    lines = lines_of(session(message("user", "go"), call, refs, {**call, "toolCallId": "toolu_2"}, other))
    results = [x["message"]["content"][0] for x in lines if x["type"] == "user" and isinstance(x["message"]["content"], list)]
    assert results[0]["content"] == [{"type": "tool_reference", "tool_name": "TaskGet"}, {"type": "tool_reference", "tool_name": "mcp__srv__do-it"}]
    assert results[1]["content"] == "[tool_reference: TaskGet]\nand a line of text"


@requires_corpus
def test_hook_context_of_a_real_session_is_in_the_chain_and_listings_beside_it():
    source = corpus_path(TEAM)
    lines = lines_of(list(sessionport.read(str(source), format="claude-code", options={"branch": "latest"})))
    parents = {x.get("parentUuid") for x in lines}
    attachments = [x for x in lines if x["type"] == "attachment"]
    in_chain = {x["attachment"]["type"]: x for x in attachments if x["uuid"] in parents}
    beside = {x["attachment"]["type"] for x in attachments if x["uuid"] not in parents}
    assert in_chain["hook_additional_context"]["attachment"] == {
        "type": "hook_additional_context",
        "content": ["clmail 6.0.10 session registered: -experiments/worktrees (kitty)"],
        "hookName": "SessionStart",
        "hookEvent": "SessionStart",
    }
    assert in_chain["hook_success"]["attachment"] == {
        "type": "hook_success",
        "content": "Status set to busy: -experiments/worktrees",
        "hookName": "UserPromptSubmit",
        "hookEvent": "UserPromptSubmit",
    }
    assert {"deferred_tools_delta", "skill_listing", "task_reminder"} <= beside
    original = [orjson.loads(x) for x in source.read_bytes().splitlines()]

    def references(records):
        out = {}
        for x in records:
            content = (x.get("message") or {}).get("content") if x.get("type") == "user" else None
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result" and isinstance(block.get("content"), list):
                    if all(isinstance(b, dict) and b.get("type") == "tool_reference" for b in block["content"]):
                        out[block["tool_use_id"]] = block["content"]
        return out

    theirs, ours = references(original), references(lines)
    assert theirs and {k: ours.get(k) for k in theirs} == theirs
