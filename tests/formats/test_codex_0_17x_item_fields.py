"""Codex 0.17x response item fields, in the serde shapes of codex-rs
``protocol/src/models.rs`` (``ResponseItem``, 2026-11): a function call's
``encrypted_function_args`` and ``namespace``, an output's ``name`` and
``namespace``, a custom tool call's ``namespace``, the ``phase: "input"`` of
a typed prompt, and the ``configuration_update`` item (``{reasoning:
{effort}}``, a setting for the responses after it).

``fixtures/codex/rollout-0.17x-item-fields.jsonl`` is written for these
tests in those shapes (invented texts and ids).  Each field is read into
``meta`` and written back as it was on an export to ``codex``; the
configuration update is counted.  Expectations come from the raw lines.
"""

from __future__ import annotations

import json

import sessionport
from conftest import FIXTURES, run_cli

ROLLOUT = FIXTURES / "codex" / "rollout-0.17x-item-fields.jsonl"


def lines() -> list[dict]:
    return [json.loads(line) for line in ROLLOUT.read_text(encoding="utf-8").splitlines() if line.strip()]


def items(records, kind=None) -> list[dict]:
    return [r for r in records if r["type"] == "response_item" and (kind is None or r["payload"]["type"] == kind)]


def events() -> list[dict]:
    return list(sessionport.read(str(ROLLOUT)))


def exported() -> list[dict]:
    return [json.loads(x) for x in sessionport.dumps(sessionport.read(str(ROLLOUT)), "codex").splitlines()]


def test_nothing_is_unknown_and_the_configuration_update_is_counted():
    result = run_cli("convert", ROLLOUT, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr
    end = json.loads(result.stdout.splitlines()[-1])
    assert "unknown" not in end
    assert end["skipped"]["response_item/configuration_update"] == len(items(lines(), "configuration_update")) == 1


def test_the_new_fields_are_read():
    by_id = {e["id"]: e for e in events() if e.get("type") == "message" and e.get("id")}
    call = items(lines(), "function_call")[0]["payload"]
    meta = by_id[call["id"]]["meta"]
    assert meta["encryptedFunctionArgs"] == call["encrypted_function_args"]
    assert meta["namespace"] == call["namespace"]
    output = items(lines(), "function_call_output")[0]["payload"]
    meta = by_id[output["id"]]["meta"]
    assert meta["namespace"] == output["namespace"] and meta["codexName"] == output["name"]
    custom = items(lines(), "custom_tool_call")[0]["payload"]
    assert by_id[custom["id"]]["meta"]["namespace"] == custom["namespace"]
    prompt = items(lines(), "message")[0]["payload"]
    assert by_id[prompt["id"]]["meta"]["phase"] == prompt["phase"] == "input"


def test_an_export_to_codex_writes_every_item_back_as_it_was():
    theirs = [r for r in items(lines()) if r["payload"]["type"] != "configuration_update"]
    ours = items(exported())
    assert len(ours) == len(theirs)
    for mine, original in zip(ours, theirs):
        assert mine["payload"] == original["payload"], original["payload"]["type"]
        assert list(mine["payload"]) == list(original["payload"]), original["payload"]["type"]
        assert mine.get("metadata") == original.get("metadata")


def test_another_apps_export_has_no_output_name_or_input_phase():
    source = events()
    source[0]["source"] = "gemini-cli"
    out = items([json.loads(x) for x in sessionport.dumps(source, "codex").splitlines()])
    assert not any(r["payload"].get("phase") == "input" for r in out)
    assert not any("name" in r["payload"] for r in out if r["payload"]["type"].endswith("_output"))


# session_meta.dynamic_tools as Codex Desktop 0.145.0-alpha.27 writes it (a
# line another project's format notes quote, its tool schemas left out)
DYNAMIC_TOOLS = [{"type": "namespace", "name": "codex_app", "description": "Tools provided by the Codex app.", "tools": [
    {"type": "function", "name": "open_file", "description": "Open a file in the app.", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}]}]


def test_dynamic_tools_are_kept_and_their_loss_on_export_is_warned(tmp_path):
    records = lines()
    records[0]["payload"]["dynamic_tools"] = DYNAMIC_TOOLS
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    session = next(iter(sessionport.read(str(path))))
    assert session["metadata"]["dynamicTools"] == DYNAMIC_TOOLS
    result = run_cli("convert", path, "--to", "codex", "-o", tmp_path / "out.jsonl")
    assert result.returncode == 0, result.stderr
    assert b"dynamic_tools" in result.stderr
    written = json.loads((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert "dynamic_tools" not in written["payload"]
    # a session without them says nothing
    result = run_cli("convert", ROLLOUT, "--to", "codex", "-o", tmp_path / "plain.jsonl")
    assert b"dynamic" not in result.stderr


def test_a_messages_status_encrypted_content_and_part_annotations_are_kept():
    # codex-rs history/src/rollout_payload.rs (5ef96ab2) builds a Message
    # with status and encrypted_content, its output_text with annotations
    # and logprobs
    message = next(r["payload"] for r in items(lines(), "message") if "encrypted_content" in r["payload"])
    event = next(e for e in events() if e.get("id") == message["id"])
    assert event["text"] == message["content"][0]["text"]
    assert event["meta"]["encryptedContent"] == message["encrypted_content"]
    assert event["meta"]["codexStatus"] == message["status"]
    part = message["content"][0]
    assert event["meta"]["codexPartExtras"] == [{"annotations": part["annotations"], "logprobs": part["logprobs"]}]
    written = next(r["payload"] for r in items(exported()) if r["payload"].get("id") == message["id"])
    assert written == message


def test_an_empty_list_of_encrypted_arguments_is_kept_as_the_mark_it_is(tmp_path):
    # other projects' readers of 0.17x rollouts check for an explicit
    # "encrypted_function_args": [] on collaboration calls (spawn_agent):
    # the call's arguments are in plain text
    records = lines()
    call = next(r for r in records if r["type"] == "response_item" and r["payload"]["type"] == "function_call")
    call["payload"].update(name="spawn_agent", namespace="collaboration", arguments='{"task_name":"child","message":"draw"}', encrypted_function_args=[])
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    read = list(sessionport.read(str(path)))
    event = next(e for e in read if e.get("id") == call["payload"]["id"])
    assert event["meta"]["encryptedFunctionArgs"] == []
    out = items([json.loads(x) for x in sessionport.dumps(read, "codex").splitlines()], "function_call")
    assert out[0]["payload"] == call["payload"]
