"""The CLI reference (``docs/cli.md``), generated from the commands' own help.

Regenerate with ``python -m sessionport.cli.reference > docs/cli.md``; a
test fails when the file is stale.
"""

from __future__ import annotations

import click

WIDTH = 100
CLICK_MARK = "Rendered with click "


def click_version() -> str:
    from importlib.metadata import version

    return version("click")


def _help(command: click.Command, path: list[str], parent: click.Context | None) -> tuple[str, click.Context]:
    # The command's own context settings (help option names) apply, as when
    # it runs, so the page does not depend on what ran before in the process.
    settings = {**command.context_settings, "terminal_width": WIDTH, "max_content_width": WIDTH}
    ctx = click.Context(command, info_name=path[-1], parent=parent, **settings)
    return command.get_help(ctx), ctx


def _walk(command: click.Command, path: list[str], parent: click.Context | None, out: list[str]) -> None:
    text, ctx = _help(command, path, parent)
    level = "#" * min(len(path) + 1, 4)
    out.append(f"{level} `{' '.join(path)}`\n\n```text\n{text}\n```\n")
    if isinstance(command, click.Group):
        for name in sorted(command.list_commands(ctx)):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                _walk(sub, path + [name], ctx, out)


def render() -> str:
    from sessionport.cli import cli

    out = [
        "# Command-line reference\n",
        "Generated from `--help` by `python -m sessionport.cli.reference > docs/cli.md`; "
        "a test fails when this page and the commands disagree.\n",
        f"{CLICK_MARK}{click_version()}.\n",
    ]
    _walk(cli, ["sessionport"], None, out)
    return "\n".join(out)


if __name__ == "__main__":
    print(render(), end="")
