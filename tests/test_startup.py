"""What a start that does nothing yet must not pay for: ``--version``,
``--help`` and shell completion import no format, build no format's options
and compile no regular expression of sessionport's own; the command table
that lets ``--help`` list commands without importing them matches the
commands."""

from __future__ import annotations

import subprocess
import sys

import click
import orjson
import pytest

from conftest import ROOT

# Runs the real entry point, then reports which sessionport modules were
# imported and where sessionport code compiled a regular expression.
DRIVER = r"""
import atexit, json, re, sys, traceback
compiled = []
_compile = re.compile
def spy(pattern, flags=0):
    caller = traceback.extract_stack()[-2]
    if "/sessionport/" in caller.filename:
        compiled.append(f"{caller.filename.rsplit('/sessionport/', 1)[-1]}:{caller.lineno}")
    return _compile(pattern, flags)
re.compile = spy
def report():
    mods = sorted(m for m in sys.modules if m.startswith("sessionport"))
    sys.stderr.write("\nREPORT " + json.dumps({"modules": mods, "compiled": compiled}) + "\n")
atexit.register(report)
sys.argv = ["sessionport", *sys.argv[1:]]
from sessionport.cli import main
main()
"""

HEAVY = ("sessionport.formats.", "sessionport.render.", "sessionport.agentscope.", "sessionport.redaction",
         "sessionport.stages.")


def started(*args: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    import os

    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-c", DRIVER, *args], capture_output=True, env=full_env, cwd=ROOT, timeout=60)
    line = proc.stderr.rsplit(b"\nREPORT ", 1)[1]
    return proc, orjson.loads(line)


def completion(words: str) -> dict:
    return {"_SESSIONPORT_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split(" ")) - 1)}


@pytest.mark.parametrize(
    "args, env",
    [
        (("--version",), None),
        (("--help",), None),
        ((), completion("sessionport c")),
        ((), completion("sessionport convert fix")),
        ((), completion("sessionport convert x --to m")),
        ((), completion("sessionport inspect fix")),
        ((), completion("sessionport validate fix")),
        ((), completion("sessionport to markdown fix")),
    ],
    ids=["version", "help", "complete-command", "complete-input", "complete-format", "complete-inspect",
         "complete-validate", "complete-to"],
)
def test_start_up_imports_no_format_and_compiles_no_pattern(args, env):
    proc, report = started(*args, env=env)
    assert proc.returncode == 0, proc.stderr
    # the validate command's own checker is no format
    heavy = [m for m in report["modules"] if m.startswith(HEAVY) and m != "sessionport.agentscope.validate_trace"]
    assert heavy == [], f"imported at start-up: {heavy}"
    assert report["compiled"] == [], f"compiled at start-up: {report['compiled']}"


def test_completing_an_option_name_still_offers_the_formats_options():
    proc, _ = started(env=completion("sessionport convert --trace-m"))
    assert proc.stdout.split() == [b"plain,--trace-max-output"]


def test_the_command_table_matches_the_commands():
    from sessionport.cli import COMMANDS, cli

    ctx = click.Context(cli, info_name="sessionport")
    names = cli.list_commands(ctx)
    assert set(COMMANDS) <= set(names)
    for name in names:
        command = cli.get_command(ctx, name)
        entry = COMMANDS.get(name)
        assert entry is not None, f"command {name} is missing from sessionport.cli.COMMANDS"
        assert command.callback.__module__ == entry.module or name in ("filter", "redact")
        if entry.short:
            assert command.short_help == entry.summary
        else:
            assert command.help.split("\n\n")[0].replace("\n", " ") == entry.summary


def test_help_lists_the_same_lines_as_the_loaded_commands():
    from sessionport.cli import cli

    lazy = subprocess.run([sys.executable, "-m", "sessionport", "--help"], capture_output=True, cwd=ROOT).stdout.decode()
    ctx = click.Context(cli, info_name="sessionport", help_option_names=["-h", "--help"])
    for name in cli.list_commands(ctx):
        cli.get_command(ctx, name)
    assert lazy == cli.get_help(ctx) + "\n"
