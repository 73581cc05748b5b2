"""Codex 0.17x ``compacted`` records: beside ``message`` and
``replacement_history``, codex-rs ``history/src/rollout_payload.rs``
(``CompactedItemWire``) writes the compaction's window chain
(``window_number``, ``first_window_id``, ``previous_window_id``,
``window_id``), ``compaction_response_id``, ``latest_token_usage_record`` and
``resume_metadata`` (``CompactionResumeMetadata``:
``multi_agent_version``, ``last_started_turn_id``, ``previous_turn_settings``).

``fixtures/codex/rollout-0.17x-compacted-windows.jsonl`` is written in those
shapes (its ``latest_token_usage_record`` the 0.171 fixture's
``token_usage_record`` with this thread's ids).  They are kept in
``meta.codexCompacted``; a Codex export, which rebuilds the replacement
history, does not write them and says so.
"""

from __future__ import annotations

import json

import sessionport
from conftest import FIXTURES, run_cli

ROLLOUT = FIXTURES / "codex" / "rollout-0.17x-compacted-windows.jsonl"


def compacted() -> dict:
    (line,) = [json.loads(x) for x in ROLLOUT.read_text(encoding="utf-8").splitlines() if '"compacted"' in x]
    return line["payload"]


def test_the_compactions_own_fields_are_kept():
    payload = compacted()
    (event,) = [e for e in sessionport.read(str(ROLLOUT)) if (e.get("meta") or {}).get("kind") == "compaction"]
    extras = {k: v for k, v in payload.items() if k not in ("message", "replacement_history")}
    assert set(extras) >= {"window_id", "latest_token_usage_record", "resume_metadata"}
    assert event["meta"]["codexCompacted"] == extras
    assert event["meta"]["encryptedContent"] == payload["replacement_history"][-1]["encrypted_content"]


def test_a_codex_export_names_what_it_does_not_write(tmp_path):
    result = run_cli("convert", ROLLOUT, "--to", "codex", "-o", tmp_path / "out.jsonl")
    assert result.returncode == 0, result.stderr
    warned = [line for line in result.stderr.decode().splitlines() if "compaction" in line]
    assert len(warned) == 1 and "`window_id`" in warned[0] and "`resume_metadata`" in warned[0]
    (written,) = [json.loads(x)["payload"] for x in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines() if '"compacted"' in x]
    assert set(written) == {"message", "replacement_history"}


def test_a_compaction_of_an_earlier_version_says_nothing(tmp_path):
    lines = ROLLOUT.read_text(encoding="utf-8").splitlines()
    records = [json.loads(x) for x in lines]
    for record in records:
        if record["type"] == "compacted":
            record["payload"] = {k: record["payload"][k] for k in ("message", "replacement_history")}
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert not any("codexCompacted" in (e.get("meta") or {}) for e in sessionport.read(str(path)))
    result = run_cli("convert", path, "--to", "codex", "-o", tmp_path / "out.jsonl")
    assert result.returncode == 0 and b"compaction" not in result.stderr
