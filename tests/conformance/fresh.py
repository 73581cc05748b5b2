"""Let each app write a new session of its own, offline, and find its files.

The app runs twice in ``scripted_sandbox.py`` (a network namespace with only
loopback) against ``scripted_api.py``: a first turn that plays the script
(tool calls, results, an error, a sub-agent, a web search), then a second
turn that resumes the session.  Tools run without asking (the work folder
is a scratch folder of the run).  The files the app wrote are what the
newest version writes, for sessionport to read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import harness, scripted_api

SESSION_ID = "6b1f0c3e-2a4d-4e8f-9c1b-7d2e5f3a9b10"


@dataclass
class Written:
    app: str
    runs: list[dict]
    isolation: dict
    files: list[Path] = field(default_factory=list)
    outdir: str = ""

    def tail(self) -> str:
        return "\n".join((r.get("stderr") or "")[-400:] + (r.get("stdout") or "")[-400:] for r in self.runs)


def _claude(home: Path) -> list[tuple[list[str], dict]]:
    (home / ".claude").mkdir(parents=True)
    (home / ".claude.json").write_text('{"hasCompletedOnboarding":true,"autoUpdates":false,"bypassPermissionsModeAccepted":true}')
    (home / ".claude" / "settings.json").write_text('{"autoUpdates":false,"includeCoAuthoredBy":false}')
    env = {
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{harness.PORT}",
        "ANTHROPIC_API_KEY": "dummy",
        "IS_SANDBOX": "1",  # bypassPermissions as root
        **harness.CLAUDE_QUIET,
    }
    common = ["--permission-mode", "bypassPermissions", "--output-format", "json"]
    return [
        (["-p", scripted_api.FIRST_PROMPT, "--session-id", SESSION_ID, *common], env),
        (["-p", scripted_api.SECOND_PROMPT, "--resume", SESSION_ID, *common], env),
    ]


def _codex(home: Path) -> list[tuple[list[str], dict]]:
    (home / ".codex").mkdir(parents=True)
    config = harness._CODEX_CONFIG.format(provider="mock", base_url="", table="mock", port=harness.PORT)
    config = config.replace('sandbox_mode = "read-only"', 'sandbox_mode = "danger-full-access"\nmodel_reasoning_summary = "detailed"')
    (home / ".codex" / "config.toml").write_text(config)
    env = {"CODEX_HOME": str(home / ".codex"), "MOCK_API_KEY": "dummy", "RUST_LOG": "warn"}
    return [
        (["exec", "--skip-git-repo-check", "--json", scripted_api.FIRST_PROMPT], env),
        # the main thread by name: after a sub-agent, --last would pick the sub-agent's
        (["exec", "--skip-git-repo-check", "--json", "resume", "{thread}", scripted_api.SECOND_PROMPT], env),
    ]


def _gemini(home: Path) -> list[tuple[list[str], dict]]:
    (home / ".gemini").mkdir(parents=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False, "logPrompts": False},
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False, "sessionRetention": {"enabled": False}},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{harness.PORT}", "GEMINI_API_KEY": "dummy", "GEMINI_CLI_NO_RELAUNCH": "true"}
    return [
        (["--skip-trust", "--yolo", "-p", scripted_api.FIRST_PROMPT, "-o", "json"], env),
        (["--skip-trust", "--yolo", "--resume", "latest", "-p", scripted_api.SECOND_PROMPT, "-o", "json"], env),
    ]


def _qwen(home: Path) -> list[tuple[list[str], dict]]:
    # Qwen Code keeps Gemini CLI's Gemini API client: the same scripted API.
    (home / ".qwen").mkdir(parents=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
    }
    (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
    env = {"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{harness.PORT}", "GEMINI_API_KEY": "dummy", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}
    return [
        (["--yolo", "-p", scripted_api.FIRST_PROMPT, "-o", "json"], env),
        (["--yolo", "--continue", "-p", scripted_api.SECOND_PROMPT, "-o", "json"], env),
    ]


PREPARE = {"claude-code": _claude, "codex": _codex, "gemini-cli": _gemini, "qwen-code": _qwen}
PATTERNS = {
    "claude-code": ".claude/projects/*/*.jsonl",
    "codex": ".codex/sessions/*/*/*/rollout-*.jsonl",
    "gemini-cli": ".gemini/tmp/*/chats/session-*.json*",
    "qwen-code": ".qwen/projects/*/chats/*.jsonl",
}


def _sandboxed(binary: Path, runs: list[tuple[list[str], dict]], home: Path, work: Path, out: Path, unshare: list[str]) -> dict:
    path = os.pathsep.join([str(binary.parent), os.path.dirname(shutil.which("node") or "/usr/bin/node"), "/usr/local/bin", "/usr/bin", "/bin"])
    spec = {
        "runs": [{"argv": [str(binary), *argv], "env": {"PATH": path, "HOME": str(home), **harness.QUIET_ENV, **env}} for argv, env in runs],
        "cwd": str(work),
        "port": harness.PORT,
        "log": str(out / "requests.jsonl"),
        "timeout": harness.APP_TIMEOUT,
    }
    spec_path = out / f"spec-{len(list(out.glob('spec-*.json')))}.json"
    spec_path.write_text(json.dumps(spec, indent=1))
    subprocess.run([*unshare, sys.executable, str(Path(__file__).with_name("scripted_sandbox.py")), str(spec_path)], stdin=subprocess.DEVNULL, capture_output=True, timeout=len(runs) * (harness.APP_TIMEOUT + 30) + 60)
    result_path = Path(str(spec_path) + ".result")
    return json.loads(result_path.read_text()) if result_path.exists() else {"isolation": {}, "runs": [{"rc": None, "stderr": "the sandbox wrote no result"}]}


def run(app: str, binary: Path, out: Path, unshare: list[str]) -> Written:
    """The two scripted turns of ``app``; every file of the run is kept under ``out``."""
    if out.exists():
        shutil.rmtree(out)
    home, work = out / "home", out / "work"
    home.mkdir(parents=True)
    work.mkdir()
    (work / scripted_api.NOTES).write_text("alpha line\nsecond line\n")
    (out / "requests.jsonl").touch()
    runs = PREPARE[app](home)
    results: list[dict] = []
    isolation: dict = {}
    # Codex names its thread only once the first turn ran: one sandbox per turn there
    batches = [runs[:1], runs[1:]] if app == "codex" else [runs]
    for batch in batches:
        if app == "codex" and batch is batches[1]:
            mains = [p for p in home.glob(PATTERNS[app]) if '"thread_source":"subagent"' not in p.read_text(encoding="utf-8")[:4000]]
            thread = mains[0].name[-len("00000000-0000-0000-0000-000000000000.jsonl"):-len(".jsonl")] if mains else "missing"
            batch = [([a.replace("{thread}", thread) for a in argv], env) for argv, env in batch]
        outcome = _sandboxed(binary, batch, home, work, out, unshare)
        isolation = outcome.get("isolation") or isolation
        results.extend(outcome.get("runs") or [])
        if not outcome.get("isolation", {}).get("isolated"):
            break
    files = sorted(home.glob(PATTERNS[app]))
    if app == "claude-code":
        files += sorted(home.glob(".claude/projects/*/*/subagents/*.jsonl"))
    return Written(app=app, runs=results, isolation=isolation, files=files, outdir=str(out))
