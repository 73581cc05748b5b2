"""The whole history an app sends, normalised so that the replay of an export
can be compared item by item with the replay of its original.

Where ``history.py`` flattens a request into the four categories the
export tests need, this keeps every item the app sends of the session: for
Codex the request's ``input`` (developer and system instructions, the
environment context, reasoning with its encrypted content, compaction items,
calls of every type and their outputs, images), for Gemini CLI the
``contents`` (thoughts and their signatures, function calls and responses,
inline data).  What legitimately differs between two runs is replaced by a
token:

- the run's own folders (the app's working directory and HOME differ per run);
- the ids Codex gives the items it writes afresh at each start (``msg_`` +
  a UUID, on the developer and context messages);
- the current date and time Gemini CLI states in its session context;
- Codex's turn bookkeeping in ``internal_chat_message_metadata_passthrough``
  (``turn_id``, ``create_time``: sessionport does not carry the turn
  structure), and the fields 0.15x+ rollouts hold that say nothing
  (``status: "completed"`` of a finished item, ``annotations: []`` of a text
  part): an export writes neither, Codex sends what the rollout holds;
- a function response Gemini CLI 0.61 sends twice in a row because it
  recorded it twice (in the call's ``toolCalls`` and in a user record of its
  own): once.

:func:`diff` names the first differences, by position.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FRESH_ID = re.compile(r"msg_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")
_DATE_LINE = re.compile(r"(Today's date is|The current date is|current_date>)[^\n<]*")


def _scrub(value: Any, folders: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for folder, token in folders:
            value = value.replace(folder, token)
        return _DATE_LINE.sub(r"\1<date>", value)
    if isinstance(value, list):
        return [_scrub(v, folders) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, folders) for k, v in value.items()}
    return value


def _codex_request(requests: list[dict]) -> dict | None:
    """The request holding the whole rebuilt history: the compaction request
    when Codex compacted before the turn, else the turn."""
    turn = compaction = None
    for request in requests:
        body = request.get("body")
        if not isinstance(body, dict) or not request["path"].split("?")[0].endswith("/responses"):
            continue
        try:
            kind = json.loads(body["client_metadata"]["x-codex-turn-metadata"]).get("request_kind")
        except (KeyError, TypeError, ValueError):
            kind = None
        if kind == "compaction":
            compaction = body
        elif kind in (None, "turn"):
            turn = body
    return compaction or turn


def _gemini_request(requests: list[dict]) -> dict | None:
    best = None
    for request in requests:
        body = request.get("body")
        if isinstance(body, dict) and ":streamGenerateContent" in request["path"]:
            if best is None or len(body.get("contents") or []) >= len(best.get("contents") or []):
                best = body
    return best


def codex_items(requests: list[dict], outdir: str) -> list[dict]:
    body = _codex_request(requests)
    if body is None:
        return []
    folders = [(outdir.rstrip("/") + "/work", "<cwd>"), (outdir.rstrip("/") + "/home", "<home>"), (outdir.rstrip("/"), "<run>")]
    out = []
    for item in body.get("input") or []:
        item = dict(item)
        if isinstance(item.get("id"), str) and _FRESH_ID.match(item["id"]):
            item["id"] = "<fresh>"
        passthrough = item.get("internal_chat_message_metadata_passthrough")
        if isinstance(passthrough, dict):
            item["internal_chat_message_metadata_passthrough"] = {k: v for k, v in passthrough.items() if k not in ("turn_id", "create_time")}
        if item.get("status") == "completed":
            del item["status"]
        if isinstance(item.get("content"), list):
            item["content"] = [{k: v for k, v in p.items() if not (k == "annotations" and v == [])} if isinstance(p, dict) else p for p in item["content"]]
        out.append(_scrub(item, folders))
    return out


def gemini_items(requests: list[dict], outdir: str) -> list[dict]:
    body = _gemini_request(requests)
    if body is None:
        return []
    folders = [(outdir.rstrip("/") + "/work", "<cwd>"), (outdir.rstrip("/") + "/home", "<home>"), (outdir.rstrip("/"), "<run>")]
    out: list[dict] = []
    for content in body.get("contents") or []:
        role = content.get("role")
        for part in content.get("parts") or []:
            part = _scrub({"role": role, **part}, folders)
            if "functionResponse" in part and out and out[-1] == part:
                continue
            out.append(part)
    return out


def replayed(app: str, requests: list[dict], outdir: str) -> list[dict]:
    return {"codex": codex_items, "gemini-cli": gemini_items}[app](requests, outdir)


def _short(item: Any, n: int = 240) -> str:
    def shrink(v):
        if isinstance(v, str) and len(v) > 80 and " " not in v[:80]:
            return f"<{len(v)} chars …{v[-8:]}>"
        if isinstance(v, dict):
            return {k: shrink(x) for k, x in v.items()}
        if isinstance(v, list):
            return [shrink(x) for x in v]
        return v

    text = json.dumps(shrink(item), ensure_ascii=False)
    return text if len(text) <= n else text[:n] + "…"


def _fields(a: dict, b: dict) -> str:
    """Which fields of two items differ, and how."""
    if a.get("type") != b.get("type") or a.get("role") != b.get("role"):
        return f"{_short(a, 160)} became {_short(b, 160)}"
    parts = []
    for key in sorted(set(a) | set(b), key=str):
        if a.get(key, "<absent>") != b.get(key, "<absent>"):
            parts.append(f"{key}: {_short(a.get(key, '<absent>'), 120)} became {_short(b.get(key, '<absent>'), 120)}")
    return f"{a.get('type') or a.get('role')}: " + "; ".join(parts)


def diff(theirs: list[dict], ours: list[dict], limit: int = 6) -> list[str]:
    """The differences of two replays, aligned on their longest common runs
    (difflib), at most ``limit`` described."""
    import difflib

    keys_a = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in theirs]
    keys_b = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in ours]
    out = []
    for op, a0, a1, b0, b1 in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        if op in ("replace", "delete"):
            for i in range(a0, a1):
                j = b0 + (i - a0)
                if op == "replace" and j < b1:
                    out.append(f"original #{i} / export #{j}: {_fields(theirs[i], ours[j])}")
                else:
                    out.append(f"original #{i}: {_short(theirs[i])}  (not in the export)")
        if op == "insert" or (op == "replace" and b1 - b0 > a1 - a0):
            start = b0 if op == "insert" else b0 + (a1 - a0)
            out += [f"export #{i}: {_short(ours[i])}  (not in the original)" for i in range(start, b1)]
    return out[:limit] + ([f"… {len(out) - limit} more"] if len(out) > limit else [])


def count_differences(theirs: list[dict], ours: list[dict]) -> int:
    """Items of either side not matched on the other."""
    import difflib

    keys_a = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in theirs]
    keys_b = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in ours]
    same = sum(b.size for b in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_matching_blocks())
    return len(keys_a) + len(keys_b) - 2 * same


def count_missing(theirs: list[dict], ours: list[dict]) -> int:
    """Items of the original's replay not matched in the export's."""
    import difflib

    keys_a = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in theirs]
    keys_b = [json.dumps(x, sort_keys=True, ensure_ascii=False) for x in ours]
    return len(keys_a) - sum(b.size for b in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_matching_blocks())
