"""``ls`` and ``@`` references over a fake home holding real sessions."""

from __future__ import annotations

import shutil

import orjson
import pytest
import zstandard

from conftest import corpus_path, run_cli

CLAUDE = "11_cc-2.1.114_project/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CODEX = ["codex-0.46.0-2025-10-17-apply-patch-custom-tool.jsonl", "codex-0.40.0-2025-09-24-vscode-input-image.jsonl", "codex-legacy-2025-08-23-prenv-typical.jsonl"]


@pytest.fixture
def home(tmp_path):
    claude_src = corpus_path("claude-code", CLAUDE)
    project = tmp_path / "home" / ".claude" / "projects" / "-experiments-worktrees"
    project.mkdir(parents=True)
    shutil.copy(claude_src, project / claude_src.name)
    shutil.copytree(claude_src.with_suffix(""), project / claude_src.stem)
    sessions = tmp_path / "home" / ".codex" / "sessions" / "2025" / "10" / "17"
    sessions.mkdir(parents=True)
    shutil.copy(corpus_path("codex", CODEX[0]), sessions / f"rollout-{CODEX[0]}")
    plain = corpus_path("codex", CODEX[1]).read_bytes()
    (sessions / f"rollout-{CODEX[1]}.zst").write_bytes(zstandard.ZstdCompressor().compress(plain))
    archived = tmp_path / "home" / ".codex" / "archived_sessions"
    archived.mkdir(parents=True)
    shutil.copy(corpus_path("codex", CODEX[2]), archived / f"rollout-{CODEX[2]}")
    chats = tmp_path / "home" / ".gemini" / "tmp" / "0123abcd" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(corpus_path("gemini", "vct_session.jsonl"), chats / "session-2026-04-01.jsonl")
    return tmp_path / "home"


def ls_json(home, *args, env=None):
    result = run_cli("ls", "--json", *args, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": "", **(env or {})})
    assert result.returncode == 0, result.stderr
    return orjson.loads(result.stdout)


def test_ls_lists_every_tool(home):
    rows = ls_json(home)
    by_source = {}
    for row in rows:
        assert {"source", "sessionId", "path"} <= set(row)
        by_source.setdefault(row["source"], []).append(row)
    assert len(by_source["claude-code"]) == 1, "the subagent file is part of its session, not listed alone"
    assert by_source["claude-code"][0]["sessionId"] == "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    assert by_source["claude-code"][0]["cwd"] and by_source["claude-code"][0]["prompt"]
    assert len(by_source["codex"]) == 3, "plain, .zst and archived rollouts"
    assert any(r["path"].endswith(".zst") and r["sessionId"] for r in by_source["codex"])
    assert len(by_source["gemini-cli"]) == 1


def test_env_overrides_are_honoured(home, tmp_path):
    moved = tmp_path / "elsewhere"
    shutil.move(str(home / ".codex"), str(moved / "codex"))
    shutil.move(str(home / ".claude"), str(moved / "claude"))
    assert [r for r in ls_json(home) if r["source"] != "gemini-cli"] == []
    rows = ls_json(home, env={"CODEX_HOME": str(moved / "codex"), "CLAUDE_CONFIG_DIR": str(moved / "claude")})
    assert sorted(r["source"] for r in rows) == ["claude-code", "codex", "codex", "codex", "gemini-cli"]


def test_filters(home):
    assert {r["source"] for r in ls_json(home, "--source", "codex")} == {"codex"}
    assert ls_json(home, "--since", "2099-01-01") == []
    rows = ls_json(home, "--cwd", "worktrees")
    assert rows and all("worktrees" in r["cwd"] for r in rows)


def test_at_reference_picks_a_discovered_session(home):
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": "", "CODEX_HOME": ""}
    result = run_cli("inspect", "@ef958aa1", "--json", env=env)
    assert result.returncode == 0, result.stderr
    report = orjson.loads(result.stdout)
    assert report["sessions"][0]["sessionId"].startswith("ef958aa1")
    missing = run_cli("inspect", "@zzzz", env=env)
    assert missing.returncode == 2 and b"sessionport ls" in missing.stderr
