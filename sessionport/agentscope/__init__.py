"""The AgentScope compatibility layer, in one place.

- ``session_json*``: the ``session-json`` importer (loose tool-call logs);
- ``trace_writer`` and its parts (``run``, ``actions``, ``tools``, ``risk``,
  ``outcome``, ``cost``, ``time``, ``document``): the ``agentscope-trace`` exporter;
- ``shortcut`` (:func:`import_session`): AgentScope's ``import-session`` shortcut as a library call;
- ``validate_trace`` and ``schemas/``: trace validation.
"""

from sessionport.registry import lazy_parts

_PARTS = {"import_session": ("sessionport.agentscope.shortcut", "import_session")}
__all__ = list(_PARTS)

__getattr__ = lazy_parts(_PARTS)
