"""What a conversion cannot carry is said once on stderr: each exporter
declares what of the stream it has no place for (``Exporter.cannot_carry``)
and the write path counts it in the events written."""

from __future__ import annotations

import base64

import orjson
import pytest

import sessionport
from conftest import FIXTURES, run_cli
from sessionport.context import WriteContext
from sessionport.registry import LOSSES, get_registry

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(2000)).decode()


@pytest.fixture
def with_image(tmp_path):
    """The Claude Code fixture with a pasted screenshot in its first prompt."""
    lines = (FIXTURES / "claude-code" / "session.jsonl").read_bytes().splitlines()
    out = []
    for line in lines:
        record = orjson.loads(line)
        if record.get("type") == "user" and record["message"].get("content") == "List the files here, please.":
            record["message"]["content"] = [
                {"type": "text", "text": "List the files here, please."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            ]
        out.append(orjson.dumps(record))
    path = tmp_path / "with-image.jsonl"
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


@pytest.mark.parametrize("target", ["claude-code", "anthropic-messages", "codex", "openai-chat", "gemini"])
def test_image_bytes_left_out_are_said_once(with_image, tmp_path, target):
    proc = run_cli("convert", str(with_image), "--to", target, "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.decode().splitlines() if f"{target} has no place for" in line]
    assert len(notes) == 1, proc.stderr
    assert f"{target} has no place for the bytes of 1 image(s) or document(s)" in notes[0]
    assert PNG[:200].encode() not in (tmp_path / "out").read_bytes()


def test_a_request_format_also_names_timestamps_and_usage(with_image):
    proc = run_cli("convert", str(with_image), "--to", "anthropic-messages")
    assert proc.returncode == 0, proc.stderr
    note = next(line for line in proc.stderr.decode().splitlines() if "has no place for" in line)
    assert "the timestamps of 6 message(s)" in note and "the token usage of 2 message(s)" in note


@pytest.mark.parametrize("target", ["portable-jsonl", "markdown"])
def test_formats_that_carry_everything_say_nothing(with_image, target):
    proc = run_cli("convert", str(with_image), "--to", target)
    assert proc.returncode == 0, proc.stderr
    assert b"has no place for" not in proc.stderr


def test_the_write_context_holds_the_counts(with_image):
    ctx = WriteContext(on_warning=lambda message: None)
    sessionport.write_events(sessionport.read(str(with_image)), open("/dev/null", "wb"), format="claude-code", context=ctx)
    assert ctx.losses == {"media outside prompts": 1}  # read without --keep-images


def test_every_declared_loss_is_in_the_vocabulary():
    registry = get_registry()
    for name in registry.exporter_names():
        exporter = registry.exporter(name)
        assert set(exporter.cannot_carry) <= set(LOSSES), f"{name} declares an unknown loss"


def test_formats_json_lists_what_each_exporter_cannot_carry():
    proc = run_cli("formats", "--json")
    rows = {row["name"]: row for row in orjson.loads(proc.stdout)}
    assert rows["anthropic-messages"]["cannotCarry"] == ["media", "timestamps", "usage", "responses items", "subagent sessions"]
    assert rows["portable-jsonl"]["cannotCarry"] == []
    # a one-session format leaves out a session's subagents; one that holds several keeps them
    assert "subagent sessions" in rows["codex"]["cannotCarry"] and "subagent sessions" not in rows["claude-code"]["cannotCarry"]


def test_claude_code_takes_back_a_prompts_image_read_with_keep_images(with_image, tmp_path):
    """Claude Code holds a pasted image as an ``image`` block of base64
    data: read with --keep-images, the bytes go back there, in the
    placeholder's place, and nothing is said lost."""
    out = tmp_path / "back.jsonl"
    proc = run_cli("convert", str(with_image), "--keep-images", "--to", "claude-code", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert b"has no place for" not in proc.stderr
    prompts = [orjson.loads(line)["message"]["content"] for line in out.read_bytes().splitlines() if b"List the files here" in line]
    assert prompts == [[{"type": "text", "text": "List the files here, please."},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}]]
    again = run_cli("convert", str(out), "--keep-images", "--to", "portable-jsonl")
    first = run_cli("convert", str(with_image), "--keep-images", "--to", "portable-jsonl")
    media = [[e.get("media") for e in map(orjson.loads, proc.stdout.splitlines()) if e.get("media")] for proc in (first, again)]
    assert media[0] == media[1] and media[0]
