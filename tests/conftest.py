"""Shared test helpers.

``corpus`` gives the path of a file in the shared corpus of real transcripts
(``../shared/corpus``), skipping the test with a clear reason when that
folder is absent (a fresh clone has none).  ``run_cli`` runs the real
``sessionport`` program in a subprocess, for pipes, exit codes and stderr.
``wait_for``, ``child_pids`` and ``alive`` watch a running program and its
workers (signal tests).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = Path(os.environ.get("SESSIONPORT_CORPUS", ROOT.parent / "shared" / "corpus"))
CORPUS_MISSING = "the shared corpus of real transcripts (../shared/corpus) is not present in this checkout"


def corpus_path(*parts: str) -> Path:
    path = CORPUS.joinpath(*parts)
    if not CORPUS.is_dir():
        pytest.skip(CORPUS_MISSING)
    if not path.exists():
        pytest.skip(f"corpus file {path} is missing")
    return path


def corpus_files(subdir: str, pattern: str = "*") -> list[Path]:
    """Corpus files for parametrizing; empty when the corpus is absent (the
    test using them must then be skipped with ``requires_corpus``)."""
    folder = CORPUS / subdir
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob(pattern) if p.is_file())


requires_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=CORPUS_MISSING)


def run_cli(*args: str, input: bytes | None = None, timeout: float = 120, env: dict | None = None, cwd: str | Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m sessionport ARGS`` as a real process; returns bytes output."""
    full_env = dict(os.environ)
    full_env.pop("SESSIONPORT_DEBUG", None)
    if env:
        full_env.update(env)
    return subprocess.run(
        [sys.executable, "-m", "sessionport", *map(str, args)],
        input=input,
        capture_output=True,
        timeout=timeout,
        env=full_env,
        cwd=cwd or ROOT,
    )


def detected_format(path) -> str:
    """The format detection picks for the file at ``path``, from its head and name."""
    from sessionport.detect import detect
    from sessionport.io import open_input
    from sessionport.registry import get_registry

    inp = open_input(str(path))
    try:
        return detect(inp.head, inp.name, get_registry()).name
    finally:
        inp.close()


def jsonl_records(path) -> list[dict]:
    """The JSON records of a JSONL file (blank lines left out)."""
    import json

    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def convert_to_portable(path, *args: str) -> tuple[list[dict], bytes]:
    """The portable-jsonl events the program writes of ``path`` (it must
    succeed, with no traceback), and its stderr."""
    import orjson

    result = run_cli("convert", path, "--to", "portable-jsonl", *args)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    return [orjson.loads(line) for line in result.stdout.splitlines()], result.stderr


@pytest.fixture
def corpus():
    return corpus_path


@pytest.fixture
def cli_run():
    return run_cli


def pytest_configure(config):
    config.addinivalue_line("markers", "redteam: the attack reproductions of ../shared/redteam (slow; run with -m redteam)")


def pytest_collection_modifyitems(config, items):
    # The reproductions take minutes; they run when selected by name (-m redteam).
    if "redteam" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="an attack reproduction: run with `pytest -m redteam`")
    for item in items:
        if "redteam" in item.keywords:
            item.add_marker(skip)


# The command line of a sessionport child that starts with the signal
# dispositions a terminal gives it, whatever the test runner inherited: a
# runner started in the background of a script (or under nohup) passes
# SIGINT, SIGQUIT and SIGHUP on ignored, and sessionport rightly keeps
# ignoring what it was started with.  Set by the child itself: preexec_fn
# is unsafe beside the threads other tests keep running.
SESSIONPORT_WITH_DEFAULT_SIGNALS = [
    sys.executable,
    "-c",
    "import runpy, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "for name in ('SIGTERM', 'SIGHUP', 'SIGQUIT'):\n"
    "    signal.signal(getattr(signal, name), signal.SIG_DFL)\n"
    "sys.argv[0] = 'sessionport'\n"
    "runpy.run_module('sessionport', run_name='__main__', alter_sys=True)\n",
]


def interrupt_split_at_second_file(monkeypatch, lands: str) -> None:
    """Make ``split`` end by SIGTERM at its second file, either before that
    file takes its place (``lands`` "before the rename") or just after it
    did, before the code that follows runs ("after the rename")."""
    import contextlib

    from sessionport.pipeline import split as split_module
    from sessionport.pipeline.signals import Terminated

    real_open = split_module.open_output
    calls = []

    @contextlib.contextmanager
    def interrupted_open(path, *args, **kwargs):
        calls.append(path)
        if len(calls) < 2:
            with real_open(path, *args, **kwargs) as out:
                yield out
            return
        if lands == "before the rename":
            raise Terminated(15)
        with real_open(path, *args, **kwargs) as out:
            yield out
        raise Terminated(15)  # the file is in place, the code after it not yet run

    monkeypatch.setattr(split_module, "open_output", interrupted_open)


def wait_for(condition, what: str, timeout: float = 30.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def child_pids(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux /proc), none when unknown."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def alive(pid: int) -> bool:
    """Whether ``pid`` is running (a zombie is not)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def typed_read_outcome(path: Path, format: str, reader: type, typed: bool, kwargs: dict) -> str:
    """Everything a read of ``path`` as ``format`` gives, as JSON text (key
    order counts), with ``reader``'s typed decode on from the first line or
    off: the typed-decode tests compare the two."""
    import json

    import orjson

    from sessionport import api
    from sessionport.context import ReadContext

    original = reader.typed_after
    reader.typed_after = 0 if typed else None
    ctx = ReadContext(on_warning=lambda message: None)
    reported: list[str] = []
    ctx.on_warning = reported.append
    try:
        events = [orjson.loads(orjson.dumps(e)) for e in api.read(str(path), context=ctx, format=format, **kwargs)]
    except Exception as exc:  # the same error, or the test fails
        return json.dumps({"error": type(exc).__name__, "message": str(exc)})
    finally:
        reader.typed_after = original
    return json.dumps({"events": events, "warnings": ctx.warnings, "reported": reported, "bad": (ctx.bad_count, ctx.bad_places)}, indent=1)
