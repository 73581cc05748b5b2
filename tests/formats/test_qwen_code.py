"""The qwen-code importer: a session log checked against an independent
count of its raw records, detection against its look-alikes (Claude Code's
envelope, Gemini CLI's parts), and ``ls`` discovery of ``~/.qwen``."""

from __future__ import annotations

import json
import shutil

import orjson
import pytest

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli

SESSION = next((FIXTURES / "qwen-code").glob("*.jsonl"))


def raw_facts(path) -> dict:
    prompts, texts, thoughts, calls, results, errors, usage = [], [], [], [], [], [], {"in": 0, "out": 0}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        parts = (record.get("message") or {}).get("parts") or []
        if record["type"] == "user":
            prompts.append("".join(p["text"] for p in parts if "text" in p))
        elif record["type"] == "assistant":
            for part in parts:
                if "functionCall" in part:
                    calls.append(part["functionCall"]["id"])
                elif part.get("thought"):
                    thoughts.append(part["text"])
                elif "text" in part:
                    texts.append(part["text"])
            meta = record.get("usageMetadata") or {}
            usage["in"] += meta.get("promptTokenCount", 0)
            usage["out"] += meta.get("candidatesTokenCount", 0) + meta.get("thoughtsTokenCount", 0)
        elif record["type"] == "tool_result":
            for part in parts:
                results.append(part["functionResponse"]["id"])
                if record["toolCallResult"]["status"] == "error":
                    errors.append(part["functionResponse"]["id"])
    return {"prompts": prompts, "texts": texts, "thoughts": thoughts, "calls": calls, "results": results, "errors": errors, "usage": usage}


def test_every_prompt_answer_call_and_result_is_in_the_stream():
    result = run_cli("convert", SESSION, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    facts = raw_facts(SESSION)
    session, body, end = events[0], [e for e in events if e["type"] == "message"], events[-1]
    kind = lambda e: e.get("meta", {}).get("kind", "text")
    assert session["source"] == "qwen-code" and session["cwd"] == "/home/dev/engram" and session["metadata"]["version"] == "0.22.2"
    assert [e["text"] for e in body if e["role"] == "user" and not e.get("meta", {}).get("injected")] == facts["prompts"]
    assert [e["text"] for e in body if e["role"] == "assistant" and kind(e) == "text"] == facts["texts"]
    assert [e["text"] for e in body if kind(e) == "thinking"] == facts["thoughts"]
    assert [e["toolCallId"] for e in body if kind(e) == "tool_use"] == facts["calls"]
    assert [e["toolCallId"] for e in body if kind(e) == "tool_result"] == facts["results"]
    assert [e["toolCallId"] for e in body if e.get("isError")] == facts["errors"]
    assert end["usage"]["input_tokens"] == facts["usage"]["in"] and end["usage"]["output_tokens"] == facts["usage"]["out"]
    assert end["title"] == "Listing txt files"
    assert end["skipped"]["system/ui_telemetry"] == 2
    assert not result.stderr


def test_the_chain_skips_telemetry_records():
    body = [e for e in sessionport.read(str(SESSION)) if e["type"] == "message"]
    answer = next(e for e in body if e["text"] == "The directory contains one file: hello.txt.")
    result = next(e for e in body if e.get("toolCallId") == "call_mock_1" and e["meta"]["kind"] == "tool_result")
    assert answer["parentId"] == result["id"]  # past the ui_telemetry record between them


def test_what_qwen_code_puts_before_the_model_is_injected():
    body = [e for e in sessionport.read(str(SESSION)) if e["type"] == "message"]
    notification = next(e for e in body if e.get("meta", {}).get("injectedKind") == "notification")
    assert notification["role"] == "user" and notification["text"].startswith("Background shell")
    compaction = next(e for e in body if e.get("meta", {}).get("kind") == "compaction")
    assert compaction["meta"]["newTokenCount"] == 600


@pytest.mark.parametrize("first", [0, 1])
def test_detected_over_claude_code_and_gemini_cli(first, tmp_path):
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[first:]))  # a user line first, or a system line
    events = list(sessionport.read(str(path)))
    assert events[0]["source"] == "qwen-code"


def test_unknown_subtypes_and_types_are_reported(tmp_path):
    extra = b'{"uuid":"x1","parentUuid":null,"sessionId":"s","timestamp":"2026-08-28T03:48:00.000Z","type":"system","subtype":"telepathy","systemPayload":{}}\n'
    extra += b'{"uuid":"x2","parentUuid":"x1","sessionId":"s","timestamp":"2026-08-28T03:48:01.000Z","type":"hologram","message":{"role":"user","parts":[{"text":"hi"}]}}\n'
    path = tmp_path / "s.jsonl"
    path.write_bytes(SESSION.read_bytes() + extra)
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0
    end = orjson.loads(result.stdout.splitlines()[-1])
    assert end["unknown"] == {"record": {"system/telepathy": 1, "hologram": 1}}
    assert b"`system/telepathy`; please report" in result.stderr
    assert run_cli("convert", path, "--to", "portable-jsonl", "--strict").returncode == 1


def test_ls_finds_qwen_sessions(tmp_path):
    chats = tmp_path / ".qwen" / "projects" / "-home-dev-engram" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(SESSION, chats / SESSION.name)
    (tmp_path / ".qwen" / "projects" / "-home-dev-engram" / "notes.jsonl").write_text("{}\n")  # not in chats/
    result = run_cli("ls", "--json", "--source", "qwen-code", env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""})
    assert result.returncode == 0, result.stderr
    rows = orjson.loads(result.stdout)
    assert [(r["source"], r["sessionId"], r["prompt"]) for r in rows] == [("qwen-code", "9ac9a7c3-51d2-4e0b-8f3a-2ce24fc677d6", "list the txt files")]
    converted = run_cli("convert", "@9ac9a7c3", "--to", "portable-jsonl", env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""})
    assert converted.returncode == 0 and b'"source":"qwen-code"' in converted.stdout


MANAGED = FIXTURES / "qwen-code" / "managed" / "5f0c1a2b-0000-4000-8000-0000000000aa.jsonl"


def test_a_managed_session_journal_is_qwen_code_and_says_where_its_content_is():
    """A Qwen Code managed session (its daemon runtime, ``version:
    "h3-preview/1"``) journals ``system`` records with a ``managedSession``
    body: ``managed_session_event_v1`` (``{v, sequence, eventId, sessionKey,
    kind: "domain.committed", occurredAt, payload: {domain, version,
    operationId, recordRef: {resourceId, kind, schemaVersion, byteLength,
    digest}}}``) and ``managed_session_commit_v1`` (the transaction marker),
    the shapes Qwen Code's ``LocalManagedSessionAuthority`` writes and its
    tests read back. The content a ``recordRef`` names is in the session's
    resource store, not in the transcript."""
    raw = [json.loads(line) for line in MANAGED.read_text().splitlines()]
    assert all(r["type"] == "system" and "managedSession" in r for r in raw)
    result = run_cli("convert", MANAGED, "--to", "portable-jsonl", "--strict")
    assert result.returncode == 0, result.stderr
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    session, end = events[0], events[-1]
    assert session["source"] == "qwen-code" and session["sessionId"] == raw[0]["sessionId"]
    assert [e for e in events if e["type"] == "message"] == []
    assert end["skipped"] == {f"system/{r['subtype']}": 1 for r in raw}
    assert "unknown" not in end
    events_named = sum(r["subtype"] == "managed_session_event_v1" for r in raw)
    assert end["notes"] == [
        f"a Qwen Code managed session: {events_named} journal event(s) name content kept in the session's "
        "resource store (recordRef), not in this file; that content is not read"
    ]
    assert b"resource store" in result.stderr and b"does not know" not in result.stderr


def test_0_24_harness_prompts_are_user_records_marked_injected_by_their_provenance():
    # Qwen Code 0.24.4 (chatRecordingService: createNotificationRecord,
    # recordMidTurnUserMessage) writes a finished background task as a
    # ``user`` record with a subtype and provenance "system"; a message the
    # user typed during a turn keeps provenance "real_user"
    path = next((FIXTURES / "qwen-code-0.24").glob("*.jsonl"))
    warnings: list[str] = []
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=warnings.append)))
    assert warnings == [] and "unknown" not in events[-1]
    users = [e for e in events if e["type"] == "message" and e["role"] == "user"]
    assert [(u["meta"].get("subtype"), u["meta"].get("injectedKind"), u["meta"].get("injected")) for u in users] == [
        (None, None, None),
        ("background_task_completed", "background_task_completed", True),
        ("mid_turn_user_message", None, None),
    ]
    assert users[1]["text"] == 'Background shell "npm test" completed (exit code 0).'


# Qwen Code writes a request the API refused only as UI telemetry
# (``system``/``ui_telemetry``, ``uiEvent`` ``qwen-code.api_error`` with
# ``error_message``, ``error_type``, ``status_code``): no assistant record
# follows, so the log's only answer to the prompt is that notice.  Modelled
# on a real 0.14.1 session (navyapdh11/crm-portal, commit
# 9ae31d1524e79fe0fb9d9e1d79de68201a52843b,
# ``.qwen/projects/-root/chats/67e91b2f-5cb5-497e-a850-d7583f7005fd.jsonl``)
# and the api_response telemetry of a real 0.5.1 one (artas-linux/dotfiles,
# ``.qwen/projects/-home-archbtw/chats/9a578cd0-ad2c-423c-8f19-95412a2d81af.jsonl``).
API_ERROR = next((FIXTURES / "qwen-code-0.14").glob("*.jsonl"))


def test_api_error_telemetry_is_a_notice():
    result = run_cli("convert", API_ERROR, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    messages = [e for e in events if e["type"] == "message"]
    assert [(m["role"], m["text"]) for m in messages] == [
        ("user", "/auth"),
        ("user", "update the packages"),
        ("system", "400 Access denied, please make sure your account is in good standing."),
        ("user", "try again"),
        ("assistant", "The packages are up to date."),
    ]
    notice = messages[2]
    assert notice["meta"] == {
        "subtype": "ui_telemetry", "notice": "error", "apiError": True,
        "apiErrorKind": "BadRequestError", "apiErrorStatus": 400,
    }
    assert notice["parentId"] == messages[1]["id"]
    # the answer's telemetry stays counted; the answer follows the prompt
    end = events[-1]
    assert end["skipped"] == {"system/slash_command/result": 1, "system/ui_telemetry": 1}
    assert messages[4]["parentId"] == messages[3]["id"]
    assert not end.get("unknown")


def test_api_error_notice_in_markdown():
    result = run_cli("convert", API_ERROR, "--to", "markdown")
    assert result.returncode == 0, result.stderr
    assert b"400 Access denied" in result.stdout


def test_display_text_kept_when_it_is_not_the_text_sent():
    # Qwen Code 0.24's user records carry systemPayload.displayText, what the
    # UI showed (fixtures/qwen-code-0.24: a finished background task shown as
    # "npm test completed", sent as the task's notice; a prompt typed during a
    # turn, shown as it was sent).  The schema of 0.24.7's chatRecordingService
    # (UserPromptRecordPayload {displayText, hookContext, ...}) has it on
    # every prompt.
    path = next((FIXTURES / "qwen-code-0.24").glob("*.jsonl"))
    result = run_cli("convert", path, "--to", "portable-jsonl")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    users = [e for e in events if e["type"] == "message" and e["role"] == "user"]
    shown = {e["text"]: e.get("meta", {}).get("displayText") for e in users}
    assert shown['Background shell "npm test" completed (exit code 0).'] == "npm test completed"
    assert shown["also check the lint"] is None


def test_telemetry_whose_event_name_is_not_a_string_stays_counted():
    lines = [json.loads(line) for line in API_ERROR.read_text().splitlines()]
    for record in lines:
        if isinstance(record.get("systemPayload"), dict) and isinstance(record["systemPayload"].get("uiEvent"), dict):
            record["systemPayload"]["uiEvent"]["event.name"] = ["qwen-code.api_error"]
    data = "".join(json.dumps(r) + "\n" for r in lines).encode()
    result = run_cli("convert", "-", "--from", "qwen-code", "--to", "portable-jsonl", input=data)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    texts = [e.get("text") for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "message"]
    assert "400 Access denied, please make sure your account is in good standing." not in texts


# Qwen Code 0.24 sends what a UserPromptSubmit hook added as the prompt's
# last part, wrapped in <qwen:user-prompt-submit-context> (core
# hooks/user-prompt-submit-context.ts), and records it with the prompt
# (systemPayload {displayText, hookContext}); fixture built from that source.
HOOKS = next((FIXTURES / "qwen-code-0.24-hooks").glob("*.jsonl"))
HOOK_TEXT = "Branch main is 3 commits behind origin/main; last CI run failed in tests/cart.spec.ts."


def test_user_prompt_submit_hook_context_is_an_injected_message_of_its_own():
    warnings: list[str] = []
    events = list(sessionport.read(str(HOOKS), context=ReadContext(on_warning=warnings.append)))
    assert warnings == [] and "unknown" not in events[-1]
    users = [e for e in events if e["type"] == "message" and e["role"] == "user"]
    assert [u["text"] for u in users] == ["why does checkout fail on an empty cart?", HOOK_TEXT]
    assert users[0]["meta"] == {"kind": "text"}  # the prompt is the user's own, as the UI showed it (no displayText)
    assert users[1]["id"] == users[0]["id"] + "#1"
    assert users[1]["meta"] == {"injected": True, "injectedKind": "hook_additional_context", "hookEvent": "UserPromptSubmit"}
    assert [e["role"] for e in events if e["type"] == "message"] == ["user", "user", "assistant"]


def test_user_prompt_submit_hook_context_is_written_back_with_its_prompt(tmp_path):
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", HOOKS, "--to", "qwen-code", "-o", out)
    assert result.returncode == 0, result.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    original = [json.loads(line) for line in HOOKS.read_text().splitlines()]
    assert [r["type"] for r in written] == ["user", "assistant"]
    assert written[0]["message"] == original[0]["message"]
    assert written[0]["systemPayload"] == original[0]["systemPayload"]
    def users(path):
        return [(e["text"], e.get("meta")) for e in sessionport.read(str(path)) if e["type"] == "message" and e["role"] == "user"]

    assert users(out) == users(HOOKS)


def test_a_wrapped_part_alone_is_the_prompt_itself(tmp_path):
    # Qwen Code strips the wrapper only from a part after another one
    record = json.loads(HOOKS.read_text().splitlines()[0])
    record["message"]["parts"] = record["message"]["parts"][1:]
    del record["systemPayload"]
    path = tmp_path / f"{record['sessionId']}.jsonl"
    path.write_text(json.dumps(record) + "\n")
    users = [e for e in sessionport.read(str(path), format="qwen-code") if e["type"] == "message" and e["role"] == "user"]
    assert len(users) == 1 and users[0]["text"].startswith("<qwen:user-prompt-submit-context>")


# 0.24 (ACP): the records of a turn run in the background, answering a
# finished task's notification, carry backgroundTurn {turnId, taskId, kind,
# toolUseId?, label?, startedAt} (chatRecordingService.createBaseRecord);
# fixture built from that source.
BACKGROUND = next((FIXTURES / "qwen-code-0.24-background").glob("*.jsonl"))


def test_a_background_turns_records_keep_it_and_are_written_back_with_it(tmp_path):
    records = [json.loads(line) for line in BACKGROUND.read_text().splitlines()]
    events = [e for e in sessionport.read(str(BACKGROUND)) if e["type"] == "message"]
    assert [e["meta"].get("backgroundTurn") for e in events] == [r.get("backgroundTurn") for r in records]
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", BACKGROUND, "--to", "qwen-code", "-o", out)
    assert result.returncode == 0, result.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r.get("backgroundTurn") for r in written] == [r.get("backgroundTurn") for r in records]
    assert all(not any(k.startswith("\x00") for k in r) and all(not any(k.startswith("\x00") for k in p) for p in r["message"]["parts"]) for r in written)


# 0.24: the records of a /goal run carry goalContext {goalId, revision,
# turnId} (chatRecordingService: recordUserMessage, recordAssistantTurn,
# recordGoalRuntimeMessage, copyGoalContext); fixture built from that source.
GOAL = next((FIXTURES / "qwen-code-0.24-goal").glob("*.jsonl"))


def test_a_goal_runs_records_keep_their_goal_and_are_written_back_with_it(tmp_path):
    records = [json.loads(line) for line in GOAL.read_text().splitlines()]
    events = [e for e in sessionport.read(str(GOAL)) if e["type"] == "message"]
    assert [e["meta"].get("goalContext") for e in events] == [r["goalContext"] for r in records]
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", GOAL, "--to", "qwen-code", "-o", out)
    assert result.returncode == 0, result.stderr
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r.get("goalContext") for r in written] == [r["goalContext"] for r in records]


# The prompts Qwen Code 0.24.4 writes itself (chatRecordingService:
# createNotificationRecord for "notification" and "cron", provenance
# "system", systemPayload {displayText, backgroundTask?} only when there is a
# displayText; recordGoalRuntimeMessage, provenance "goal_runtime", with its
# goalContext), each between a real prompt and its answer.
def _harness_session(tmp_path, prompt: dict) -> tuple:
    sid = "3c9e1f20-5a4b-4c7d-8e6f-0a1b2c3d4e5f"

    def record(n: int, kind: str, provenance: str, **fields) -> dict:
        return {
            "uuid": f"3c9e1f20-0000-4000-8000-00000000000{n}",
            "parentUuid": f"3c9e1f20-0000-4000-8000-00000000000{n - 1}" if n > 1 else None,
            "sessionId": sid,
            "timestamp": f"2026-12-04T10:0{n}:00.000Z",
            "type": kind,
            "provenance": provenance,
            "cwd": "/home/dev/shop",
            "version": "0.24.4",
            "gitBranch": "main",
            **fields,
        }

    records = [
        record(1, "user", "real_user", message={"role": "user", "parts": [{"text": "watch the build"}]}),
        record(2, "assistant", "assistant_output", model="qwen3-coder-plus", message={"role": "model", "parts": [{"text": "Watching."}]}),
        record(3, "user", prompt.pop("provenance"), **prompt),
        record(4, "assistant", "assistant_output", model="qwen3-coder-plus", message={"role": "model", "parts": [{"text": "Done."}]}),
    ]
    path = tmp_path / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "back.jsonl"
    result = run_cli("convert", path, "--to", "qwen-code", "-o", out)
    assert result.returncode == 0, result.stderr
    return records, [json.loads(line) for line in out.read_text().splitlines()], path, out


NOTICE = '<task-notification>\n<task-id>bg-2</task-id>\n<kind>shell</kind>\n<status>completed</status>\n</task-notification>'
HARNESS_PROMPTS = {
    "notification": {
        "provenance": "system",
        "subtype": "notification",
        "message": {"role": "user", "parts": [{"text": NOTICE}]},
        "systemPayload": {"displayText": 'Background shell "npm run build" completed.', "backgroundTask": {"taskId": "bg-2", "kind": "shell"}},
    },
    "notification without a payload": {"provenance": "system", "subtype": "notification", "message": {"role": "user", "parts": [{"text": NOTICE}]}},
    "cron": {
        "provenance": "system",
        "subtype": "cron",
        "message": {"role": "user", "parts": [{"text": "Check the queue depth."}]},
        "systemPayload": {"displayText": "Check the queue depth."},
    },
    "goal_runtime": {
        "provenance": "goal_runtime",
        "subtype": "goal_runtime",
        "goalContext": {"goalId": "goal-5c1e", "revision": 1, "turnId": "t2"},
        "message": {"role": "user", "parts": [{"text": "Continue working toward the goal: make the test suite pass."}]},
    },
    "background_task_completed": {
        "provenance": "system",
        "subtype": "background_task_completed",
        "message": {"role": "user", "parts": [{"text": 'Background shell "npm test" completed (exit code 0).'}]},
        "systemPayload": {"displayText": "npm test completed", "backgroundTask": {"taskId": "b1", "status": "completed", "kind": "shell"}},
    },
}


@pytest.mark.parametrize("name", list(HARNESS_PROMPTS))
def test_a_harness_prompt_is_written_back_with_its_subtype_provenance_and_payload(name, tmp_path):
    records, written, path, out = _harness_session(tmp_path, dict(HARNESS_PROMPTS[name]))
    assert [r["type"] for r in written] == [r["type"] for r in records]
    given, back = records[2], written[2]
    # the record as Qwen Code writes it: same fields in the same order, the
    # same Content (what its resume sends to the model as the user turn)
    assert [k for k in back if k not in ("uuid", "parentUuid")] == [k for k in given if k not in ("uuid", "parentUuid")]
    for key in ("type", "provenance", "subtype", "goalContext", "message", "systemPayload"):
        assert back.get(key) == given.get(key), key
    # the plain prompt stays a plain prompt
    assert written[0]["provenance"] == "real_user" and "subtype" not in written[0] and "systemPayload" not in written[0]
    assert written[0]["message"] == records[0]["message"]

    def users(p):
        return [(e["text"], e.get("meta")) for e in sessionport.read(str(p)) if e["type"] == "message" and e["role"] == "user"]

    assert users(out) == users(path)


def test_a_message_typed_during_a_turn_and_a_plain_prompt_stay_as_they_were(tmp_path):
    # mid_turn_user_message is the user's own (provenance real_user), and
    # Qwen Code's resume joins it to the Content before it: written as a
    # plain prompt, as before; a prompt that only looks like a notification
    # is the user's too.
    records, written, _, _ = _harness_session(tmp_path, {
        "provenance": "real_user",
        "message": {"role": "user", "parts": [{"text": NOTICE}]},
    })
    assert written[2]["provenance"] == "real_user" and "subtype" not in written[2]
    path = next((FIXTURES / "qwen-code-0.24").glob("*.jsonl"))
    out = tmp_path / "mid.jsonl"
    assert run_cli("convert", path, "--to", "qwen-code", "-o", out).returncode == 0
    back = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["provenance"], r.get("subtype")) for r in back if r["type"] == "user"] == [
        ("real_user", None),
        ("system", "background_task_completed"),
        ("real_user", None),
    ]


def test_claude_codes_task_notification_and_scheduled_prompt_become_qwen_codes(tmp_path):
    # Claude Code's background-task notice is the <task-notification>
    # envelope Qwen Code's own notifications send; a scheduled task's prompt
    # is what Qwen Code records as a cron prompt
    def users(name):
        out = tmp_path / f"{name}.qwen.jsonl"
        assert run_cli("convert", FIXTURES / "claude-code" / name, "--to", "qwen-code", "-o", out).returncode == 0
        return [(r["provenance"], r.get("subtype"), r["message"]["parts"][0]["text"][:19]) for r in map(json.loads, out.read_text().splitlines()) if r["type"] == "user"]

    assert users("session-2.1.280-head-records.jsonl")[-1] == ("system", "notification", "<task-notification>")
    assert users("session-2.1.332-scheduled-task.jsonl") == [
        ("real_user", None, "Every hour, check t"),
        ("system", "cron", "Check the queue dep"),
    ]
