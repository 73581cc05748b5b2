"""The top-level click group and the one place errors become exit codes."""

from __future__ import annotations

import os
import sys
import traceback

import click

from sessionport import __version__
from sessionport.errors import SessionportError
from sessionport.sanitise import terminal

EXIT_INTERRUPTED = 130


def _silence_stdout() -> None:
    # After a closed pipe, Python would complain when it flushes stdout at
    # exit; point fd 1 at /dev/null so it has nothing to complain about.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _say(message: str) -> None:
    click.echo(terminal(f"sessionport: {message}"), err=True)


class LazyCommandsGroup(click.Group):
    """A group some of whose commands are added on first need.

    Stage commands are built from the registry's stages, and loading a stage
    may cost more than a whole small conversion (redact's rule tables); a
    command that is not a stage never needs them.  ``lazy_commands`` are
    called once, before a name not yet known is looked up or the commands
    are listed; they add commands whose names are not taken.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: list = []

    def _add_lazy(self) -> None:
        loaders, self.lazy_commands = self.lazy_commands, []
        for loader in loaders:
            loader(self)

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if command is None and self.lazy_commands:
            self._add_lazy()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx):
        self._add_lazy()
        return super().list_commands(ctx)


class SessionportGroup(LazyCommandsGroup):
    """A group that turns library errors into one line on stderr and an exit code."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except SessionportError as exc:
            _say(f"error: {exc}")
            raise click.exceptions.Exit(exc.exit_code) from None
        except BrokenPipeError:
            _silence_stdout()
            raise click.exceptions.Exit(0) from None
        except KeyboardInterrupt:
            _say("interrupted")
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except OSError as exc:
            if exc.errno == 32:  # EPIPE raised as a plain OSError
                _silence_stdout()
                raise click.exceptions.Exit(0) from None
            _say(f"error: {exc.filename or ''}{': ' if exc.filename else ''}{exc.strerror or exc}")
            raise click.exceptions.Exit(1) from None
        except Exception as exc:
            # Last resort: importers and exporters raise typed errors; reaching
            # this is a bug, reported in one line unless debugging is asked for.
            if os.environ.get("SESSIONPORT_DEBUG"):
                traceback.print_exc()
            inputs = getattr(ctx, "obj", None) or {}
            where = inputs.get("input_name", "the input") if isinstance(inputs, dict) else "the input"
            _say(
                f"internal error while processing {where}: {type(exc).__name__}: {exc}. "
                "This is a bug; please report it with the output of SESSIONPORT_DEBUG=1."
            )
            raise click.exceptions.Exit(1) from None


@click.group(cls=SessionportGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="sessionport")
def cli() -> None:
    """Read, transform and write coding-agent session transcripts.

    Inputs are auto-detected (Claude Code, Codex, Gemini CLI, ChatGPT
    exports, provider message lists, portable). Every stage command writes
    the portable-jsonl wire format unless given --to, so commands compose in
    pipes:

    \b
      sessionport filter session.jsonl --role user | sessionport to markdown
    """


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="sessionport")
    except KeyboardInterrupt:  # outside any command (e.g. while starting up)
        _say("interrupted")
        sys.exit(EXIT_INTERRUPTED)
