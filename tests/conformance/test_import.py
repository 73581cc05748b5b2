"""Import side: what each app rebuilds from its own real files is in sessionport's stream.

Every corpus file of an app's own format is resumed by the app; each user
text, assistant text, tool call (name + input) and tool result (text + error
flag) of the history the app sends must be among sessionport's events for the
file.  sessionport reads more than the app replays, by design: every branch
(the app follows one), inline sidechains and subagent transcripts, thinking
(Gemini CLI does not replay thoughts; Claude Code drops signed thinking of
retired models).  Those are named in the table's note, not compared.
"""

from __future__ import annotations

import pytest

from sessionport import api

from .compare import app_items, app_normalised, match, sessionport_items
from .lab import Row, lab  # noqa: F401  (fixture)
from .matrix import app_files
from .expectations import import_call_names, NOT_RESUMABLE, IMPORT_XFAIL

pytestmark = pytest.mark.conformance

KEYS = [("import", app, src) for app, sources in app_files().items() for src in sources]


def _id(key) -> str:
    return f"{key[1]}:{key[2].label}"


@pytest.mark.parametrize("key", [pytest.param(k, marks=IMPORT_XFAIL.get((k[1], k[2].path.name), ())) for k in KEYS], ids=_id)
def test_app_history_is_in_sessionport_stream(lab, key):
    _, app, source = key
    run = lab.get(key)
    events = list(api.read(str(source.path), format=source.format))
    ours = sessionport_items(events)
    pair = f"{app} resumes the original"
    reason = NOT_RESUMABLE.get((app, source.path.name))
    if not run.resumed:
        lab.add_row(Row(pair, source.label, "no", "-", reason or run.why_not()[:120]))
        if reason:
            pytest.skip(f"{app} does not resume {source.path.name}: {reason}")
        pytest.fail(f"{app} did not resume {source.path.name}: {run.why_not()}")
    assert run.outcome.isolation.get("isolated"), run.outcome.isolation
    assert reason is None, f"{source.path.name} was listed as not resumable ({reason}) but {app} resumed it"
    theirs = app_items(run.history.items)
    theirs = [x for x in theirs if not x["injected"]]
    renamed = import_call_names(app, ours)
    tools = run.history.tools
    found = match(app_normalised(app, theirs, tools), app_normalised(app, [x for x in ours if not x.get("sidechain")], tools), error_flags=True)
    extra = sum(1 for x in ours if x["cat"] in ("U", "A", "C", "R")) - sum(found.total.values())
    note = []
    if renamed:
        note.append(renamed)
    if extra > 0:
        note.append(f"sessionport has {extra} more (other branches, sidechains, injected context)")
    if run.history.compacted:
        note.append("the app compacted before the turn")
    ours_thinking = sum(1 for x in ours if x["cat"] == "thinking" and x["text"].strip())
    if ours_thinking:
        replayed = sum(1 for x in run.history.items if x["kind"] == "thinking" and (x.get("text") or "").strip())
        # Gemini CLI never replays thoughts; Claude Code drops signed thinking of retired models
        note.append(f"thinking replayed {replayed} of {ours_thinking}")
    lab.add_row(Row(pair, source.label, "yes" + (" (compacted)" if run.history.compacted else ""), found.cell(), "; ".join(note)))
    assert found.complete, f"items of {app}'s history missing from sessionport's stream: {found.samples()}"


CLAUDE = [k for k in KEYS if k[1] == "claude-code" and (k[1], k[2].path.name) not in NOT_RESUMABLE]


@pytest.mark.parametrize("key", CLAUDE, ids=_id)
def test_branch_latest_is_the_history_claude_code_resumes(lab, key):
    """``--branch latest`` reads what the app replays: each side holds the other."""
    source = key[2]
    run = lab.get(key)
    assert run.resumed, run.why_not()
    latest = sessionport_items(list(api.read(str(source.path), format="claude-code", options={"branch": "latest"})))
    import_call_names("claude-code", latest)
    theirs = app_items(run.history.items)
    # context either side marks as injected need not be on the other (the app
    # turns some, such as IDE selections, into system reminders)
    tools = run.history.tools
    theirs, latest = app_normalised("claude-code", theirs, tools), app_normalised("claude-code", latest, tools)
    forward = match([x for x in theirs if not x["injected"]], latest)
    backward = match([x for x in latest if not x["injected"]], theirs)
    assert forward.complete, f"in the app's history, not in --branch latest: {forward.samples()}"
    assert backward.complete, f"in --branch latest, not in the app's history: {backward.samples()}"
