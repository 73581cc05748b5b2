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
