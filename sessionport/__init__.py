"""sessionport: stream coding-agent and chat session transcripts between formats."""

from sessionport.api import dumps, loads, read, write, write_events
from sessionport.model import SCHEMA, end_event, message_event, session_event

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
