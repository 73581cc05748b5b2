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

import pytest

from sessionport import api
from sessionport.toolmap import map_call

from .compare import CATEGORIES, app_items, match, sessionport_items
from .expectations import EXPORT_XFAIL
from .lab import Row, lab  # noqa: F401  (fixture)
from .matrix import APP_NAMES, export_sources

pytestmark = pytest.mark.conformance

KEYS = [("export", app, src) for src in export_sources() for app in APP_NAMES]


def _id(key) -> str:
    return f"{key[2].format}->{key[1]}:{key[2].label}"


def _params():
    for key in KEYS:
        marks = EXPORT_XFAIL.get((key[2].format, key[1], key[2].path.name), ())
        yield pytest.param(key, marks=marks, id=_id(key))


def source_events(source) -> list[dict]:
    events = list(api.read(str(source.path), format=source.format))
    if source.session is None:
        return events
    out, keep = [], False
    for event in events:
        if event.get("type") == "session":
            keep = event.get("sessionId") == source.session
        if keep:
            out.append(event)
    return out


@pytest.mark.parametrize("key", _params())
def test_export_resumes_with_the_whole_history(lab, key):
    _, app, source = key
    ours = sessionport_items(source_events(source))
    want = [x for x in ours if x["cat"] in CATEGORIES and not x["sidechain"] and not x["injected"]]
    pair = f"{source.format} -> {app}"
    if not want:
        lab.add_row(Row(pair, source.label, "-", "-", "no conversation in the source"))
        pytest.skip(f"{source.label} holds no conversation to move")
    run = lab.get(key)
    if not run.resumed:
        lab.add_row(Row(pair, source.label, "no", "-", run.why_not()[:140]))
        pytest.fail(f"{app} did not resume the export of {source.label}: {run.why_not()}")
    original_compacted = False
    if source.format == app:
        original = lab.get(("import", app, source))
        original_compacted = original.resumed and original.history.compacted
    found = match(want, app_items(run.history.items), map_call=lambda n, i: map_call(app, n, i))
    note = []
    if run.history.compacted:
        note.append("compacted before the turn" + (", as the original" if original_compacted else ""))
    left = sum(1 for x in ours if x["cat"] in CATEGORIES) - len(want)
    if left:
        note.append(f"{left} injected/sidechain item(s) not required")
    lab.add_row(Row(pair, source.label, "yes" + (" (compacted)" if run.history.compacted else ""), found.cell(), "; ".join(note)))
    assert not run.history.compacted or original_compacted, f"{app} compacted the export of {source.label} before the first turn, the original needed no compaction"
    assert found.complete, f"{app}'s history of the export lacks: {found.samples()}"
