"""``convert`` and ``to``: read anything, write one format."""

from __future__ import annotations

import functools

import click

from sessionport.pipeline.inputs import is_batch
from sessionport.pipeline.select import select_sessions
from sessionport.cli.app import cli
from sessionport.cli.options import FormatChoice, batch_options, read_options, report_option, run, split_format_options, write_options


def selection_options(f):
    """--session and --title: pick whole sessions from a stream that holds several."""
    f = click.option(
        "--title",
        "titles",
        multiple=True,
        metavar="REGEX",
        help="Keep only sessions whose title matches this regular expression (repeatable; (?i) ignores case).",
    )(f)
    f = click.option(
        "--session",
        "sessions",
        multiple=True,
        metavar="ID-OR-PREFIX",
        help="Keep only the session whose id is or starts with this (repeatable).",
    )(f)
    return f


def _selection_stage(sessions, titles, require_match=True):
    return lambda events: select_sessions(events, sessions, titles, require_match=require_match)


# The selection reads the whole stream (see Stage.reads_all): a big input may
# be read ahead in pieces.
_selection_stage.reads_all = True


def one_stream(inputs) -> bool:
    """True unless the inputs make a batch, where each input is selected on
    its own and one without a matching session is not an error."""
    return not is_batch(list(inputs))


def selection_stages(sessions, titles, *, require_match: bool = True) -> list:
    """Stage factories (picklable, for batch workers) for --session/--title."""
    if not sessions and not titles:
        return []
    # Compiled now, so a bad --title fails before any input is read.
    select_sessions((), sessions, titles)
    return [functools.partial(_selection_stage, tuple(sessions), tuple(titles), require_match)]


@cli.command()
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("--to", "to", type=FormatChoice("export"), required=True, help="Output format (see `sessionport formats`).")
@selection_options
@read_options()
@write_options(to_option=False)
@batch_options
@report_option
def convert(inputs, to, from_, strict, skip_bad, quiet, output, sessions, titles, jobs, globs, json_report, **kwargs):
    """Convert INPUT (a path or -, default stdin) to another format.

    Several inputs, a directory (walked recursively), a pattern or @all
    make a batch: with -o DIR/ one output per input, mirroring the inputs'
    layout, converted in parallel (--jobs); with -o FILE ending in the
    format's extension, or without -o, one combined stream in input order.
    A failing input is reported and the others go on (exit 1 at the end);
    an input without messages writes nothing. @ID-PREFIX names one session.

    \b
      sessionport convert session.jsonl --to markdown -o session.md
      sessionport convert ~/.codex/sessions --to markdown -o archive/ --jobs 4
      sessionport convert rollout.jsonl.zst --to portable-jsonl | jq .role
      sessionport convert export.zip --session 6650a1b2 --to claude-code -o s.jsonl
    """
    read_opts, write_opts, _ = split_format_options(kwargs)
    run(inputs, from_=from_, to=to, output=output, strict=strict, skip_bad=skip_bad, read_opts=read_opts, write_opts=write_opts, stages=selection_stages(sessions, titles, require_match=one_stream(inputs)), quiet=quiet, jobs=jobs, globs=globs, json_report=json_report, command="convert")


@cli.command()
@click.argument("format", type=FormatChoice("export"))
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@selection_options
@read_options()
@write_options(to_option=False)
@report_option
def to(format, inputs, from_, strict, skip_bad, quiet, output, sessions, titles, json_report, **kwargs):
    """Write the input (default stdin) as FORMAT; the end of a pipe.

    \b
      sessionport filter s.jsonl --role user | sessionport to markdown
    """
    read_opts, write_opts, _ = split_format_options(kwargs)
    run(inputs, from_=from_, to=format, output=output, strict=strict, skip_bad=skip_bad, read_opts=read_opts, write_opts=write_opts, stages=selection_stages(sessions, titles, require_match=one_stream(inputs)), quiet=quiet, json_report=json_report, command="to")
