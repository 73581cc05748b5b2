"""What the next version of a tool might write, generated from every real file.

Each corpus file is rewritten the way a newer version of the tool that
wrote it could write it: record types never seen before ahead of the first
message, content blocks of a new type, new fields on every record and typed
object, an optional field renamed.  Each rewrite must be detected as the
same format, keep every message the original gives (role, text, tool call
id), and report what is new (``end.unknown``, a warning per type) where the
importer reads records or blocks by type.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import orjson
import pytest

import sessionport
from sessionport.context import ReadContext
from sessionport.detect import detect
from sessionport.io import HEAD_SIZE
from sessionport.registry import get_registry

from conftest import CORPUS, FIXTURES, corpus_files, requires_corpus

CORPUS_FILES = [p for p in corpus_files("") if p.suffix in (".json", ".jsonl") and p.parent.name != "subagents"]
# Formats the corpus has no real file of yet: their fixtures, shaped like real files.
FIXTURE_FILES = sorted((FIXTURES / "qwen-code").glob("*.jsonl"))
MUTATIONS = ("new_record_types", "new_block_types", "new_fields", "renamed_field")
# Importers that read records and blocks by their type, and so must report new ones.
BY_TYPE = {"claude-code", "codex", "gemini-cli", "qwen-code"}
REGISTRY = get_registry()
NEW_FIELD = "zzFutureField"


def _jsonl(data: bytes) -> list[dict] | None:
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) < 2 and not data.rstrip().endswith(b"}"):
        return None
    try:
        records = [orjson.loads(line) for line in lines]
    except orjson.JSONDecodeError:
        return None
    return records if all(isinstance(r, dict) for r in records) else None


def _dump_jsonl(records: list[dict]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def _stamp(records: list[dict]) -> str:
    return next((r["timestamp"] for r in records if isinstance(r.get("timestamp"), str)), "2026-01-01T00:00:00.000Z")


# -- per-format rewrites ------------------------------------------------------


def claude_code(records: list[dict], mutation: str) -> list[dict]:
    sid = next((r["sessionId"] for r in records if isinstance(r.get("sessionId"), str)), "s")
    if mutation == "new_record_types":
        return [
            {"type": "hologram-state", "sessionId": sid, "hologram": {"on": True}},
            {"parentUuid": None, "isSidechain": False, "type": "quantum-link", "sessionId": sid, "uuid": "ffffffff-0000-4000-8000-000000000001", "timestamp": _stamp(records), "version": "9.9.9"},
            *records,
        ]
    if mutation == "new_block_types":
        out, done = [], set()
        for r in records:
            content = (r.get("message") or {}).get("content") if isinstance(r.get("message"), dict) else None
            if r.get("type") in ("assistant", "user") and isinstance(content, list) and r["type"] not in done:
                if not (r["type"] == "user" and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)):
                    r = copy.deepcopy(r)
                    r["message"]["content"].append({"type": "hologram" if r["type"] == "assistant" else "sticker", "frames": 3})
                    done.add(r["type"])
            out.append(r)
        return out
    if mutation == "new_fields":
        return [_with_field(r, ("message",)) for r in records]
    return [_renamed(r, "gitBranch", "gitBranchName") for r in records]


def qwen_code(records: list[dict], mutation: str) -> list[dict]:
    first = records[0]
    if mutation == "new_record_types":
        envelope = {k: first[k] for k in ("sessionId", "cwd", "version") if k in first}
        return [
            {"uuid": "ffffffff-0000-4000-8000-000000000001", "parentUuid": None, **envelope, "timestamp": first.get("timestamp"), "type": "system", "subtype": "hologram_state", "systemPayload": {}},
            {"uuid": "ffffffff-0000-4000-8000-000000000002", "parentUuid": None, **envelope, "timestamp": first.get("timestamp"), "type": "hologram", "message": {"role": "user", "parts": [{"text": "x"}]}},
            *records,
        ]
    if mutation == "new_block_types":
        out, done = [], False
        for r in records:
            if not done and r.get("type") == "user" and isinstance((r.get("message") or {}).get("parts"), list):
                r = copy.deepcopy(r)
                r["message"]["parts"].append({"hologramData": {"frames": 3}})
                done = True
            out.append(r)
        return out
    if mutation == "new_fields":
        return [_with_field(r, ()) for r in records]
    return [_renamed(r, "gitBranch", "gitBranchName") for r in records]


def codex_envelope(records: list[dict], mutation: str) -> list[dict]:
    at = next((i for i, r in enumerate(records) if r.get("type") != "session_meta"), len(records))
    stamp = records[at - 1]["timestamp"] if at and isinstance(records[at - 1].get("timestamp"), str) else _stamp(records)
    if mutation == "new_record_types":
        new = [
            {"timestamp": stamp, "type": "hologram_state", "payload": {"x": 1}},
            {"timestamp": stamp, "type": "event_msg", "payload": {"type": "hologram_update", "x": 1}},
            {"timestamp": stamp, "type": "response_item", "payload": {"type": "hologram_call", "call_id": "h1"}},
        ]
        return records[:at] + new + records[at:]
    if mutation == "new_block_types":
        out, done = [], False
        for r in records:
            payload = r.get("payload")
            if not done and r.get("type") == "response_item" and isinstance(payload, dict) and payload.get("type") == "message" and isinstance(payload.get("content"), list):
                r = copy.deepcopy(r)
                r["payload"]["content"].append({"type": "output_hologram", "data": "x"})
                done = True
            out.append(r)
        return out
    if mutation == "new_fields":
        return [{**r, "payload": {**r["payload"], "zz_future_field": 1}} if isinstance(r.get("payload"), dict) else r for r in records]
    return [{**r, "payload": _renamed(r["payload"], "originator", "originator_name")} if r.get("type") == "session_meta" else r for r in records]


def codex_bare(records: list[dict], mutation: str) -> list[dict]:
    if mutation == "new_record_types":
        return records[:1] + [{"type": "hologram_call", "id": "h1"}] + records[1:]
    if mutation == "new_block_types":
        out, done = [], False
        for r in records:
            if not done and r.get("type") == "message" and isinstance(r.get("content"), list):
                r = copy.deepcopy(r)
                r["content"].append({"type": "output_hologram", "data": "x"})
                done = True
            out.append(r)
        return out
    if mutation == "new_fields":
        return records[:1] + [{**r, "zz_future_field": 1} if "type" in r else r for r in records[1:]]
    return [_renamed(r, "status", "state") for r in records]


def gemini_cli_jsonl(records: list[dict], mutation: str) -> list[dict]:
    if mutation == "new_record_types":
        return records[:1] + [{"id": "zz-hologram-1", "timestamp": _stamp(records), "type": "hologram", "content": "a notice of a new kind"}] + records[1:]
    if mutation == "new_block_types":
        out, done = [], False
        for r in records:
            if not done and r.get("type") == "user" and isinstance(r.get("content"), list):
                r = copy.deepcopy(r)
                r["content"].append({"hologramData": {"frames": 3}})
                done = True
            out.append(r)
        return out
    if mutation == "new_fields":
        return [{**r, NEW_FIELD: 1} for r in records]
    return [_renamed(r, "lastUpdated", "lastUpdatedAt") for r in records]


def document(value, mutation: str, importer: str):
    if mutation == "new_fields":
        return _with_field(value, ())
    if mutation == "renamed_field":
        return _deep_rename(value, {"chatgpt-export": "update_time", "gemini-cli": "lastUpdated"}.get(importer, "zz-none"), "renamed_optional_field")
    if mutation == "new_block_types" and importer == "chatgpt-export":
        return _new_part(value)
    if importer == "gemini-cli" and isinstance(value, dict) and isinstance(value.get("messages"), list):
        messages = value["messages"]
        if mutation == "new_record_types":
            stamp = next((m.get("timestamp") for m in messages if isinstance(m, dict)), "2026-01-01T00:00:00.000Z")
            return {**value, "messages": [{"id": "zz-hologram-1", "timestamp": stamp, "type": "hologram", "content": "a notice of a new kind"}, *messages]}
        return {**value, "messages": gemini_cli_jsonl(messages, mutation)}
    return None  # not a rewrite for this document


# -- helpers --------------------------------------------------------------------


def _with_field(value, also: tuple[str, ...]):
    """``value`` with a new field on every dict that is a record or a typed
    object (never on maps keyed by ids, such as a ChatGPT ``mapping``)."""
    if isinstance(value, list):
        return [_with_field(v, also) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _with_field(v, also) for k, v in value.items()}
    if any(k in value for k in ("type", "role", "content_type", "id", "uuid", "author")):
        out[NEW_FIELD] = {"since": "next"}
    return out


def _renamed(record: dict, old: str, new: str) -> dict:
    return {new if k == old else k: v for k, v in record.items()} if isinstance(record, dict) else record


def _deep_rename(value, old: str, new: str):
    if isinstance(value, list):
        return [_deep_rename(v, old, new) for v in value]
    if isinstance(value, dict):
        return {new if k == old else k: _deep_rename(v, old, new) for k, v in value.items()}
    return value


def _new_part(value):
    done = [False]

    def walk(v):
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            out = {k: walk(x) for k, x in v.items()}
            if not done[0] and out.get("content_type") in ("text", "multimodal_text") and isinstance(out.get("parts"), list) and out["parts"]:
                out["parts"] = [*out["parts"], {"content_type": "hologram_pointer", "frames": 3}]
                done[0] = True
            return out
        return v

    return walk(value)


def rewrite(data: bytes, importer: str, mutation: str) -> bytes | None:
    records = _jsonl(data) if data.strip() else []
    if records is not None and (len(records) > 1 or importer in ("claude-code", "codex", "gemini-cli")):
        if not records and mutation != "new_record_types":
            return None
        if importer == "claude-code":
            return _dump_jsonl(claude_code(records, mutation))
        if importer == "codex":
            fn = codex_envelope if "payload" in records[0] else codex_bare
            return _dump_jsonl(fn(records, mutation))
        if importer == "gemini-cli":
            return _dump_jsonl(gemini_cli_jsonl(records, mutation))
        if importer == "qwen-code":
            return _dump_jsonl(qwen_code(records, mutation))
        if mutation == "new_fields":
            return _dump_jsonl([_with_field(r, ()) for r in records])
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    changed = document(value, mutation, importer)
    return None if changed is None else json.dumps(changed).encode()


def _parsed(data: bytes):
    try:
        return json.loads(data)  # a JSON document (or a one-record JSONL file)
    except ValueError:
        return _jsonl(data) if data.strip() else []


def read(path: Path) -> tuple[list[dict], ReadContext]:
    ctx = ReadContext(on_warning=lambda message: None)
    return list(sessionport.read(str(path), context=ctx)), ctx


def key(event: dict) -> tuple:
    return event["role"], event.get("toolCallId")


def kept_in_order(before: list[dict], after: list[dict]) -> list[dict]:
    """The messages of ``before`` not found, in order, in ``after`` (text
    may have grown by a placeholder)."""
    missing, at = [], 0
    for event in before:
        while at < len(after) and not (key(after[at]) == key(event) and event["text"] in after[at]["text"]):
            at += 1
        if at == len(after):
            missing.append(event)
            at = 0
        else:
            at += 1
    return missing


@requires_corpus
@pytest.mark.parametrize("mutation", MUTATIONS)
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_the_next_version_of_every_real_file_still_reads(path, mutation, tmp_path):
    check_next_version(path, mutation, tmp_path)


@pytest.mark.parametrize("mutation", MUTATIONS)
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_next_version_of_formats_without_corpus_files_still_reads(path, mutation, tmp_path):
    check_next_version(path, mutation, tmp_path)


def check_next_version(path: Path, mutation: str, tmp_path: Path) -> None:
    data = path.read_bytes()
    original = tmp_path / f"original{path.suffix}"
    original.write_bytes(data)
    before, _ = read(original)
    if data.strip():
        importer = detect(data[:HEAD_SIZE], path.name, REGISTRY).name
    elif path.is_relative_to(CORPUS) and path.relative_to(CORPUS).parts[0] == "claude-code":
        importer = "claude-code"  # an empty session file: what the next version adds must still be read as one
    else:
        pytest.skip("an empty file of no known tool")
    changed = rewrite(data, importer, mutation)
    if changed is None:
        pytest.skip(f"no {mutation} rewrite for a {importer} file of this shape")
    mutated = tmp_path / f"next{path.suffix}"
    mutated.write_bytes(changed)
    assert detect(changed[:HEAD_SIZE], mutated.name, REGISTRY).name == importer, "detection changed"
    after, ctx = read(mutated)
    lost = kept_in_order([e for e in before if e["type"] == "message"], [e for e in after if e["type"] == "message"])
    assert not lost, f"{len(lost)} message(s) lost, first: {lost[0]['role']} {lost[0]['text'][:80]!r}"
    changes_something = _parsed(changed) != _parsed(data)
    if importer in BY_TYPE and mutation in ("new_record_types", "new_block_types") and changes_something:
        assert ctx.unknown_seen, "the new types were not reported"
        reported = [e.get("unknown") for e in after if e["type"] == "end" and e.get("unknown")]
        assert reported or not [e for e in after if e["type"] == "end"], "end.unknown does not list the new types"
    if importer == "chatgpt-export" and mutation == "new_block_types":
        assert any("[hologram_pointer]" in e["text"] for e in after if e["type"] == "message"), "the new part is not visible"


def test_the_generator_covers_every_corpus_format():
    if not CORPUS_FILES:
        pytest.skip("the shared corpus of real transcripts (../shared/corpus) is not present in this checkout")
    formats = {detect(p.read_bytes()[:HEAD_SIZE], p.name, REGISTRY).name for p in CORPUS_FILES if p.stat().st_size}
    assert {"claude-code", "codex", "gemini-cli", "chatgpt-export"} <= formats
