"""The apps, installed from npm into a cache shared by every run on a machine.

``~/.cache/sessionport-conformance/npm/<app>-<version>/`` holds one npm prefix
per app and version (``SESSIONPORT_CONFORMANCE_CACHE`` moves it).  The pinned
versions are the newest releases the suite was measured on (Claude Code 2.1.332;
the recipe was first measured on 2.1.197, which ``SESSIONPORT_CONFORMANCE_CLAUDE_CODE=2.1.197``
still runs); ``SESSIONPORT_CONFORMANCE_LATEST=1`` installs and judges with the
newest release instead, and ``SESSIONPORT_CONFORMANCE_<APP>=VERSION``
(``CLAUDE_CODE``, ``CODEX``, ``GEMINI_CLI``, ``QWEN_CODE``) picks any other.  Installing is the only step that uses the
network; the apps themselves only ever run in the sandbox.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class App:
    name: str  # sessionport's format name, also the app's id here
    package: str
    pinned: str
    binary: str


APPS = {
    "claude-code": App("claude-code", "@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": App("codex", "@openai/codex", "0.171.0", "codex"),
    "gemini-cli": App("gemini-cli", "@google/gemini-cli", "0.61.0", "gemini"),
    # Only writes fresh sessions here (sessionport has no Qwen Code writer to resume).
    "qwen-code": App("qwen-code", "@qwen-code/qwen-code", "0.24.4", "qwen"),
}


def cache_dir() -> Path:
    given = os.environ.get("SESSIONPORT_CONFORMANCE_CACHE")
    return Path(given) if given else Path.home() / ".cache" / "sessionport-conformance"


def wanted_version(app: App) -> str:
    own = os.environ.get("SESSIONPORT_CONFORMANCE_" + app.name.upper().replace("-", "_"))
    if own:
        return own
    if os.environ.get("SESSIONPORT_CONFORMANCE_LATEST") == "1":
        return "latest"
    return app.pinned


def _resolve_latest(app: App) -> str:
    done = subprocess.run(["npm", "view", f"{app.package}@latest", "version"], capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not done.stdout.strip():
        raise InstallError(f"npm cannot say which version of {app.package} is the latest: {done.stderr.strip()[-300:]}")
    return done.stdout.strip().splitlines()[-1]


class InstallError(RuntimeError):
    pass


def install(app: App) -> tuple[str, Path]:
    """The app's version and executable, installing it into the cache first
    if needed (under a lock: two checkouts may install at once)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        raise InstallError("npm and node are needed to install the apps (apt-get install nodejs npm)")
    version = wanted_version(app)
    if version == "latest":
        version = _resolve_latest(app)
    root = cache_dir() / "npm"
    prefix = root / f"{app.name}-{version}"
    binary = prefix / "node_modules" / ".bin" / app.binary
    if binary.exists():
        return version, binary
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if binary.exists():
            return version, binary
        partial = root / f".{app.name}-{version}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", str(partial), f"{app.package}@{version}"],
            capture_output=True,
            text=True,
            timeout=900,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            shutil.rmtree(partial, ignore_errors=True)
            raise InstallError(f"npm install {app.package}@{version} failed: {done.stderr.strip()[-500:]}")
        partial.rename(prefix)
    if not binary.exists():
        raise InstallError(f"{app.package}@{version} installed, but {binary} is missing")
    return version, binary


def unshare_argv() -> list[str]:
    """The command that makes a new network namespace here (root: ``unshare -n``;
    otherwise inside a user namespace, ``unshare -r -n``).  Raises InstallError
    with the reason when neither works."""
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            raise InstallError(f"`{tool}` is not installed (util-linux / iproute2): the apps only ever run in a network namespace")
    problems = []
    for argv in (["unshare", "-n"], ["unshare", "-r", "-n"]):
        done = subprocess.run([*argv, "ip", "link", "set", "lo", "up"], capture_output=True, text=True)
        if done.returncode == 0:
            return argv
        problems.append(f"`{' '.join(argv)}`: {done.stderr.strip()[-160:]}")
    raise InstallError("cannot create a network namespace (" + "; ".join(problems) + "); run as root or allow unprivileged user namespaces")


def main() -> int:
    """``python tests/conformance/apps.py``: install the apps into the cache
    (CI runs it before the tests, so that downloads are not timed as tests)."""
    import sys

    status = 0
    for app in APPS.values():
        try:
            version, binary = install(app)
            print(f"{app.name} {version}: {binary}")
        except (InstallError, subprocess.TimeoutExpired, OSError) as exc:
            print(f"{app.name}: not installed: {exc}", file=sys.stderr)
            status = 1
    try:
        print("network namespace:", " ".join(unshare_argv()))
    except InstallError as exc:
        print(f"no network namespace: {exc}", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
