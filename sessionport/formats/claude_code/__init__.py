"""Claude Code session logs: ``~/.claude/projects/<encoded-cwd>/<session-id>.jsonl``.

One JSON record per line (``user``, ``assistant``, ``summary``, ``system``, ...),
linked by ``uuid``/``parentUuid``; one API message may span several lines that
share ``message.id``.  Subagent logs sit in ``<session-id>/subagents/``.
"""

from sessionport.registry import lazy_parts

_PARTS = {
    "IMPORTER": ("sessionport.formats.claude_code.reader", "IMPORTER"),
    "EXPORTER": ("sessionport.formats.claude_code.writer", "EXPORTER"),
}
__all__ = list(_PARTS)

__getattr__ = lazy_parts(_PARTS)
