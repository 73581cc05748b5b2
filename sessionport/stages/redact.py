"""``redact``: replace secrets and personal data in every string of the stream.

The stage works on decoded values, so it is format-independent and its
output stays valid in every format.  Identifiers (message ids, parent links,
tool call ids, session ids, timestamps, model names) are never rewritten.
See ``docs/redaction.md`` for what is detected.

``--check`` is a dry run for CI gates: it reads everything, writes no
events, reports the counts per kind on stderr and fails with exit code 1
when anything would have been redacted.
"""

from __future__ import annotations

import re
import sys
from typing import Callable, Iterable, Iterator

import click

from sessionport.errors import SessionportError, UsageError
from sessionport.redaction import Redactor
from sessionport.registry import Stage

# Message fields that are identifiers or enumerations, never free text.
_MESSAGE_KEEP = frozenset(("type", "role", "timestamp", "id", "parentId", "toolName", "toolCallId", "isError"))
_SESSION_KEEP = frozenset(("type", "schema", "source", "sessionId", "createdAt"))
_END_KEEP = frozenset(("type", "usage", "counts", "skipped"))
_KEEP = {"message": _MESSAGE_KEEP, "session": _SESSION_KEEP}
_SCALARS = frozenset((bool, int, float))
_META_FIELDS = frozenset(("meta", "metadata"))  # their identifier-like keys are kept


class SecretsFound(SessionportError):
    """``redact --check`` found something to redact (exit code 1)."""

    exit_code = 1


def event_redactor(redactor: Redactor) -> Callable[[dict], dict]:
    """A function that returns a copy of an event with its free-text fields
    redacted by ``redactor`` (the same dict when nothing changed).  It runs
    once per event of the stream, so the redactor's methods are looked up
    once, here."""
    redact_text = redactor.redact_text
    redact_dict = redactor.redact_dict
    redact_value = redactor.redact_value
    keep_of = _KEEP.get

    def redact(event: dict) -> dict:
        kind = event.get("type")
        keep = keep_of(kind, _END_KEEP) if type(kind) is str else _END_KEEP
        out: dict | None = None
        for key, value in event.items():
            if key in keep:
                continue
            kind = type(value)
            if kind is str:
                new = redact_text(value)
            elif value is None or kind in _SCALARS:
                continue
            elif kind is dict:
                new = redact_dict(value, key in _META_FIELDS)
            else:
                new = redact_value(value, keep_ids=key in _META_FIELDS)
            if new is not value:
                if out is None:
                    out = dict(event)
                out[key] = new
        return event if out is None else out

    return redact


def describe_counts(counts) -> str:
    total = sum(counts.values())
    if not total:
        return "nothing to redact"
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{total} value{'s' if total != 1 else ''} ({kinds})"


def build(
    pattern: tuple[str, ...] = (),
    allow: tuple[str, ...] = (),
    no_pii: bool = False,
    report: bool = False,
    check: bool = False,
    **_: object,
) -> Callable[[Iterable[dict]], Iterator[dict]]:
    """The redact stage as a function over event iterators."""
    for flag, values in (("--pattern", pattern), ("--allow", allow)):
        for value in values:
            try:
                re.compile(value)
            except re.error as exc:
                raise UsageError(f"{flag} {value!r}: invalid regular expression ({exc})") from None

    def stage(events: Iterable[dict]) -> Iterator[dict]:
        redactor = Redactor(patterns=pattern, allow=allow, pii=not no_pii)
        redact = event_redactor(redactor)
        if check:
            for event in events:
                redact(event)
        else:
            yield from map(redact, events)
        if report or check:
            verb = "would redact" if check else "redacted"
            print(f"sessionport: redact: {verb} {describe_counts(redactor.counts)}" if redactor.counts else "sessionport: redact: nothing to redact", file=sys.stderr)
        if check and redactor.counts:
            raise SecretsFound(f"redact --check: secrets or personal data found: {describe_counts(redactor.counts)}")

    return stage


STAGE = Stage(
    name="redact",
    description="Replace secrets and personal data with typed tags",
    help=(
        "Replace secrets (API keys and tokens of ~70 vendors, private keys, JWTs, passwords in URLs, "
        "headers and assignments, high-entropy strings) and personal data (emails, home-directory "
        "usernames, public IPs) with stable tags such as [REDACTED:github-token#2]. Ids and links "
        "between messages are kept. Running it twice changes nothing more."
    ),
    build=build,
    params=(
        click.Option(["--pattern"], multiple=True, metavar="REGEX", help="Also redact matches of REGEX (its group 's' or 1 if present) as 'custom' (repeatable)."),
        click.Option(["--allow"], multiple=True, metavar="REGEX", help="Keep findings whose text matches REGEX (repeatable)."),
        click.Option(["--no-pii"], is_flag=True, help="Keep emails, usernames and IP addresses; redact secrets only."),
        click.Option(["--report"], is_flag=True, help="Print the number of redactions per kind on stderr (never the values)."),
        click.Option(["--check"], is_flag=True, help="Dry run: write nothing, report counts, exit 1 if anything would be redacted."),
    ),
)
