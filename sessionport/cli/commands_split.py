"""``split``: one output file per session of the input."""

from __future__ import annotations

import click

from sessionport.pipeline.split import split_sessions
from sessionport.cli.app import cli
from sessionport.cli.commands_convert import selection_options, selection_stages
from sessionport.cli.options import FormatChoice, exporter_options, read_options, reading, split_format_options
from sessionport.pipeline.inputs import resolve
from sessionport.pipeline.run import read_all


@cli.command()
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("--to", "to", type=FormatChoice("export"), required=True, help="Format of each file (see `sessionport formats`).")
@click.option("-o", "--output", "directory", type=click.Path(file_okay=False), required=True, help="Directory to write into (created if missing).")
@click.option("--force", is_flag=True, help="Overwrite files that already exist in the directory.")
@selection_options
@read_options()
@exporter_options()
def split(inputs, to, directory, force, quiet, from_, strict, skip_bad, sessions, titles, **kwargs):
    """Write each session of INPUT (a path or -, default stdin) to its own file.

    Files are named from the session title and id (a safe ASCII slug,
    unique even for equal titles) and never overwrite existing files unless
    --force. Sessions are streamed one at a time.

    \b
      sessionport split chatgpt-export.zip --to markdown -o chats/
      sessionport split conversations.json --to portable -o out/ --title '(?i)tax'
    """
    read_opts, write_opts, _ = split_format_options(kwargs)
    events = read_all(resolve(inputs), reading(from_, strict, skip_bad, read_opts, quiet))
    for factory in selection_stages(sessions, titles):
        events = factory()(events)

    def report(path, session):
        if not quiet:
            click.echo(path, err=True)

    result = split_sessions(events, directory, format=to, force=force, options=write_opts, inputs=list(inputs), on_file=report)
    click.echo(f"sessionport: wrote {len(result.files)} file(s) to {directory}", err=True)
