"""``--json-report``: what a conversion did, per input, as one JSON object,
checked on real processes (exit codes, stderr, the files written)."""

from __future__ import annotations

import base64
import json

import orjson
import pytest

from conftest import FIXTURES, corpus_path, requires_corpus, run_cli

SESSION = FIXTURES / "claude-code" / "session.jsonl"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(3000)).decode()
TWO_IMAGES = "claude-code/07_cc-2.0.55_single-line_ide-selection-2-images.jsonl"


def with_records(tmp_path, name: str, *, image: bool = False, unknown: bool = False):
    """The Claude Code fixture, its first prompt with a pasted screenshot
    (as Claude Code writes one) and/or a record of a type not known yet."""
    out = []
    for line in SESSION.read_bytes().splitlines():
        record = orjson.loads(line)
        if image and record.get("type") == "user" and record["message"].get("content") == "List the files here, please.":
            record["message"]["content"] = [
                {"type": "text", "text": "List the files here, please."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            ]
        out.append(orjson.dumps(record))
        if unknown and record.get("type") == "user" and out and len(out) == 2:
            novel = {k: record[k] for k in ("parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version", "uuid", "timestamp")}
            out.append(orjson.dumps({**novel, "type": "brand-new-record", "uuid": "00000000-0000-4000-8000-0000000000aa"}))
    path = tmp_path / name
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


def report_of(path) -> dict:
    return json.loads(path.read_text())


def test_a_conversion_reports_what_the_target_has_no_place_for(tmp_path):
    source = with_records(tmp_path, "image.jsonl", image=True)
    out, report = tmp_path / "out.json", tmp_path / "report.json"
    proc = run_cli("convert", source, "--keep-images", "--to", "anthropic-messages", "-o", out, "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == b""
    doc = report_of(report)
    assert doc["schema"] == "sessionport/conversion-report/v1"
    assert (doc["command"], doc["to"], doc["output"], doc["exitCode"]) == ("convert", "anthropic-messages", str(out), 0)
    assert doc["cannotCarry"] == ["media", "timestamps", "usage", "responses items", "subagent sessions"]
    [entry] = doc["inputs"]
    assert entry["input"] == str(source) and entry["format"] == "claude-code" and entry["output"] == str(out)
    assert entry["status"] == "ok" and entry["error"] is None
    # the same counts the sentence on stderr gives
    assert entry["losses"]["media"] == 1
    note = next(line for line in proc.stderr.decode().splitlines() if "has no place for" in line)
    assert f"the timestamps of {entry['losses']['timestamps']} message(s)" in note
    assert f"the token usage of {entry['losses']['usage']} message(s)" in note
    written = orjson.loads(out.read_bytes())
    assert entry["messages"] == entry["messagesRead"] > 0
    assert entry["warnings"] == [] and entry["unknown"] == {}
    assert doc["totals"]["losses"] == entry["losses"] and doc["totals"]["converted"] == 1
    assert written  # the conversion itself was written as without the report


@requires_corpus
def test_the_images_of_a_prompt_written_into_a_rollout_are_not_counted_lost(tmp_path):
    # Codex holds a prompt's images: with --keep-images they are written
    source = corpus_path(TWO_IMAGES)
    report = tmp_path / "report.json"
    proc = run_cli("convert", source, "--keep-images", "--to", "codex", "-o", tmp_path / "out", "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    [entry] = report_of(report)["inputs"]
    assert entry["losses"]["media outside prompts"] == 0
    assert b"no place for the bytes" not in proc.stderr
    assert (tmp_path / "out").read_bytes().count(b'"type":"input_image"') == 2
    # without it, the bytes are not in the stream: said as before
    proc = run_cli("convert", source, "--to", "codex", "-o", tmp_path / "out", "--json-report", report)
    assert report_of(report)["inputs"][0]["losses"]["media outside prompts"] == 2


@requires_corpus
def test_the_image_bytes_of_a_real_session_are_counted(tmp_path):
    source = corpus_path(TWO_IMAGES)
    report = tmp_path / "report.json"
    proc = run_cli("convert", source, "--keep-images", "--to", "anthropic-messages", "-o", tmp_path / "out", "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    [entry] = report_of(report)["inputs"]
    assert entry["losses"]["media"] == 2
    assert b"no place for the bytes of 2 image(s)" in proc.stderr
    # claude-code holds a prompt's images: read with --keep-images, none is lost
    proc = run_cli("convert", source, "--keep-images", "--to", "claude-code", "-o", tmp_path / "back.jsonl", "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    [entry] = report_of(report)["inputs"]
    assert entry["losses"]["media outside prompts"] == 0 and b"no place for" not in proc.stderr
    assert (tmp_path / "back.jsonl").read_bytes().count(b'"type":"base64"') == 2


def test_a_batch_reports_every_input_and_the_exit_code(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    good = with_records(inputs, "a-image.jsonl", image=True, unknown=True)
    (inputs / "b-bad.jsonl").write_bytes(b'{"not json\n')
    (inputs / "c-empty.jsonl").write_bytes(b"")
    plain = with_records(inputs, "d-plain.jsonl")
    report = tmp_path / "report.json"
    # read without --keep-images: the image's bytes are not in the stream, so claude-code has none to write
    proc = run_cli("convert", inputs, "--to", "claude-code", "-o", f"{tmp_path}/out/", "--json-report", report, "-j", "2")
    assert proc.returncode == 1
    doc = report_of(report)
    assert doc["exitCode"] == 1
    entries = {e["input"].rsplit("/", 1)[-1]: e for e in doc["inputs"]}
    assert list(entries) == ["a-image.jsonl", "b-bad.jsonl", "c-empty.jsonl", "d-plain.jsonl"]
    a, bad, empty, d = entries.values()
    assert a["status"] == "ok" and a["losses"]["media outside prompts"] == 1 and a["output"] == f"{tmp_path}/out/a-image.jsonl"
    assert a["unknown"] == {"record": {"brand-new-record": 1}}
    assert any("brand-new-record" in w for w in a["warnings"])
    assert d["status"] == "ok" and d["losses"]["media outside prompts"] == 0 and d["unknown"] == {}
    assert bad["status"] == "failed" and "could not be recognised" in bad["error"]
    assert bad["output"] is None and bad["messages"] is None and bad["losses"] is None
    assert empty["status"] == "empty" and empty["output"] is None and empty["messages"] == 0
    assert doc["totals"] == {
        "inputs": 4, "converted": 2, "empty": 1, "failed": 1,
        "messagesRead": a["messagesRead"] + d["messagesRead"], "messages": a["messages"] + d["messages"],
        "losses": {"media": 0, "media outside prompts": 1, "timestamps": 0, "usage": 0, "responses items": 0, "subagent sessions": 0},
    }
    assert (tmp_path / "out" / "a-image.jsonl").exists() and (tmp_path / "out" / "d-plain.jsonl").exists()
    assert str(plain).endswith("d-plain.jsonl")

    # --quiet keeps the warnings off stderr, not out of the report
    quiet = run_cli("convert", inputs, "--keep-images", "--to", "codex", "-o", f"{tmp_path}/quiet/", "--json-report", report, "-q")
    assert quiet.returncode == 1 and b"brand-new-record" not in quiet.stderr
    assert report_of(report)["inputs"][0]["warnings"] == a["warnings"]


def test_a_batch_joined_into_one_stream_counts_each_input(tmp_path):
    # claude-code holds one session, so the joined batch is one input of a directory
    inputs = tmp_path / "in"
    inputs.mkdir()
    with_records(inputs, "image.jsonl", image=True)
    report = tmp_path / "report.json"
    proc = run_cli("convert", inputs, "--to", "claude-code", "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    [entry] = report_of(report)["inputs"]
    assert entry["output"] == "-" and entry["losses"]["media outside prompts"] == 1  # read without --keep-images
    assert proc.stdout.count(b"\n") > 3  # the conversion went to stdout


def test_a_single_input_that_fails_is_reported_with_its_exit_code(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"not json\n')
    report = tmp_path / "report.json"
    proc = run_cli("convert", bad, "--to", "markdown", "-o", tmp_path / "out.md", "--json-report", report)
    assert proc.returncode == 1
    assert proc.stderr.decode().count("error:") == 1
    doc = report_of(report)
    assert doc["exitCode"] == 1
    [entry] = doc["inputs"]
    assert entry["status"] == "failed" and "could not be recognised" in entry["error"]
    assert not (tmp_path / "out.md").exists()


def test_a_usage_error_is_reported_with_exit_code_2(tmp_path):
    report = tmp_path / "report.json"
    proc = run_cli("convert", SESSION, "--to", "markdown", "-o", SESSION, "--json-report", report)
    assert proc.returncode == 2
    doc = report_of(report)
    assert doc["exitCode"] == 2 and "onto the input" in doc["inputs"][0]["error"]


def test_the_report_on_stdout_needs_the_conversion_elsewhere(tmp_path):
    proc = run_cli("convert", SESSION, "--to", "markdown", "--json-report", "-")
    assert proc.returncode == 2
    assert b"--json-report -" in proc.stderr and proc.stdout == b""
    proc = run_cli("convert", SESSION, "--to", "markdown", "-o", tmp_path / "out.md", "--json-report", "-")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["inputs"][0]["status"] == "ok"


def test_the_report_never_replaces_an_input(tmp_path):
    source = tmp_path / "s.jsonl"
    source.write_bytes(SESSION.read_bytes())
    proc = run_cli("convert", source, "--to", "markdown", "-o", tmp_path / "out.md", "--json-report", source)
    assert proc.returncode == 2
    assert source.read_bytes() == SESSION.read_bytes()
    assert not (tmp_path / "out.md").exists()  # refused before anything was written


def test_stage_commands_and_chain_report_what_they_kept(tmp_path):
    report = tmp_path / "filter.json"
    proc = run_cli("filter", SESSION, "--role", "user", "-o", tmp_path / "f.jsonl", "--json-report", report)
    assert proc.returncode == 0, proc.stderr
    [entry] = report_of(report)["inputs"]
    kept = sum(1 for line in (tmp_path / "f.jsonl").read_bytes().splitlines() if orjson.loads(line)["type"] == "message")
    assert report_of(report)["command"] == "filter" and report_of(report)["to"] == "portable-jsonl"
    assert entry["messages"] == kept < entry["messagesRead"]

    chained = tmp_path / "chain.json"
    proc = run_cli("chain", "-i", SESSION, "--json-report", chained, "filter", "--role", "user", "to", "markdown", "-o", tmp_path / "c.md")
    assert proc.returncode == 0, proc.stderr
    doc = report_of(chained)
    assert (doc["command"], doc["to"]) == ("chain", "markdown")
    assert doc["inputs"][0]["messages"] == kept

    redacted = tmp_path / "redact.json"
    proc = run_cli("redact", SESSION, "-o", tmp_path / "r.jsonl", "--json-report", redacted)
    assert proc.returncode == 0, proc.stderr
    assert report_of(redacted)["inputs"][0]["messages"] == report_of(redacted)["inputs"][0]["messagesRead"]


def test_redact_check_takes_no_conversion_report(tmp_path):
    proc = run_cli("redact", "--check", SESSION, "--json-report", tmp_path / "r.json")
    assert proc.returncode == 2
    assert b"--check" in proc.stderr and not (tmp_path / "r.json").exists()


def test_without_the_report_the_output_is_unchanged(tmp_path):
    source = with_records(tmp_path, "image.jsonl", image=True)
    plain = run_cli("convert", source, "--keep-images", "--to", "codex")
    reported = run_cli("convert", source, "--keep-images", "--to", "codex", "-o", tmp_path / "o.jsonl", "--json-report", tmp_path / "r.json")
    assert plain.returncode == reported.returncode == 0
    assert (tmp_path / "o.jsonl").read_bytes() == plain.stdout
