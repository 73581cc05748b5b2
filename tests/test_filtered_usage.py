"""Token figures after a filter: the whole session's, and the kept messages'.

A session's token usage is in its end event; after ``filter`` that figure
covers messages no longer in the stream.  The filter marks the end event of
a session it dropped messages from (``filtered``), ``inspect`` then gives
both figures (``usage``: the whole session's, ``keptUsage``: summed over
the messages here, from their ``meta.usage``) and says which is which, and
the Markdown/HTML footer labels them.  Checked on real sessions, against
counts made from the stream itself."""

from __future__ import annotations

import orjson
import pytest

from conftest import FIXTURES, corpus_files, corpus_path, requires_corpus, run_cli
from sessionport.summary import USAGE_KEYS

INTERLEAVED = "claude-code/06_cc-2.0.55_a7da6a22_interleaved-msgid.jsonl"
CODEX = "codex/codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl"
CLAUDE = [p for p in corpus_files("claude-code", "0*.jsonl")]
SESSION = FIXTURES / "claude-code" / "session.jsonl"


def inspect_stream(data: bytes, *args: str) -> dict:
    proc = run_cli("inspect", "--json", "-", *args, input=data)
    assert proc.returncode == 0, proc.stderr
    return orjson.loads(proc.stdout)


def filtered(path, *options: str) -> bytes:
    proc = run_cli("filter", path, "--no-subagents", *options)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def events(data: bytes) -> list[dict]:
    return [orjson.loads(line) for line in data.splitlines()]


def usage_of_messages(stream: list[dict]) -> dict[str, int] | None:
    """meta.usage summed over the messages, once per API message id."""
    total, seen = None, set()
    for event in stream:
        meta = event.get("meta") or {}
        if event["type"] != "message" or not isinstance(meta.get("usage"), dict):
            continue
        if meta.get("messageId") in seen:
            continue
        seen.add(meta.get("messageId"))
        total = total or dict.fromkeys(USAGE_KEYS, 0)
        for key in USAGE_KEYS:
            total[key] += meta["usage"].get(key, 0)
    return total


@requires_corpus
@pytest.mark.parametrize("path", CLAUDE, ids=[p.name for p in CLAUDE])
def test_dropping_only_messages_without_usage_keeps_the_whole_figure(path):
    # prompts and tool results carry no usage: what is kept is all of it
    report = inspect_stream(filtered(path, "--role", "assistant", "--role", "tool"))
    for session in report["sessions"]:
        if session["usage"] and session["usage"]["total_tokens"]:
            assert session["keptUsage"] == session["usage"]
        assert session["filtered"]["messages"] == session["messages"]


@requires_corpus
def test_a_role_filter_gives_both_figures_each_named():
    path = corpus_path(INTERLEAVED)
    whole = inspect_stream(path.read_bytes())
    assert "keptUsage" not in whole and "filtered" not in whole["sessions"][0]  # unfiltered: as before

    stream = filtered(path, "--role", "assistant")
    report = inspect_stream(stream)
    session = report["sessions"][0]
    assert session["usage"] == whole["sessions"][0]["usage"]  # still the whole session's
    assert session["keptUsage"] == usage_of_messages(events(stream))
    assert 0 < session["keptUsage"]["total_tokens"] < session["usage"]["total_tokens"]
    assert session["filtered"] == {"messages": session["messages"], "dropped": whole["sessions"][0]["messages"] - session["messages"]}
    assert report["keptUsage"] == session["keptUsage"] and report["usage"] == session["usage"]

    human = run_cli("inspect", "-", input=stream).stdout.decode()
    assert f"messages:   {session['messages']} (a filter dropped {session['filtered']['dropped']})" in human
    assert f"usage:      whole session: input_tokens={session['usage']['input_tokens']}" in human
    assert f"kept usage: the {session['messages']} messages here: input_tokens={session['keptUsage']['input_tokens']}" in human

    # the Markdown footer gives the same two figures, labelled the same way
    proc = run_cli("to", "markdown", input=stream)
    footer = next(line for line in proc.stdout.decode().splitlines() if line.startswith("*End of session"))
    assert f"tokens for the whole session: {session['usage']['input_tokens']:,} in" in footer
    assert f"tokens in the {session['messages']} messages here: {session['keptUsage']['input_tokens']:,} in" in footer


@requires_corpus
def test_kept_messages_without_usage_say_so():
    report = inspect_stream(filtered(corpus_path(INTERLEAVED), "--role", "user"))
    session = report["sessions"][0]
    assert session["keptUsage"] is None and session["usage"]["total_tokens"] > 0
    human = run_cli("inspect", "-", input=filtered(corpus_path(INTERLEAVED), "--role", "user")).stdout.decode()
    assert f"kept usage: none of the {session['messages']} messages here carries its own token usage" in human


@requires_corpus
def test_a_stream_cut_by_head_has_no_whole_session_figure():
    stream = filtered(corpus_path(INTERLEAVED), "--head", "40")
    assert not [e for e in events(stream) if e["type"] == "end"]
    session = inspect_stream(stream)["sessions"][0]
    assert session["usage"] is None  # not zeros: not known
    assert session["keptUsage"] == usage_of_messages(events(stream)) and session["keptUsage"]["total_tokens"] > 0
    human = run_cli("inspect", "-", input=stream).stdout.decode()
    assert "usage:      whole session: not known (the stream ends before the session's end event)" in human


@requires_corpus
def test_codex_messages_carry_no_usage_of_their_own():
    path = corpus_path(CODEX)
    whole = inspect_stream(path.read_bytes())["sessions"][0]
    session = inspect_stream(filtered(path, "--role", "user"))["sessions"][0]
    assert session["usage"] == whole["usage"] and session["keptUsage"] is None
    assert session["filtered"]["dropped"] == whole["messages"] - session["messages"]


def test_a_filter_that_drops_nothing_marks_nothing():
    plain = run_cli("convert", SESSION, "--to", "portable-jsonl").stdout
    assert run_cli("filter", SESSION).stdout == plain
    assert run_cli("filter", SESSION, "--since", "2000-01-01").stdout == plain


def test_the_mark_is_the_same_through_a_pipe_and_a_chain(tmp_path):
    piped = run_cli("filter", SESSION, "--role", "user").stdout
    chained = run_cli("chain", "-i", SESSION, "filter", "--role", "user").stdout
    assert piped == chained
    [end] = [e for e in events(piped) if e["type"] == "end"]
    kept = sum(e["type"] == "message" for e in events(piped))
    everything = sum(e["type"] == "message" for e in events(run_cli("convert", SESSION, "--to", "portable-jsonl").stdout))
    assert end["filtered"] == {"messages": kept, "dropped": everything - kept}
    # a second filter adds what it drops to what the first dropped
    tail = run_cli("filter", SESSION, "--tail", "3").stdout
    twice = run_cli("filter", "-", "--role", "assistant", input=tail).stdout
    [end] = [e for e in events(twice) if e["type"] == "end"]
    left = sum(e["type"] == "message" for e in events(twice))
    assert left < 3
    assert end["filtered"] == {"messages": left, "dropped": everything - left}


def test_totals_over_filtered_and_whole_inputs(tmp_path):
    part = tmp_path / "part.jsonl"
    part.write_bytes(run_cli("filter", SESSION, "--role", "assistant").stdout)
    proc = run_cli("inspect", "--json", part, SESSION)
    assert proc.returncode == 0, proc.stderr
    report = orjson.loads(proc.stdout)
    filtered_session, whole_session = report["sessions"]
    assert "keptUsage" not in whole_session
    expected = {k: (filtered_session["keptUsage"] or {}).get(k, 0) + whole_session["usage"][k] for k in USAGE_KEYS}
    assert report["keptUsage"] == expected
    human = run_cli("inspect", part, SESSION).stdout.decode()
    assert "usage:      whole sessions (where known): " in human and "kept usage: the messages here: " in human


def test_a_source_that_records_no_usage_is_said_to_have_none():
    # ChatGPT exports hold no token counts: after a filter, no zeros pass for a figure
    stream = run_cli("filter", FIXTURES / "chatgpt-export" / "conversations.json", "--role", "user").stdout
    report = inspect_stream(stream)
    assert report["sessions"] and all(s["keptUsage"] is None and s["filtered"]["dropped"] > 0 for s in report["sessions"])
    human = run_cli("inspect", "-", input=stream).stdout.decode()
    assert human.count("usage:      whole session: none recorded by the source") == len(report["sessions"])


@pytest.mark.parametrize("options", [("--role", "user"), ("--since", "2026-04-01T10:00:05Z"), ("--tail", "2"), ("--grep", "files"),
                                     ("--kind", "tool_use", "--with-results"), ("--no-injected", "--invert")])
def test_every_selection_marks_what_it_dropped(options):
    everything = sum(e["type"] == "message" for e in events(run_cli("convert", SESSION, "--to", "portable-jsonl").stdout))
    stream = events(run_cli("filter", SESSION, *options).stdout)
    kept = sum(e["type"] == "message" for e in stream)
    [end] = [e for e in stream if e["type"] == "end"]
    assert 0 <= kept < everything
    assert end["filtered"] == {"messages": kept, "dropped": everything - kept}
