"""Docs that cannot go stale: the CLI reference and the format pages."""

from __future__ import annotations

import click
import pytest

from conftest import ROOT
from sessionport.cli import cli
from sessionport.cli.reference import CLICK_MARK, click_version, render
from sessionport.registry import get_registry


def test_cli_reference_names_every_command_and_option():
    """Whatever click version renders it, the page holds every command, every
    option flag and every help sentence the commands have."""
    page = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    ctx = click.Context(cli, info_name="sessionport")
    for name, command in _commands(cli, ctx):
        assert f"`sessionport {name}`" in page or f" {name}`" in page, f"command {name} is missing from docs/cli.md"
        for param in command.params:
            if isinstance(param, click.Option):
                for flag in param.opts:
                    assert flag in page, f"{flag} of {name} is missing from docs/cli.md"
                assert " ".join(param.help.split())[:60] in page, f"the help of {param.opts} of {name} is missing from docs/cli.md"


def test_cli_reference_is_current():
    current = (ROOT / "docs" / "cli.md").read_text()
    stamp = next((line for line in current.splitlines() if line.startswith(CLICK_MARK)), "")
    if stamp.rstrip(".") != f"{CLICK_MARK}{click_version()}":
        pytest.skip(f"docs/cli.md was rendered with another click ({stamp or 'unknown'}); its layout differs by version, its content is checked above")
    assert current == render(), "docs/cli.md is stale: run `python -m sessionport.cli.reference > docs/cli.md`"


def _commands(group: click.Group, ctx: click.Context):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield name, command
        if isinstance(command, click.Group):
            yield from _commands(command, click.Context(command, info_name=name, parent=ctx))


def test_every_command_and_option_has_help():
    ctx = click.Context(cli, info_name="sessionport")
    for name, command in _commands(cli, ctx):
        assert (command.help or command.short_help), f"command {name} has no help text"
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"option {param.opts} of {name} has no help text"


def test_every_format_has_a_docs_page():
    for name in get_registry().formats:
        page = ROOT / "docs" / "formats" / f"{name}.md"
        assert page.exists(), f"format {name} has no page at docs/formats/{name}.md"
        text = page.read_text().lower()
        assert "lost" in text, f"docs/formats/{name}.md must say what is lost"


def test_readme_shows_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    assert "pip install . && sessionport convert fixtures/" in readme
    assert "pip install '.[test]' && pytest" in readme


def test_python_api_page_examples_run(monkeypatch):
    import doctest

    monkeypatch.chdir(ROOT)
    failures, tried = doctest.testfile(str(ROOT / "docs" / "python-api.md"), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 8
    assert failures == 0
