"""``ls``: the sessions on this machine."""

from __future__ import annotations

import click
import orjson

from sessionport.pipeline.discover import discover
from sessionport.timeparse import click_time_type, parse_event_time
from sessionport.cli.app import cli
from sessionport.sanitise import terminal, terminal_json

SOURCES = ("claude-code", "codex", "gemini-cli", "qwen-code")


def _size(n: int) -> str:
    for unit in ("B", "K", "M", "G"):
        if n < 1024 or unit == "G":
            return f"{n:.0f}{unit}" if unit == "B" else f"{n:.1f}{unit}"
        n /= 1024
    return str(n)


@cli.command("ls")
@click.option("--source", "sources", multiple=True, type=click.Choice(SOURCES), help="Only sessions of this tool (repeatable).")
@click.option("--since", metavar="TIME", type=click_time_type(), help="Only sessions started at or after TIME: ISO 8601 (local time unless an offset is given) or an age such as 2h, 3d.")
@click.option("--cwd", metavar="TEXT", help="Only sessions whose working directory contains TEXT.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of objects (source, sessionId, path, cwd, start, size, prompt).")
def ls(sources, since, cwd, as_json):
    """List the Claude Code, Codex, Gemini CLI and Qwen Code sessions on this machine.

    Reads only the beginning of each file. Honours CLAUDE_CONFIG_DIR and
    CODEX_HOME. Any command takes @ID-PREFIX (or @all) in place of a path:

    \b
      sessionport ls --source codex --since 7d
      sessionport convert @019a3f --to markdown
    """
    threshold = since
    rows = []
    for found in discover(sources=tuple(sources)):
        if cwd and (not found.cwd or cwd not in found.cwd):
            continue
        if threshold is not None:
            started = parse_event_time(found.start)
            if started is None or started < threshold:
                continue
        rows.append(found)
    if as_json:
        click.echo(terminal_json(orjson.dumps([r.as_dict() for r in rows], option=orjson.OPT_INDENT_2)).decode())
        return
    if not rows:
        click.echo("no sessions found", err=True)
        return
    for r in rows:
        prompt = (r.prompt or "").replace("\t", " ")
        fields = [r.source, r.sessionId or "-", r.cwd or "-", r.start or "-", _size(r.size), prompt[:80]]
        click.echo("\t".join(terminal(field, tabs=False) for field in fields))
