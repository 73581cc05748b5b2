"""A run that ends early leaves nothing behind: SIGTERM and SIGHUP clean up
like Ctrl-C, batch workers end with the parent, scratch files go; a full
temporary folder is named as such; every multi-input command goes on past
a bad input."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import tempfile

import orjson
import pytest
from click.testing import CliRunner

from conftest import FIXTURES, ROOT, alive, child_pids, run_cli, wait_for
from sessionport.cli import cli

PORTABLE = FIXTURES / "portable-jsonl" / "session.jsonl"


def _start(args, tmp_path, stdin=subprocess.PIPE):
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    env.pop("SESSIONPORT_DEBUG", None)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    # A run started under nohup keeps SIGHUP ignored, as it should: the
    # program starts with the default dispositions whatever the test runner
    # inherited (set by the child itself: preexec_fn is unsafe beside the
    # threads other tests keep running).
    return subprocess.Popen(
        [sys.executable, "-c", _DEFAULT_SIGNALS, *map(str, args)],
        stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env,
    )


_DEFAULT_SIGNALS = (
    "import runpy, signal, sys\n"
    "for name in ('SIGTERM', 'SIGHUP'):\n"
    "    signal.signal(getattr(signal, name), signal.SIG_DFL)\n"
    "sys.argv[0] = 'sessionport'\n"
    "runpy.run_module('sessionport', run_name='__main__', alter_sys=True)\n"
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_o_leaves_no_part_file(tmp_path, signum):
    target = tmp_path / "out.md"
    target.write_text("previous")
    # The input is a pipe kept open: the run is mid-way for as long as we like.
    proc = _start(["convert", "-", "--from", "portable-jsonl", "--to", "markdown", "-o", target], tmp_path)
    lines = PORTABLE.read_bytes().splitlines(keepends=True)
    proc.stdin.write(b"".join(lines[:3]))
    proc.stdin.flush()
    wait_for(lambda: any(n.endswith(".part") for n in os.listdir(tmp_path)), "the .part file")
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err
    assert b"terminated" in err and b"Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["out.md", "tmp"]
    assert target.read_text() == "previous", "the earlier output is untouched"


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"), reason="reads the process tree from /proc/PID/task/PID/children")
def test_sigterm_ends_batch_workers_and_removes_their_scratch_files(tmp_path):
    """Two inputs into one stream with --jobs 2: each worker blocks on a named
    pipe it reads, holding a scratch copy in $TMPDIR; SIGTERM to the parent
    ends both workers and removes the scratch folder."""
    fifos = [tmp_path / f"in{n}.jsonl" for n in range(2)]
    for fifo in fifos:
        os.mkfifo(fifo)
    proc = _start(["convert", *fifos, "--from", "portable-jsonl", "--to", "portable-jsonl", "--jobs", "2"], tmp_path, stdin=subprocess.DEVNULL)
    writers = []
    lines = PORTABLE.read_bytes().splitlines(keepends=True)
    for fifo in fifos:
        fd = os.open(fifo, os.O_WRONLY)  # blocks until a worker opens it
        os.write(fd, b"".join(lines[:3]))
        writers.append(fd)
    wait_for(lambda: len(child_pids(proc.pid)) >= 2 and os.listdir(tmp_path / "tmp"), "two workers and their scratch folder")
    workers = child_pids(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    for fd in writers:
        os.close(fd)
    assert proc.returncode == 128 + signal.SIGTERM, err
    wait_for(lambda: not any(alive(w) for w in workers), "the workers to end", timeout=10)
    assert os.listdir(tmp_path / "tmp") == [], "no scratch copies of the transcripts stay"


def test_a_full_temporary_folder_is_named_not_the_output(tmp_path, monkeypatch):
    """A portable document whose header follows its messages is spooled to a
    temporary file; when that fails the error says so (the output was fine)."""
    late = tmp_path / "late.json"
    messages = [{"role": "user", "text": f"m{i}"} for i in range(50)]
    late.write_bytes(orjson.dumps({"messages": messages, "schema": "sessionport/v1", "source": "x", "sessionId": "late"}))

    class Full:
        closed = False

        def __init__(self, *args, **kwargs):
            pass

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            pass

    monkeypatch.setattr(tempfile, "TemporaryFile", Full)
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(cli, ["convert", str(late), "--from", "portable", "--to", "portable-jsonl", "-o", str(out)])
    assert result.exit_code == 1
    assert "cannot write a temporary file in" in result.output and "no space left on device" in result.output
    assert "TMPDIR" in result.output
    assert "cannot write output" not in result.output and str(out) not in result.output
    assert not out.exists()


def test_url_patterns_work_or_fail_clearly(tmp_path):
    pytest.importorskip("fsspec")
    bad = run_cli("convert", "memory://bucket/**.jsonl", "--to", "markdown")
    assert bad.returncode == 2 and b"internal error" not in bad.stderr
    assert b"'**/'" in bad.stderr, "says how to write the pattern"


def test_inspect_reports_a_bad_input_and_goes_on(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(PORTABLE.read_bytes())
    (folder / "b.json").write_text('{"what": "not a session"}')
    (folder / "c.jsonl").write_bytes(PORTABLE.read_bytes())
    for args in ([folder], [folder / "a.jsonl", folder / "b.json", folder / "c.jsonl"]):
        result = run_cli("inspect", "--json", *args)
        assert result.returncode == 1, result.stderr
        report = orjson.loads(result.stdout)
        assert report["sessionCount"] == 2
        err = result.stderr.decode()
        assert "b.json" in err and "2 of 3 input(s) inspected, 1 failed" in err
    skipping = run_cli("inspect", folder, "--skip-bad")
    assert skipping.returncode == 1 and b"total:" in skipping.stdout, "--skip-bad is about records; a whole bad input is reported as with convert"
    converting = run_cli("convert", folder, "--to", "portable-jsonl")
    assert converting.returncode == 1 and b"2 of 3 input(s) converted, 1 failed" in converting.stderr
    single = run_cli("inspect", folder / "b.json")
    assert single.returncode == 1 and b"b.json" in single.stderr and not single.stdout


_SECOND_SIGNAL = """
import os, signal, sys
from sessionport.pipeline import batch, signals
if sys.argv[1] == "parent":
    signals.raise_on_termination()
else:
    batch._worker_start()
    batch._in_job = True
try:
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1000):
        pass
    print("not terminated")
except signals.Terminated as exc:
    handler = signal.getsignal(signal.SIGTERM)
    # A second signal while cleaning up finds a handler that lets the
    # clean-up go on (never SIG_IGN, which a signal already on its way
    # turns into an OSError raised in the middle of the clean-up).
    assert callable(handler) and handler is not signal.SIG_IGN, handler
    os.kill(os.getpid(), signal.SIGTERM)
    total = sum(range(100000))
    print("cleaned up", exc.exit_code, total > 0)
"""


@pytest.mark.parametrize("process", ["parent", "worker"])
def test_a_second_sigterm_while_cleaning_up_lets_the_clean_up_finish(process):
    result = subprocess.run([sys.executable, "-c", _SECOND_SIGNAL, process], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "cleaned up 143 True"
    assert result.stderr == ""


# Ctrl-C landing while an import builds a dataclass (its methods are made by
# exec() of a string): CPython started with -m then ends the process by
# SIGINT at exit, whatever the run chose, once such a KeyboardInterrupt has
# passed out of an exec.  The hook sends the signal from inside that exec,
# in the first dataclass a renderer module makes.
_SIGNAL_IN_EXEC = '''
import builtins, dataclasses, os, signal
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal starts it, whatever the runner inherited
_armed = [bool(os.environ.get("SESSIONPORT_TEST_SIGNAL_IN_EXEC"))]
def _exec(source, globals=None, locals=None):
    if _armed[0] and isinstance(source, str) and str((globals or {}).get("__name__", "")).startswith("sessionport.render"):
        _armed[0] = False
        source = "import os as _o, signal as _s\\n_o.kill(_o.getpid(), _s.SIGINT)\\n" + source
    return builtins.exec(source, globals, locals)
dataclasses.exec = _exec
'''


def test_ctrl_c_inside_an_exec_still_ends_with_130(tmp_path):
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_SIGNAL_IN_EXEC)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(hook), str(ROOT)]), SESSIONPORT_TEST_SIGNAL_IN_EXEC="1")
    target = tmp_path / "out.md"
    proc = subprocess.run([sys.executable, "-m", "sessionport", "convert", str(PORTABLE), "--to", "markdown", "-o", str(target)],
                          capture_output=True, cwd=tmp_path, env=env, timeout=60)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr.endswith(b"sessionport: interrupted\n") and b"Traceback" not in proc.stderr
    assert not target.exists() and [p.name for p in tmp_path.iterdir()] == ["hook"], "no output, no partial file"


_LOST_SIGNAL = (
    "import os, signal, sys, time\n"
    "from sessionport.cli import main\n"
    "from sessionport.pipeline import signals\n"
    "signals.raise_on_termination()\n"
    "class Finalised:\n"
    "    def __del__(self):\n"
    "        os.kill(os.getpid(), signal.SIGTERM)\n"
    "        time.sleep(0.2)  # the handler runs in here: its exception is printed and lost\n"
    "Finalised()\n"
    "sys.argv = ['sessionport', *sys.argv[1:]]\n"
    "main()\n"
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_signal_whose_exception_a_finaliser_lost_still_ends_the_run(tmp_path):
    # Python runs a signal handler wherever the main thread is, a finaliser
    # or an import's weakref callback too, where the exception it raises is
    # only printed: the run must still end as terminated, its output unwritten.
    target = tmp_path / "out.md"
    target.write_text("previous")
    done = subprocess.run(
        [sys.executable, "-c", _LOST_SIGNAL, "convert", str(PORTABLE), "--from", "portable-jsonl", "--to", "markdown", "-o", str(target)],
        capture_output=True, cwd=ROOT, timeout=60,
    )
    assert b"Exception ignored" in done.stderr  # the exception was lost where it was raised
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert b"terminated (SIGTERM)" in done.stderr
    assert target.read_text() == "previous"
    assert sorted(os.listdir(tmp_path)) == ["out.md"]


def test_a_plugin_import_cut_short_by_a_signal_ends_as_the_signal(monkeypatch):
    # The import a signal interrupts leaves its module half made, and the
    # next import of it (a report naming the output format's losses) fails
    # with an ImportError: the run ended by the signal, not a broken plugin.
    from sessionport.pipeline import signals
    from sessionport.pipeline.signals import Terminated
    from sessionport.registry import Registry

    class Broken:
        name, value = "html", "sessionport.render.html:EXPORTER"

        def load(self):
            raise ImportError("cannot import name 'EXPORTER' from partially initialized module")

    registry = Registry()
    registry.load_entry_point(Broken())  # no signal: a broken plugin, reported and passed over
    assert registry.load_errors and "ImportError" in registry.load_errors[0]
    monkeypatch.setattr(signals, "received", signal.SIGTERM)
    with pytest.raises(Terminated) as raised:
        registry.load_entry_point(Broken())
    assert raised.value.exit_code == 143


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_reaching_a_forked_worker_before_its_own_handlers_ends_it_quietly(signum):
    """A --jobs worker is forked with the parent's handlers and installs its
    own a moment later; a signal in between (CI under load, the pool ending
    its workers because another was killed) raised the parent's exception
    in the child, and multiprocessing printed its traceback on the run's
    standard error."""
    probe = (
        "import multiprocessing, os, signal, sys, time\n"
        "from sessionport.pipeline import signals\n"
        "signals.raise_on_termination()\n"
        "child = multiprocessing.get_context('fork').Process(target=time.sleep, args=(30,))\n"
        "child.start()\n"
        "time.sleep(0.3)\n"
        f"os.kill(child.pid, {int(signum)})\n"
        "child.join(10)\n"
        "print(child.exitcode)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.split() == [str(128 + int(signum))]
