"""Codex 0.15x rollouts (``history_mode: "paginated"``): no ``user_message``
events, ``item_completed`` mirrors, new injected context, and sub-agent
rollouts that name where their own history starts.

The fixtures copy record shapes (keys, key order, nesting) of real lines:

- ``rollout-0.154-paginated.jsonl``: the redacted real lines of codex-cli
  0.135-0.159.3 rollouts (2026-09/10) quoted in sidegraph's hook tests
  (``session_meta`` with ``session_id``, ``thread_source``, ``history_mode``;
  user messages with ``internal_chat_message_metadata_passthrough``; their
  ``item_completed`` ``UserMessage`` mirror; a ``<hook_prompt …>`` Stop-hook
  reason and its ``HookPrompt`` mirror; ``<send_user_message_question_reply>``;
  an image prompt in four blocks; ``<codex_internal_context>``), and the
  ``task_started``/``task_complete``/``AgentMessage`` lines of a real 0.153.4
  rollout quoted in CmdCtrl's session-parser tests.
- ``rollout-0.153-subagent-paginated.jsonl``: a sub-agent's ``session_meta``
  as 0.153 writes it (``source.subagent.thread_spawn`` with ``agent_path`` and
  ``agent_nickname``, top-level ``parent_thread_id``, ``thread_source:
  "subagent"``) with ``subagent_history_start_ordinal``, the field Codex's own
  thread store reads from a rollout's head (``read_rollout_head``) and that
  other readers describe as "the first ordinal that is this thread's own;
  lines below it are the parent's history". The copy is written in one burst
  and the child's first own line follows it within the burst gap, the case the
  timing rule alone gets wrong.
- ``rollout-0.155-context-compaction.jsonl``: the two response items that
  0.15x persists and earlier versions did not write: ``context_compaction``
  (``{"type":"context_compaction","encrypted_content":…}``, as Codex's own
  ``models.rs`` tests deserialize it into ``ResponseItem::ContextCompaction``)
  and ``additional_tools`` (``ResponseItem::AdditionalTools {id, role,
  tools}``, with the empty tool list Codex's guardian review sends).

Expectations are counted from the raw records with the standard ``json``
module, independently of the importer.
"""

from __future__ import annotations

import json

import orjson

from conftest import FIXTURES, run_cli, convert_to_portable as convert, jsonl_records as records

PAGINATED = FIXTURES / "codex" / "rollout-0.154-paginated.jsonl"
SUBAGENT = FIXTURES / "codex" / "rollout-0.153-subagent-paginated.jsonl"
COMPACTION = FIXTURES / "codex" / "rollout-0.155-context-compaction.jsonl"
INJECTED_TAGS = ("# AGENTS.md", "<codex_internal_context", "<hook_prompt")


def user_texts(raw: list[dict]) -> list[str]:
    out = []
    for r in raw:
        p = r["payload"]
        if r["type"] == "response_item" and p["type"] == "message" and p["role"] == "user":
            out.append(p["content"][0]["text"])
    return out


def test_a_paginated_rollout_reads_every_item_once_and_warns_about_nothing():
    raw = records(PAGINATED)
    assert not any(r["type"] == "event_msg" and r["payload"]["type"] == "user_message" for r in raw)
    events, stderr = convert(PAGINATED, "--strict")
    assert b"does not know" not in stderr
    body = [e for e in events if e["type"] == "message"]
    assert [e["text"].split("\n")[0] for e in body if e["role"] == "user"] == [t.split("\n")[0] for t in user_texts(raw)]
    answers = [r["payload"]["content"][0]["text"] for r in raw if r["type"] == "response_item" and r["payload"].get("role") == "assistant"]
    assert [e["text"] for e in body if e["role"] == "assistant"] == answers  # the AgentMessage mirror is not a second answer
    mirrors = sum(r["type"] == "event_msg" and r["payload"]["type"] == "item_completed" for r in raw)
    assert events[-1]["skipped"]["event_msg/item_completed"] == mirrors
    session = events[0]
    assert session["metadata"]["historyMode"] == "paginated" and session["metadata"]["cliVersion"] == "0.154.0"


def test_codex_context_of_0_15x_is_injected_and_prompts_are_not():
    events, _ = convert(PAGINATED)
    users = [e for e in events if e.get("role") == "user"]
    for event in users:
        injected = bool((event.get("meta") or {}).get("injected"))
        assert injected == event["text"].startswith(INJECTED_TAGS), event["text"]
    # a person's answer to the agent's question and an image prompt are the person's words
    reply = next(e for e in users if e["text"].startswith("<send_user_message_question_reply>"))
    assert "injected" not in (reply.get("meta") or {})
    image = next(e for e in users if "[Image #1] an example" in e["text"])
    assert "[image: image/png" in image["text"]
    # filter leaves the injected ones out, and only them
    dropped = run_cli("filter", PAGINATED, "--no-injected", "--to", "portable-jsonl")
    assert dropped.returncode == 0, dropped.stderr
    kept = [orjson.loads(line) for line in dropped.stdout.splitlines()]
    assert [e["text"] for e in kept if e.get("role") == "user"] == [e["text"] for e in users if not e["text"].startswith(INJECTED_TAGS)]


def test_a_sub_agent_copy_ends_at_the_ordinal_its_meta_names():
    raw = records(SUBAGENT)
    start = raw[0]["payload"]["subagent_history_start_ordinal"]
    copied = [r for r in raw[1:] if r["ordinal"] < start and r["type"] == "response_item"]
    own = [r for r in raw if r["ordinal"] >= start and r["type"] == "response_item"]
    # the child's first own line is written within a second of the copy
    assert own[0]["timestamp"][:19] == copied[-1]["timestamp"][:19]
    events, _ = convert(SUBAGENT)
    body = [e for e in events if e["type"] == "message"]
    text = lambda r: r["payload"]["content"][0]["text"]
    assert [e["text"] for e in body if (e.get("meta") or {}).get("inherited")] == [text(r) for r in copied]
    assert [e["text"] for e in body if not (e.get("meta") or {}).get("inherited")] == [text(r) for r in own]
    session, end = events[0], events[-1]
    assert session["metadata"]["inheritsFrom"] == [raw[1]["payload"]["id"]]
    assert session["metadata"]["parentThreadId"] == raw[0]["payload"]["parent_thread_id"]
    counts = [r["payload"]["info"]["total_token_usage"]["total_tokens"] for r in raw if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"]
    assert end["counts"]["inheritedTotalTokens"] == counts[0]
    own_only, _ = convert(SUBAGENT, "--skip-inherited")
    assert [e["text"] for e in own_only if e["type"] == "message"] == [text(r) for r in own]


def test_without_the_ordinal_the_copy_still_ends_by_its_timing(tmp_path):
    # Older sub-agent rollouts name no start ordinal: the burst rule decides,
    # as before (here it cannot tell the child's first line from the copy).
    raw = records(SUBAGENT)
    del raw[0]["payload"]["subagent_history_start_ordinal"]
    path = tmp_path / "rollout-no-ordinal.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in raw))
    events, _ = convert(path)
    inherited = [e["text"] for e in events if (e.get("meta") or {}).get("inherited")]
    assert inherited[-1] == "Judge: check the retry cap in src/retry.py"


def test_paginated_rollouts_convert_to_every_app_format():
    for path in (PAGINATED, SUBAGENT):
        for target in ("codex", "claude-code", "gemini-cli", "markdown"):
            result = run_cli("convert", path, "--to", target)
            assert result.returncode == 0, (target, result.stderr)
            assert b"Traceback" not in result.stderr
    # written back as a rollout, the prompts stay prompts and the context stays context
    back = run_cli("convert", PAGINATED, "--to", "codex")
    again = run_cli("convert", "-", "--from", "codex", "--to", "portable-jsonl", input=back.stdout)
    assert again.returncode == 0, again.stderr
    first, _ = convert(PAGINATED)
    second = [orjson.loads(line) for line in again.stdout.splitlines()]
    pick = lambda evs: [(e["role"], e["text"], bool((e.get("meta") or {}).get("injected"))) for e in evs if e["type"] == "message" and e["role"] in ("user", "assistant")]
    assert pick(second) == pick(first)


def test_a_context_compaction_item_is_a_compaction_boundary_and_tool_lists_are_counted():
    raw = records(COMPACTION)
    (item,) = [r["payload"] for r in raw if r["payload"].get("type") == "context_compaction"]
    events, stderr = convert(COMPACTION, "--strict")
    assert b"does not know" not in stderr
    body = [e for e in events if e["type"] == "message"]
    (boundary,) = [e for e in body if (e.get("meta") or {}).get("kind") == "compaction"]
    assert boundary["role"] == "system" and boundary["meta"]["codexType"] == "context_compaction"
    assert boundary["text"] == f"[compaction: encrypted summary, {len(item['encrypted_content']) / 1000:.1f} KB]"
    # in file order: the boundary sits between the turns it separates
    assert [e["text"] for e in body][2:4] == [boundary["text"], "and the third run?"]
    end = events[-1]
    assert end["counts"]["compactions"] == 1
    assert end["skipped"] == {"response_item/additional_tools": sum(r["payload"].get("type") == "additional_tools" for r in raw)}
    inspect = run_cli("inspect", COMPACTION, "--json")
    assert inspect.returncode == 0, inspect.stderr
    assert json.loads(inspect.stdout)["sessions"][0]["byKind"]["compaction"] == 1
    # written back as a rollout, the boundary is the same item, its
    # encrypted summary with it (Codex replays it where it stands)
    back = run_cli("convert", COMPACTION, "--to", "codex")
    assert back.returncode == 0, back.stderr
    written = [json.loads(line) for line in back.stdout.splitlines()]
    assert [x["payload"] for x in written if x["payload"].get("type") == "context_compaction"] == [{"type": "context_compaction", "encrypted_content": item["encrypted_content"]}]
    assert not any(x["type"] == "compacted" for x in written)


def test_a_context_compaction_without_a_summary_says_so(tmp_path):
    raw = records(COMPACTION)
    for r in raw:
        if r["payload"].get("type") == "context_compaction":
            r["payload"]["encrypted_content"] = None  # Option<String> in ResponseItem::ContextCompaction
    path = tmp_path / "rollout-no-summary.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in raw))
    events, _ = convert(path)
    assert [e["text"] for e in events if (e.get("meta") or {}).get("kind") == "compaction"] == ["[compaction]"]
