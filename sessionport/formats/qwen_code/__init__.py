"""Qwen Code sessions: ``~/.qwen/projects/<project>/chats/<session-id>.jsonl``.

Qwen Code is a fork of Gemini CLI whose session log took Claude Code's
envelope (``uuid``/``parentUuid``/``sessionId``/``timestamp``/``cwd``/
``version``) around Gemini API content (``message: {role, parts}``).
Parts are read with :mod:`sessionport.gemini_parts`, as the ``gemini``
formats read them.
"""

from sessionport.registry import lazy_parts

_PARTS = {
    "IMPORTER": ("sessionport.formats.qwen_code.reader", "IMPORTER"),
    "EXPORTER": ("sessionport.formats.qwen_code.writer", "EXPORTER"),
}
__all__ = list(_PARTS)

__getattr__ = lazy_parts(_PARTS)
