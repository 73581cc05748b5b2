"""Make one app resume one session file offline and capture the history it sends.

For each app: a fake HOME with just the settings that keep it quiet and
offline (no telemetry, updates, feedback, retention clean-up), the session
file placed where the app looks for it, and the resume command with the
prompt ``continue``.  The app then runs in ``sandbox.py`` inside a network
namespace with only loopback, against ``mock_api.py`` on 127.0.0.1:18080.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PORT = 18080
PROMPT = "continue"
APP_TIMEOUT = 150
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")

QUIET_ENV = {
    "TERM": "dumb",
    "NO_COLOR": "1",
    "CI": "1",
}


@dataclass
class Outcome:
    app: str
    source: str
    rc: int | None
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    isolation: dict
    requests: list[dict] = field(default_factory=list)
    outdir: str = ""

    def tail(self, n: int = 600) -> str:
        text = (self.stderr.strip() + "\n" + self.stdout.strip()).strip()
        return text[-n:]


def _first_json_lines(path: Path, limit: int = 200):
    with open(path, encoding="utf-8", errors="replace") as handle:
        for i, line in enumerate(handle):
            if i >= limit:
                return
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                yield record


def claude_session_id(path: Path) -> str:
    for record in _first_json_lines(path, 100000):
        if record.get("type") in ("user", "assistant", "system", "progress", "attachment") and isinstance(record.get("sessionId"), str):
            return record["sessionId"]
    stem = path.name.removesuffix(".jsonl")
    return stem if _UUID.match(stem) else str(uuid.uuid5(uuid.NAMESPACE_URL, str(path)))


def codex_meta(path: Path) -> tuple[str, str, str | None]:
    """The thread id, its start time and the provider its ``session_meta`` pins."""
    first = next(_first_json_lines(path, 1), {})
    payload = first.get("payload", first) if first.get("type") == "session_meta" else first
    stamp = payload.get("timestamp") or first.get("timestamp") or "2025-01-01T00:00:00.000Z"
    provider = payload.get("model_provider")
    return str(payload.get("id")), stamp, provider if isinstance(provider, str) and provider else None


# -- placing the file and configuring each app ------------------------------

# Claude Code with nothing sent anywhere but the model API: no telemetry,
# updates, error reports or surveys.
CLAUDE_QUIET = {
    "DISABLE_TELEMETRY": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY": "1",
}


def _claude(src: Path, home: Path, work: Path, out: Path) -> tuple[list[str], dict]:
    sid = claude_session_id(src)
    project = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(work))
    project.mkdir(parents=True)
    shutil.copyfile(src, project / f"{sid}.jsonl")
    subagents = src.with_suffix("") / "subagents"
    if subagents.is_dir():
        shutil.copytree(subagents, project / sid / "subagents")
    (home / ".claude.json").write_text('{"hasCompletedOnboarding":true,"autoUpdates":false}')
    (home / ".claude" / "settings.json").write_text('{"autoUpdates":false,"includeCoAuthoredBy":false}')
    env = {
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{PORT}",
        "ANTHROPIC_API_KEY": "dummy",
        # keeps tool_reference blocks in replayed results (a non-Anthropic base URL drops them otherwise)
        "ENABLE_TOOL_SEARCH": "true",
        **CLAUDE_QUIET,
    }
    argv = ["-p", PROMPT, "--resume", sid, "--output-format", "json", "--debug-file", str(out / "claude-debug.log")]
    return argv, env


_CODEX_CONFIG = """\
model = "gpt-5-codex"
model_provider = "{provider}"
{base_url}
check_for_update_on_startup = false
approval_policy = "never"
sandbox_mode = "read-only"
# long tool outputs are otherwise cut in the middle when replayed
tool_output_token_limit = 100000000

[model_providers.{table}]
name = "mock"
base_url = "http://127.0.0.1:{port}/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
remote_plugin = false
apps = false
enable_request_compression = false
shell_snapshot = false
in_app_updates = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
"""


def _codex(src: Path, home: Path, work: Path, out: Path) -> tuple[list[str], dict]:
    thread, stamp, provider = codex_meta(src)
    day = home / ".codex" / "sessions" / stamp[0:4] / stamp[5:7] / stamp[8:10]
    day.mkdir(parents=True)
    shutil.copyfile(src, day / f"rollout-{stamp[:19].replace(':', '-')}-{thread}.jsonl")
    # Codex resumes a thread only under the provider it names, and the built-in
    # "openai" cannot be redefined: point it at the mock instead.
    if provider == "openai":
        config = _CODEX_CONFIG.format(provider="openai", base_url=f'openai_base_url = "http://127.0.0.1:{PORT}/v1"', table="mock", port=PORT)
    else:
        name = provider or "mock"
        config = _CODEX_CONFIG.format(provider=name, base_url="", table=name, port=PORT)
    (home / ".codex" / "config.toml").write_text(config)
    env = {"CODEX_HOME": str(home / ".codex"), "MOCK_API_KEY": "dummy", "OPENAI_API_KEY": "dummy", "RUST_LOG": "warn"}
    return ["exec", "--skip-git-repo-check", "--json", "resume", thread, PROMPT], env


def gemini_chats_dir(home: Path, work: Path) -> Path:
    """Where Gemini CLI looks for the sessions of project ``work``: the slug
    registered in ``~/.gemini/projects.json``."""
    gemini = home / ".gemini"
    (gemini / "tmp" / "work" / "chats").mkdir(parents=True, exist_ok=True)
    (gemini / "history" / "work").mkdir(parents=True, exist_ok=True)
    (gemini / "projects.json").write_text(json.dumps({"projects": {str(work): "work"}}))
    (gemini / "tmp" / "work" / ".project_root").write_text(str(work))
    (gemini / "history" / "work" / ".project_root").write_text(str(work))
    return gemini / "tmp" / "work" / "chats"


def _gemini(src: Path, home: Path, work: Path, out: Path) -> tuple[list[str], dict]:
    chats = gemini_chats_dir(home, work)
    name = src.name if src.name.startswith("session-") else f"session-conformance-{src.name}"
    shutil.copyfile(src, chats / name)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False, "logPrompts": False},
        # retention would delete every session file older than 30 days at start-up
        "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False, "sessionRetention": {"enabled": False}},
        # Gemini CLI masks old tool outputs ("<tool_output_masked>") once they pass
        # 50k tokens, the original's as much as an export's: judge the whole history
        "contextManagement": {"tools": {"outputMasking": {"protectionThresholdTokens": 1000000000, "minPrunableThresholdTokens": 1000000000}}},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    env = {"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{PORT}", "GEMINI_API_KEY": "dummy", "GEMINI_CLI_NO_RELAUNCH": "true"}
    return ["--skip-trust", "--resume", "latest", "-p", PROMPT, "-o", "json"], env


def _qwen(src: Path, home: Path, work: Path, out: Path) -> tuple[list[str], dict]:
    # Qwen Code looks for a session in the folder named after the working
    # directory (every character but letters and digits made "-"), by id.
    with src.open("rb") as handle:
        sid = json.loads(handle.readline())["sessionId"]
    chats = home / ".qwen" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(work)) / "chats"
    chats.mkdir(parents=True)
    shutil.copyfile(src, chats / f"{sid}.jsonl")
    # Qwen Code keeps Gemini CLI's Gemini API client: the same mock.
    settings = {
        "security": {"auth": {"selectedType": "gemini"}},
        # a model of 1M tokens of context, as Gemini CLI's: the history of a
        # long source is sent whole, not compressed (which the mock cannot do)
        "model": {"name": "gemini-3-pro-preview"},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"enableAutoUpdate": False},
    }
    (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
    env = {"GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{PORT}", "GEMINI_API_KEY": "dummy", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}
    return ["--resume", sid, "-p", PROMPT, "-o", "json"], env


PREPARE = {"claude-code": _claude, "codex": _codex, "gemini-cli": _gemini, "qwen-code": _qwen}


def work_dir(out: Path) -> Path:
    """The working directory of a run kept under ``out``."""
    return out / "work"


def run(app: str, binary: Path, src: Path, out: Path, unshare: list[str]) -> Outcome:
    """Let ``app`` resume ``src``; every file of the run is kept under ``out``."""
    if out.exists():
        shutil.rmtree(out)
    home, work = out / "home", work_dir(out)
    home.mkdir(parents=True)
    work.mkdir()
    argv, env = PREPARE[app](src, home, work, out)
    log = out / "requests.jsonl"
    log.touch()
    path = os.pathsep.join([str(binary.parent), os.path.dirname(shutil.which("node") or "/usr/bin/node"), "/usr/local/bin", "/usr/bin", "/bin"])
    spec = {
        "argv": [str(binary), *argv],
        "env": {"PATH": path, "HOME": str(home), **QUIET_ENV, **env},
        "cwd": str(work),
        "port": PORT,
        "log": str(log),
        "timeout": APP_TIMEOUT,
    }
    spec_path = out / "spec.json"
    spec_path.write_text(json.dumps(spec, indent=1))
    subprocess.run([*unshare, sys.executable, str(HERE / "sandbox.py"), str(spec_path)], stdin=subprocess.DEVNULL, capture_output=True, timeout=APP_TIMEOUT + 60)
    result_path = Path(str(spec_path) + ".result")
    result = json.loads(result_path.read_text()) if result_path.exists() else {"rc": None, "stderr": "the sandbox wrote no result", "isolation": {}}
    requests = []
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            requests.append(json.loads(line))
        except ValueError:
            continue
    return Outcome(
        app=app,
        source=str(src),
        rc=result.get("rc"),
        timed_out=bool(result.get("timed_out")),
        seconds=float(result.get("seconds") or 0),
        stdout=result.get("stdout", ""),
        stderr=result.get("stderr", ""),
        isolation=result.get("isolation") or {},
        requests=requests,
        outdir=str(out),
    )
