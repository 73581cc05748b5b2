"""``split``: one output file per session of the input."""

from __future__ import annotations

import click

from sessionport.pipeline.select import Selection
from sessionport.pipeline.split import SplitResult, split_streams
from sessionport.cli.app import cli
from sessionport.cli.commands_convert import selection_options
from sessionport.cli.options import FormatChoice, exporter_options, not_empty, read_options, reading, refuse_foreign_options, report_option, split_format_options
from sessionport.pipeline.inputs import resolve
from sessionport.pipeline.run import read_source
from sessionport.pipeline.stream import heading_options
from sessionport.sanitise import terminal


@cli.command()
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("--to", "to", type=FormatChoice("export"), required=True, help="Format of each file (see `sessionport formats`).")
@click.option("-o", "--output", "directory", type=click.Path(file_okay=False), required=True, callback=not_empty, help="Directory to write into (created if missing).")
@click.option("--force", is_flag=True, help="Overwrite files that already exist in the directory.")
@selection_options
@read_options()
@exporter_options()
@report_option(stdout="- for stdout", files="the files written from it")
def split(inputs, to, directory, force, quiet, from_, strict, skip_bad, sessions, titles, json_report, **kwargs):
    """Write each session of INPUT (a path or -, default stdin) to its own file.

    Files are named from the session title and id (a safe ASCII slug,
    unique even for equal titles) and never overwrite existing files unless
    --force. Sessions are streamed one at a time. The first input that
    fails ends the run; the files written before it stay.

    \b
      sessionport split chatgpt-export.zip --to markdown -o chats/
      sessionport split conversations.json --to portable -o out/ --title '(?i)tax'
    """
    read_opts, write_opts, _ = split_format_options(kwargs)
    refuse_foreign_options(to, write_opts)
    # a file's heading is written before a title recorded late is read: the
    # title is scanned for first, as convert does
    how = reading(from_, strict, skip_bad, heading_options(to, read_opts), quiet)
    selection = Selection(sessions, titles)  # a bad --title fails before anything is read

    def report(path, session):
        if not quiet:
            click.echo(terminal(path), err=True)  # the folder can come from a glob: shown with visible escapes

    if json_report is not None:
        _reported_split(inputs, to, directory, force, how, selection, write_opts, json_report, report)
        return
    sources = resolve(inputs).sources
    streams = (selection(read_source(source, how)) for source in sources)
    result = split_streams(streams, directory, format=to, force=force, options=write_opts, inputs=[s.spec for s in sources], on_file=report)
    selection.check()
    click.echo(terminal(f"sessionport: wrote {len(result.files)} file(s) to {directory}"), err=True)


def _reported_split(inputs, to, directory, force, how, selection, write_opts, json_report, on_file) -> None:
    from sessionport.errors import SessionportError
    from sessionport.pipeline import targets
    from sessionport.pipeline.run import Result
    from sessionport.reports import conversion
    from sessionport.reports.per_input import InputLedger

    names = [i for i in inputs if i]
    conversion.check_target(json_report, directory, names)

    def document(result, exit_code, error=None):
        doc = conversion.document("split", to, directory, result, exit_code, error=error)
        for entry in doc["inputs"]:
            if not entry.get("files"):
                entry["output"] = None  # nothing written from it
        return doc

    try:
        sources = resolve(inputs).sources
    except SessionportError as exc:
        conversion.write(json_report, document(None, exc.exit_code, error=str(exc)), names)
        raise
    # the files a directory, a pattern or @ID names: the report is never one of them
    names = [s.spec for s in sources]
    conversion.check_target(json_report, directory, names)
    ledger = InputLedger(sources, how)
    written = SplitResult(directory)

    def wrote(path, session):
        ledger.wrote(path, written.losses.get(path))
        on_file(path, session)

    try:
        split_streams(ledger.streams(selection), directory, format=to, force=force, options=write_opts, inputs=names, on_file=wrote, result=written,
                      reserved=() if json_report == "-" else (json_report,))
        selection.check()
    except SessionportError as exc:
        _claim_unreported(ledger, written)
        # an error once every input was read is the run's (no session
        # matched the selection), not the last input's
        run_error = ledger.finished or ledger.current is None
        result = Result(len(sources), ledger.outcomes(directory, None if run_error else exc), layout=targets.DIRECTORY)
        conversion.write(json_report, document(result, exc.exit_code, error=str(exc) if run_error else None), names)
        raise
    except BaseException as exc:  # Ctrl-C, SIGTERM, a bug: say so, with the files written until then
        _claim_unreported(ledger, written)
        code, why = conversion.ended(exc)
        result = Result(len(sources), ledger.outcomes(directory, SessionportError(why)), layout=targets.DIRECTORY)
        conversion.write(json_report, document(result, code, error=why), names)
        raise
    result = Result(len(sources), ledger.outcomes(directory), layout=targets.DIRECTORY)
    conversion.write(json_report, document(result, 0), names)
    click.echo(terminal(f"sessionport: wrote {len(written.files)} file(s) to {directory}"), err=True)


def _claim_unreported(ledger, written) -> None:
    """The files in place that the per-input report was not told of: a
    signal between a file's rename into place and the call that reports it
    leaves one, and it is the input being read's (``written.files`` names
    exactly the files in place, see ``split._split``)."""
    told = {path for entry in ledger.entries for path in entry.files}
    for path in written.files:
        if path not in told and ledger.current is not None:
            ledger.wrote(path, written.losses.get(path))
