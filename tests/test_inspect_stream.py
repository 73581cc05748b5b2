"""``inspect`` writes each input's sessions as they end: its memory does not
grow with the number of sessions, and what it prints is what holding every
summary to the end printed (the reference below builds that the old way)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from conftest import ROOT, run_cli
from sessionport import api
from sessionport.cli.inspect_output import human
from sessionport.context import ReadContext
from sessionport.summary import summarize, totals, usage_fields


def many_sessions(path: Path, count: int, *, tools: bool = False) -> Path:
    """A portable-jsonl stream of ``count`` tiny sessions (the shape the
    portable-jsonl writer gives: session, messages, end)."""
    with open(path, "wb") as out:
        for i in range(count):
            out.write(orjson.dumps({"type": "session", "schema": "sessionport/v1", "source": "claude-code", "sessionId": f"s-{i}", "title": f"task {i}", "metadata": {}}) + b"\n")
            out.write(orjson.dumps({"type": "message", "role": "user", "text": "hi", "timestamp": "2025-06-01T09:00:00Z"}) + b"\n")
            if tools:
                tool = f"Tool{i % 7}"
                out.write(orjson.dumps({"type": "message", "role": "assistant", "text": "", "toolName": tool, "toolCallId": f"c{i}", "meta": {"kind": "tool_use", "model": "m1"}}) + b"\n")
            usage = {"input_tokens": i, "output_tokens": 1, "total_tokens": i + 1}
            out.write(orjson.dumps({"type": "end", "usage": usage}) + b"\n")
    return path


def peak_rss_kb(*args: str) -> tuple[int, bytes]:
    """The peak resident memory of ``python -m sessionport ARGS`` (its own
    rusage, from wait4), and its stdout size."""
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen([sys.executable, "-m", "sessionport", *args], stdout=subprocess.PIPE, stderr=sink, cwd=ROOT)
        size = 0
        assert child.stdout is not None
        while chunk := child.stdout.read(1 << 16):
            size += len(chunk)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    assert child.returncode == 0
    return usage.ru_maxrss, size


@pytest.mark.parametrize("mode", [(), ("--json",), ("--usage", "--json")])
def test_inspect_memory_stays_flat_with_the_number_of_sessions(tmp_path, mode):
    # Holding one summary per session cost about 2.5 kB each (505 MB for
    # 200,000); 60,000 sessions would add some 150 MB.  Streamed, the peak
    # is that of a run over a few hundred.
    small = many_sessions(tmp_path / "small.jsonl", 500)
    large = many_sessions(tmp_path / "large.jsonl", 60_000)
    base, small_out = peak_rss_kb("inspect", *mode, str(small))
    peak, large_out = peak_rss_kb("inspect", *mode, str(large))
    assert large_out > 100 * small_out  # every session was printed
    assert peak - base < 30_000, f"peak {peak} kB over {base} kB for 500 sessions"


def test_inspect_memory_stays_flat_over_many_inputs(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(3000):
        many_sessions(folder / f"session-{i:05}.jsonl", 1)
    few = tmp_path / "few"
    few.mkdir()
    for i in range(30):
        many_sessions(few / f"session-{i:05}.jsonl", 1)
    base, _ = peak_rss_kb("inspect", "--json", str(few))
    peak, _ = peak_rss_kb("inspect", "--json", str(folder))
    assert peak - base < 20_000, f"peak {peak} kB over {base} kB for 30 inputs"


def _held_document(path: Path, usage_only: bool = False) -> bytes:
    """The document as inspect printed it when it held every summary."""
    ctx = ReadContext(on_warning=lambda message: None)
    sessions = summarize(api.read(str(path), context=ctx))
    per_session = [s.as_dict() for s in sessions]
    total = totals(sessions)
    if usage_only:
        document = {key: total[key] for key in ("usage", "keptUsage") if key in total}
        document.update(sessions=[usage_fields(s) for s in per_session], sessionCount=len(per_session))
    else:
        document = {**total, "sessions": per_session, "sessionCount": len(per_session)}
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def _held_table(path: Path) -> bytes:
    sessions = summarize(api.read(str(path), context=ReadContext(on_warning=lambda message: None)))
    lines: list[str] = []
    for index, summary in enumerate(sessions):
        if index:
            lines.append("")
        lines.extend(human(summary.as_dict()))
    total = totals(sessions)
    lines += ["", f"{'total:':<12}{total['sessions']} sessions, {total['messages']} messages", f"{'usage:':<12}" + "  ".join(f"{k}={v}" for k, v in total["usage"].items())]
    return ("\n".join(lines) + "\n").encode()


def test_streamed_output_is_the_held_output(tmp_path):
    path = many_sessions(tmp_path / "mixed.jsonl", 400, tools=True)
    assert run_cli("inspect", "--json", path).stdout == _held_document(path)
    assert run_cli("inspect", "--usage", "--json", path).stdout == _held_document(path, usage_only=True)
    assert run_cli("inspect", path).stdout == _held_table(path)


def test_a_spool_past_its_memory_gives_the_same_output(tmp_path):
    # More than a megabyte of one input's summaries: the spool moves to disk.
    path = many_sessions(tmp_path / "big.jsonl", 4000, tools=True)
    printed = run_cli("inspect", "--json", path).stdout
    assert len(printed) > 1 << 20
    assert printed == _held_document(path)


def test_no_session_and_one_session_documents(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n")
    document = json.loads(run_cli("inspect", "--json", empty).stdout)
    assert document["sessions"] == [] and document["sessionCount"] == 0
    assert document["warnings"] == ["the input is empty; no sessions in it"]
    one = many_sessions(tmp_path / "one.jsonl", 1)
    assert run_cli("inspect", "--json", one).stdout == _held_document(one)
    assert run_cli("inspect", "--usage", "--json", one).stdout == _held_document(one, usage_only=True)


def test_a_failing_input_of_a_batch_shows_none_of_its_sessions(tmp_path):
    folder = tmp_path / "batch"
    folder.mkdir()
    many_sessions(folder / "a.jsonl", 3)
    torn = many_sessions(folder / "b.jsonl", 3).read_bytes() + b'{"type":"message","role":"user","text":"cut\n'
    (folder / "b.jsonl").write_bytes(torn)
    many_sessions(folder / "c.jsonl", 2)
    result = run_cli("inspect", "--json", folder)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["sessionCount"] == 5 and document["sessions"][3]["sessionId"] == "s-0"
    assert b"sessionport: 2 of 3 input(s) inspected, 1 failed" in result.stderr
    table = run_cli("inspect", folder)
    assert table.stdout.count(b"sessionId:") == 5 and b"total:      5 sessions, 5 messages" in table.stdout
    # one input that fails part-way prints nothing on stdout, as before
    alone = run_cli("inspect", "--json", folder / "b.jsonl")
    assert alone.returncode == 1 and alone.stdout == b"" and b"Traceback" not in alone.stderr
