"""openai-responses: the items that are neither messages nor function calls
(MCP approvals and tool lists, tool search, programs, shell and apply_patch
calls, computer use, compaction, configuration), shaped as the OpenAI SDK
3.57 declares them (``openai/types/responses/response_input_item.py``):
each becomes the events its meaning calls for, nothing is skipped, and the
Responses writer writes every one back as it was."""

from __future__ import annotations

import json

import orjson
import pytest

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli
from test_provider_roundtrip import assert_api_valid

SAMPLE = FIXTURES / "openai-responses" / "mcp-approvals-shell-patch-compaction.json"
# One screenshot given as a data URL (a 1x1 PNG), as a computer-use loop sends it.
SCREENSHOT = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


def _read(source=SAMPLE, warnings=None, **options) -> list[dict]:
    ctx = ReadContext(on_warning=(warnings.append if warnings is not None else lambda m: None), options=options)
    return list(sessionport.read(str(source), context=ctx))


def _messages(events):
    return [e for e in events if e["type"] == "message"]


def _written(events, fmt="openai-responses"):
    warnings: list[str] = []
    from sessionport.context import WriteContext
    from sessionport.pipeline.stream import write_events
    import io

    out = io.BytesIO()
    write_events(events, out, format=fmt, context=WriteContext(on_warning=warnings.append))
    return orjson.loads(out.getvalue()), warnings


def test_every_item_becomes_events_and_nothing_is_skipped():
    warnings: list[str] = []
    events = _read(warnings=warnings)
    assert warnings == []
    end = events[-1]
    assert "skipped" not in end and "unknown" not in end
    seen = {(m["meta"].get("itemType"), m["meta"]["kind"]) for m in _messages(events) if m["meta"].get("itemType")}
    source = json.loads(SAMPLE.read_text())["input"]
    assert {i["type"] for i in source} - {"message", "reasoning"} == {t for t, _ in seen}


def test_what_each_item_maps_to():
    by_type: dict = {}
    for m in _messages(_read()):
        by_type.setdefault(m["meta"].get("itemType"), []).append(m)
    # an approval request is a call of the MCP tool; its response the result
    request, response = by_type["mcp_approval_request"][1], by_type["mcp_approval_response"][1]
    assert (request["toolName"], request["toolInput"], request["meta"]["kind"]) == ("read_wiki_structure", {"repoName": "octo/secret"}, "tool_use")
    assert (response["toolCallId"], response["text"], response["isError"]) == ("mcpr_02", "denied: private repository", True)
    assert by_type["mcp_approval_response"][0]["text"] == "approved" and "isError" not in by_type["mcp_approval_response"][0]
    search, loaded = by_type["tool_search_call"][0], by_type["tool_search_output"][0]
    assert (search["toolName"], search["toolInput"], loaded["text"], loaded["toolCallId"]) == ("tool_search", {"query": "git helpers"}, "git_status", "call_ts01")
    assert loaded["meta"]["item"]["tools"][0]["parameters"] == {"type": "object", "properties": {}}
    program, ran = by_type["program"][0], by_type["program_output"][0]
    assert program["text"].startswith("const s = await tools.git_status") and ran["text"] == "On branch main\nnothing to commit"
    shell, shell_out = by_type["shell_call"][0], by_type["shell_call_output"][0]
    assert shell["text"] == "ls -a\ncat LICENSE | head -1"
    assert shell_out["text"] == ".\n..\nLICENSE\n\nhead: broken pipe\n" and shell_out["isError"] is True  # the second command exited 1
    patch = by_type["apply_patch_call"][0]
    assert patch["text"].startswith("update_file README.md\n@@") and patch["toolInput"]["operation"]["path"] == "README.md"
    (compaction,) = by_type["compaction"]
    assert (compaction["role"], compaction["meta"]["kind"], compaction["text"]) == ("system", "compaction", "[compaction: encrypted summary, 48 B]")
    assert compaction["meta"]["item"]["encrypted_content"].startswith("gAAAA")
    assert by_type["compaction_trigger"][0]["text"] == "[compaction requested]"
    assert by_type["additional_tools"][0]["text"] == "[tools offered: read_notes]"
    assert by_type["configuration_update"][0]["text"] == "[configuration update: reasoning effort high]"


def test_the_responses_writer_writes_every_item_back_as_it_was():
    document, warnings = _written(_read())
    assert_api_valid("openai-responses", document)
    source = json.loads(SAMPLE.read_text())["input"]
    written = document["input"]
    assert [i["type"] for i in written] == [i["type"] for i in source]
    for original, back in zip(source, written):
        if original["type"] not in ("message", "reasoning"):
            assert back == original
    assert not any("no recorded result" in w or "hosted-tool" in w for w in warnings), warnings


@pytest.mark.parametrize("fmt", ["anthropic-messages", "openai-chat", "gemini"])
def test_another_format_carries_calls_and_results_and_counts_the_items(fmt):
    events = _read()
    document, warnings = _written(events, fmt)
    kept = sum(1 for m in _messages(events) if "item" in m["meta"])
    assert any(f"the OpenAI Responses shape of {kept} hosted-tool" in w for w in warnings), warnings
    back = sessionport.loads(orjson.dumps(document), format=fmt)
    names = [m.get("toolName") for m in _messages(back) if m["meta"].get("kind") == "tool_use"]
    assert {"read_wiki_structure", "tool_search", "program", "shell", "apply_patch", "computer", "local_shell", "web_search"} <= set(names)


def test_markdown_shows_the_approvals_outputs_and_compaction():
    shown = run_cli("convert", SAMPLE, "--to", "markdown")
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout.decode()
    for expected in ("denied: private repository", "head: broken pipe", "Updated README.md", "[compaction: encrypted summary, 48 B]", "git_status"):
        assert expected in text, expected


def test_a_screenshot_is_kept_whole_only_with_keep_images(tmp_path):
    items = [
        {"type": "computer_call", "id": "cu_1", "call_id": "call_cu1", "action": {"type": "screenshot"}, "pending_safety_checks": [], "status": "completed"},
        {"type": "computer_call_output", "call_id": "call_cu1", "output": {"type": "computer_screenshot", "image_url": SCREENSHOT}},
    ]
    path = tmp_path / "computer.json"
    path.write_bytes(orjson.dumps({"input": items}))
    plain = _read(path)
    result = _messages(plain)[1]
    assert result["text"] == "[image: image/png, 70 B]" and "image_url" not in result["meta"]["item"]["output"]
    document, warnings = _written(plain)
    assert any("without their screenshot" in w for w in warnings)
    kept = _read(path, keep_images=True)
    assert _messages(kept)[1]["media"][0]["mediaType"] == "image/png"
    document, warnings = _written(kept)
    assert document["input"] == items and not any("screenshot" in w for w in warnings)


def test_a_hosted_call_without_its_output_gets_none_and_a_warning(tmp_path):
    items = [{"type": "shell_call", "id": "sh_1", "call_id": "call_sh1", "action": {"commands": ["make"]}, "status": "completed"},
             {"type": "message", "role": "user", "content": "and?"}]
    path = tmp_path / "shell.json"
    path.write_bytes(orjson.dumps({"input": items}))
    document, warnings = _written(_read(path))
    assert [i["type"] for i in document["input"]] == ["shell_call", "message"]
    assert any("1 hosted-tool call(s)" in w for w in warnings) and not any("no recorded result" in w for w in warnings)


def test_a_self_answered_call_does_not_hold_back_what_follows(tmp_path):
    # a web search has no output item: the system note after it stays in place
    items = [{"type": "web_search_call", "id": "ws_1", "action": {"type": "search", "query": "q"}, "status": "completed"},
             {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAB"},
             {"type": "message", "role": "user", "content": "next"}]
    path = tmp_path / "search.json"
    path.write_bytes(orjson.dumps({"input": items}))
    document, _ = _written(_read(path))
    assert document["input"] == [items[0], items[1], {"type": "message", "role": "user", "content": "next"}]
