"""Export side: what sessionport writes for an app, the app resumes with the whole history.

Every source (each app's corpus files, the provider formats' files) is
converted into each app's format and resumed by the app, offline.  The app
must resume it without an error and without compacting a history the
original did not need to compact, and its history must hold every user text,
assistant text, tool call (name + input, after the target app's tool-name
mapping) and tool result (text + error flag) of the source as sessionport
reads it.  Harness-injected context and sidechains are not required (the
apps replay neither as conversation), thinking is not compared.
"""

from __future__ import annotations

import re

import pytest

from sessionport import api

from .compare import CATEGORIES, app_items, app_normalised, match, norm, sessionport_items
from .expectations import EXPORT_NOT_RESUMABLE, EXPORT_XFAIL, OWN_REPLAY_DIFFERS, expected_call, unpaired_calls
from .lab import Row, lab  # noqa: F401  (fixture)
from . import replay
from .matrix import APP_NAMES, export_options, export_sources, own_format_files

pytestmark = pytest.mark.conformance

KEYS = [("export", app, src) for src in export_sources() for app in APP_NAMES]


def _id(key) -> str:
    return f"{key[2].format}->{key[1]}:{key[2].label}"


def _params():
    for key in KEYS:
        marks = EXPORT_XFAIL.get((key[2].format, key[1], key[2].path.name), ())
        yield pytest.param(key, marks=marks, id=_id(key))


def source_events(source, app: str) -> list[dict]:
    events = list(api.read(str(source.path), format=source.format, options=export_options(source, app)[1]))
    if source.session is None:
        return events
    out, keep = [], False
    for event in events:
        if event.get("type") == "session":
            keep = event.get("sessionId") == source.session
        if keep:
            out.append(event)
    return out


# Gemini CLI's legacy single-document form: every Gemini CLI file, and one of each other app
LEGACY = [
    ("export-legacy", "gemini-cli", s)
    for s in export_sources()
    if s.format == "gemini-cli" or s.path.name in ("codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl", "04_cc-2.0.24_pomodoro_file-history-snapshot.jsonl")
]


# Apps that resume from a compaction boundary: the model is sent its summary
# and what follows, never what the summary replaced.
FROM_COMPACTION = ("claude-code", "codex")


def _after_compaction(app: str, ours: list[dict]) -> tuple[list[dict], str | None]:
    """The items the app's history must hold, and the summary it must hold
    too when the source was compacted (another app's compaction: its text is
    the summary; Claude Code's own comes with a summary message)."""
    if app not in FROM_COMPACTION:
        return ours, None
    last = max((n for n, x in enumerate(ours) if x.get("kind") == "compaction"), default=None)
    if last is None:
        return ours, None
    return ours[last + 1 :], ours[last]["text"]


@pytest.mark.parametrize("key", list(_params()) + [pytest.param(k, id=f"{k[2].format}->gemini-cli-legacy-json:{k[2].label}") for k in LEGACY])
def test_export_resumes_with_the_whole_history(lab, key):
    mode, app, source = key
    events = source_events(source, app)
    ours, summary = _after_compaction(app, sessionport_items(events))
    want = [x for x in ours if x["cat"] in CATEGORIES and not x["sidechain"] and not x["injected"]]
    pair = f"{source.format} -> {app}" + (" (legacy JSON)" if mode == "export-legacy" else "")
    if not want:
        lab.add_row(Row(pair, source.label, "-", "-", "no conversation in the source"))
        pytest.skip(f"{source.label} holds no conversation to move")
    reason = EXPORT_NOT_RESUMABLE.get((source.format, app, source.path.name))
    run = lab.get(key)
    if reason and not run.resumed:
        lab.add_row(Row(pair, source.label, "no", "-", reason))
        pytest.skip(f"{app} does not resume {source.label}: {reason}")
    assert reason is None or not run.resumed, f"{source.label} is listed as not resumable by {app} ({reason}), but it resumed"
    unpaired = unpaired_calls(app, want)
    if unpaired:
        want = [x for x in want if x not in unpaired]
    if not run.resumed:
        lab.add_row(Row(pair, source.label, "no", "-", run.why_not()[:140]))
        pytest.fail(f"{app} did not resume the export of {source.label}: {run.why_not()}")
    assert run.outcome.isolation.get("isolated"), run.outcome.isolation
    original_compacted = False
    if source.format == app:
        original = lab.get(("import", app, source))
        original_compacted = original.resumed and original.history.compacted
    tools = run.history.tools
    found = match(app_normalised(app, want, tools), app_normalised(app, app_items(run.history.items), tools), map_call=lambda n, i: expected_call(app, n, i))
    note = []
    if run.history.compacted:
        note.append("compacted before the turn" + (", as the original" if original_compacted else ""))
    if unpaired:
        note.append(f"{len(unpaired)} call(s) with no result in the source: Claude Code drops them")
    if found.masked:
        note.append(f"{found.masked} old result(s) masked by Gemini CLI (past 50k tokens of tool output)")
    left = sum(1 for x in ours if x["cat"] in CATEGORIES) - len(want) - len(unpaired)
    if left:
        note.append(f"{left} injected/sidechain item(s) not required")
    lab.add_row(Row(pair, source.label, "yes" + (" (compacted)" if run.history.compacted else ""), found.cell(), "; ".join(note)))
    assert not run.history.compacted or original_compacted, f"{app} compacted the export of {source.label} before the first turn, the original needed no compaction"
    assert found.complete, f"{app}'s history of the export lacks: {found.samples()}"
    if app == "codex":
        # Codex sends every reasoning item back to the model: the source's
        # thinking texts, and the reasoning it kept only encrypted
        replayed = [x for x in replay.codex_items(run.outcome.requests, run.outcome.outdir) if x.get("type") == "reasoning"]
        texts = {norm("\n".join(p.get("text") or "" for p in (x.get("summary") or []) + (x.get("content") or []))) for x in replayed}
        thinking = [x for x in ours if x["cat"] == "thinking" and not x["sidechain"]]
        lost = [x["text"][:80] for x in thinking if norm(x["text"]) and norm(x["text"]) not in texts and not any(norm(x["text"]) in t for t in texts)]
        assert not lost, f"Codex's history of the export lacks {len(lost)} thinking text(s) of the source: {lost[:3]}"
        sealed = sum(1 for x in thinking if x.get("encrypted"))
        assert sum(1 for x in replayed if x.get("encrypted_content")) >= sealed, f"the source's {sealed} encrypted reasoning item(s) are not all in Codex's history"
        if summary is None:
            # the images of the prompts (read with --keep-images), as images
            pictures = sum(len(e.get("media") or ()) for e in events if e.get("type") == "message" and e.get("role") == "user" and not (e.get("meta") or {}).get("sidechain"))
            sent = sum(1 for x in replay.codex_items(run.outcome.requests, run.outcome.outdir) if x.get("role") == "user" for p in x.get("content") or () if isinstance(p, dict) and p.get("type") == "input_image")
            assert sent >= pictures, f"Codex's history of the export holds {sent} of the source's {pictures} image(s)"
    if summary is not None and source.format != "claude-code":
        # another app's compaction: its summary is what the model is sent of the history before
        texts = [norm(x.get("text") or "") for x in run.history.items]
        assert any(norm(summary) in t for t in texts), f"{app}'s history of the export lacks the compaction's summary: {summary[:120]!r}"


def _signature(items: list[dict]) -> list[tuple]:
    from .compare import _unwrapped, norm

    out = []
    for x in items:
        if x["cat"] == "C":
            out.append(("C", x.get("id"), x.get("name"), repr(x.get("input"))))
        elif x["cat"] == "R":
            out.append(("R", x.get("id"), norm(_unwrapped(x["text"]))))
        else:
            out.append((x["cat"], norm(x["text"])))
    return out


OWN = [("export", app, s) for app in ("codex", "gemini-cli") for s in own_format_files(app)]


@pytest.mark.parametrize("key", OWN, ids=lambda k: f"{k[1]}:{k[2].label}")
def test_a_session_exported_to_its_own_app_replays_the_whole_history_the_original_does(lab, key):
    """Every item the app sends of the original (instructions, environment
    context, reasoning and its encrypted content, compactions, calls of
    every type and their outputs, thoughts and their signatures, images) it
    sends of the export, in the same order; only run-specific folders,
    dates and fresh item ids are normalised (``replay.py``)."""
    _, app, source = key
    original = lab.get(("import", app, source))
    pair = f"{app} -> {app}, whole replay"
    if not original.resumed:
        lab.add_row(Row(pair, source.label, "-", "-", f"the original does not resume: {original.why_not()[:100]}"))
        pytest.skip(f"{app} does not resume the original {source.label} ({original.why_not()[:160]})")
    export = lab.get(key)
    assert export.resumed, export.why_not()
    theirs = replay.replayed(app, original.outcome.requests, original.outcome.outdir)
    ours = replay.replayed(app, export.outcome.requests, export.outcome.outdir)
    differences = replay.count_differences(theirs, ours)
    lost = replay.count_missing(theirs, ours)
    allowed, why = OWN_REPLAY_DIFFERS.get((app, source.path.name), (None, ""))
    compacted = " (compacted)" if export.history.compacted else ""
    note = f"{differences} item(s) differ, {lost} of the original's missing" if differences else "identical"
    lab.add_row(Row(pair, source.label, "yes" + compacted, f"{len(ours)}/{len(theirs)} items", note + (f" (by design: {why})" if why and differences else "")))
    assert export.history.compacted == original.history.compacted
    described = "\n  ".join(replay.diff(theirs, ours))
    if allowed is None:
        assert differences == 0, f"{app}'s replay of the export differs from its replay of the original:\n  {described}"
    else:
        assert lost <= allowed, f"{lost} item(s) of the original's replay are missing from the export's, {allowed} expected ({why}):\n  {described}"


CLAUDE_OWN = [("export", "claude-code", s) for s in export_sources() if s.format == "claude-code"]

# What Claude Code sends again of a session's own context when it resumes it
# (what hooks told the model, background tasks' notifications), and the
# "Tool loaded." turn it adds after each ToolSearch result of tool_reference
# blocks.  Not the listings of tools, skills and agents: it states those afresh.
_OWN_CONTEXT = re.compile(r"hook additional context:|hook success:|<task-notification>")


def _replayed_context(items: list[dict]) -> tuple[list[str], int]:
    context = sorted(norm(x["text"]) for x in items if x["kind"] == "user" and x.get("flag") == "injected" and _OWN_CONTEXT.search(x.get("text") or ""))
    loaded = sum(1 for x in items if x.get("flag") == "synthetic" and (x.get("text") or "").strip() == "Tool loaded.")
    return context, loaded


@pytest.mark.parametrize("key", CLAUDE_OWN, ids=lambda k: k[2].label)
def test_a_claude_code_session_exported_to_claude_code_replays_the_context_the_original_does(lab, key):
    source = key[2]
    original = lab.get(("import", "claude-code", source))
    if not original.resumed:
        pytest.skip(f"Claude Code does not resume the original {source.label}")
    export = lab.get(key)
    assert export.resumed, export.why_not()
    (theirs, loaded_theirs), (ours, loaded_ours) = _replayed_context(original.history.items), _replayed_context(export.history.items)
    assert ours == theirs, "the context the original replays differs from the export's"
    assert loaded_ours == loaded_theirs, f"ToolSearch results replayed as loaded tools: {loaded_ours} in the export, {loaded_theirs} in the original"
