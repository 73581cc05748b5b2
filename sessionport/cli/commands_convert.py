"""``convert`` and ``to``: read anything, write one format."""

from __future__ import annotations

import click

from .app import cli
from .options import FormatChoice, read_options, run, split_format_options, write_options


@cli.command()
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("--to", "to", type=FormatChoice("export"), required=True, help="Output format (see `sessionport formats`).")
@read_options()
@write_options(to_option=False)
def convert(inputs, to, from_, strict, skip_bad, output, **kwargs):
    """Convert INPUT (a path or -, default stdin) to another format.

    \b
      sessionport convert session.jsonl --to markdown -o session.md
      sessionport convert rollout.jsonl.zst --to portable-jsonl | jq .role
    """
    read_opts, write_opts, _ = split_format_options(kwargs)
    run(inputs, from_=from_, to=to, output=output, strict=strict, skip_bad=skip_bad, read_opts=read_opts, write_opts=write_opts)


@cli.command()
@click.argument("format", type=FormatChoice("export"))
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@read_options()
@write_options(to_option=False)
def to(format, inputs, from_, strict, skip_bad, output, **kwargs):
    """Write the input (default stdin) as FORMAT; the end of a pipe.

    \b
      sessionport filter s.jsonl --role user | sessionport to markdown
    """
    read_opts, write_opts, _ = split_format_options(kwargs)
    run(inputs, from_=from_, to=format, output=output, strict=strict, skip_bad=skip_bad, read_opts=read_opts, write_opts=write_opts)
