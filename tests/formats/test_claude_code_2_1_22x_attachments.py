"""Claude Code 2.1.22x: attachments that keep what the model is shown under
new keys.

A real home of 2.1.219 to 2.1.232 (hannibal8856/claude_backup, commit
2e35e2520a2d1ec40b13fb931c06981bc7bb7453, 51 sessions) writes

- ``edited_text_file`` with ``filename`` and ``snippet`` (the changed lines of
  a file edited outside the session, which the model is told about), e.g.
  ``.claude/projects/-home-moxa-sda2-home-moxa-NOS-v6-0-develop-buildroot-dl/1240745b-0001-4e08-a589-bed6e137a069.jsonl``;
- ``read_truncation_notice`` with ``banner`` and ``toolUseID`` (the notice that
  a Read showed part of a file, and how to read on), e.g.
  ``.claude/projects/-home-moxa-sdc1-home-moxa-SNMP-PLAN-E-buildroot-dl/fd443d06-0324-4a72-8f27-783cc900eba7/subagents/agent-aa20370ee66e7ba28.jsonl``;

both were skipped as attachments with nothing to show.
``fixtures/claude-code/session-2.1.222-attachments.jsonl`` holds invented
texts in those records' shape (and a ``date_change``, still only counted).
"""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

SESSION = FIXTURES / "claude-code" / "session-2.1.222-attachments.jsonl"


def raw() -> list[dict]:
    return [json.loads(line) for line in SESSION.read_text(encoding="utf-8").splitlines() if line.strip()]


def events_of(path) -> list[dict]:
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    assert b"does not know" not in result.stderr, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def attachment(kind: str) -> dict:
    return next(r["attachment"] for r in raw() if r["type"] == "attachment" and r["attachment"]["type"] == kind)


def injected(events: list[dict], kind: str) -> dict:
    found = [e for e in events if e["type"] == "message" and e.get("meta", {}).get("injectedKind") == kind]
    assert len(found) == 1, [e.get("meta") for e in events if e["type"] == "message"]
    return found[0]


def test_edited_file_snippet_is_what_the_model_is_told():
    events = events_of(SESSION)
    message = injected(events, "edited_text_file")
    source = attachment("edited_text_file")
    assert message["role"] == "user"
    assert message["meta"]["injected"] is True
    assert message["text"] == source["snippet"]
    assert message["meta"]["filePath"] == source["filename"]


def test_read_truncation_banner_is_kept():
    events = events_of(SESSION)
    message = injected(events, "read_truncation_notice")
    source = attachment("read_truncation_notice")
    assert message["text"] == source["banner"]
    assert message["meta"]["toolUseId"] == source["toolUseID"]


def test_only_the_date_change_is_counted():
    events = events_of(SESSION)
    end = events[-1]
    assert end["skipped"] == {"attachment/date_change": 1}
    assert not end.get("unknown")


def test_written_back_in_the_shape_claude_code_writes(tmp_path):
    native = tmp_path / "transcript.jsonl"
    result = run_cli("convert", SESSION, "--to", "claude-code", "-o", native)
    assert result.returncode == 0, result.stderr
    written = {
        r["attachment"]["type"]: r["attachment"]
        for r in (json.loads(line) for line in native.read_text(encoding="utf-8").splitlines())
        if r.get("type") == "attachment"
    }
    assert written["edited_text_file"] == {k: attachment("edited_text_file")[k] for k in ("type", "filename", "snippet")}
    assert written["read_truncation_notice"] == attachment("read_truncation_notice")
    again = events_of(native)
    pick = lambda evs: [
        (e["text"], e["meta"].get("filePath"), e["meta"].get("toolUseId"))
        for e in evs if e["type"] == "message" and e.get("meta", {}).get("injected")
    ]
    assert pick(again) == pick(events_of(SESSION))


# The same home also writes, on the line of a tool result the auto-mode
# classifier refused, ``toolDenialKind`` (``automode-blocked``), and on an
# answer the user interrupted while it streamed ``isAbortedMidStream: true``
# (its text is cut off), e.g. lines 614 and 835 of
# ``-home-moxa-sda2-home-moxa-NOS-v6-0-develop-buildroot-dl/1240745b-….jsonl``.
DENIED = FIXTURES / "claude-code" / "session-2.1.222-denied-interrupted.jsonl"


def test_denial_kind_and_aborted_answer_are_kept():
    events = events_of(DENIED)
    messages = [e for e in events if e["type"] == "message"]
    result = next(m for m in messages if m.get("meta", {}).get("kind") == "tool_result")
    assert result["meta"]["denialKind"] == "automode-blocked"
    assert result["isError"] is True
    cut = [m for m in messages if m.get("meta", {}).get("abortedMidStream")]
    assert [m["text"] for m in cut] == ["The push was blocked, so I will ask you to run it: the branch is"]
    assert not any(m.get("meta", {}).get("abortedMidStream") for m in messages if m is not cut[0])


def test_denial_kind_and_aborted_answer_are_written_back(tmp_path):
    native = tmp_path / "transcript.jsonl"
    result = run_cli("convert", DENIED, "--to", "claude-code", "-o", native)
    assert result.returncode == 0, result.stderr
    written = [json.loads(line) for line in native.read_text(encoding="utf-8").splitlines()]
    original = [json.loads(line) for line in DENIED.read_text(encoding="utf-8").splitlines()]
    for key in ("toolDenialKind", "isAbortedMidStream"):
        assert [r[key] for r in written if key in r] == [r[key] for r in original if key in r]
    pick = lambda evs: [
        (e["text"], e["meta"].get("denialKind"), e["meta"].get("abortedMidStream"))
        for e in evs if e["type"] == "message" and e.get("meta")
    ]
    assert pick(events_of(native)) == pick(events_of(DENIED))


# 2.1.212 delivers what a hook run in the background answered as an
# ``async_hook_response`` attachment: ``response.hookSpecificOutput.additionalContext``
# is given to the model (a real PreToolUse:Read one: austinweitao/claude-backup,
# commit 9fbf6756e58e9ad057efa25fc41ddce7d1b821bc,
# ``projects/-home-cwtrocks-OpenCoreAnalysisKit/sessions/668424c4-e93f-4c2a-9597-e05159a98bde.jsonl``
# line 93, a backup of ~/.claude/projects).  It was skipped as an attachment with
# nothing to show.
ASYNC_HOOK = FIXTURES / "claude-code" / "session-2.1.212-async-hook.jsonl"


def test_async_hook_context_is_what_the_model_is_given():
    events = events_of(ASYNC_HOOK)
    message = injected(events, "async_hook_response")
    source = next(json.loads(line) for line in ASYNC_HOOK.read_text(encoding="utf-8").splitlines() if '"async_hook_response"' in line)
    assert message["text"] == source["attachment"]["response"]["hookSpecificOutput"]["additionalContext"]
    assert message["meta"]["hookEvent"] == "PreToolUse"
    assert not events[-1].get("skipped")


def test_async_hook_context_is_written_back(tmp_path):
    native = tmp_path / "transcript.jsonl"
    result = run_cli("convert", ASYNC_HOOK, "--to", "claude-code", "-o", native)
    assert result.returncode == 0, result.stderr
    written = next(
        r["attachment"] for r in (json.loads(line) for line in native.read_text(encoding="utf-8").splitlines())
        if r.get("type") == "attachment"
    )
    assert written["type"] == "async_hook_response"
    assert written["response"]["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    again = injected(events_of(native), "async_hook_response")
    assert again["text"] == injected(events_of(ASYNC_HOOK), "async_hook_response")["text"]
