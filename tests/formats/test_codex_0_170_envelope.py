"""Codex 0.170+: what a rollout keeps beside and inside its response items.

``fixtures/codex/rollout-0.171-scripted.jsonl`` (lines a real Codex CLI
0.171.0 wrote) has, on every ``response_item`` line, an envelope
``metadata`` object next to ``timestamp``/``type``/``payload`` (codex-rs
``history/src/rollout_payload.rs``: ``RolloutItemWire::ResponseItem {
payload, metadata: Option<CodexHarnessMetadata> }``: ``history_sequence``,
``client_authored``, ``retained_source``, ``user_input_order``,
``fallback_token_limit_override``, ...), and an
``internal_chat_message_metadata_passthrough`` on every item, reasoning,
calls, outputs and the web search included.  Both are read into ``meta``
(``codexItemMetadata``, ``codexPassthrough``) and written back on an export
to ``codex``.  Expectations are taken from the raw lines with ``json``.
"""

from __future__ import annotations

import json

import sessionport
from conftest import FIXTURES

ROLLOUT = FIXTURES / "codex" / "rollout-0.171-scripted.jsonl"
PASSTHROUGH = "internal_chat_message_metadata_passthrough"


def lines() -> list[dict]:
    return [json.loads(line) for line in ROLLOUT.read_text(encoding="utf-8").splitlines() if line.strip()]


def item_lines(records) -> list[dict]:
    return [r for r in records if r["type"] == "response_item"]


def events() -> list[dict]:
    return list(sessionport.read(str(ROLLOUT)))


def test_the_fixture_has_envelope_metadata_and_passthrough_on_every_kind_of_item():
    items = item_lines(lines())
    assert items and all(isinstance(r.get("metadata"), dict) and r["metadata"] for r in items)
    kinds = {r["payload"]["type"] for r in items if PASSTHROUGH in r["payload"]}
    assert {"message", "reasoning", "function_call", "function_call_output", "web_search_call"} <= kinds


def test_the_envelope_metadata_is_kept_on_the_event_of_its_item():
    by_id = {e["id"]: e for e in events() if e.get("type") == "message" and e.get("id")}
    for record in item_lines(lines()):
        event = by_id[record["payload"]["id"]]
        assert event["meta"]["codexItemMetadata"] == record["metadata"], record["payload"]["type"]


def test_the_passthrough_of_every_item_is_kept():
    by_id = {e["id"]: e for e in events() if e.get("type") == "message" and e.get("id")}
    for record in item_lines(lines()):
        event = by_id[record["payload"]["id"]]
        assert event["meta"]["codexPassthrough"] == record["payload"][PASSTHROUGH], record["payload"]["type"]


def test_an_export_to_codex_writes_both_back_on_each_item_line():
    theirs = item_lines(lines())
    ours = item_lines([json.loads(x) for x in sessionport.dumps(sessionport.read(str(ROLLOUT)), "codex").splitlines()])
    assert [r["payload"]["id"] for r in ours] == [r["payload"]["id"] for r in theirs]
    for mine, original in zip(ours, theirs):
        assert mine.get("metadata") == original["metadata"], original["payload"]["type"]
        assert mine["payload"].get(PASSTHROUGH) == original["payload"][PASSTHROUGH], original["payload"]["type"]
        # the envelope keeps Codex's order: the payload, then its metadata
        assert list(mine)[-2:] == ["payload", "metadata"]


def test_another_apps_export_carries_neither():
    source = events()
    for event in source:
        if event.get("type") == "session":
            event["source"] = "claude-code"
    out = [json.loads(x) for x in sessionport.dumps(source, "codex").splitlines()]
    assert not any("metadata" in r for r in out)
    assert not any(PASSTHROUGH in r["payload"] for r in item_lines(out))


def test_a_line_without_metadata_gets_none(tmp_path):
    records = lines()
    for record in records:
        record.pop("metadata", None)
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    read = list(sessionport.read(str(path)))
    assert not any("codexItemMetadata" in (e.get("meta") or {}) for e in read)
    out = [json.loads(x) for x in sessionport.dumps(read, "codex").splitlines()]
    assert not any("metadata" in r for r in out)


def test_the_provenance_of_the_base_instructions_is_kept_and_written_back():
    # 0.154+ (codex-rs protocol/src/models.rs BaseInstructionsProvenance:
    # {"type": "custom"} or {"type": "model", "model": ...}); the 0.171 line has the latter
    meta = lines()[0]["payload"]
    provenance = meta["base_instructions"]["provenance"]
    assert provenance == {"type": "model", "model": "gpt-5-codex"}
    session = events()[0]
    assert session["metadata"]["baseInstructionsProvenance"] == provenance
    out = [json.loads(x) for x in sessionport.dumps(sessionport.read(str(ROLLOUT)), "codex").splitlines()]
    assert out[0]["payload"]["base_instructions"] == meta["base_instructions"]


def test_the_other_session_meta_fields_are_kept_as_written():
    meta = lines()[0]["payload"]
    rest = events()[0]["metadata"]["codexSessionMeta"]
    # 0.171's fields no other key of the session event holds
    assert rest == {k: meta[k] for k in ("account_scoped", "runtime_workspace_roots", "context_window")}
