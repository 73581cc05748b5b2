"""Claude Code: tool results inside an answer, and the kind of an API error.

``fixtures/claude-code/session-2.1.19-provider-server-tool-result.jsonl`` is
modelled on real Claude Code 2.1.19 sessions run against an
Anthropic-compatible provider (GLM 4.7 through Z.ai; a home committed to
Mkid095/vps-system, commit efb98e09b980899c9376e8a9acbca1d6a1447ca1,
``.claude/projects/-home-ken-nextmavens-platform/85163fa2-….jsonl`` and
``-home-ken-github/0474b09a-….jsonl``): the provider runs its own tools
(``webReader``), so an answer holds a ``server_tool_use`` (its input a JSON
string) and then a plain ``tool_result`` block, in the assistant line, with
the page read (a string) or an MCP error (text parts).

``fixtures/claude-code/session-2.1.283-api-errors.jsonl`` is modelled on the
API-error notices Claude Code writes as assistant lines: ``error`` (the kind:
``rate_limit``, ``unknown``...) beside ``isApiErrorMessage``, as in a real
2.1.38 session (caochitam/aos, commit 1583243c6a192cf0c5967f9ab0868f42fa0ce43e,
``.claude/projects/-root/3105d225-10ec-4f54-a79d-40123f792362.jsonl``), the
HTTP status ``apiErrorStatus`` and the ``quotaLimits`` of the refused request
of a 2.1.283 record quoted verbatim by vfarcic/dot-agent-deck, and the API's
error body ``errorDetails`` of a real 2.1.111 "Prompt is too long" notice
(LAF-US/IDAHO-VAULT, commit c1c3fe9b6f274081e0ffbb32e541a9bf32f08892,
``.claude/projects/c--Users-loganf-Documents-IDAHO-VAULT/e469d94d-bde2-46d5-8c57-1303119815ec.jsonl``).

The texts are invented; the records keep the real shapes.
"""

from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

PROVIDER = FIXTURES / "claude-code" / "session-2.1.19-provider-server-tool-result.jsonl"
API_ERRORS = FIXTURES / "claude-code" / "session-2.1.283-api-errors.jsonl"


def raw(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def convert(path, fmt="portable-jsonl", *extra) -> tuple[list[dict], bytes]:
    result = run_cli("convert", path, "--to", fmt, *extra)
    assert result.returncode == 0, result.stderr
    if fmt != "portable-jsonl":
        return result.stdout, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()], result.stderr


def messages(events: list[dict]) -> list[dict]:
    return [e for e in events if e["type"] == "message"]


def test_tool_result_in_an_answer_is_a_tool_result_not_unknown():
    events, stderr = convert(PROVIDER)
    assert b"does not know" not in stderr, stderr
    end = events[-1]
    assert not end.get("unknown"), end.get("unknown")
    results = [m for m in messages(events) if m.get("meta", {}).get("kind") == "tool_result"]
    expected = [
        b for r in raw(PROVIDER) if r["type"] == "assistant"
        for b in r["message"]["content"] if b["type"] == "tool_result"
    ]
    assert len(results) == len(expected) == 2
    for message, block in zip(results, expected):
        assert message["role"] == "tool"
        assert message["toolCallId"] == block["tool_use_id"]
        assert message["meta"]["server"] is True
        assert message["meta"]["model"] == "glm-4.7"
    # the content itself, a string or text parts, not a placeholder
    assert "PostgreSQL or MySQL, chosen with DATABASE_PROVIDER" in results[0]["text"]
    assert results[1]["text"].startswith("MCP error -400:")
    assert not any(m["text"] == "[tool_result]" for m in messages(events))


def test_each_provider_call_has_its_result():
    events, _ = convert(PROVIDER)
    calls = [m for m in messages(events) if m.get("meta", {}).get("kind") == "tool_use"]
    results = [m for m in messages(events) if m.get("meta", {}).get("kind") == "tool_result"]
    assert [c["toolCallId"] for c in calls] == [r["toolCallId"] for r in results]
    assert all(c["meta"].get("server") is True and c["toolName"] == "webReader" for c in calls)
    # every block of the file is one message, none merged or dropped
    blocks = sum(
        len(r["message"]["content"]) if isinstance(r["message"]["content"], list) else 1
        for r in raw(PROVIDER) if r["type"] in ("user", "assistant")
    )
    assert len(messages(events)) == blocks


def test_provider_results_survive_the_round_trip(tmp_path):
    events, _ = convert(PROVIDER)
    portable = tmp_path / "session.jsonl"
    portable.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    native = tmp_path / "transcript.jsonl"
    result = run_cli("convert", portable, "--to", "claude-code", "-o", native)
    assert result.returncode == 0, result.stderr
    again, stderr = convert(native)
    assert b"does not know" not in stderr, stderr
    texts = lambda evs: [(m["role"], m["text"], m.get("toolCallId")) for m in messages(evs)]
    assert texts(again) == texts(events)


def test_provider_results_in_markdown():
    text, stderr = convert(PROVIDER, "markdown")
    assert b"does not know" not in stderr, stderr
    assert b"PostgreSQL or MySQL, chosen with DATABASE_PROVIDER" in text
    assert b"MCP error -400" in text


def test_api_error_kind_and_status_are_kept():
    events, stderr = convert(API_ERRORS)
    assert b"does not know" not in stderr, stderr
    errors = [m for m in messages(events) if m.get("meta", {}).get("apiError")]
    assert [m["meta"].get("apiErrorKind") for m in errors] == ["rate_limit", "unknown", "invalid_request"]
    assert [m["meta"].get("apiErrorStatus") for m in errors] == [429, None, 400]
    assert "apiErrorStatus" not in errors[1]["meta"]  # 2.1.38's shape: the kind only
    assert errors[0]["text"].startswith("You've hit your session limit")
    # the notice says "Prompt is too long"; the API's body says by how much
    assert errors[2]["text"] == "Prompt is too long"
    assert "204175 tokens > 200000 maximum" in errors[2]["meta"]["apiErrorDetails"]
    assert "apiErrorDetails" not in errors[0]["meta"]


def test_api_error_kind_and_status_are_written_back(tmp_path):
    native = tmp_path / "transcript.jsonl"
    result = run_cli("convert", API_ERRORS, "--to", "claude-code", "-o", native)
    assert result.returncode == 0, result.stderr
    written = [r for r in raw(native) if r.get("isApiErrorMessage") is True]
    original = [r for r in raw(API_ERRORS) if r.get("isApiErrorMessage") is True]
    assert [r.get("error") for r in written] == [r["error"] for r in original]
    for key in ("apiErrorStatus", "errorDetails"):
        assert [r.get(key) for r in written] == [r.get(key) for r in original]
    # the fields in the order Claude Code writes them
    keys = [k for k in written[2] if k in ("error", "errorDetails", "isApiErrorMessage", "apiErrorStatus")]
    assert keys == [k for k in original[2] if k in ("error", "errorDetails", "isApiErrorMessage", "apiErrorStatus")]
    again, _ = convert(native)
    first, _ = convert(API_ERRORS)
    pick = lambda evs: [
        (m["text"], m["meta"].get("apiErrorKind"), m["meta"].get("apiErrorStatus"), m["meta"].get("apiErrorDetails"))
        for m in messages(evs) if m.get("meta", {}).get("apiError")
    ]
    assert pick(again) == pick(first)
