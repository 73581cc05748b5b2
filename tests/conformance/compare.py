"""sessionport's reading of a file against the history an app rebuilt from it.

Both sides become items of four categories: ``U`` user texts, ``A``
assistant texts, ``C`` tool calls (name + input), ``R`` tool results (text +
error flag).  :func:`match` says, for every item of one side, whether the
other side holds it:

- texts: whitespace-normalised, with placeholders such as ``[image: ...]``
  left out, found inside the other side's texts of the same role (apps merge
  or split adjacent blocks);
- calls: by call id, else by name and input in order; name and input must be
  equal (after the tool-name mapping of the target app, for exports);
- results: by call id, else in order; the text must be equal, or be the
  ``output`` of a JSON object the app wraps it in; the error flag must agree
  where the app's wire format has one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

CATEGORIES = ("U", "A", "C", "R")
MASKED = "<tool_output_masked>"
_PLACEHOLDER = re.compile(r"\[(image|document|file|audio|video)[^\]]*\]")
_SPACE = re.compile(r"\s+")


def norm(text) -> str:
    return _SPACE.sub(" ", _PLACEHOLDER.sub(" ", text or "")).strip()


def sessionport_items(events: list[dict], *, first_session_only: bool = True) -> list[dict]:
    """Items of the first session of a sessionport stream (subagent sessions
    follow their parent and are no part of the app's history)."""
    items = []
    sessions = 0
    for event in events:
        if event.get("type") == "session":
            sessions += 1
            continue
        if event.get("type") != "message" or (first_session_only and sessions > 1):
            continue
        meta = event.get("meta") or {}
        kind = meta.get("kind", "text")
        role = event.get("role")
        item = {"text": event.get("text") or "", "sidechain": bool(meta.get("sidechain")), "injected": bool(meta.get("injected")), "kind": kind}
        if role == "user" and kind == "text":
            item["cat"] = "U"
        elif role == "assistant" and kind == "thinking":
            item["cat"] = "thinking"
            item["encrypted"] = bool(meta.get("encryptedContent"))
        elif role == "assistant" and kind == "text":
            item["cat"] = "A"
        elif role == "tool" and kind == "tool_use":
            item.update(cat="C", name=event.get("toolName"), input=event.get("toolInput"), id=event.get("toolCallId"))
        elif role == "tool":
            item.update(cat="R", id=event.get("toolCallId"), is_error=bool(event.get("isError")))
        else:
            item["cat"] = "other"
        items.append(item)
    return items


def app_items(history_items: list[dict]) -> list[dict]:
    """The app's history in the same categories, without what the app adds itself."""
    out = []
    for x in history_items:
        flag = x.get("flag")
        if flag in ("prompt", "synthetic", "compaction_prompt", "other"):
            continue
        kind = x["kind"]
        item = {"text": x.get("text") or "", "injected": flag == "injected", "sidechain": False}
        if kind == "user":
            item["cat"] = "U"
        elif kind == "assistant":
            item["cat"] = "A"
        elif kind == "call":
            item.update(cat="C", name=x.get("name"), input=x.get("input"), id=x.get("id"))
        elif kind == "result":
            item.update(cat="R", id=x.get("id"), is_error=x.get("is_error"))
        else:
            continue
        out.append(item)
    return out


@dataclass
class Match:
    total: dict = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    found: dict = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))
    missing: dict = field(default_factory=lambda: {c: [] for c in CATEGORIES})
    masked: int = 0  # results the app itself replaced by a placeholder (counted as found)

    @property
    def complete(self) -> bool:
        return all(self.found[c] == self.total[c] for c in CATEGORIES)

    def cell(self) -> str:
        return " ".join(f"{c}{self.found[c]}/{self.total[c]}" for c in CATEGORIES)

    def samples(self, n: int = 3) -> str:
        parts = []
        for c in CATEGORIES:
            if self.missing[c]:
                parts.append(f"{c} missing {len(self.missing[c])}: " + "; ".join(self.missing[c][:n]))
        return " | ".join(parts)


def _short(text, n: int = 100) -> str:
    text = str(text).replace("\n", " ")
    return text if len(text) <= n else text[:n] + "..."


def _unwrapped(text: str) -> str:
    """Codex's JSON-wrapped shell output (``{"output": ..., "metadata": ...}``) as its text."""
    if text.lstrip().startswith("{"):
        try:
            wrapped = json.loads(text)
        except ValueError:
            return text
        if isinstance(wrapped, dict) and isinstance(wrapped.get("output"), str):
            return wrapped["output"]
    return text


def _result_text_equal(want: str, got: str) -> bool:
    return norm(want) == norm(got) or norm(_unwrapped(want)) == norm(_unwrapped(got))


_REMINDER_TAIL = re.compile(r"(\s*<system-reminder>.*?</system-reminder>\s*)+\Z", re.S)


_TOOL_REFERENCE = re.compile(r"\[tool_reference: ([^\]]*)\]\n?")


def app_normalised(app: str, items: list[dict], tools: list[str] | None = None) -> list[dict]:
    """What newer Claude Code releases change when they replay a history, by
    design: they append ``<system-reminder>`` blocks (the task list) to a tool
    result, drop ``tool_reference`` blocks naming a tool they no longer have,
    and drop the legacy ``type``/``recipient``/``content`` keys of
    ``SendMessage`` inputs (2.1.332).  Applied to both sides' items; ``tools``
    are the tools the app offered in its request."""
    if app != "claude-code":
        return items
    offered = set(tools or ())
    out = []
    for x in items:
        if x["cat"] == "R" and "<system-reminder>" in x["text"]:
            x = {**x, "text": _REMINDER_TAIL.sub("", x["text"])}
        if x["cat"] == "R" and offered and "[tool_reference: " in x["text"]:
            x = {**x, "text": _TOOL_REFERENCE.sub(lambda m: m.group(0) if m.group(1) in offered else "", x["text"])}
        elif x["cat"] == "C" and x.get("name") == "SendMessage" and isinstance(x.get("input"), dict):
            x = {**x, "input": {k: v for k, v in x["input"].items() if k not in ("type", "recipient", "content")}}
        out.append(x)
    return out


def match(want: list[dict], have: list[dict], *, map_call=None, error_flags: bool = True) -> Match:
    """For each item of ``want`` (U/A/C/R), is it in ``have``?  ``map_call``
    turns a wanted (name, input) into the one the app should hold."""
    result = Match()
    blobs = {c: " \0 ".join(norm(x["text"]) for x in have if x["cat"] == c) for c in ("U", "A")}
    calls = [x for x in have if x["cat"] == "C"]
    calls_by_id = {x["id"]: x for x in calls if x.get("id")}
    results = [x for x in have if x["cat"] == "R"]
    results_by_id: dict = {}
    for x in results:
        results_by_id.setdefault(x.get("id"), x)
    used_calls: set[int] = set()
    used_results: set[int] = set()
    for x in want:
        cat = x["cat"]
        if cat not in CATEGORIES:
            continue
        result.total[cat] += 1
        if cat in ("U", "A"):
            text = norm(x["text"])
            # the app may send the blocks of one message (text, images, text)
            # apart: each piece between placeholders must be there
            pieces = [p for p in (norm(q) for q in _PLACEHOLDER.split(x["text"])[::2]) if p]
            if not text or text in blobs[cat] or (len(pieces) > 1 and all(p in blobs[cat] for p in pieces)):
                result.found[cat] += 1
            else:
                result.missing[cat].append(repr(_short(x["text"])))
        elif cat == "C":
            name, tool_input = x.get("name"), x.get("input")
            if map_call is not None:
                name, tool_input = map_call(name, tool_input)
            y = calls_by_id.get(x.get("id"))
            if y is None:
                y = next((c for c in calls if id(c) not in used_calls and c.get("name") == name and c.get("input") == tool_input), None)
            if y is None:
                result.missing[cat].append(f"{name} id={x.get('id')} (no such call)")
                continue
            used_calls.add(id(y))
            if y.get("name") != name:
                result.missing[cat].append(f"{x.get('id')}: name {name!r} became {y.get('name')!r}")
            elif y.get("input") != tool_input:
                result.missing[cat].append(f"{name} {x.get('id')}: input {_short(json.dumps(tool_input), 80)} became {_short(json.dumps(y.get('input')), 80)}")
            else:
                result.found[cat] += 1
        else:
            y = results_by_id.get(x.get("id")) if x.get("id") else None
            if y is None and not x.get("id"):
                # a result the source has without a call id: the writer gave it one
                y = next((r for r in results if id(r) not in used_results and _result_text_equal(x["text"], r["text"])), None)
            if y is None or id(y) in used_results:
                result.missing[cat].append(f"id={x.get('id')} {_short(x['text'], 60)!r} (no such result)")
                continue
            used_results.add(id(y))
            if y["text"].startswith(MASKED):
                # Gemini CLI masks old tool outputs past 50k tokens of them,
                # keeping a preview and a file of the full text: by design
                result.masked += 1
                result.found[cat] += 1
            elif not _result_text_equal(x["text"], y["text"]):
                result.missing[cat].append(f"{x.get('id')}: text {_short(x['text'], 60)!r} became {_short(y['text'], 60)!r}")
            elif error_flags and None not in (x.get("is_error"), y.get("is_error")) and x["is_error"] != y["is_error"]:
                result.missing[cat].append(f"{x.get('id')}: error flag {x.get('is_error')} became {y.get('is_error')}")
            else:
                result.found[cat] += 1
    return result
