"""The command line: thin click commands over the library.

``main`` is the console entry point.  Each command is imported on first
need from the module named in :data:`COMMANDS` (which registers it on
:data:`cli`); ``--version``, ``--help`` and completion of command names
import none of them.  tests/test_startup.py checks the table against the
commands themselves.
"""

from sessionport.cli.app import CommandEntry, cli, main

_CONVERT = "sessionport.cli.commands_convert"
_INFO = "sessionport.cli.commands_info"
_STAGES = "sessionport.cli.commands_stages"

COMMANDS = {
    "convert": CommandEntry(_CONVERT, "Convert INPUT (a path or -, default stdin) to another format."),
    "to": CommandEntry(_CONVERT, "Write the input (default stdin) as FORMAT; the end of a pipe."),
    "formats": CommandEntry(_INFO, "List the formats that can be read and written."),
    "inspect": CommandEntry(_INFO, "Summarize sessions without printing message bodies."),
    "split": CommandEntry("sessionport.cli.commands_split", "Write each session of INPUT (a path or -, default stdin) to its own file."),
    "ls": CommandEntry("sessionport.cli.commands_ls", "List the Claude Code, Codex, Gemini CLI and Qwen Code sessions on this machine."),
    "validate": CommandEntry("sessionport.cli.commands_validate", "Check traces and portable files against their JSON Schemas."),
    "import-session": CommandEntry("sessionport.cli.commands_agentscope", "Turn a loose tool-call log (session-json) into an AgentScope trace."),
    "chain": CommandEntry(_STAGES, "Run several stages in one process, then write once."),
    "filter": CommandEntry(_STAGES, "Keep only the messages that match", short=True),
    "redact": CommandEntry(_STAGES, "Replace secrets and personal data with typed tags", short=True),
}


def _stage_names():
    from sessionport.registry import stage_names

    return stage_names()


cli.command_modules.update(COMMANDS)
cli.more_names = _stage_names

__all__ = ["cli", "main"]
