"""Claude Code's slash commands and ``!`` shell commands, read from the tags
it writes into user messages, so both readable exporters can show a
command as a command (a chip with its output) instead of raw tags.

Claude Code records ``/context`` as a user message
``<command-name>/context</command-name><command-message>context</command-message>
<command-args></command-args>``, its output as another user message
``<local-command-stdout>…</local-command-stdout>``; a ``!ls`` as
``<bash-input>ls</bash-input>`` then ``<bash-stdout>…</bash-stdout><bash-stderr>…</bash-stderr>``;
and a caveat before them as ``<local-command-caveat>…</local-command-caveat>``.
Only a message made of these tags (and whitespace) is taken for one; any
other text stays a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TAGS = (
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
)
_TAG = re.compile(r"<(" + "|".join(TAGS) + r")>(.*?)</\1>", re.S)
_OUTPUT_TAGS = ("local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr")


@dataclass
class Command:
    """``kind``: ``command`` (a slash command or ``!`` shell input),
    ``output`` (what one printed) or ``caveat``."""

    kind: str
    name: str = ""
    args: str = ""
    stdout: str = ""
    stderr: str = ""
    shell: bool = False  # a ``!`` command run in the shell, not a slash command

    @property
    def label(self) -> str:
        if self.kind == "command":
            return ("! " if self.shell else "") + self.name
        return "caveat" if self.kind == "caveat" else "output"


def parse_command(text: str) -> Command | None:
    """The command a user message records, or None for any other text."""
    if "<" not in text[:80] or not text.lstrip().startswith("<"):
        return None
    fields: dict[str, str] = {}
    end = 0
    for match in _TAG.finditer(text):
        if text[end : match.start()].strip():
            return None
        fields.setdefault(match.group(1), match.group(2))
        end = match.end()
    if not fields or text[end:].strip():
        return None
    if "command-name" in fields:
        name = fields["command-name"].strip()
        if name and not name.startswith("/"):
            name = "/" + name
        args = fields.get("command-args", "").strip() or fields.get("command-contents", "").strip()
        return Command("command", name=name, args=args)
    if "bash-input" in fields:
        return Command("command", name=fields["bash-input"].strip(), shell=True)
    if "local-command-caveat" in fields:
        return Command("caveat", stdout=fields["local-command-caveat"].strip())
    if any(tag in fields for tag in _OUTPUT_TAGS):
        out = fields.get("local-command-stdout", fields.get("bash-stdout", ""))
        err = fields.get("local-command-stderr", fields.get("bash-stderr", ""))
        return Command("output", stdout=out.strip("\n"), stderr=err.strip("\n"), shell="bash-stdout" in fields or "bash-stderr" in fields)
    return None


def command_title(text: str) -> str | None:
    """A session title from a command message (``/context``), for when
    there is nothing better; None for other text."""
    command = parse_command(text)
    if command is None or command.kind != "command":
        return None
    return " ".join(part for part in (command.label, command.args) if part)
