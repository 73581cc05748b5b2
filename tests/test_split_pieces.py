"""One big Codex rollout read in pieces by several processes (``--jobs``):
the output is the bytes one process writes, warnings are the same, and
what cannot be split is read in one process.

The thresholds are lowered through the environment so that small files are
cut in many places: after every line for the fixtures (right after
``session_meta``, between a call and its output, inside every turn), every
few KB for the real files of the corpus."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT, SESSIONPORT_WITH_DEFAULT_SIGNALS, alive, child_pids, corpus_files, requires_corpus, run_cli, wait_for
from sessionport.formats.codex.usage import TokenTotals
from sessionport.formats.codex import split
from sessionport.pipeline import chunks
from sessionport.pipeline.run import Reading, Sink, run

CODEX_FIXTURES = sorted((FIXTURES / "codex").glob("*.jsonl"))
CODEX_CORPUS = [p for p in corpus_files("codex") if p.suffix == ".jsonl"]
NOTE = re.compile(r"read in (\d+) pieces by (\d+) processes; (\d+) read again")


def _tiny(monkeypatch, chunk: str, warm_up: str) -> None:
    monkeypatch.setenv(chunks.MIN_SIZE_ENV, "1")
    monkeypatch.setenv(chunks.CHUNK_SIZE_ENV, chunk)
    monkeypatch.setenv(chunks.WARM_UP_ENV, warm_up)


def _convert(path, out, capsys, jobs: int, options: dict, to: str = "portable-jsonl", stages=()) -> tuple[bytes, str]:
    run([str(path)], reading=Reading(options=dict(options)), sink=Sink(to, str(out)), jobs=jobs, stages=stages)
    err = capsys.readouterr().err
    return out.read_bytes(), err


def _same_as_one_process(path, tmp_path, capsys, monkeypatch, options, to: str = "portable-jsonl", stages=()) -> tuple[int, int]:
    monkeypatch.delenv("SESSIONPORT_DEBUG", raising=False)
    one, one_err = _convert(path, tmp_path / "one.out", capsys, 1, options, to, stages)
    monkeypatch.setenv("SESSIONPORT_DEBUG", "1")
    many, many_err = _convert(path, tmp_path / "many.out", capsys, 2, options, to, stages)
    notes = [line for line in many_err.splitlines() if "debug:" in line]
    assert many == one, f"{path.name}: the output differs from one process's ({notes})"
    assert [line for line in many_err.splitlines() if "debug:" not in line] == one_err.splitlines()
    found = NOTE.search("\n".join(notes))
    return (int(found.group(1)), int(found.group(3))) if found else (1, 0)


@pytest.mark.parametrize("options", [{}, {"skip_inherited": True}], ids=["all", "skip-inherited"])
@pytest.mark.parametrize("path", CODEX_FIXTURES, ids=lambda p: p.name)
def test_fixtures_cut_after_every_line_give_the_same_bytes(path, options, tmp_path, capsys, monkeypatch):
    _tiny(monkeypatch, "1", "0")
    pieces, _ = _same_as_one_process(path, tmp_path, capsys, monkeypatch, options)
    lines = sum(1 for line in path.read_bytes().splitlines() if line.strip())
    assert pieces >= lines - 1, "a cut after every line"


def _stages(names: str) -> tuple:
    from sessionport.pipeline.batch import stage_factory
    from sessionport.registry import get_registry

    options = {"redact": {"report": True}, "filter": {"role": ("user", "tool"), "with_results": True}}
    return tuple(stage_factory(get_registry().stage(name).build, **options[name]) for name in names.split())


# Writers that keep state from event to event, and a stage that reads the
# whole stream: the workers write portable-jsonl, this process reads their
# events back and writes (see pipeline/chunks.py).
WRITTEN_HERE = {
    "markdown": ("markdown", ""),
    "html": ("html", ""),
    "codex": ("codex", ""),
    "claude-code": ("claude-code", ""),
    "agentscope-trace": ("agentscope-trace", ""),
    "redact": ("portable-jsonl", "redact"),
    "redact-markdown": ("markdown", "redact"),
    "filter-redact-html": ("html", "filter redact"),
}


@pytest.mark.parametrize("output", WRITTEN_HERE, ids=list(WRITTEN_HERE))
@pytest.mark.parametrize("path", CODEX_FIXTURES, ids=lambda p: p.name)
def test_pieces_written_here_give_the_bytes_of_one_process(path, output, tmp_path, capsys, monkeypatch):
    to, stage = WRITTEN_HERE[output]
    _tiny(monkeypatch, "1", "0")
    pieces, _ = _same_as_one_process(path, tmp_path, capsys, monkeypatch, {}, to, _stages(stage))
    lines = sum(1 for line in path.read_bytes().splitlines() if line.strip())
    assert pieces >= lines - 1, "a cut after every line"


@requires_corpus
@pytest.mark.parametrize("output", ["markdown", "html", "redact", "filter-redact-html"])
@pytest.mark.parametrize("path", CODEX_CORPUS, ids=lambda p: p.name)
def test_real_rollouts_written_here_give_the_bytes_of_one_process(path, output, tmp_path, capsys, monkeypatch):
    to, stage = WRITTEN_HERE[output]
    _tiny(monkeypatch, "3k", "2k")
    pieces, _ = _same_as_one_process(path, tmp_path, capsys, monkeypatch, {}, to, _stages(stage))
    assert pieces > 4


@requires_corpus
@pytest.mark.parametrize("options", [{}, {"skip_inherited": True}], ids=["all", "skip-inherited"])
@pytest.mark.parametrize("path", CODEX_CORPUS, ids=lambda p: p.name)
def test_real_rollouts_cut_every_few_kb_give_the_same_bytes(path, options, tmp_path, capsys, monkeypatch):
    _tiny(monkeypatch, "3k", "2k")
    pieces, again = _same_as_one_process(path, tmp_path, capsys, monkeypatch, options)
    assert pieces > 4


@requires_corpus
def test_most_pieces_of_a_real_envelope_rollout_start_in_the_right_state(tmp_path, capsys, monkeypatch):
    """The guess (calls and model from the stretch before, a warm-up) is
    right for most cuts: few pieces are read a second time."""
    path = next(p for p in CODEX_CORPUS if "0.46.0" in p.name)
    _tiny(monkeypatch, "4k", "2k")
    pieces, again = _same_as_one_process(path, tmp_path, capsys, monkeypatch, {})
    assert pieces > 20 and again <= pieces // 10


def test_a_wrong_guess_costs_a_second_read_not_wrong_output(tmp_path, capsys, monkeypatch):
    """Without warm-up and with a guess that forgets every call, pieces are
    read again from the state before them, and the output is still exact."""
    path = FIXTURES / "codex" / "rollout-envelope.jsonl"
    _tiny(monkeypatch, "1", "0")
    monkeypatch.setattr(split, "guess_before", lambda path, offset: {"pending": {}, "answered": {}, "model": "wrong", "seen_user_event": False})
    pieces, again = _same_as_one_process(path, tmp_path, capsys, monkeypatch, {})
    assert again > 0


def test_a_piece_restored_from_a_state_keeps_the_typed_decode(monkeypatch):
    """The item handler table is a setting of the read, not state: a piece
    restored from the state before it keeps the module's own table, the
    condition of the typed decode of the commonest items, and so decodes
    them as one process does (an unpickled copy of the table turned it off
    and made every piece parse every item in full)."""
    from sessionport.context import ReadContext
    from sessionport.formats.codex import items, rollout

    before = split.PieceReader(ReadContext(name="x"), 1, 1)
    piece = split.PieceReader(ReadContext(name="x"), 9, 9)
    split._restore(piece, split.state_of(before))
    assert piece.items.handlers is items._HANDLERS
    decoded = []
    real = rollout._typed_decoder

    def counting():
        decode = real()
        return lambda *args: decoded.append(1) or decode(*args)

    monkeypatch.setattr(rollout, "_typed_decoder", counting)
    piece.typed_after = 0
    path = FIXTURES / "codex" / "rollout-envelope.jsonl"
    with open(path, "rb") as stream:
        for _ in piece.run(stream):
            pass
    assert decoded, "the restored piece took the typed decode"


def test_token_totals_join_as_one_reader_counts_them():
    """Totals that reset (a new segment) on either side of any cut."""
    totals = [5, 9, 9, 3, 8, 12, 2, 2, 7, 1]

    def line(total: int) -> bytes:
        return b'{"payload":{"info":{"total_token_usage":{"input_tokens":%d,"total_tokens":%d},"last_token_usage":{"total_tokens":1}}}}' % (total, total)

    one = TokenTotals()
    for total in totals:
        one.add_line(total, line(total))
    for cut in range(len(totals) + 1):
        for second_cut in range(cut, len(totals) + 1):
            joined: TokenTotals = TokenTotals()
            for part in (totals[:cut], totals[cut:second_cut], totals[second_cut:]):
                piece = split.PieceTotals()
                for total in part:
                    piece.add_line(total, line(total))
                joined = split.join_totals(joined, piece)
            assert (joined.usage(), joined.resets, joined.last_request()) == (one.usage(), one.resets, one.last_request())


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    path = tmp_path_factory.mktemp("gen") / "rollout-generated.jsonl"
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "generate.py"), "codex", "3MB", str(path)], check=True)
    return path


def test_the_program_reads_a_big_rollout_in_worker_processes(generated, tmp_path):
    env = {chunks.MIN_SIZE_ENV: "1M", chunks.CHUNK_SIZE_ENV: "256k", "SESSIONPORT_DEBUG": "1"}
    one = run_cli("convert", generated, "--to", "portable-jsonl", "--jobs", "1")
    many = run_cli("convert", generated, "--to", "portable-jsonl", "--jobs", "2", env=env)
    assert one.returncode == many.returncode == 0
    assert many.stdout == one.stdout
    found = NOTE.search(many.stderr.decode())
    assert found, many.stderr
    pieces, processes, again = map(int, found.groups())
    assert pieces >= 10 and processes == 2 and again == 0
    quiet = run_cli("convert", generated, "--to", "portable-jsonl", "--jobs", "2", "-o", tmp_path / "out.jsonl", env={chunks.MIN_SIZE_ENV: "1M"})
    assert quiet.returncode == 0 and quiet.stderr == b"", "no note unless debugging"
    assert (tmp_path / "out.jsonl").read_bytes() == one.stdout


@pytest.mark.parametrize(
    "args",
    [["convert", "--to", "html"], ["redact", "--to", "markdown", "--report"], ["filter", "--role", "user", "--to", "markdown"],
     ["convert", "--session", "SESSION", "--to", "markdown"]],
    ids=["html", "redact", "filter", "session"],
)
def test_the_program_renders_what_worker_processes_read(args, generated, tmp_path):
    env = {chunks.MIN_SIZE_ENV: "1M", chunks.CHUNK_SIZE_ENV: "256k", "SESSIONPORT_DEBUG": "1"}
    session_id = json.loads(generated.read_bytes().split(b"\n", 1)[0])["payload"]["id"]
    command, *options = [session_id[:8] if arg == "SESSION" else arg for arg in args]
    one = run_cli(command, generated, *options, "--jobs", "1")
    many = run_cli(command, generated, *options, "--jobs", "2", env=env)
    assert one.returncode == many.returncode == 0
    assert many.stdout == one.stdout and len(one.stdout) > 10_000
    notes = [line for line in many.stderr.decode().splitlines() if "debug:" in line]
    assert [line for line in many.stderr.decode().splitlines() if "debug:" not in line] == one.stderr.decode().splitlines()
    found = NOTE.search("\n".join(notes))
    assert found and "which wrote their events" in notes[-1], notes
    pieces, processes, again = map(int, found.groups())
    assert pieces >= 10 and processes == 2 and again == 0


def _one_process_note(*args, input=None, env=None):
    result = run_cli(*map(str, args), input=input, env={chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "1", "SESSIONPORT_DEBUG": "1", **(env or {})})
    return result, [line for line in result.stderr.decode().splitlines() if "debug:" in line]


@pytest.mark.parametrize(
    "case, why",
    [
        ("claude-code", "parentUuid"),
        ("stdin", "stdin"),
        ("gzip", "compressed"),
        ("filter", "a stage that may stop reading early"),
        ("jobs-1", "--jobs 1"),
    ],
)
def test_what_cannot_be_split_is_read_in_one_process(case, why, tmp_path):
    rollout = FIXTURES / "codex" / "rollout-envelope.jsonl"
    claude = next((FIXTURES / "claude-code").glob("*.jsonl"))
    args, stdin, path = ["--to", "portable-jsonl", "--jobs", "2"], None, rollout
    command = "convert"
    if case == "claude-code":
        path = claude
    elif case == "stdin":
        path, stdin = "-", rollout.read_bytes()
    elif case == "gzip":
        path = tmp_path / "rollout.jsonl.gz"
        path.write_bytes(gzip.compress(rollout.read_bytes()))
    elif case == "filter":
        # --head stops reading once it has its messages: no read ahead.
        command, args = "filter", ["--head", "2", "--to", "markdown", "--jobs", "2"]
    elif case == "jobs-1":
        args = ["--to", "portable-jsonl", "--jobs", "1"]
    result, notes = _one_process_note(command, path, *args, input=stdin)
    plain = run_cli(command, str(path), *args, input=stdin)
    assert result.returncode == plain.returncode
    assert result.stdout == plain.stdout
    assert len(notes) == 1 and "read in one process" in notes[0] and why in notes[0], notes
    assert plain.stderr == b"" or b"debug" not in plain.stderr


@pytest.mark.parametrize("to", ["portable-jsonl", "markdown"])
def test_a_bad_line_fails_at_its_line_as_in_one_process(to, tmp_path):
    lines = (FIXTURES / "codex" / "rollout-envelope.jsonl").read_bytes().splitlines(keepends=True)
    bad = tmp_path / "rollout-bad.jsonl"
    bad.write_bytes(b"".join(lines[:-2]) + b"{not json\n" + b"".join(lines[-2:]))
    env = {chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "1"}
    for extra in ([], ["--skip-bad"]):
        one = run_cli("convert", bad, "--to", to, "--jobs", "1", *extra)
        many = run_cli("convert", bad, "--to", to, "--jobs", "2", *extra, env=env)
        assert (many.returncode, many.stdout, many.stderr) == (one.returncode, one.stdout, one.stderr), extra
    assert one.returncode == 0 and b"line %d" % (len(lines) - 1) in one.stderr
    strict = run_cli("convert", bad, "--to", to, "--jobs", "1", "--strict")
    many = run_cli("convert", bad, "--to", to, "--jobs", "2", "--strict", env=env)
    assert (many.returncode, many.stdout, many.stderr) == (strict.returncode, strict.stdout, strict.stderr)
    assert strict.returncode == 1 and b"Traceback" not in strict.stderr
    target = tmp_path / f"out-{to}"
    written = run_cli("convert", bad, "--to", to, "--jobs", "2", "--strict", "-o", target, env=env)
    assert written.returncode == 1 and not target.exists(), "no output on failure"


@pytest.mark.parametrize("to", ["portable-jsonl", "markdown"])
def test_skipped_lines_are_told_before_what_a_stage_says_at_the_end(to, tmp_path):
    """One process tells the records it skipped as its reading ends, before
    a stage's closing line (redact --report) and the writer's: so do the
    pieces."""
    lines = (FIXTURES / "codex" / "rollout-envelope.jsonl").read_bytes().splitlines(keepends=True)
    bad = tmp_path / "rollout-bad.jsonl"
    bad.write_bytes(b"".join(lines[:-2]) + b"{not json\n" + b"".join(lines[-2:]))
    env = {chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "1"}
    args = ("redact", bad, "--report", "--skip-bad", "--to", to)
    one = run_cli(*args, "--jobs", "1")
    many = run_cli(*args, "--jobs", "2", env=env)
    assert one.returncode == 0 and b"skipped 1 unreadable record(s)" in one.stderr and b"redact: nothing to redact" in one.stderr
    assert (many.returncode, many.stdout, many.stderr.decode().splitlines()) == (one.returncode, one.stdout, one.stderr.decode().splitlines())


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"), reason="reads the process tree from /proc")
@pytest.mark.parametrize("to", ["portable-jsonl", "markdown"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_workers_and_leaves_no_partial_output(signum, to, generated, tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("previous")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = dict(os.environ, TMPDIR=str(scratch), **{chunks.MIN_SIZE_ENV: "1", chunks.CHUNK_SIZE_ENV: "8k"})
    env.pop("SESSIONPORT_DEBUG", None)
    proc = subprocess.Popen(
        [*SESSIONPORT_WITH_DEFAULT_SIGNALS, "convert", str(generated), "--to", to, "--jobs", "2", "-o", str(target)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env, start_new_session=True,
    )
    wait_for(lambda: len(child_pids(proc.pid)) >= 2 and any(n.endswith(".part") for n in os.listdir(tmp_path)), "the workers and the .part file")
    workers = child_pids(proc.pid)
    if signum == signal.SIGINT:
        os.killpg(proc.pid, signum)  # Ctrl-C reaches the whole group
    else:
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode in (128 + signum, 130 if signum == signal.SIGINT else -1), err
    assert b"Traceback" not in err
    wait_for(lambda: not any(alive(w) for w in workers), "the workers to end", timeout=10)
    assert sorted(os.listdir(tmp_path)) == ["out.jsonl", "tmp"], "no .part file"
    assert target.read_text() == "previous"
    assert os.listdir(scratch) == [], "the pieces' outputs are removed"


@requires_corpus
@pytest.mark.parametrize("path", [p for p in CODEX_CORPUS if "legacy" not in p.name], ids=lambda p: p.name)
def test_real_rollouts_cut_at_arbitrary_sizes_give_the_same_bytes(path, tmp_path, capsys, monkeypatch):
    import random

    chooser = random.Random(path.name)
    _tiny(monkeypatch, str(chooser.randint(200, 6000)), str(chooser.choice([0, chooser.randint(100, 4000)])))
    _same_as_one_process(path, tmp_path, capsys, monkeypatch, {})


def test_cuts_are_line_starts_never_on_a_byte_order_mark(tmp_path):
    lines = [b'{"a":%d}\n' % n for n in range(200)]
    lines[50] = b"\xef\xbb\xbf" + lines[50]
    lines[51] = b"\xef\xbb\xbf" + lines[51]
    lines[120] = b"x" * 3000 + b"\n"
    path = tmp_path / "lines.jsonl"
    data = b"".join(lines)
    path.write_bytes(data)
    starts_of_lines = {0} | {i + 1 for i, byte in enumerate(data) if byte == 10}
    for chunk in (1, 7, 100, 1000):
        for warm_up in (0, 5, 64, 5000):
            starts, windows = chunks.cuts(str(path), len(data), chunk, warm_up)
            assert starts[0] == 0 and starts == sorted(set(starts)) and starts[-1] < len(data)
            assert set(starts) <= starts_of_lines and set(windows) <= starts_of_lines
            assert all(w <= s for w, s in zip(windows, starts))
            assert not any(data[s : s + 3] == b"\xef\xbb\xbf" for s in starts[1:] + windows[1:])
            if warm_up == 5000:
                assert all(w < s for w, s in zip(windows[1:], starts[1:])), "a warm-up holds at least one line"


def test_a_progress_bar_moves_on_by_pieces(generated, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(chunks.MIN_SIZE_ENV, "1M")
    monkeypatch.setenv(chunks.CHUNK_SIZE_ENV, "512k")
    monkeypatch.setattr("sessionport.reports.progress.MIN_SIZE", 1)
    run([str(generated)], reading=Reading(), sink=Sink("portable-jsonl", str(tmp_path / "one.jsonl")), jobs=1)
    run([str(generated)], reading=Reading(progress=True), sink=Sink("portable-jsonl", str(tmp_path / "bar.jsonl")), jobs=2)
    err = capsys.readouterr().err
    assert (tmp_path / "bar.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert str(generated) in err, "the bar (on a file click draws only its label)"
