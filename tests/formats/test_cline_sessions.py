"""Cline 3 (the SDK-based CLI): a session is ``<sessions>/<id>/<id>.messages.json``
(``{version, updated_at, agent, sessionId, origin, messages, system_prompt}``)
beside its manifest ``<id>.json``, as ``@cline/core`` 0.0.86 (cline 3.0.65)
writes them.  The messages file is detected and read as Anthropic-style
messages with Cline's own blocks (``file``, ``image`` with ``data`` and
``mediaType``, ``media``) and ``metrics``; the manifest gives the start and
the working directory, and a folder walk passes over it."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, detected_format, run_cli

SID = "1795000000000_k3j9x"
FOLDER = FIXTURES / "cline-sessions"
SAMPLE = FOLDER / SID / f"{SID}.messages.json"


def _events(**options) -> list[dict]:
    warnings: list[str] = []
    events = list(sessionport.read(str(SAMPLE), context=ReadContext(on_warning=warnings.append, options=options)))
    assert warnings == []
    return events


def test_the_messages_file_is_detected_as_anthropic_messages():
    assert detected_format(SAMPLE) == "anthropic-messages"


def test_session_comes_from_the_file_and_its_manifest():
    session = _events()[0]
    assert session["sessionId"] == SID
    assert session["createdAt"] == "2026-11-18T11:06:40.000Z"
    metadata = session["metadata"]
    assert metadata["client"] == "cline" and metadata["agent"] == "lead"
    assert metadata["origin"]["version"] == "3.0.65"
    assert metadata["cwd"] == "/home/me/app" and metadata["status"] == "completed"


def test_cline_blocks_are_read_without_their_payloads():
    messages = [e for e in _events() if e["type"] == "message"]
    texts = [m["text"] for m in messages]
    assert texts[:3] == ["What does main.py print?", "[file: /home/me/app/main.py]\nprint('hi')\n", "[image: image/png, 70 B]"]
    assert "[image: image/png, 70 B, generated]" in texts
    assert not any("iVBOR" in json.dumps(m) for m in messages)
    call = next(m for m in messages if m["meta"]["kind"] == "tool_use")
    result = next(m for m in messages if m["meta"]["kind"] == "tool_result")
    assert result["toolCallId"] == call["toolCallId"] == "toolu_01" and result["text"] == "hi"
    assert messages[-1]["role"] == "system" and messages[-1]["text"] == "You are Cline, a software engineer."


def test_metrics_are_the_usage_with_the_cache_split():
    end = _events()[-1]
    assert end["usage"] == {
        "input_tokens": 1200 + 800 + 100 + 300 + 2000,
        "cached_input_tokens": 2800,
        "output_tokens": 52,
        "total_tokens": 4400 + 52,
        "cache_creation_input_tokens": 100,
    }
    models = {m["meta"].get("model") for m in _events() if m["type"] == "message" and m["role"] == "assistant"}
    assert models == {"claude-sonnet-4-6"}


def test_keep_images_carries_the_attached_image():
    image = next(e for e in _events(keep_images=True) if e["type"] == "message" and e["text"] == "[image: image/png, 70 B]")
    assert image["media"][0]["mediaType"] == "image/png"


def test_a_walk_of_the_sessions_folder_reads_the_messages_and_passes_over_the_manifest(tmp_path):
    out = tmp_path / "out"
    done = run_cli("convert", str(FOLDER), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert b"1 of 1 input(s) converted" in done.stderr
    written = [p.name for p in out.rglob("*.md")]
    assert written == [f"{SID}.messages.md"]


NOTICES = FIXTURES / "cline-sessions-notices" / "1795200000000_p4w8d" / "1795200000000_p4w8d.messages.json"


def _by_id(path):
    events = list(sessionport.read(str(path), context=ReadContext(on_warning=lambda m: None)))
    return events, [e for e in events if e["type"] == "message"]


def test_a_display_only_error_is_a_system_notice_not_the_assistant_speaking():
    # ``@cline/core`` records a run's terminal error as an assistant message
    # marked ``displayOnly`` (never sent to the model)
    _, messages = _by_id(SAMPLE)
    error = next(m for m in messages if m["text"] == "Request failed: rate limited")
    assert (error["role"], error["isError"], error["meta"]["notice"]) == ("system", True, "error")
    assert error["meta"]["message"]["metadata"] == {"displayOnly": True, "displayRole": "error"}
    assert error["meta"]["model"] == "claude-sonnet-4-6"


def test_notices_summaries_and_compaction_marks_are_what_their_metadata_says():
    events, messages = _by_id(NOTICES)
    rows = [(m["role"], m["meta"].get("kind"), m["meta"].get("notice"), m["meta"].get("injectedKind"), m.get("isError")) for m in messages]
    assert rows == [
        ("user", "summary", None, None, None),  # compaction_summary: the summary the model reads
        ("system", "compaction", None, None, None),  # the boundary before the first kept message
        ("user", "text", None, None, None),
        ("tool", "tool_use", None, None, None),
        ("tool", "tool_result", None, None, True),
        ("user", "text", None, "recovery_notice", None),
        ("system", "text", "status", None, None),
        ("user", "text", None, "stop_notice", None),
        ("system", "text", "error", None, True),
        ("system", "text", None, None, None),  # system_prompt
    ]
    boundary = messages[1]
    assert boundary["text"] == "[compaction: 4 earlier message(s) removed (auto_compaction)]"
    assert boundary["timestamp"] == messages[2]["timestamp"] and boundary["meta"]["messagesRemoved"] == 4
    assert messages[0]["meta"]["injected"] is True and messages[5]["meta"]["reason"] == "tool_execution_failed"
    assert events[-1]["counts"] == {"messages": 10}


def test_the_notices_render_as_notices(tmp_path):
    shown = run_cli("convert", str(NOTICES), "--to", "markdown")
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout.decode()
    assert "Provider returned 529, retrying failed." in text and "[compaction: 4 earlier message(s) removed" in text


def test_an_anthropic_list_with_a_metadata_key_is_not_read_as_cline(tmp_path):
    path = tmp_path / "messages.json"
    path.write_text(json.dumps([{"role": "assistant", "content": "hi", "metadata": {"displayOnly": True, "displayRole": "error"}}]))
    _, messages = _by_id(path)
    assert messages[0]["role"] == "assistant" and "notice" not in messages[0]["meta"]
