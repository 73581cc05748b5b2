"""Shell completion scripts and format-name completion, through click."""

from __future__ import annotations

import pytest

from conftest import run_cli


@pytest.mark.parametrize("shell,marker", [("bash", b"_sessionport_completion()"), ("zsh", b"#compdef sessionport"), ("fish", b"function _sessionport_completion")])
def test_completion_script(shell, marker):
    result = run_cli(env={"_SESSIONPORT_COMPLETE": f"{shell}_source"})
    assert result.returncode == 0
    assert marker in result.stdout


def test_format_names_complete():
    result = run_cli(env={"_SESSIONPORT_COMPLETE": "bash_complete", "COMP_WORDS": "sessionport convert x --to mar", "COMP_CWORD": "4"})
    assert result.returncode == 0
    assert result.stdout.split() == [b"plain,markdown"]


def complete(words: str, env: dict | None = None) -> list[bytes]:
    cword = str(len(words.split(" ")) - 1)
    result = run_cli(env={"_SESSIONPORT_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": cword, **(env or {})})
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


@pytest.mark.parametrize(
    "words",
    [
        "sessionport convert fix",
        "sessionport convert --to markdown fix",
        "sessionport to markdown fix",
        "sessionport inspect fix",
        "sessionport split fix",
        "sessionport validate fix",
        "sessionport import-session fix",
        "sessionport filter fix",
        "sessionport redact fix",
        "sessionport chain -i fix",
        "sessionport convert --trace-agent me fix",  # after an exporter's own option
    ],
)
def test_every_input_argument_completes_paths(words):
    # "file" asks the shell to complete the word as a path (compgen -f)
    assert complete(words) == [b"file,fix"]


def test_an_at_prefix_completes_the_ids_of_the_sessions_on_this_machine(tmp_path):
    from helpers_home import CLAUDE_ID, CODEX_ID, fake_home

    env = fake_home(tmp_path)
    assert complete("sessionport convert @5a1c", env) == [f"plain,@{CLAUDE_ID}".encode()]
    assert complete("sessionport inspect @", env) == [b"plain,@all", f"plain,@{CLAUDE_ID}".encode(), f"plain,@{CODEX_ID}".encode()]
    assert complete("sessionport convert @zz", env) == []
