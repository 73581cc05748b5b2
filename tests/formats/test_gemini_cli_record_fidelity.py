"""A Gemini CLI session written back to Gemini CLI keeps its records as the
app wrote them: the records' ids and types (an ``error`` or ``warning``
notice is no ``info``), an answer of thoughts alone as a record of its own
with its tokens, the tokens of an answer of thoughts and calls, each call's
status (``cancelled``), response, ``resultDisplay`` (a diff object, a
summary line) and ``renderOutputAsMarkdown``, and the header's
``projectHash``, ``kind`` and ``directories``.

The fixture follows Gemini CLI 0.39 records of public sessions (see
fixtures/README.md)."""

from __future__ import annotations

import json

import orjson
import pytest

import sessionport

from conftest import FIXTURES, run_cli

SESSION = FIXTURES / "gemini-cli" / "session-2026-04-25T05-22-5d1c2a70.jsonl"


def _records(data: bytes) -> tuple[dict, list[dict]]:
    """The header and the records of a JSONL log, each record as its last
    line with its id left it (the log's upsert)."""
    lines = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    by_id: dict[str, dict] = {}
    for line in lines[1:]:
        if "id" in line:
            by_id[line["id"]] = line
    return lines[0], list(by_id.values())


@pytest.fixture(scope="module")
def both():
    original = _records(SESSION.read_bytes())
    written = _records(sessionport.dumps(list(sessionport.read(str(SESSION))), "gemini-cli"))
    return original, written


def test_records_keep_their_ids_types_and_order(both):
    (_, original), (_, written) = both
    assert [(r["id"], r["type"]) for r in written] == [(r["id"], r["type"]) for r in original]
    assert {r["type"] for r in written} == {"user", "gemini", "info", "error", "warning"}


def test_each_answer_keeps_its_tokens_and_thoughts(both):
    (_, original), (_, written) = both
    answers = [r for r in original if r["type"] == "gemini"]
    again = {r["id"]: r for r in written}
    for answer in answers:
        copy = again[answer["id"]]
        assert copy["tokens"] == answer["tokens"]
        assert [t["subject"] for t in copy.get("thoughts", [])] == [t["subject"] for t in answer.get("thoughts", [])]
        assert copy.get("model") == answer.get("model")
    alone = again["5c5cc68d-9e8e-4866-b2f4-e09a44daee5b"]  # thoughts alone, before a notice
    assert alone["content"] == "" and "toolCalls" not in alone and alone["tokens"]["input"] == 34299


def test_calls_keep_status_response_and_display(both):
    (_, original), (_, written) = both
    calls = {c["id"]: c for r in original for c in r.get("toolCalls", [])}
    again = {c["id"]: c for r in written for c in r.get("toolCalls", [])}
    assert again.keys() == calls.keys()
    for call_id, call in calls.items():
        copy = again[call_id]
        for key in ("name", "args", "status", "displayName", "description", "renderOutputAsMarkdown"):
            assert copy.get(key) == call.get(key), (call_id, key)
        assert copy["result"] == call["result"]
        if "resultDisplay" in call:
            assert copy["resultDisplay"] == call["resultDisplay"]
    assert again["replace_1777094551402_1"]["resultDisplay"]["fileDiff"].startswith("Index: index.css")
    assert again["run_shell_command_1777094551402_2"]["status"] == "cancelled"


def test_the_token_totals_are_the_same_read_back(tmp_path):
    target = tmp_path / "session-2026-04-25T05-22-5d1c2a70.jsonl"
    done = run_cli("convert", str(SESSION), "--to", "gemini-cli", "-o", str(target))
    assert done.returncode == 0, done.stderr
    totals = [json.loads(run_cli("inspect", "--json", str(path)).stdout)["sessions"][0]["usage"] for path in (SESSION, target)]
    assert totals[0] == totals[1] and totals[0]["input_tokens"] == 105421


def test_the_header_keeps_the_project_hash_kind_and_directories(tmp_path):
    (header, _), (written, _) = _records(SESSION.read_bytes()), _records(sessionport.dumps(list(sessionport.read(str(SESSION))), "gemini-cli"))
    assert written["projectHash"] == header["projectHash"]  # the app's own, not a hash of an unknown folder
    legacy = tmp_path / "session-2026-04-01T10-00-7c3e9a11.json"
    legacy.write_text(json.dumps({
        "sessionId": "7c3e9a11-5b2d-4e8f-a1c3-9d0e2f4b6a81", "projectHash": "a" * 64, "startTime": "2026-04-01T10:00:00.000Z",
        "lastUpdated": "2026-04-01T10:00:09.000Z", "kind": "subagent", "directories": ["/home/dev/tp", "/home/dev/shared"],
        "messages": [{"id": "u1", "timestamp": "2026-04-01T10:00:01.000Z", "type": "user", "content": [{"text": "list the tests"}]},
                     {"id": "g1", "timestamp": "2026-04-01T10:00:09.000Z", "type": "gemini", "content": "There are 12.", "model": "gemini-2.5-pro"}],
    }))
    events = list(sessionport.read(str(legacy), options={"no_subagents": True}))
    document = json.loads(sessionport.dumps(events, "gemini-cli", gemini_cli_legacy_json=True))
    assert (document["projectHash"], document["kind"], document["directories"]) == ("a" * 64, "subagent", ["/home/dev/tp", "/home/dev/shared"])


def test_another_apps_session_gets_information_notices_and_a_hash_of_its_folder():
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "s", "cwd": "/repo",
         "metadata": {"projectHash": "b" * 64, "kind": "subagent"}},
        {"type": "message", "role": "user", "text": "hi", "id": "u#1"},
        {"type": "message", "role": "system", "text": "compacted", "meta": {"kind": "text", "notice": "error"}},
        {"type": "end"},
    ]
    header, records = _records(sessionport.dumps(events, "gemini-cli"))
    import hashlib

    assert header["projectHash"] == hashlib.sha256(b"/repo").hexdigest() and header["kind"] == "main"
    assert records[0]["id"] == "u#1"  # only a gemini-cli session's ids are numbered by its reader
    assert records[1]["type"] == "error"


def test_a_session_that_ends_in_thoughts_alone_ends_in_that_record(tmp_path):
    source = tmp_path / "session-2026-04-25T05-22-5d1c2a70.jsonl"
    source.write_bytes(b"".join(SESSION.read_bytes().splitlines(keepends=True)[:3]))
    header, records = _records(sessionport.dumps(list(sessionport.read(str(source))), "gemini-cli"))
    assert [(r["id"], r["type"]) for r in records] == [("9a26f39c-b45e-4034-b70f-e112676df6cd", "user"), ("5c5cc68d-9e8e-4866-b2f4-e09a44daee5b", "gemini")]
    assert records[1]["tokens"]["input"] == 34299 and len(records[1]["thoughts"]) == 2


def test_the_note_of_leaving_plan_mode_is_injected_not_typed(tmp_path):
    """Gemini CLI adds "User has manually exited Plan Mode. Switching to …"
    to the history as a user turn of its own (getPlanModeExitMessage): the
    model reads it, the user never typed it."""
    lines = SESSION.read_bytes().splitlines(keepends=True)[:2]
    note = {"id": "4c1d2e3f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", "timestamp": "2026-04-25T05:22:21.000Z", "type": "user",
            "content": [{"text": "User has manually exited Plan Mode. Switching to Default mode (edits will require confirmation)."}]}
    source = tmp_path / "session-2026-04-25T05-22-5d1c2a70.jsonl"
    source.write_bytes(b"".join(lines) + json.dumps(note).encode() + b"\n")
    users = [e for e in sessionport.read(str(source)) if e.get("type") == "message" and e["role"] == "user"]
    assert [bool(e.get("meta", {}).get("injected")) for e in users] == [False, True]
