"""Finding the conversation in recorded API traffic.

Test suites and proxies record provider calls as a list of interactions,
each holding the request body sent and the response body received (for
example pydantic-ai's VCR cassettes, turned into JSON as
``{"interactions": [{"uri", "request_body", "response_body"}, ...]}``).
Every request of a conversation resends the whole history, so one
conversation is a *chain* of interactions whose histories extend each other;
it is the last request's history followed by that request's reply.

A recording may hold several conversations, and calls to other APIs (one
corpus file starts on Gemini and continues on OpenAI: only the requests of
the importer's own API are followed).  A request whose history does not
start with the previous request's history starts a new conversation.  Only
two interactions are held at a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


def is_interaction(item: Any) -> bool:
    return isinstance(item, dict) and ("request_body" in item or "response_body" in item)


@dataclass
class Conversation:
    """One conversation found in a recording: the last request body (its
    history list under ``history_key``) and the raw reply items."""

    request: dict
    history: list
    reply: list
    uri: str | None = None
    interactions: int = 1


@dataclass
class RecordedTraffic:
    """Follows interactions of one API and hands out finished conversations.

    ``matches_uri(uri)`` says whether an interaction's URI belongs to the
    API; ``history_key`` names the request's history list (``messages`` or
    ``input``); ``reply_items(response_body)`` lists the reply's raw items.
    """

    matches_uri: Callable[[str], bool]
    history_key: str
    reply_items: Callable[[Any], list]
    current: Conversation | None = None
    ignored: int = 0

    def _history(self, interaction: dict) -> list | None:
        uri = interaction.get("uri")
        request = interaction.get("request_body")
        if not isinstance(request, dict):
            return None
        if isinstance(uri, str) and not self.matches_uri(uri):
            return None
        history = request.get(self.history_key)
        if isinstance(history, str):
            history = [{"role": "user", "content": history}]
        return history if isinstance(history, list) else None

    def add(self, interaction: dict) -> Conversation | None:
        """Take one interaction; returns a conversation it has just closed."""
        history = self._history(interaction)
        if history is None:
            self.ignored += 1
            return None
        reply = self.reply_items(interaction.get("response_body"))
        uri = interaction.get("uri") if isinstance(interaction.get("uri"), str) else None
        previous = self.current
        continues = previous is not None and history[: len(previous.history)] == previous.history
        conversation = Conversation(interaction["request_body"], history, reply, uri)
        if continues:
            conversation.interactions = previous.interactions + 1
            self.current = conversation
            return None
        self.current = conversation
        return previous

    def finish(self) -> Conversation | None:
        done, self.current = self.current, None
        return done
