"""What the newest apps write, read in full.

Each app (the pinned version, or the newest with SESSIONPORT_CONFORMANCE_LATEST=1)
writes a new two-turn session offline against ``scripted_api``: thinking,
texts, shell commands (one failing), a file read and edit, a web search, a
sub-agent where the app has one, then a resumed second turn.  sessionport
must read the files it wrote without a record type it does not know, with
every scripted prompt and answer, every call paired with its result, the
failing command flagged, and usage counted.  The files stay in pytest's
temporary folder (``conformance/fresh-<app>``) for a look at new shapes.
"""

from __future__ import annotations

import json
import re

import pytest

from sessionport import api

from . import apps as apps_mod
from . import fresh, scripted_api
from .lab import SKIP_REASON, enabled

pytestmark = pytest.mark.conformance


@pytest.fixture(scope="module")
def written(request, tmp_path_factory):
    if not enabled(request.config):
        pytest.skip(SKIP_REASON)
    try:
        unshare = apps_mod.unshare_argv()
    except apps_mod.InstallError as exc:
        pytest.skip(str(exc))
    root = tmp_path_factory.mktemp("conformance")
    cache: dict = {}

    def get(app: str) -> fresh.Written:
        if app not in cache:
            try:
                version, binary = apps_mod.install(apps_mod.APPS[app])
            except (apps_mod.InstallError, OSError) as exc:
                pytest.skip(f"{app} is not installed: {exc}")
            cache[app] = fresh.run(app, binary, root / f"fresh-{app}-{version}", unshare)
        return cache[app]

    return get


@pytest.mark.parametrize("app", ["claude-code", "codex", "gemini-cli", "qwen-code"])
def test_the_files_the_app_wrote_read_in_full(written, app):
    run = written(app)
    assert run.isolation.get("isolated"), f"{app}: the namespace reached beyond loopback: {run.isolation}"
    assert [r.get("rc") for r in run.runs] == [0, 0], f"{app} did not finish both turns:\n{run.tail()}"
    mains = [p for p in run.files if "subagents" not in p.parts]
    assert mains, f"{app} wrote no session file under {run.outdir}"
    events = [e for path in mains for e in api.read(str(path))]
    messages = [e for e in events if e.get("type") == "message"]
    ends = [e for e in events if e.get("type") == "end"]
    for end in ends:
        assert not end.get("unknown"), f"{app}: record types sessionport does not know: {end['unknown']} (files in {run.outdir})"
    texts = [e["text"] for e in messages]
    assert any(scripted_api.FIRST_PROMPT in t for t in texts)
    assert any(scripted_api.SECOND_PROMPT in t for t in texts)
    assert any(t == scripted_api.FINAL for t in texts)
    assert any(t == scripted_api.SECOND for t in texts)
    uses = [e for e in messages if (e.get("meta") or {}).get("kind") == "tool_use" and e.get("toolName") not in ("web_search",)]
    results = [e for e in messages if (e.get("meta") or {}).get("kind") == "tool_result"]
    assert len(uses) >= 4
    assert sorted(e["toolCallId"] for e in uses) == sorted(e["toolCallId"] for e in results), f"{app}: calls and results do not pair"
    assert len({e["toolCallId"] for e in results}) == len(results), f"{app}: a call has two results"
    failing = [e for e in uses if scripted_api.FAILING in json.dumps(e.get("toolInput"))]
    assert failing
    answer = next(e for e in results if e["toolCallId"] == failing[0]["toolCallId"])
    # flagged, or (Gemini CLI, Codex) a result whose text gives the exit code
    assert answer.get("isError") is True or re.search(r"(exit code|exited with code):? 3\b", answer["text"], re.I)
    assert any((e.get("meta") or {}).get("kind") == "thinking" for e in messages)
    assert sum(end.get("usage", {}).get("output_tokens", 0) for end in ends) > 0


def test_the_session_claude_code_wrote_resumes_from_its_export_as_from_itself(written):
    """The session the app wrote (a sub-agent, whose result 2.1.332 hands
    back in a background task's notification; thinking), exported to
    claude-code by sessionport: the app rebuilds the same history from the
    export as from its own file, the context it sends again included."""
    import subprocess
    import sys
    from pathlib import Path

    from . import harness, history
    from .compare import app_items
    from .test_export import _replayed_context, _signature

    run = written("claude-code")
    if [r.get("rc") for r in run.runs] != [0, 0]:
        pytest.skip(f"Claude Code did not write the session: {run.tail()[-300:]}")
    main = next(p for p in run.files if "subagents" not in p.parts)
    out = Path(run.outdir) / "resume"
    out.mkdir(exist_ok=True)
    exported = out / "conformance.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "sessionport", "convert", str(main), "--from", "claude-code", "--to", "claude-code", "--branch", "latest", "-o", str(exported)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    version, binary = apps_mod.install(apps_mod.APPS["claude-code"])
    unshare = apps_mod.unshare_argv()
    histories = {}
    for name, path in (("original", main), ("export", exported)):
        outcome = harness.run("claude-code", binary, path, out / name, unshare)
        assert outcome.isolation.get("isolated"), outcome.isolation
        found = history.read("claude-code", outcome.requests)
        assert outcome.rc == 0 and found.found, f"Claude Code {version} did not resume the {name}: {outcome.tail()}"
        histories[name] = found.items
    theirs, ours = ([x for x in app_items(histories[n]) if not x["injected"]] for n in ("original", "export"))
    assert _signature(ours) == _signature(theirs)
    assert _replayed_context(histories["export"]) == _replayed_context(histories["original"])
    notified = {n: sum("<task-notification>" in (x.get("text") or "") for x in histories[n]) for n in histories}
    # 2.1.3xx runs the sub-agent in the background and hands its result back in a notification
    assert notified["export"] == notified["original"], f"the sub-agent's notification: {notified}"
