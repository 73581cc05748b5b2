"""Directory walks over agent homes: a backup of ``~/.claude``, a dotfiles
repository that committed ``.codex/`` and ``.gemini/``.  Only the session
folders of a home are read; the app's own state beside them (prompt history,
settings, logins, caches) is not taken for sessions, and a project's own
``.claude/`` settings folder stays passed over like ``.git``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from sessionport.pipeline.homes import session_folders
from sessionport.pipeline.inputs import walk

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CLAUDE = FIXTURES / "claude-code" / "session.jsonl"
CODEX = FIXTURES / "codex" / "rollout-0.118-parallel-exec.jsonl"
GEMINI = FIXTURES / "gemini-cli" / "session-2026-12-01T19-59-d75a8486.jsonl"
# The state files real homes hold beside their sessions, each JSON a
# session reader cannot take.
CLAUDE_STATE = {
    "history.jsonl": '{"display":"fix the tests","pastedContents":{},"timestamp":1760000000000,"project":"/src/shop"}\n',
    "settings.json": '{"model":"opus"}\n',
    "todos/5a1c2e3f-agent-5a1c2e3f.json": "[]\n",
    "plugins/installed_plugins.json": '{"version":2,"plugins":{}}\n',
    "mcp-needs-auth-cache.json": "{}\n",
}
CODEX_STATE = {
    "history.jsonl": '{"session_id":"x","ts":1760000000,"text":"hi"}\n',
    "auth.json": '{"OPENAI_API_KEY":null}\n',
    "version.json": '{"latest_version":"0.171.0"}\n',
    "models_cache.json": '{"models":[]}\n',
}
GEMINI_STATE = {"settings.json": "{}\n", "oauth_creds.json": '{"token_type":"Bearer"}\n', "google_accounts.json": '{"active":null}\n'}


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def _claude_home(folder: Path) -> None:
    project = folder / "projects" / "-src-shop"
    project.mkdir(parents=True)
    shutil.copy(CLAUDE, project / "5a1c2e3f.jsonl")
    _write(folder, CLAUDE_STATE)


@pytest.fixture
def dotfiles(tmp_path):
    repo = tmp_path / "dotfiles"
    _claude_home(repo / ".claude")
    sessions = repo / ".codex" / "sessions" / "2026" / "04" / "01"
    sessions.mkdir(parents=True)
    shutil.copy(CODEX, sessions / "rollout-2026-04-01T10-00-00-x.jsonl")
    _write(repo / ".codex", CODEX_STATE)
    chats = repo / ".gemini" / "tmp" / "0f1e2d" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(GEMINI, chats / GEMINI.name)
    _write(repo / ".gemini", GEMINI_STATE)
    # a project's own settings folder and a git folder: no sessions in them
    _write(repo / "shop" / ".claude", {"settings.json": "{}\n", "settings.local.json": "{}\n"})
    _write(repo / ".git", {"config.json": "{}\n"})
    return repo


def test_a_repository_of_agent_homes_reads_their_sessions_and_nothing_else(dotfiles):
    assert [s.relative for s in walk(str(dotfiles))] == [
        ".claude/projects/-src-shop/5a1c2e3f.jsonl",
        ".codex/sessions/2026/04/01/rollout-2026-04-01T10-00-00-x.jsonl",
        f".gemini/tmp/0f1e2d/chats/{GEMINI.name}",
    ]
    result = run_cli("inspect", str(dotfiles), "-q")
    assert result.returncode == 0, result.stderr
    assert b"could not be recognised" not in result.stderr
    assert [line.split()[1] for line in result.stdout.decode().splitlines() if line.startswith("source:")] == ["claude-code", "codex", "gemini-cli"]


@pytest.mark.parametrize("name", [".claude", "claude", "claude-backup-2026-04"])
def test_a_claude_home_walked_itself_reads_only_its_projects(tmp_path, name):
    home = tmp_path / name
    _claude_home(home)
    assert [s.relative for s in walk(str(home))] == ["projects/-src-shop/5a1c2e3f.jsonl"]
    result = run_cli("convert", str(home), "--to", "markdown", "-o", str(tmp_path / "out") + "/")
    assert result.returncode == 0, result.stderr
    assert [p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.md")] == ["projects/-src-shop/5a1c2e3f.md"]


def test_a_folder_that_only_looks_like_a_home_is_walked_whole(tmp_path):
    """``projects/`` and a ``settings.json`` are common in any repository:
    one marker beside the session folder of a folder not named as the
    app's home does not make it one, so every session in it is read."""
    folder = tmp_path / "site"
    (folder / "projects").mkdir(parents=True)
    shutil.copy(CLAUDE, folder / "projects" / "a.jsonl")
    shutil.copy(CODEX, folder / "b.jsonl")
    (folder / "settings.json").write_text("{}\n")
    assert session_folders("site", ["projects"], ["settings.json", "b.jsonl"]) is None
    assert [s.relative for s in walk(str(folder))] == ["b.jsonl", "settings.json", "projects/a.jsonl"]


def test_a_hidden_home_with_no_session_folder_stays_passed_over(tmp_path):
    _write(tmp_path / "repo" / ".codex", {"config.json": "{}\n"})
    shutil.copy(CLAUDE, tmp_path / "repo" / "s.jsonl")
    assert [s.relative for s in walk(str(tmp_path / "repo"))] == ["s.jsonl"]
