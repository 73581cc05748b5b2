"""Running the matrix: conversions, app runs in parallel, and the result table.

A session-wide :class:`Lab` starts every run the collected tests will ask for
at once, on a small thread pool (each run is an app in its own sandbox, so
they do not disturb one another), and each test waits only for its own.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from . import apps as apps_mod
from . import harness, history
from .matrix import ROOT, Source, export_options, workers

TARGET_NAMES = {"claude-code": "conformance.jsonl", "codex": "rollout.jsonl", "gemini-cli": "session-conformance.jsonl", "qwen-code": "conformance.jsonl"}


@dataclass
class Run:
    key: tuple
    outcome: harness.Outcome | None = None
    history: history.History | None = None
    converted: Path | None = None
    convert_error: str = ""
    convert_warnings: str = ""

    @property
    def resumed(self) -> bool:
        return self.outcome is not None and self.outcome.rc == 0 and self.history is not None and self.history.found

    def why_not(self) -> str:
        if self.convert_error:
            return f"sessionport could not convert: {self.convert_error}"
        if self.outcome is None:
            return "not run"
        if self.outcome.timed_out:
            return f"the app timed out after {harness.APP_TIMEOUT} s"
        if self.outcome.rc != 0:
            return f"the app exited with {self.outcome.rc}: {self.outcome.tail()}"
        return f"the app sent no turn request ending with the prompt: {self.outcome.tail()}"


@dataclass
class Row:
    pair: str
    file: str
    resumed: str
    found: str
    note: str = ""


class Lab:
    def __init__(self, root: Path, installed: dict, unshare: list[str]) -> None:
        self.root = root
        self.installed = installed  # app -> (version, binary) | error text
        self.unshare = unshare
        self.pool = ThreadPoolExecutor(max_workers=workers())
        self.futures: dict[tuple, Future] = {}
        self.lock = threading.Lock()
        self.rows: list[Row] = []
        self.started = time.monotonic()
        self.app_seconds = 0.0
        self.isolation: list[dict] = []

    # -- jobs -----------------------------------------------------------
    def submit(self, key: tuple) -> Future:
        with self.lock:
            if key not in self.futures:
                self.futures[key] = self.pool.submit(self._run, key)
            return self.futures[key]

    def get(self, key: tuple) -> Run:
        app = key[1]
        found = self.installed.get(app)
        if not isinstance(found, tuple):
            pytest.skip(f"{app} is not available: {found}")
        return self.submit(key).result()

    def _dir(self, key: tuple) -> Path:
        mode, app, source = key
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{source.format}-{source.label}")
        return self.root / mode / app / safe[-120:]

    def _run(self, key: tuple) -> Run:
        mode, app, source = key
        run = Run(key)
        out = self._dir(key)
        out.mkdir(parents=True, exist_ok=True)
        file = source.path
        if mode in ("export", "export-legacy"):
            file = out / (TARGET_NAMES[app] if mode == "export" else "session-conformance.json")
            argv = [sys.executable, "-m", "sessionport", "convert", str(source.path), "--from", source.format, "--to", app, "-o", str(file)]
            if source.session:
                argv += ["--session", source.session]
            argv += export_options(source, app)[0]
            if mode == "export-legacy":
                argv.append("--gemini-cli-legacy-json")
            if app == "qwen-code":
                argv += ["--qwen-code-cwd", str(harness.work_dir(out / "run"))]  # Qwen Code resumes only in the session's own project
            done = _convert(argv)
            run.convert_warnings = done.stderr.strip()
            if done.returncode != 0:
                run.convert_error = done.stderr.strip()[-500:]
                return run
            run.converted = file
        version, binary = self.installed[app]
        run.outcome = harness.run(app, binary, file, out / "run", self.unshare)
        run.history = history.read(app, run.outcome.requests)
        with self.lock:
            self.app_seconds += run.outcome.seconds
            self.isolation.append(run.outcome.isolation)
        return run

    def prefetch(self, keys: list[tuple]) -> None:
        # the originals first: the export tests of an app's own files wait for them too
        for key in sorted(keys, key=lambda k: k[0] != "import"):
            if isinstance(self.installed.get(key[1]), tuple):
                self.submit(key)

    # -- the table --------------------------------------------------------
    def add_row(self, row: Row) -> None:
        with self.lock:
            self.rows.append(row)

    def table(self) -> str:
        versions = ", ".join(f"{app} {v[0]}" if isinstance(v, tuple) else f"{app}: {v}" for app, v in self.installed.items())
        rows = sorted(self.rows, key=lambda r: (r.pair, r.file))
        head = ("pair", "file", "resumed", "found U/A/C/R of the source", "note")
        cells = [head] + [(r.pair, r.file, r.resumed, r.found, r.note) for r in rows]
        widths = [max(len(c[i]) for c in cells) for i in range(4)]
        lines = [f"sessionport conformance: {versions}", ""]
        for c in cells:
            note = " ".join(c[4].split())  # an app's error may span lines
            lines.append("  ".join(c[i].ljust(widths[i]) for i in range(4)) + ("  " + note if note else ""))
        isolated = sum(1 for x in self.isolation if x.get("isolated"))
        lines += [
            "",
            f"{len(self.isolation)} app runs, every one in a network namespace with no route beyond lo: {isolated} verified isolated "
            "(no route; connect() to 1.1.1.1:443, 8.8.8.8:53 and [2606:4700:4700::1111]:443 failed with ENETUNREACH)",
            f"wall time {time.monotonic() - self.started:.0f} s, app time {self.app_seconds:.0f} s, {workers()} runs at a time",
        ]
        return "\n".join(lines) + "\n"


def install_all() -> tuple[dict, list[str] | str]:
    try:
        unshare = apps_mod.unshare_argv()
    except apps_mod.InstallError as exc:
        return {}, str(exc)
    installed: dict = {}
    for name, app in apps_mod.APPS.items():
        try:
            installed[name] = apps_mod.install(app)
        except (apps_mod.InstallError, subprocess.TimeoutExpired, OSError) as exc:
            installed[name] = str(exc)
    return installed, unshare


def enabled(config) -> bool:
    expr = config.getoption("markexpr", "") or ""
    return os.environ.get("SESSIONPORT_CONFORMANCE") == "1" or ("conformance" in expr and "not conformance" not in expr)


SKIP_REASON = (
    "the conformance suite runs the real apps (installed from npm, about 1 GB, cached in "
    "~/.cache/sessionport-conformance): set SESSIONPORT_CONFORMANCE=1 or select it with -m conformance"
)


class _TablePlugin:
    def __init__(self, lab: Lab, path: Path) -> None:
        self.lab, self.path = lab, path

    def pytest_terminal_summary(self, terminalreporter) -> None:
        text = self.lab.table()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(text, encoding="utf-8")
        terminalreporter.section("conformance table")
        terminalreporter.write(text)
        terminalreporter.write_line(f"(saved in {self.path})")


_LAB: list = []


def the_lab(request) -> Lab:
    """One Lab per pytest session, shared by every conformance test module."""
    if _LAB:
        return _LAB[0]
    if not enabled(request.config):
        pytest.skip(SKIP_REASON)
    installed, unshare = install_all()
    if isinstance(unshare, str):
        pytest.skip(unshare)
    root = request.config._tmp_path_factory.mktemp("conformance")  # kept by pytest for a few runs
    lab = Lab(root, installed, unshare)
    _LAB.append(lab)
    table = Path(os.environ.get("SESSIONPORT_CONFORMANCE_TABLE") or root / "conformance-table.txt")
    request.config.pluginmanager.register(_TablePlugin(lab, table), "sessionport-conformance-table")
    keys = []
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and isinstance(callspec.params.get("key"), tuple):
            keys.append(callspec.params["key"])
    lab.prefetch(keys)
    return lab


@pytest.fixture
def lab(request) -> Lab:
    return the_lab(request)


def _convert(argv: list[str]) -> subprocess.CompletedProcess:
    """sessionport's conversion in its own process.  On this machine the
    exec of the venv's python, started from one of the pool's threads, has
    failed with EFAULT before the program ran at all (twice in three CI runs,
    never with the same input); that start alone is tried once more."""
    for attempt in (1, 2):
        try:
            return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, stdin=subprocess.DEVNULL, timeout=300)
        except OSError as error:
            if error.errno != errno.EFAULT or attempt == 2:
                raise
    raise AssertionError("unreachable")
