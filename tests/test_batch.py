"""Many inputs at once: directories, parallel workers, failures that do not
stop the batch, and deterministic results whatever --jobs is."""

from __future__ import annotations

import filecmp
import os

import orjson
import pytest

from conftest import FIXTURES, run_cli
from sessionport.pipeline import inputs, targets

SAMPLE = FIXTURES / "portable-jsonl" / "session.jsonl"


@pytest.fixture
def tree(tmp_path):
    """A directory of 12 sessions in two sub-folders, and one corrupt file."""
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    root = tmp_path / "sessions"
    for i in range(12):
        folder = root / ("project-a" if i % 2 else "project-b") / f"2025-01-{i + 1:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        session = orjson.loads(lines[0])
        session["sessionId"] = f"session-{i:02d}"
        (folder / f"rollout-{i:02d}.jsonl").write_bytes(orjson.dumps(session) + b"\n" + b"".join(lines[1:]))
    (root / "project-a" / "broken.jsonl").write_bytes(lines[0] + b"{not json\n" + lines[1])
    (root / "project-a" / "notes.txt").write_text("not a session")
    return root


def test_directory_to_directory_mirrors_the_layout(tree, tmp_path):
    out = tmp_path / "out"
    result = run_cli("convert", tree, "--to", "portable", "-o", out, "--jobs", "2")
    assert result.returncode == 1, "one input failed, so the batch exits 1"
    err = result.stderr.decode()
    assert "broken.jsonl, line 2" in err
    assert "12 of 13 input(s) converted, 1 failed" in err
    written = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert len(written) == 12
    assert "project-a/2025-01-02/rollout-01.json" in written
    assert not (out / "project-a" / "notes.json").exists(), "only session files are picked up"
    doc = orjson.loads((out / "project-b" / "2025-01-03" / "rollout-02.json").read_bytes())
    assert doc["sessionId"] == "session-02" and len(doc["messages"]) == 8


def test_jobs_do_not_change_the_outputs(tree, tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    assert run_cli("convert", tree, "--to", "markdown", "-o", one, "--jobs", "1").returncode == 1
    assert run_cli("convert", tree, "--to", "markdown", "-o", two, "--jobs", "2").returncode == 1
    compared = filecmp.dircmp(one, two)
    assert not compared.left_only and not compared.right_only
    for path in one.rglob("*.md"):
        assert path.read_bytes() == (two / path.relative_to(one)).read_bytes()


def test_combined_stream_is_in_input_order_whatever_the_jobs(tree):
    serial = run_cli("convert", tree, "--to", "portable-jsonl", "--jobs", "1")
    parallel = run_cli("convert", tree, "--to", "portable-jsonl", "--jobs", "2")
    assert serial.returncode == parallel.returncode == 1
    assert serial.stdout == parallel.stdout
    sessions = [orjson.loads(line)["sessionId"] for line in serial.stdout.splitlines() if b'"type":"session"' in line]
    expected = sorted(f"session-{i:02d}" for i in range(12))
    assert sorted(sessions) == expected and len(sessions) == 12
    assert sessions == [f"session-{i:02d}" for i in (1, 3, 5, 7, 9, 11, 0, 2, 4, 6, 8, 10)], "directory order, sorted by path"


def test_glob_selects_files(tree, tmp_path):
    result = run_cli("convert", tree, "--to", "portable-jsonl", "--glob", "rollout-0*.jsonl", "-o", tmp_path / "g")
    assert result.returncode == 0
    assert len(list((tmp_path / "g").rglob("*.jsonl"))) == 10


def test_filter_takes_a_directory_too(tree, tmp_path):
    result = run_cli("filter", tree, "--role", "user", "--glob", "rollout-*.jsonl")
    assert result.returncode == 0
    events = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert {e["role"] for e in events if e["type"] == "message"} == {"user"}
    assert sum(e["type"] == "session" for e in events) == 12


def test_several_inputs_refuse_a_file_as_output(tree, tmp_path):
    target = tmp_path / "file.json"
    target.write_text("keep")
    result = run_cli("convert", tree, "--to", "markdown", "-o", target)
    assert result.returncode == 2
    assert target.read_text() == "keep"


def test_target_names_do_not_collide(tmp_path):
    guard = targets.OutputGuard()
    first = guard.claim("out", "a/x.jsonl", ".md")
    second = guard.claim("out", "a/x.json", ".md")
    compressed = guard.claim("out", "a/y.jsonl.zst", ".md")
    assert first == os.path.join("out", "a/x.md")
    assert second == os.path.join("out", "a/x.json.md")
    assert compressed == os.path.join("out", "a/y.md")


def test_claude_code_subagent_files_are_read_with_their_parent(tmp_path):
    project = tmp_path / "project"
    (project / "abc" / "subagents").mkdir(parents=True)
    (project / "abc.jsonl").write_text("{}")
    (project / "abc" / "subagents" / "agent-1.jsonl").write_text("{}")
    (project / "agent-2.jsonl").write_text("{}")
    found = [s.relative for s in inputs.resolve([str(project)]).sources]
    assert found == ["abc.jsonl"]


def _deaf_worker(flag: str) -> None:
    """A job that no signal but SIGKILL ends, as a worker waiting forever
    for a lock that a worker killed by Ctrl-C still held."""
    import signal
    import time

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    with open(flag, "w"):
        pass
    time.sleep(120)


def test_a_worker_past_asking_is_killed_and_the_pool_ends(tmp_path):
    import signal
    import time

    from conftest import alive, wait_for
    from sessionport.pipeline import batch

    flag = tmp_path / "started"
    pool = batch._pool(1)
    pool.submit(_deaf_worker, str(flag))
    wait_for(flag.exists, "the job to start")
    (worker,) = pool._processes.values()
    try:
        started = time.monotonic()
        batch._end_workers(pool)
        assert time.monotonic() - started < batch.END_GRACE + 5
        wait_for(lambda: not alive(worker.pid), "the deaf worker to be killed", timeout=5)
    finally:
        if alive(worker.pid):  # so that a failure here never hangs the suite
            os.kill(worker.pid, signal.SIGKILL)
        pool.shutdown(wait=True, cancel_futures=True)
