"""Stage commands, built from the registry's stages.

Each registered stage becomes two commands from the same parameters:

- ``sessionport NAME [INPUT]... [OPTIONS] [--to FORMAT] [-o PATH]``, which
  reads, runs the stage and writes (the wire format unless ``--to``), for
  pipes: ``sessionport filter --role user x.jsonl | sessionport to markdown``;
- a step of ``sessionport chain``, which runs several stages in one process
  with no serialising between them:
  ``sessionport chain -i x.jsonl filter --role user redact to markdown``.

Both paths call the same ``Stage.build``, so they give identical output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import click

from sessionport.registry import Stage, get_registry
from sessionport.cli.app import LazyCommandsGroup, cli
from sessionport.pipeline.batch import stage_factory
from sessionport.cli.options import WIRE_FORMAT, FormatChoice, batch_options, read_options, refuse_foreign_options, report_option, run, split_format_options, write_options


def _stage_flags(stage: Stage) -> set[str]:
    flags: set[str] = set()
    for param in stage.params:
        flags.update(getattr(param, "opts", ()))
        flags.update(getattr(param, "secondary_opts", ()))
    return flags


def _standalone(stage: Stage) -> click.Command:
    def callback(inputs, from_, strict, skip_bad, quiet, output, to, jobs, globs, json_report, **kwargs):
        # The stage's own parameters first: a format option of the same name
        # must never take a stage option away from the stage.
        stage_opts = {k: kwargs.pop(k) for k in list(kwargs) if k in stage_names}
        read_opts, write_opts, _ = split_format_options(kwargs)
        if stage_opts.get("check") and stage.check is not None:
            if json_report is not None:
                raise click.UsageError("--json-report reports on a conversion; --check writes nothing and reports on stderr")
            if output is not None or to is not None:
                raise click.UsageError(f"{'-o' if output is not None else '--to'}: --check writes nothing (it reports on stderr); drop one of them")
            refuse_foreign_options(WIRE_FORMAT, write_opts)
            # a report over every input, not a conversion that fails per file
            raise click.exceptions.Exit(stage.check(inputs, from_=from_, strict=strict, skip_bad=skip_bad, read_opts=read_opts, globs=globs, quiet=quiet, **stage_opts))
        run(
            inputs,
            from_=from_,
            to=to or WIRE_FORMAT,
            output=output,
            strict=strict,
            skip_bad=skip_bad,
            read_opts=read_opts,
            write_opts=write_opts,
            stages=[stage_factory(stage.build, **stage_opts)],
            quiet=quiet,
            jobs=jobs,
            globs=globs,
            json_report=json_report,
            command=stage.name,
        )

    stage_names = {p.name for p in stage.params}
    taken = _stage_flags(stage)
    callback = write_options(to_option=True, taken=taken)(callback)
    callback = read_options(taken=taken)(callback)
    callback = batch_options(callback)
    callback = report_option(callback)
    params = [click.Argument(["inputs"], nargs=-1, metavar="[INPUT]...")] + list(callback.__click_params__[::-1]) + list(stage.params)
    return click.Command(stage.name, callback=callback, params=params, help=stage.help or stage.description, short_help=stage.description)


@dataclass
class _WriteStep:
    format: str
    output: str | None
    options: dict[str, Any] = field(default_factory=dict)


def _chain_step(stage: Stage) -> click.Command:
    def callback(**kwargs):
        return stage_factory(stage.build, **kwargs)

    return click.Command(stage.name, callback=callback, params=list(stage.params), help=stage.help or stage.description, short_help=stage.description)


@cli.group(cls=LazyCommandsGroup, chain=True, invoke_without_command=True)
@click.option("-i", "--input", "inputs", multiple=True, help="An input path or - (repeatable; default stdin).")
@read_options()
@report_option
def chain(inputs, from_, strict, skip_bad, quiet, json_report, **kwargs):
    """Run several stages in one process, then write once.

    Steps are stage names with their options, optionally ending with
    `to FORMAT [-o PATH]` (default: portable-jsonl on stdout). The result is
    byte-identical to the same stages joined by pipes.

    \b
      sessionport chain -i session.jsonl filter --role user redact to markdown -o out.md
    """


@chain.result_callback()
def _run_chain(steps, inputs, from_, strict, skip_bad, quiet, json_report, **kwargs):
    read_opts, _, _ = split_format_options(kwargs)
    target = _WriteStep(WIRE_FORMAT, None)
    stages = []
    for position, step in enumerate(steps):
        if isinstance(step, _WriteStep):
            if position != len(steps) - 1:
                raise click.UsageError("`to` must be the last step of a chain")
            target = step
        else:
            stages.append(step)
    run(
        inputs,
        from_=from_,
        to=target.format,
        output=target.output,
        strict=strict,
        skip_bad=skip_bad,
        read_opts=read_opts,
        write_opts=target.options,
        stages=stages,
        quiet=quiet,
        json_report=json_report,
        command="chain",
    )


class _LastStep(click.Command):
    """``to`` ends a chain, so its options may follow FORMAT (click parses the
    steps of a chain without interspersed arguments)."""

    def make_context(self, info_name, args, parent=None, **extra):
        extra["allow_interspersed_args"] = True
        return super().make_context(info_name, args, parent=parent, **extra)


@chain.command("to", cls=_LastStep)
@click.argument("format", type=FormatChoice("export"))
@write_options(to_option=False)
def _chain_to(format, output, **kwargs):
    """Write the chain's result as FORMAT (the last step)."""
    _, write_opts, _ = split_format_options(kwargs)
    refuse_foreign_options(format, write_opts)
    return _WriteStep(format, output, write_opts)


def _stage_commands(group: click.Group, build) -> None:
    for stage in sorted(get_registry().stages.values(), key=lambda s: s.name):
        if stage.name not in group.commands:
            group.add_command(build(stage))


# Built when a command that is not built in is asked for, or the commands
# are listed (help): a plain conversion never loads the stages.
cli.lazy_commands.append(lambda group: _stage_commands(group, _standalone))
chain.lazy_commands.append(lambda group: _stage_commands(group, _chain_step))
