"""sessionport: stream coding-agent and chat session transcripts between formats."""

__version__ = "0.1.0"

__all__ = [
    "SCHEMA",
    "__version__",
    "dumps",
    "end_event",
    "loads",
    "message_event",
    "read",
    "session_event",
    "write",
    "write_events",
]

# The library's functions load on first use: ``sessionport --version`` and
# shell completion import this package and must not pay for the readers.
_LAZY = {
    "dumps": "sessionport.api",
    "loads": "sessionport.api",
    "read": "sessionport.api",
    "write": "sessionport.api",
    "write_events": "sessionport.api",
    "SCHEMA": "sessionport.model",
    "end_event": "sessionport.model",
    "message_event": "sessionport.model",
    "session_event": "sessionport.model",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sessionport' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
