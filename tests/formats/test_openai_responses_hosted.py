"""openai-responses: hosted tools whose call item holds its own result, shaped
as the OpenAI SDK declares them (``McpCall``, ``ResponseCodeInterpreterToolCall``,
``ResponseFileSearchToolCall``, ``ImageGenerationCall``): the call, then its
result as a tool result; an image generation's base64 never lands in a
tool input or a text."""

from __future__ import annotations

import json

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli

SAMPLE = FIXTURES / "openai-responses" / "hosted-tools-with-results.json"


def _messages(**options) -> list[dict]:
    ctx = ReadContext(on_warning=lambda message: None, options=options)
    return [e for e in sessionport.read(str(SAMPLE), context=ctx) if e["type"] == "message"]


def _pairs(messages):
    calls = {m["toolCallId"]: m for m in messages if m["meta"]["kind"] == "tool_use"}
    return [(calls[m["toolCallId"]], m) for m in messages if m["meta"]["kind"] == "tool_result"]


def test_every_call_is_answered_by_the_result_its_item_holds():
    messages = _messages()
    pairs = _pairs(messages)
    assert [(c["toolName"], r["text"]) for c, r in pairs] == [
        ("mcp_list_tools", "ask_question"),
        ("ask_question", "MIT"),
        ("ask_question", "repository not found"),
        ("code_interpreter", "1024\n\n[image: https://files.example.invalid/plot.png]"),
        ("file_search", "[file: policy.md]\nRefunds within 30 days."),
        ("image_generation", "[image: image/png, 1.2 KB, generated]"),
    ]
    assert [r.get("isError") for _, r in pairs][1:3] == [False, True]


def test_mcp_call_input_is_its_arguments_and_keeps_its_server():
    call = next(m for m in _messages() if m["meta"].get("itemType") == "mcp_call")
    assert call["toolInput"] == {"repoName": "octo/app", "question": "Which license?"}
    assert call["meta"]["extra"] == {"server_label": "deepwiki"}
    assert call["toolCallId"] == "mcp_01"


def test_inline_results_are_not_repeated_in_the_call_input():
    for message in _messages():
        if message["meta"]["kind"] == "tool_use":
            assert not {"output", "outputs", "results", "result", "error"} & message["toolInput"].keys()
    image_call = next(m for m in _messages() if m.get("toolName") == "image_generation")
    assert image_call["toolInput"]["revised_prompt"] == "A lighthouse at dusk"
    assert len(json.dumps(image_call)) < 1000


def test_the_generated_image_is_carried_only_with_keep_images():
    result = next(m for m in _messages(keep_images=True) if m.get("meta", {}).get("itemType") == "image_generation_call" and m["meta"]["kind"] == "tool_result")
    assert result["media"][0]["mediaType"] == "image/png"
    plain = next(m for m in _messages() if m.get("meta", {}).get("itemType") == "image_generation_call" and m["meta"]["kind"] == "tool_result")
    assert "media" not in plain


def test_the_cli_reads_the_sample_with_nothing_skipped(tmp_path):
    out = tmp_path / "events.jsonl"
    done = run_cli("convert", str(SAMPLE), "--to", "portable-jsonl", "-o", str(out))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    end = json.loads(out.read_bytes().splitlines()[-1])
    # the server's tool list is a call answered by the list, nothing skipped
    assert "skipped" not in end and end["counts"] == {"messages": 13}
