"""Session facts for the readable exporters, gathered while the stream runs.

A session's header is written when its ``session`` event arrives, so it can
only say what that event says; the time span, the models used and the
token totals are only known at its end.  :class:`SessionTracker` collects
them message by message (a few scalars, never the messages) for the closing
summary line.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any


ROLE_LABELS = {"user": "User", "assistant": "Assistant", "system": "System", "tool": "Tool"}
MAX_MODELS = 5
HEADER_METADATA_VALUE = 200
USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def parse_time(value: Any) -> datetime | None:
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            seconds = value / 1000 if value > 1e11 else value
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
        if isinstance(value, str) and value:
            text = value.strip()
            if text.endswith(("Z", "z")):
                text = text[:-1] + "+00:00"
            # Python < 3.11 accepts at most 6 fractional digits.
            if "." in text:
                head, _, rest = text.partition(".")
                digits = len(rest) - len(rest.lstrip("0123456789"))
                if digits > 6:
                    text = head + "." + rest[:6] + rest[digits:]
            moment = datetime.fromisoformat(text)
            return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def _utc_seconds(stamp: str) -> str | None:
    """``YYYY-MM-DD HH:MM:SS`` of a stamp written ``YYYY-MM-DDTHH:MM:SS[.fff]Z``
    (3, 6 or more fraction digits: what every Python version parses) that
    names a real moment, else None.  Every turn heading shows one: cut out
    of the text it costs a fifth of a parse and format."""
    size = len(stamp)
    if not (size == 20 or ((size == 24 or size >= 27) and stamp[19] == ".")) or stamp[-1] != "Z" or "1" > stamp[0]:
        return None
    if stamp[4] != "-" or stamp[7] != "-" or stamp[10] != "T" or stamp[13] != ":" or stamp[16] != ":":
        return None
    digits = stamp[:4] + stamp[5:7] + stamp[8:10] + stamp[11:13] + stamp[14:16] + stamp[17:19] + stamp[20:-1]
    if not (digits.isascii() and digits.isdigit()):
        return None
    try:
        datetime.fromisoformat(stamp[:19])  # the ranges: month, day of month, hour...
    except ValueError:
        return None
    return f"{stamp[:10]} {stamp[11:19]}"


def format_time(value: Any) -> str:
    """``2025-06-01 09:00:04 UTC``, or the value as given when unparseable."""
    if value.__class__ is str:
        plain = _utc_seconds(value)
        if plain is not None:
            return plain + " UTC"
    moment = parse_time(value)
    if moment is None:
        return "" if value is None else str(value)
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def format_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min"
    return f"{hours // 24} d {hours % 24} h"


def session_title(session: dict, number: int) -> str:
    title = session.get("title")
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    session_id = session.get("sessionId")
    if isinstance(session_id, str) and session_id:
        return f"Session {session_id}"
    return f"Session {number}"


def feed(events, writer) -> None:
    """Hand each event to ``writer.start``, ``.message`` or ``.end_event``
    (the readable exporters' writers); bound methods looked up once, since
    this loop runs for every event."""
    message, start, end_event = writer.message, writer.start, writer.end_event
    for event in events:
        kind = event.get("type")
        if kind == "message":
            message(event)
        elif kind == "session":
            start(event)
        elif kind == "end":
            end_event(event)


_TURN_LABELS: dict = {}  # (role, kind, sidechain) -> label, for the common roles
_ASSISTANT_KINDS = frozenset({"tool_use", "tool_result", "thinking"})


def message_parts(message: dict) -> tuple[dict | None, str, str]:
    """A message's ``meta`` (None unless a dict), kind (``"text"`` unless
    ``meta.kind`` is a string) and text (``""`` unless a string): what both
    readable exporters read of every message, tolerant of malformed fields."""
    text = message.get("text")
    if text.__class__ is not str:
        text = ""
    meta = message.get("meta")
    if meta.__class__ is not dict:
        return None, "text", text
    kind = meta.get("kind", "text")
    return meta, kind if kind.__class__ is str else "text", text


def turn_label_of(role: Any, kind: str, sidechain: bool) -> str:
    """The heading of the turn a message belongs to, from the parts the
    exporters have already read from it (``role``, its ``message_kind`` and
    whether ``meta.sidechain`` is set); a change of label starts a new turn.
    Tool calls, results and thinking belong to the assistant's turn; a
    subagent's (sidechain) messages get turns of their own.  The usual labels
    are cached: this runs once per message."""
    if role.__class__ is str:
        label = _TURN_LABELS.get((role, kind, sidechain))
        if label is not None:
            return label
    key_role = "assistant" if role == "tool" or kind in _ASSISTANT_KINDS else role
    if isinstance(key_role, str) or key_role is None:
        label = ROLE_LABELS.get(key_role, str(key_role or "Message").capitalize())  # type: ignore[arg-type]
    else:
        label = "Message"
    label = f"{label} · subagent" if sidechain else label
    # kinds come from the input: a bounded cache, whatever they are
    if role.__class__ is str and role in ROLE_LABELS and len(_TURN_LABELS) < 256:
        _TURN_LABELS[(role, kind, sidechain)] = label
    return label


def agent_anchor(agent_id: Any) -> str | None:
    """The in-page anchor of a subagent's session, derived from its agent
    id (a digest: ids are never copied from the transcript into the page)."""
    if not isinstance(agent_id, str) or not agent_id:
        return None
    import hashlib

    return "agent-" + hashlib.sha256(agent_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def spawned_agent(meta: dict | None) -> str | None:
    """The anchor of the subagent session a tool result says it spawned."""
    return agent_anchor(meta.get("spawnedAgentId")) if meta else None


def announced_agents(session: dict) -> list[str]:
    """The anchors of the subagent sessions a session's importer says
    follow it in the stream (``metadata.subagents``, Claude Code); a link to
    a subagent is made only to these (or to one already written): a
    transcript left out or not found would make it point nowhere."""
    metadata = session.get("metadata")
    agents = metadata.get("subagents") if isinstance(metadata, dict) else None
    if not isinstance(agents, list):
        return []
    return [anchor for anchor in map(agent_anchor, agents[:MAX_ANNOUNCED]) if anchor]


MAX_ANNOUNCED = 10_000


def parent_call(session: dict) -> tuple[str | None, Any]:
    """A subagent session's own anchor and the call id that spawned it."""
    metadata = session.get("metadata")
    if not isinstance(metadata, dict):
        return None, None
    return agent_anchor(metadata.get("agentId")), metadata.get("parentToolCallId")


def header_facts(session: dict) -> list[tuple[str, str]]:
    """(label, value) pairs known when the session starts."""
    facts: list[tuple[str, str]] = []
    for label, key in (("Source", "source"), ("Session", "sessionId"), ("Directory", "cwd")):
        value = session.get(key)
        if value not in (None, ""):
            facts.append((label, str(value)))
    if session.get("createdAt") is not None:
        facts.append(("Started", format_time(session["createdAt"])))
    metadata = session.get("metadata")
    if isinstance(metadata, dict):
        model = metadata.get("model")
        if isinstance(model, str) and model:
            facts.append(("Model", model))
    return facts


def extra_metadata(session: dict) -> list[tuple[str, str]]:
    """Other scalar metadata of the session, values cut to a readable length."""
    metadata = session.get("metadata")
    if not isinstance(metadata, dict):
        return []
    pairs = []
    for key, value in metadata.items():
        if key == "model" or isinstance(value, (dict, list)) or value is None:
            continue
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if len(text) > HEADER_METADATA_VALUE:
            text = text[: HEADER_METADATA_VALUE - 1] + "…"
        pairs.append((str(key), text))
    return pairs


def _plain_utc(stamp: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS[.fff...]Z``: among stamps of this shape and one
    length, string order is time order, so they can be compared unparsed."""
    return len(stamp) >= 20 and stamp[-1] == "Z" and stamp[10] == "T" and stamp[4] == "-" and stamp[13] == ":" and stamp[:4].isdigit()


@dataclass
class SessionTracker:
    """What the closing summary of a session says.

    Timestamps are compared as strings while they keep one plain UTC shape
    (the usual case: one writer, one format) and parsed only for the
    extremes at the end, since parsing one per message cost more than the
    rest of the bookkeeping together."""

    messages: int = 0
    shown: int = 0
    models: list[str] = field(default_factory=list)
    end: dict | None = None
    parsed_first: datetime | None = None
    parsed_last: datetime | None = None
    raw_first: str | None = None
    raw_last: str | None = None
    # token usage of the messages in the stream (``meta.usage``, counted once
    # per API message id): after a filter, what was kept
    kept_usage: dict = field(default_factory=dict)
    usage_ids: OrderedDict = field(default_factory=OrderedDict)  # drops its oldest id in constant time
    # the session's heading, as written: a title the end event brings
    # (recorded late, after the heading) is named in a note when it differs
    heading: str | None = None

    def see(self, message: dict, shown: bool, meta: dict | None) -> None:
        """Count ``message``; ``meta`` is its ``meta`` if that is a dict,
        else None (the exporters have read it already)."""
        self.messages += 1
        self.shown += shown
        stamp = message.get("timestamp")
        if stamp is not None:
            raw_last = self.raw_last
            if raw_last is not None and stamp.__class__ is str and len(stamp) == len(raw_last) and stamp[-1] == "Z" and stamp[10] == "T":
                # the usual stamp: the shape of the ones before it
                if stamp > raw_last:
                    self.raw_last = stamp
                elif stamp < self.raw_first:  # type: ignore[operator]
                    self.raw_first = stamp
            elif raw_last is None and stamp.__class__ is str and _plain_utc(stamp) and stamp[-1] == "Z" and stamp[10] == "T":
                self.raw_first = self.raw_last = stamp
            else:
                self._moment(parse_time(stamp))
        if meta:
            model = meta.get("model")
            # a model already listed (nearly every message) is passed over first
            if model and model not in self.models and isinstance(model, str) and len(self.models) < MAX_MODELS:
                self.models.append(model)
            usage = meta.get("usage")
            if usage.__class__ is dict:
                api_id = meta.get("messageId")
                # the blocks after the first of an API message: counted already
                if api_id.__class__ is not str or api_id not in self.usage_ids:
                    self._add_usage(usage, api_id)

    def _add_usage(self, usage: dict, api_id: Any) -> None:
        """The blocks of one API message repeat its usage: count it once
        (ids are remembered for the last few hundred messages: the blocks of
        one message come together, interleaved at most with a few others)."""
        if api_id.__class__ is str:
            if api_id in self.usage_ids:
                return
            self.usage_ids[api_id] = None
            if len(self.usage_ids) > 512:
                self.usage_ids.popitem(last=False)
        kept = self.kept_usage
        for key in USAGE_KEYS:
            value = usage.get(key)
            if value.__class__ is int:
                kept[key] = kept.get(key, 0) + value

    def _moment(self, moment: datetime | None) -> None:
        if moment is not None:
            if self.parsed_first is None or moment < self.parsed_first:
                self.parsed_first = moment
            if self.parsed_last is None or moment > self.parsed_last:
                self.parsed_last = moment

    def _settle(self) -> None:
        """Fold the string-compared extremes into the parsed ones."""
        if self.raw_first is not None:
            first, last = self.raw_first, self.raw_last
            self.raw_first = self.raw_last = None
            self._moment(parse_time(first))
            self._moment(parse_time(last))

    @property
    def first(self) -> datetime | None:
        self._settle()
        return self.parsed_first

    @property
    def last(self) -> datetime | None:
        self._settle()
        return self.parsed_last

    def span(self) -> str:
        if self.first is None or self.last is None:
            return ""
        start, stop = format_time(self.first.isoformat()), format_time(self.last.isoformat())
        if start[:10] == stop[:10]:
            stop = stop[11:]
        return f"{start} → {stop} ({format_duration((self.last - self.first).total_seconds())})"

    def summary_parts(self) -> list[str]:
        parts = [f"{self.messages} message{'s' if self.messages != 1 else ''}"]
        if self.shown != self.messages:
            parts[0] += f" ({self.shown} shown)"
        span = self.span()
        if span:
            parts.append(span)
        if self.models:
            parts.append("model " + ", ".join(self.models))
        usage = (self.end or {}).get("usage")
        whole = _usage_text(usage) if isinstance(usage, dict) else ""
        kept = _usage_text(self.kept_usage) if self.kept_usage else ""
        # say which figure is which: after a filter the session's own total
        # covers messages that are not in the stream any more
        if whole:
            parts.append("tokens for the whole session: " + whole)
        if kept and kept != whole:
            parts.append(f"tokens in the {self.messages:,} message{'s' if self.messages != 1 else ''} here: " + kept)
        skipped = (self.end or {}).get("skipped")
        if isinstance(skipped, dict) and skipped:
            total = sum(v for v in skipped.values() if isinstance(v, int))
            parts.append(f"{total} record{'s' if total != 1 else ''} skipped by the importer")
        return parts

    def notes(self) -> list[str]:
        end = self.end or {}
        notes = end.get("notes")
        found = [str(n) for n in notes] if isinstance(notes, list) else []
        title = end.get("title")
        if isinstance(title, str) and title.strip():
            title = " ".join(title.split())
            if title != self.heading:
                found.append(f"Title recorded later in the session (the one the app shows): {title}")
        return found


def _usage_text(usage: dict[str, Any]) -> str:
    def number(key: str) -> int | None:
        value = usage.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    bits = []
    if number("input_tokens") is not None:
        cached = number("cached_input_tokens")
        bits.append(f"{number('input_tokens'):,} in" + (f" ({cached:,} cached)" if cached else ""))
    if number("output_tokens") is not None:
        reasoning = number("reasoning_output_tokens")
        bits.append(f"{number('output_tokens'):,} out" + (f" ({reasoning:,} reasoning)" if reasoning else ""))
    if not bits and number("total_tokens") is not None:
        bits.append(f"{number('total_tokens'):,} total")
    return ", ".join(bits)
