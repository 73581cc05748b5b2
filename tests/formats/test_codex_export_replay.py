"""A Codex rollout exported to ``codex`` holds the items Codex sends the model
when it resumes the original: reasoning with its encrypted content and its
summary parts, reasoning kept only encrypted, item ids, the parts of a
message, call arguments as written, compaction items and the summary of a
remote compaction.  (``tests/conformance`` checks the same with the real app.)"""

from __future__ import annotations

import orjson
import pytest

import sessionport
from conftest import CORPUS, FIXTURES, corpus_path, run_cli


def items(lines) -> list[dict]:
    return [x["payload"] for x in lines if x["type"] == "response_item"]


def original(path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def export(path) -> list[dict]:
    return [orjson.loads(line) for line in sessionport.dumps(sessionport.read(str(path)), "codex").splitlines()]


def of_type(payloads, kind) -> list[dict]:
    return [x for x in payloads if x.get("type") == kind]


def test_reasoning_keeps_its_encrypted_content_and_summary_parts():
    path = corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl")
    theirs, ours = of_type(items(original(path)), "reasoning"), of_type(items(export(path)), "reasoning")
    # 31 reasoning items, 13 of them only encrypted (no summary), 9 with a summary of several parts
    assert len(theirs) == 31 and sum(not x["summary"] for x in theirs) == 13 and sum(len(x["summary"]) > 1 for x in theirs) == 9
    assert ours == theirs


@pytest.mark.parametrize("name", ["codex-0.34.0-2025-11-01-envelope-no-turn-context.jsonl", "codex-0.40.0-2025-09-24-vscode-input-image.jsonl", "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl"])
def test_every_reasoning_item_and_call_of_a_corpus_rollout_is_written_back_as_it_was(name):
    path = corpus_path("codex", name)
    theirs, ours = items(original(path)), items(export(path))
    for kind in ("reasoning", "function_call", "custom_tool_call"):
        assert of_type(ours, kind) == of_type(theirs, kind), kind


def test_call_arguments_are_written_as_the_rollout_wrote_them():
    path = corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl")
    theirs = [x["arguments"] for x in of_type(items(original(path)), "function_call")]
    assert any(", " in a for a in theirs)  # spaces after the separators
    assert [x["arguments"] for x in of_type(items(export(path)), "function_call")] == theirs


def test_an_edited_input_is_written_anew_not_as_the_stale_text():
    events = list(sessionport.read(str(corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl"))))
    call = next(e for e in events if e.get("meta", {}).get("codexArgumentsText"))
    call["toolInput"] = {**call["toolInput"], "command": ["bash", "-lc", "echo [REDACTED]"]}
    lines = [orjson.loads(x) for x in sessionport.dumps(events, "codex").splitlines()]
    written = next(x["payload"] for x in lines if x["payload"].get("call_id") == call["toolCallId"] and x["payload"]["type"] == "function_call")
    assert orjson.loads(written["arguments"]) == call["toolInput"]


def test_ids_parts_and_passthrough_of_a_0_171_rollout_are_written_back():
    path = FIXTURES / "codex" / "rollout-0.171-scripted.jsonl"
    theirs, ours = items(original(path)), items(export(path))
    # every item as it was: the passthrough of each, a finished item's
    # status, the annotations of a text part
    for kind in ("message", "reasoning", "function_call", "function_call_output", "web_search_call"):
        assert of_type(ours, kind) == of_type(theirs, kind), kind
    assert [x.get("id") for x in of_type(ours, "function_call")] == [x.get("id") for x in of_type(theirs, "function_call")]


def test_another_apps_ids_are_not_written_as_codex_item_ids():
    lines = export(FIXTURES / "claude-code" / "session.jsonl")
    assert not any("id" in x for x in items(lines))


def test_compaction_items_and_a_remote_compactions_summary_are_written_back():
    inline = FIXTURES / "codex" / "rollout-0.155-context-compaction.jsonl"
    assert of_type(items(export(inline)), "context_compaction") == of_type(items(original(inline)), "context_compaction")
    remote = FIXTURES / "codex" / "rollout-envelope.jsonl"
    (theirs,) = [x["payload"] for x in original(remote) if x["type"] == "compacted"]
    (ours,) = [x["payload"] for x in export(remote) if x["type"] == "compacted"]
    assert ours == theirs  # the prompt it kept and the encrypted summary


def test_reasoning_kept_only_encrypted_is_left_out_of_other_apps_and_of_documents(capsys):
    events = list(sessionport.read(str(corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl"))))
    sealed = sum(1 for e in events if e.get("meta", {}).get("kind") == "thinking" and not e["text"])
    assert sealed == 13
    claude = [orjson.loads(x) for x in sessionport.dumps(events, "claude-code").splitlines()]
    blocks = [b for x in claude if x.get("type") == "assistant" for b in x["message"]["content"] if b["type"] == "thinking"]
    assert blocks and all(b["thinking"] for b in blocks)
    assert "13 reasoning item(s) kept only encrypted" in capsys.readouterr().err
    gemini = sessionport.dumps(events, "gemini-cli")
    assert b'"description":""' not in gemini
    assert "13 reasoning item(s) kept only encrypted" in capsys.readouterr().err
    assert sessionport.dumps(events, "markdown").count(b"<summary>Thinking") == 31 - sealed
    # HTML has an element for every message: a line saying what it is
    assert sessionport.dumps(events, "html").count(b"(reasoning kept encrypted") == sealed


def test_a_redacted_summary_is_written_as_one_part():
    path = corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl")
    events = list(sessionport.read(str(path)))
    thinking = next(e for e in events if e.get("meta", {}).get("summaryParts"))
    thinking["text"] = "[REDACTED]"
    lines = [orjson.loads(x) for x in sessionport.dumps(events, "codex").splitlines()]
    assert any(x["payload"].get("summary") == [{"type": "summary_text", "text": "[REDACTED]"}] for x in lines)


assert CORPUS  # the corpus tests skip when ../shared is absent (corpus_path)


def export_with_images(path) -> list[dict]:
    return [orjson.loads(line) for line in sessionport.dumps(sessionport.read(str(path), options={"keep_images": True}), "codex").splitlines()]


@pytest.mark.parametrize("path", [FIXTURES / "codex" / "rollout-0.154-paginated.jsonl", CORPUS / "codex" / "codex-0.40.0-2025-09-24-vscode-input-image.jsonl"], ids=lambda p: p.name)
def test_a_pasted_image_read_with_keep_images_is_written_back_where_it_was(path):
    if not path.exists():
        pytest.skip(f"{path} is missing")
    pasted = lambda lines: [x for x in of_type(items(lines), "message") if any(p.get("type") == "input_image" for p in x["content"])]  # noqa: E731
    theirs = pasted(original(path))
    assert theirs
    ours = pasted(export_with_images(path))
    assert [x["content"] for x in ours] == [x["content"] for x in theirs]
    # without --keep-images: the placeholder text, in the image's place
    plain = [x for x in of_type(items(export(path)), "message") if any("[image: image/png" in p.get("text", "") for p in x["content"])]
    assert len(plain) == len(theirs)


def test_the_images_of_another_apps_prompt_become_input_images():
    path = corpus_path("claude-code", "07_cc-2.0.55_single-line_ide-selection-2-images.jsonl")
    messages = of_type(items(export_with_images(path)), "message")
    images = [p for x in messages if x["role"] == "user" for p in x["content"] if p["type"] == "input_image"]
    assert len(images) == 2 and all(p["image_url"].startswith("data:image/png;base64,iVBOR") for p in images)
    texts = [p["text"] for x in messages if x["role"] == "user" for p in x["content"] if p["type"] == "input_text"]
    assert not any("[image: image/png" in t for t in texts)


def test_an_image_of_a_tool_result_is_written_as_an_input_image_item(tmp_path):
    events = [
        {"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": "s1", "metadata": {}},
        {"type": "message", "role": "user", "text": "look\n[image: image/png, 8 B]", "media": [{"type": "image", "mediaType": "image/png", "data": "iVBORw0KGgo="}]},
        {"type": "message", "role": "tool", "text": "Read", "toolName": "Read", "toolCallId": "c1", "toolInput": {"file_path": "a.png"}, "meta": {"kind": "tool_use"}},
        {"type": "message", "role": "tool", "text": "[image: image/png, 8 B]", "toolCallId": "c1", "meta": {"kind": "tool_result"}, "media": [{"type": "image", "mediaType": "image/png", "data": "iVBORw0KGgo="}]},
    ]
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    done = run_cli("convert", source, "--from", "portable-jsonl", "--keep-images", "--to", "codex", "-o", tmp_path / "out.jsonl")
    assert done.returncode == 0, done.stderr
    lines = [orjson.loads(x) for x in (tmp_path / "out.jsonl").read_bytes().splitlines()]
    (output,) = of_type(items(lines), "function_call_output")
    # Codex's content items of a call's output (FunctionCallOutputContentItem)
    assert output["output"] == [{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}]
    (prompt,) = [x for x in of_type(items(lines), "message") if x["role"] == "user"]
    assert [p["type"] for p in prompt["content"]] == ["input_text", "input_image"]
    # the prompt's image and the result's are written: nothing said to be lost
    assert b"no place for the bytes" not in done.stderr


def test_another_agents_message_is_written_back_as_the_agent_message_it_was(capsys):
    path = FIXTURES / "codex" / "rollout-0.149-agent-message-encrypted.jsonl"
    theirs, ours = of_type(items(original(path)), "agent_message"), of_type(items(export(path)), "agent_message")
    assert len(theirs) == 1 and any(p["type"] == "encrypted_content" for p in theirs[0]["content"])
    assert ours == theirs
    # to another app: the injected user message naming its author, the encrypted part a placeholder
    claude = sessionport.dumps(sessionport.read(str(path)), "claude-code")
    assert b"The patch looks right" in claude and b"gAAAAABo" not in claude
