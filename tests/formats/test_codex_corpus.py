"""The codex format on every real rollout of the shared corpus: detection,
one tool_use per call id, no duplicated assistant text, token totals,
injected context, resumed copies, ``.jsonl.zst`` and the round trip."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

import sessionport
from conftest import corpus_files, corpus_path, requires_corpus
from sessionport.cli import cli
from sessionport.formats.codex.items import content_text

CODEX_FILES = corpus_files("codex", "*.jsonl")
IDS = [p.name for p in CODEX_FILES]
CALL_TYPES = ("function_call", "custom_tool_call", "local_shell_call")


def raw_items(path: Path):
    """The ResponseItems and event payloads of a rollout, read independently."""
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        if "payload" in record:
            yield record["type"], record["payload"]
        elif "record_type" not in record and "type" in record:
            yield "response_item", record


def messages(events):
    return [e for e in events if e["type"] == "message"]


def kind(event):
    return (event.get("meta") or {}).get("kind", "text")


@requires_corpus
@pytest.mark.parametrize("path", CODEX_FILES, ids=IDS)
def test_corpus_file_converts_with_auto_detection(path, tmp_path):
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["convert", str(path), "--to", "portable-jsonl", "-o", str(out)])
    assert result.exit_code == 0, result.output
    events = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert events[0]["type"] == "session" and events[0]["source"] == "codex"
    assert events[-1]["type"] == "end"
    assert len(messages(events)) > 10


@requires_corpus
@pytest.mark.parametrize("path", CODEX_FILES, ids=IDS)
def test_each_call_id_becomes_exactly_one_tool_use(path):
    raw_ids = [p["call_id"] for kind_, p in raw_items(path) if kind_ == "response_item" and p.get("type") in CALL_TYPES]
    assert raw_ids, "every corpus rollout has tool calls"
    uses = Counter(e.get("toolCallId") for e in messages(sessionport.read(str(path))) if kind(e) == "tool_use")
    assert uses == Counter(raw_ids)
    assert set(uses.values()) == {1}


@requires_corpus
@pytest.mark.parametrize("path", CODEX_FILES, ids=IDS)
def test_assistant_text_never_appears_more_often_than_in_response_items(path):
    raw = Counter(
        content_text(p.get("content"))
        for kind_, p in raw_items(path)
        if kind_ == "response_item" and p.get("type") == "message" and p.get("role") == "assistant"
    )
    streamed = Counter(e["text"] for e in messages(sessionport.read(str(path))) if e["role"] == "assistant" and kind(e) == "text")
    for text, count in streamed.items():
        assert count <= raw[text], f"assistant text repeated: {text[:80]!r}"
    assert streamed == raw  # and none is lost


@requires_corpus
@pytest.mark.parametrize("path", CODEX_FILES, ids=IDS)
def test_outputs_pair_with_their_calls_by_call_id(path):
    names = {}
    for event in messages(sessionport.read(str(path))):
        if kind(event) == "tool_use":
            names[event["toolCallId"]] = event["toolName"]
        elif kind(event) == "tool_result":
            assert event["toolCallId"] in names, "an output arrived before its call"
            assert event["toolName"] == names[event["toolCallId"]]


@requires_corpus
@pytest.mark.parametrize("path", CODEX_FILES, ids=IDS)
def test_end_usage_matches_the_last_total_when_totals_never_reset(path):
    totals = [
        p["info"]["total_token_usage"]
        for kind_, p in raw_items(path)
        if kind_ == "event_msg" and p.get("type") == "token_count" and isinstance(p.get("info"), dict)
    ]
    end = list(sessionport.read(str(path)))[-1]
    if not totals:
        assert "usage" not in end  # pre-envelope rollouts carry no token counts
        return
    resets = sum(1 for a, b in zip(totals, totals[1:]) if b["total_tokens"] < a["total_tokens"])
    if resets == 0:
        assert end["usage"] == {k: totals[-1][k] for k in end["usage"]}
        assert end["usage"]["total_tokens"] == totals[-1]["total_tokens"]
    else:
        # Only the resumed copy resets here: its first segment is the copied history.
        assert "inheritedTotalTokens" in end["counts"]
        assert end["usage"]["total_tokens"] == totals[-1]["total_tokens"]
    assert end["usage"]["total_tokens"] == end["usage"]["input_tokens"] + end["usage"]["output_tokens"]


@requires_corpus
@pytest.mark.parametrize("path", [p for p in CODEX_FILES if "legacy" not in p.name], ids=lambda p: p.name)
def test_typed_prompts_are_real_and_the_rest_is_marked_injected(path):
    prompts = Counter(p["message"].strip() for kind_, p in raw_items(path) if kind_ == "event_msg" and p.get("type") == "user_message")
    users = [e for e in messages(sessionport.read(str(path))) if e["role"] == "user"]
    # A pasted image is a placeholder line in the message, not part of the typed text.
    real = Counter(re.sub(r"\n?\[image: [^\]]*\]", "", e["text"]).strip() for e in users if not (e.get("meta") or {}).get("injected"))
    assert real == prompts
    injected = [e for e in users if (e.get("meta") or {}).get("injected")]
    assert injected and all(e["text"].lstrip().startswith("<") for e in injected)


@requires_corpus
def test_encrypted_reasoning_is_counted_and_kept_in_meta_only():
    # 122 reasoning items, every one only encrypted: each a thinking message
    # of no text whose meta keeps it for the model (Codex replays it)
    path = corpus_path("codex", "codex-0.34.0-2025-11-01-envelope-no-turn-context.jsonl")
    events = list(sessionport.read(str(path)))
    thinking = [e for e in events if e["type"] == "message" and e.get("meta", {}).get("kind") == "thinking"]
    assert len(thinking) == 122
    assert all(e["text"] == "" and e["meta"]["encryptedContent"].startswith("gAAAAAB") for e in thinking)
    assert not any("gAAAAAB" in e.get("text", "") for e in events if e["type"] == "message")
    assert events[-1]["counts"]["encryptedReasoning"] == 122
    # a reader sees none of it
    assert b"Thinking" not in sessionport.dumps(events, "markdown")


@requires_corpus
def test_input_image_becomes_a_placeholder_once():
    path = corpus_path("codex", "codex-0.40.0-2025-09-24-vscode-input-image.jsonl")
    events = list(sessionport.read(str(path)))
    data = sessionport.dumps(events, "portable-jsonl")
    assert b"base64," not in data
    with_image = [e for e in messages(events) if "[image: image/png" in e["text"]]
    assert len(with_image) == 1 and with_image[0]["role"] == "user"


@requires_corpus
def test_custom_tool_call_keeps_the_patch_and_unwraps_the_output():
    path = corpus_path("codex", "codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl")
    events = messages(sessionport.read(str(path)))
    patch = next(e for e in events if e.get("toolName") == "apply_patch" and kind(e) == "tool_use")
    assert patch["toolInput"]["input"].startswith("*** Begin Patch")
    result = next(e for e in events if e.get("toolCallId") == patch["toolCallId"] and kind(e) == "tool_result")
    assert result["text"].startswith("Success. Updated the following files")
    assert result["isError"] is False


@requires_corpus
def test_resumed_copy_marks_the_copied_history_as_inherited():
    original = messages(sessionport.read(str(corpus_path("codex", "codex-0.36.0-2025-09-16-original.jsonl"))))
    resumed = list(sessionport.read(str(corpus_path("codex", "codex-0.36.0-2025-09-16-resumed-copy.jsonl"))))
    assert resumed[0]["sessionId"] == "613a9a68-8816-40b2-a2d4-041ade599da6"
    assert resumed[0]["metadata"]["inheritsFrom"] == ["9cd28a74-da7e-4458-a91a-fffec2be9d7a"]
    body = messages(resumed)
    inherited = [e for e in body if (e.get("meta") or {}).get("inherited")]
    # The copy is the original's history up to the resume, once, in order.
    key = lambda e: (e["role"], e["text"], e.get("toolCallId"))
    assert [key(e) for e in inherited] == [key(e) for e in original[: len(inherited)]]
    assert len(inherited) > 100
    assert body[: len(inherited)] == inherited  # the copy is a prefix
    own = body[len(inherited) :]
    assert own[0]["role"] == "user" and own[0]["text"].startswith("等下再继续")
    assert resumed[-1]["usage"]["total_tokens"] == 902751
    assert resumed[-1]["counts"]["inheritedTotalTokens"] == 2306201

    skipped = messages(sessionport.read(str(corpus_path("codex", "codex-0.36.0-2025-09-16-resumed-copy.jsonl")), options={"skip_inherited": True}))
    assert [key(e) for e in skipped] == [key(e) for e in own]


@requires_corpus
def test_pre_envelope_cwd_comes_from_the_environment_context():
    events = list(sessionport.read(str(corpus_path("codex", "codex-legacy-2025-08-23-prenv-reasoning-text.jsonl"))))
    assert events[0]["cwd"] == "/Users/kobra/Dev/Chatgpt-Apps/ocodex/codex-rs"
    assert events[0]["metadata"]["codexEra"] == "pre-envelope"
    thinking = [e for e in messages(events) if kind(e) == "thinking"]
    assert thinking and all(e["meta"].get("reasoningContent") for e in thinking)


@requires_corpus
@pytest.mark.parametrize("path", CODEX_FILES, ids=IDS)
def test_zstd_copy_converts_exactly_like_the_plain_file(path, tmp_path):
    zstandard = pytest.importorskip("zstandard")
    compressed = tmp_path / (path.name + ".zst")
    compressed.write_bytes(zstandard.ZstdCompressor(level=3).compress(path.read_bytes()))
    plain_out, zst_out = tmp_path / "plain.jsonl", tmp_path / "zst.jsonl"
    for source, out in ((path, plain_out), (compressed, zst_out)):
        result = CliRunner().invoke(cli, ["convert", str(source), "--to", "portable-jsonl", "-o", str(out)])
        assert result.exit_code == 0, result.output
    assert zst_out.read_bytes() == plain_out.read_bytes()


@requires_corpus
@pytest.mark.parametrize("path", CODEX_FILES, ids=IDS)
def test_round_trip_keeps_role_text_and_call_id(path):
    events = list(sessionport.read(str(path)))
    back = sessionport.loads(sessionport.dumps(events, "codex"))
    key = lambda e: (e["role"], e["text"], e.get("toolCallId"))
    assert [key(e) for e in messages(back)] == [key(e) for e in messages(events)]
    assert back[-1].get("usage") == events[-1].get("usage")
    # Injected context stays injected, typed prompts stay typed.
    injected = lambda stream: [bool((e.get("meta") or {}).get("injected")) for e in messages(stream) if e["role"] == "user"]
    assert injected(back) == injected(events)
