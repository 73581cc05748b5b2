"""The top-level click group and the one place errors become exit codes."""

from __future__ import annotations

import os
import sys
from importlib import import_module
from typing import Callable, Iterable

import click

from sessionport import __version__
from sessionport.errors import SessionportError
from sessionport.pipeline.signals import Terminated, raise_on_termination, settle
from sessionport.pipeline.signals import check as check_signals

EXIT_INTERRUPTED = 130


def _silence_stdout() -> None:
    # After a closed pipe, Python would complain when it flushes stdout at
    # exit; point fd 1 at /dev/null so it has nothing to complain about.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class VerdictLines:
    """Lines of a command whose exit status is its verdict (``validate``,
    ``redact --check``) to one stream.  A reader that stops early (``|
    head``) closes the pipe: everything else ends quietly with 0 then, but
    0 here would say "valid" or "nothing found" of files never looked at,
    or already found wanting.  So the stream is pointed at /dev/null and
    the check goes on, to exit with its real verdict."""

    def __init__(self, err: bool = False) -> None:
        self.err = err
        self.closed = False

    def __call__(self, line: str) -> None:
        if self.closed:
            return
        try:
            click.echo(line, err=self.err)
        except BrokenPipeError:
            self.closed = True
            from sessionport.io import discard_stream

            discard_stream(sys.stderr if self.err else sys.stdout)


def _shown_safely(exc: click.ClickException) -> click.ClickException:
    """A usage error of click's own quotes what was typed as it was
    (``Got unexpected extra argument (...)``, ``No such option: ...``): a
    file name a shell glob expanded can hold terminal codes, shown here as
    visible escapes like every other message."""
    if isinstance(getattr(exc, "message", None), str):
        from sessionport.sanitise import terminal

        exc.message = terminal(exc.message, newlines=True)
    return exc


def _say(message: str) -> None:
    from sessionport.sanitise import terminal  # its patterns compile only when an error is shown

    click.echo(terminal(f"sessionport: {message}"), err=True)


class CommandEntry:
    """Where a command is defined, and the line ``--help`` lists it with.

    ``summary`` is the command's ``short_help`` when ``short`` is true (shown
    whole), else the first paragraph of its help (shortened as click does).
    (A plain class: creating a dataclass costs every start a little.)"""

    __slots__ = ("module", "summary", "short")

    def __init__(self, module: str, summary: str, short: bool = False) -> None:
        self.module = module
        self.summary = summary
        self.short = short

    def __repr__(self) -> str:
        return f"CommandEntry(module={self.module!r}, summary={self.summary!r}, short={self.short!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CommandEntry):
            return NotImplemented
        return (self.module, self.summary, self.short) == (other.module, other.summary, other.short)

    def __hash__(self) -> int:
        return hash((self.module, self.summary, self.short))


# The names of the parameters that take inputs (paths, ``-`` or ``@ID``).
INPUT_PARAMS = frozenset(("inputs", "source", "files"))


def complete_input(ctx, param, incomplete: str):
    """A path, or after ``@`` the ids of the sessions on this machine."""
    from click.shell_completion import CompletionItem

    if not incomplete.startswith("@"):
        return [CompletionItem(incomplete, type="file")]
    from sessionport.pipeline.discover import discover

    prefix = incomplete[1:]
    items = [CompletionItem("@all", help="every session on this machine")] if "all".startswith(prefix) else []
    seen: set[str] = set()
    for found in discover():
        session_id = found.sessionId
        if session_id and session_id.startswith(prefix) and session_id not in seen:
            seen.add(session_id)
            help_text = " ".join(filter(None, [found.source, found.start, (found.prompt or "")[:60]]))
            items.append(CompletionItem(f"@{session_id}", help=help_text))
    return items


def _with_input_completion(command: click.Command) -> click.Command:
    for param in command.params:
        if param.name in INPUT_PARAMS and getattr(param, "_custom_shell_complete", None) is None:
            param._custom_shell_complete = complete_input
    return command


class LazyCommandsGroup(click.Group):
    """A group whose commands are imported on first need.

    ``command_modules`` names the module that defines each command, so that
    ``--version``, ``--help`` and shell completion of command names import
    none of them (a command module imports the machinery of a run).
    Stage commands are built from the registry's stages: ``lazy_commands``
    are called once, before a name not yet known is looked up; they add
    commands whose names are not taken.  ``more_names`` lists names known
    without importing (the registered stages' names).
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands: list = []
        self.command_modules: dict[str, CommandEntry] = {}
        self.more_names: Callable[[], Iterable[str]] | None = None

    def _add_lazy(self, *, every_module: bool = False) -> None:
        if every_module:
            for module in sorted({e.module for e in self.command_modules.values()}):
                import_module(module)  # a module may add a loader (the stage commands)
        loaders, self.lazy_commands = self.lazy_commands, []
        for loader in loaders:
            loader(self)

    def get_command(self, ctx, cmd_name):
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self.command_modules:
            import_module(self.command_modules[cmd_name].module)
            command = super().get_command(ctx, cmd_name)
        if command is None and self.lazy_commands:
            self._add_lazy()
            command = super().get_command(ctx, cmd_name)
        if command is None and self.more_names is not None and cmd_name in self.more_names():
            self._add_lazy(every_module=True)  # a plugin's stage
            command = super().get_command(ctx, cmd_name)
        return _with_input_completion(command) if command is not None else None

    def list_commands(self, ctx):
        if self.more_names is None and not self.command_modules:
            self._add_lazy()  # nothing names the lazy commands: build them
        names = set(self.commands) | set(self.command_modules)
        if self.more_names is not None:
            names.update(self.more_names())
        return sorted(names)

    def listed_help(self, ctx, name: str, limit: int = 45) -> str | None:
        """The line a command is listed with, importing it only if unknown."""
        command = self.commands.get(name)
        entry = self.command_modules.get(name)
        if command is None and entry is not None:
            return entry.summary if entry.short else click.Command(name, help=entry.summary).get_short_help_str(limit)
        command = command or self.get_command(ctx, name)
        if command is None or command.hidden:
            return None
        return command.get_short_help_str(limit)

    def format_commands(self, ctx, formatter) -> None:
        rows = [(name, self.listed_help(ctx, name, 0)) for name in self.list_commands(ctx)]
        rows = [(name, text) for name, text in rows if text is not None]
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            rows = [(name, self.listed_help(ctx, name, limit)) for name, _ in rows]
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def shell_complete(self, ctx, incomplete):
        from click.shell_completion import CompletionItem

        results = []
        # no command name starts with "-": listing them (building the stage
        # commands) is skipped while an option name is completed
        for name in self.list_commands(ctx) if not incomplete.startswith("-") else ():
            if name.startswith(incomplete):
                text = self.listed_help(ctx, name)
                if text is not None:
                    results.append(CompletionItem(name, help=text))
        results.extend(click.Command.shell_complete(self, ctx, incomplete))
        return results


class SessionportGroup(LazyCommandsGroup):
    """A group that turns library errors into one line on stderr and an exit code."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # --help and --version print while the arguments are parsed, before
        # invoke: a closed stdout there ends quietly with 0, as in a command.
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as exc:
            raise _shown_safely(exc)
        except BrokenPipeError:
            _silence_stdout()
            raise click.exceptions.Exit(0) from None

    def invoke(self, ctx: click.Context):
        try:
            result = super().invoke(ctx)
            check_signals()  # one whose exception a finaliser swallowed
            return result
        except (click.exceptions.Exit, click.exceptions.Abort):
            raise
        except click.ClickException as exc:
            raise _shown_safely(exc)
        except SessionportError as exc:
            _say(f"error: {exc}")
            raise click.exceptions.Exit(exc.exit_code) from None
        except BrokenPipeError:
            _silence_stdout()
            raise click.exceptions.Exit(0) from None
        except KeyboardInterrupt:
            _say("interrupted")
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except Terminated as exc:
            _say(f"terminated ({exc.name})")
            raise click.exceptions.Exit(exc.exit_code) from None
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
                import traceback

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


def _completing() -> str | None:
    """What the shell asks to complete: ``"option"`` (an option name),
    ``"value"`` (anything else) or None when it asks for nothing.

    Completing a value needs no format's own options (click's resilient
    parsing skips options it does not know); completing an option name
    takes the built-in formats' options from their table, as every command
    does, so no format is imported."""
    instruction = os.environ.get("_SESSIONPORT_COMPLETE", "")
    shell, _, action = instruction.partition("_")
    if action != "complete":
        return None
    from click.shell_completion import get_completion_class

    completion = get_completion_class(shell)
    if completion is None:
        return None
    try:
        _, incomplete = completion(cli, {}, "sessionport", "_SESSIONPORT_COMPLETE").get_completion_args()
    except Exception:  # an odd environment: complete the ordinary way
        return None
    return "option" if incomplete.startswith("-") else "value"


def main(argv: list[str] | None = None) -> None:
    from sessionport.io import hold_standard_streams

    hold_standard_streams()
    # SIGTERM and SIGHUP unwind like Ctrl-C, so partial outputs, scratch
    # files and worker processes are cleaned up on the way out.
    raise_on_termination()
    completing = _completing()
    if completing == "value":
        from sessionport.registry import get_registry

        get_registry().without_format_options = True
    try:
        cli.main(args=argv, prog_name="sessionport")
    except KeyboardInterrupt:  # outside any command (e.g. while starting up)
        _say("interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except Terminated as exc:
        _say(f"terminated ({exc.name})")
        sys.exit(exc.exit_code)
    finally:
        settle()
