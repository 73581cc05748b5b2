"""anthropic-messages: the response blocks of the Messages API's MCP
connector, code-execution container and server-side compaction, shaped as
the Anthropic SDK declares them (``BetaMCPToolUseBlock``,
``BetaMCPToolResultBlock``, ``BetaContainerUploadBlock``,
``BetaCompactionBlock``): each read as what it is, none reported unknown."""

from __future__ import annotations

import sessionport
from sessionport.context import ReadContext

from conftest import FIXTURES, run_cli

SAMPLE = FIXTURES / "anthropic-messages" / "mcp-connector-container-compaction.json"


def _messages(warnings: list[str] | None = None) -> list[dict]:
    ctx = ReadContext(on_warning=(warnings.append if warnings is not None else lambda message: None))
    return [e for e in sessionport.read(str(SAMPLE), context=ctx) if e["type"] == "message"]


def test_no_block_of_the_sample_is_unknown():
    warnings: list[str] = []
    messages = _messages(warnings)
    assert warnings == []
    assert not any("block" in m["meta"] for m in messages)
    assert [(m["role"], m["meta"]["kind"]) for m in messages] == [
        ("user", "text"),
        ("tool", "tool_use"),
        ("tool", "tool_result"),
        ("tool", "tool_use"),
        ("tool", "tool_result"),
        ("assistant", "text"),
        ("user", "text"),
        ("user", "text"),
        ("system", "compaction"),
        ("assistant", "text"),
    ]


def test_mcp_calls_pair_with_their_results_and_keep_the_server_and_the_error():
    messages = _messages()
    call, result, failed_call, failed = messages[1:5]
    assert call["toolName"] == "list_issues" and call["toolInput"] == {"state": "open"}
    assert call["meta"]["serverTool"] is True and call["meta"]["extra"] == {"server_name": "github"}
    assert result["toolCallId"] == call["toolCallId"] == "mcptoolu_01GkVt1mJ2pZ"
    assert result["text"] == "#12 crash on start" and result["isError"] is False
    assert failed["toolCallId"] == failed_call["toolCallId"] and failed["isError"] is True
    assert failed["text"] == "issue 13 not found"


def test_container_upload_names_its_file_and_compaction_is_the_summary():
    messages = _messages()
    upload = messages[6]
    assert upload["text"] == "[file: file_011CNha8iCJcU1wXNR6q4V8w]"
    assert upload["meta"]["fileId"] == "file_011CNha8iCJcU1wXNR6q4V8w" and upload["meta"]["attachment"] == "container_upload"
    summary = messages[8]
    assert summary["text"].startswith("The user listed their open GitHub issues")
    assert summary["meta"]["extra"] == {"signature": "EqQBCkgIARABGAIiQL8"}


def test_a_failed_compaction_is_still_visible(tmp_path):
    path = tmp_path / "request.json"
    path.write_text('{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"compaction","content":null},{"type":"text","text":"ok"}]}]}')
    events = [e for e in sessionport.read(str(path)) if e["type"] == "message"]
    assert [(e["role"], e["text"]) for e in events] == [("user", "hi"), ("system", "[compaction: no summary]"), ("assistant", "ok")]


def test_the_cli_reads_the_sample_without_warnings(tmp_path):
    out = tmp_path / "chat.md"
    done = run_cli("convert", str(SAMPLE), "--to", "markdown", "-o", str(out))
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert "list_issues" in out.read_text()
