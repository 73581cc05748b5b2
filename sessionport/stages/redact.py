"""``redact``: replace secrets and personal data in every string of the stream.

The stage works on decoded values, so it is format-independent and its
output stays valid in every format.  Identifiers (message ids, parent links,
tool call ids, session ids, timestamps, model names) are never rewritten.
See ``docs/redaction.md`` for what is detected.

``--check`` is a report for CI gates: it reads everything, writes no
events, reports the counts per kind on stderr (with ``--report``, one line
per finding: input, session, message index, field and kind, never the
value) and its exit code says whether anything was found: 0 none, 1
findings (1 also for an input that cannot be read, with an error line).
"""

from __future__ import annotations

import sys
from collections import Counter
from itertools import islice
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NamedTuple, Sequence

import click

from sessionport.errors import SessionportError
from sessionport.registry import Stage

if TYPE_CHECKING:
    from sessionport.redaction import Redactor

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


def _holds_any(text: str, names: tuple[str, ...]) -> bool:
    for name in names:
        if name in text:
            return True
    return False


def event_redactor(redactor: Redactor) -> Callable[[dict], dict]:
    """A function that returns a copy of an event with its free-text fields
    redacted by ``redactor`` (the same dict when nothing changed).  It runs
    once per event of the stream, so the redactor's methods are looked up
    once, here."""
    redact_text = redactor.redact_text
    redact_dict = redactor.redact_dict
    redact_fields = redactor.redact_fields
    redact_value = redactor.redact_value
    keep_of = _KEEP.get
    # redact_dict's memo of dict shapes (cleared in place, never replaced):
    # the plain keys of a known shape (a tuple) are looked up here, so a
    # metadata dict whose keys are all identifiers costs no call at all
    shapes = redactor._shapes

    # A stream repeats a few event shapes: the keys to visit (those not
    # kept) are worked out once per type and shape, in the event's order,
    # with whether "text" is the first of them (the usual order), so the
    # batch screen's answer for it is taken before the loop.
    # Each key to visit comes with whether its dict values are metadata.
    visits: dict[str | None, dict[tuple, tuple[bool, tuple, tuple]]] = {}

    def plan(kind: str | None, keys: tuple) -> tuple[bool, tuple, tuple]:
        keep = keep_of(kind, _END_KEEP) if kind is not None else _END_KEEP
        visit = tuple((key, key in _META_FIELDS) for key in keys if key not in keep)
        entry = (visit[:1] == (("text", False),), visit[1:], visit)
        table = visits.setdefault(kind, {}) if len(visits) < 64 else visits.get(kind, {})
        if len(table) < 1024:
            table[keys] = entry
        return entry

    def redact(event: dict, text_clear: bool = False) -> dict:
        # text_clear: the batch's screen found nothing in event["text"]
        # (Redactor.screened_clear), so it is kept without a look of its own
        kind = event.get("type")
        if type(kind) is not str:
            kind = None
        keys = tuple(event)
        table = visits.get(kind)
        entry = table.get(keys) if table is not None else None
        if entry is None:
            entry = plan(kind, keys)
        text_first, rest, visit = entry
        out: dict | None = None
        if text_first:
            value = event["text"]
            if type(value) is str:
                visit = rest
                # with text_clear, what redact_text does with a screen of no
                # hit: the text stays, unless it holds a learned username
                if not text_clear or ((learned := redactor._learned) and _holds_any(value, learned)):
                    new = redact_text(value)
                    if new is not value:
                        out = dict(event)
                        out["text"] = new
        for key, keep in visit:
            value = event[key]
            kind = type(value)
            if kind is dict:
                fields = shapes[keep].get(tuple(value))
                if fields.__class__ is not tuple:
                    new = redact_dict(value, keep)
                elif fields:
                    new = redact_fields(value, fields, keep)
                else:
                    continue
            elif kind is str:
                if text_clear and key == "text":
                    learned = redactor._learned
                    if not learned or not _holds_any(value, learned):
                        continue
                new = redact_text(value)
            elif value is None or kind in _SCALARS:
                continue
            else:
                new = redact_value(value, keep_ids=keep)
            if new is not value:
                if out is None:
                    out = dict(event)
                out[key] = new
        return event if out is None else out

    return redact


# Events are read a batch at a time and then redacted together: alternating
# reader and redactor event by event evicts each one's working set (parser
# state, the screen's automaton, the memo tables) from the CPU caches, which
# costs the stage a sixth to a third of its time.  A batch ends at a bound on
# the text it holds (message text and the strings of a tool input), so
# memory stays flat, and after any event that is not a message, so a
# consumer that stops at a session boundary (formats that hold one session)
# has not made the reader go further than before.
_BATCH_EVENTS = 64
_BATCH_CHARS = 1 << 20


def in_batches(
    events: Iterable[dict],
    redact: Callable[..., dict],
    screened_clear: Callable[[list], list[bool] | None] | None = None,
) -> Iterator[dict]:
    """``map(redact, events)``, read ahead by batches.  A failure (of the
    input or of redaction) comes after every event before it, redacted, as
    it would without batches.  With ``screened_clear``
    (:meth:`Redactor.screened_clear`), the messages' texts of a batch are
    screened together first and ``redact`` is told, per event, whether its
    text was found clear."""
    it = iter(events)
    batch: list[dict] = []
    append = batch.append
    # the "text" of each message of the batch, in order (None if absent)
    texts: list = []
    add_text = texts.append
    failure: Exception | None = None
    while failure is None:
        chars = 0
        try:
            for event in islice(it, _BATCH_EVENTS):
                append(event)
                if event.get("type") != "message":
                    break
                text = event.get("text")
                add_text(text)
                if text.__class__ is str:
                    chars += len(text)
                tool_input = event.get("toolInput")
                if tool_input.__class__ is dict:
                    for value in tool_input.values():
                        if value.__class__ is str:
                            chars += len(value)
                if chars > _BATCH_CHARS:
                    break
            else:
                if not batch:
                    return
        except Exception as exc:
            failure = exc
        flags = None
        if screened_clear is not None and texts:
            try:
                flags = screened_clear(texts)
            except Exception:  # an optimisation only: each text is then looked at alone
                flags = None
        done: list[dict] = []
        try:
            # extend keeps what it appended before a failure
            if flags is None:
                done.extend(map(redact, batch))
            else:
                if len(flags) < len(batch):  # the event that ended the batch is no message
                    flags.append(False)
                done.extend(map(redact, batch, flags))
        except Exception:
            yield from done
            raise
        batch.clear()
        texts.clear()
        yield from done
    raise failure


class Finding(NamedTuple):
    source: str | None  # the input, when known
    session: str | None  # its session id
    message: int | None  # 1-based index of the message in its session
    field: str
    kinds: tuple[str, ...]

    def describe(self) -> str:
        where = [self.source] if self.source else []
        if self.session:
            where.append(f"session {self.session}")
        where.append(f"message {self.message}" if self.message is not None else "session header")
        return f"{', '.join(where)} ({self.field}): {', '.join(_group(self.kinds))}"


def _group(kinds: tuple[str, ...]) -> list[str]:
    counts = Counter(kinds)
    return [kind if n == 1 else f"{kind} x{n}" for kind, n in counts.items()]


class FindingsLog:
    """Checks events one by one and records which field of which message
    held what (kinds only, never values)."""

    def __init__(self, redactor: Redactor, source: str | None = None) -> None:
        self.redactor = redactor
        self.source = source
        self.findings: list[Finding] = []
        self._session: str | None = None
        self._message: int | None = None

    def check(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "session":
            session = event.get("sessionId")
            self._session = session if isinstance(session, str) else None
            self._message = None
        elif kind == "message":
            self._message = (self._message or 0) + 1
        keep = _KEEP.get(kind, _END_KEEP) if type(kind) is str else _END_KEEP
        redactor = self.redactor
        for key, value in event.items():
            if key in keep or value is None or type(value) in _SCALARS:
                continue
            before = Counter(redactor.counts)
            if type(value) is str:
                redactor.redact_text(value)
            else:
                redactor.redact_value(value, keep_ids=key in _META_FIELDS)
            if sum(redactor.counts.values()) != sum(before.values()):
                found = tuple(sorted((redactor.counts - before).elements()))
                self.findings.append(Finding(self.source, self._session, self._message if kind == "message" else None, key, found))


def _say(line: str) -> None:
    """A line on stderr: input names, session ids and warnings come from
    the transcript, so its escape and bidi characters are shown, not acted on."""
    from sessionport.sanitise import terminal

    try:
        print(terminal(line), file=sys.stderr)
    except BrokenPipeError:
        # stderr read by a reader that stopped early (``2>&1 | head``): the
        # check goes on, to exit with its verdict, not the 0 of a quiet end
        from sessionport.io import discard_stream

        discard_stream(sys.stderr)


def describe_counts(counts) -> str:
    total = sum(counts.values())
    if not total:
        return "nothing to redact"
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{total} value{'s' if total != 1 else ''} ({kinds})"


def user_patterns(pattern: tuple[str, ...], allow: tuple[str, ...]):
    """``--pattern`` and ``--allow`` compiled by RE2: they run over every
    string of a transcript, so in linear time (:mod:`sessionport.user_regex`);
    one RE2 cannot run is a usage error naming its option."""
    from sessionport.user_regex import compile_user

    return [compile_user(p, "--pattern") for p in pattern], [compile_user(a, "--allow") for a in allow]


def new_redactor(factory, pattern: tuple[str, ...], allow: tuple[str, ...], no_pii: bool):
    """A redactor whose user patterns are the RE2 ones of :func:`user_patterns`
    (the engine takes any object with ``finditer``/``search``)."""
    custom, allowed = user_patterns(pattern, allow)
    redactor = factory(pii=not no_pii)
    redactor.custom = custom
    redactor.allow = allowed
    return redactor


_FROZEN: list[bool] = []


def _freeze_once() -> None:
    """Move what is loaded by now (modules, compiled patterns, the RE2 sets,
    the reader's tables) out of the garbage collector's generations, once
    per process.  These live as long as the run; the collections that the
    redactor's many short-lived objects set off no longer walk them (about
    2% of a run's instructions).  Objects made later are collected as
    before, so memory stays flat."""
    if not _FROZEN:
        import gc

        _FROZEN.append(True)
        gc.freeze()


def build(
    pattern: tuple[str, ...] = (),
    allow: tuple[str, ...] = (),
    no_pii: bool = False,
    report: bool = False,
    check: bool = False,
    **_: object,
) -> Callable[[Iterable[dict]], Iterator[dict]]:
    """The redact stage as a function over event iterators."""
    user_patterns(pattern, allow)

    def stage(events: Iterable[dict]) -> Iterator[dict]:
        # The detectors (RE2 and its compiled sets) load when a run redacts:
        # every stage command is built from this module, filter's too.
        from sessionport.redaction import Redactor

        redactor = new_redactor(Redactor, pattern, allow, no_pii)
        redact = event_redactor(redactor)
        _freeze_once()
        if check:
            log = FindingsLog(redactor)
            for event in events:
                log.check(event)
            if report:
                for finding in log.findings:
                    _say(f"sessionport: redact: found: {finding.describe()}")
        else:
            yield from in_batches(events, redact, redactor.screened_clear)
        if report or check:
            verb = "would redact" if check else "redacted"
            _say(f"sessionport: redact: {verb} {describe_counts(redactor.counts)}" if redactor.counts else "sessionport: redact: nothing to redact")
        if check and redactor.counts:
            raise SecretsFound(f"redact --check: secrets or personal data found: {describe_counts(redactor.counts)}")

    return stage


def check_inputs(
    inputs: Sequence[str | None],
    *,
    from_: str | None = None,
    strict: bool = False,
    skip_bad: bool = False,
    read_opts: dict[str, Any] | None = None,
    globs: Sequence[str] = (),
    quiet: bool = False,
    pattern: tuple[str, ...] = (),
    allow: tuple[str, ...] = (),
    no_pii: bool = False,
    report: bool = False,
    **_: object,
) -> int:
    """``redact --check`` over every input (a directory is walked): one
    report, each finding named by input, session, message and field.
    Returns the exit code: 0 when nothing was found, 1 when something was
    (or an input could not be read)."""
    import sessionport.api as api
    from sessionport.context import ReadContext
    from sessionport.pipeline.inputs import resolve

    build(pattern=pattern, allow=allow)  # the same usage errors as the stage
    sources = resolve(inputs, globs).sources
    totals: Counter[str] = Counter()
    with_findings = 0
    unreadable = 0
    for source in sources:
        name = "<stdin>" if source.spec == "-" else source.spec
        from sessionport.redaction import Redactor

        redactor = new_redactor(Redactor, pattern, allow, no_pii)
        log = FindingsLog(redactor, name)
        ctx = ReadContext(on_warning=(lambda message: None) if quiet else (lambda message: _say(f"sessionport: warning: {message}")))
        try:
            for event in api.read(source.spec, format=from_, strict=strict, skip_bad=skip_bad, options=dict(read_opts or {}), context=ctx):
                log.check(event)
        except SessionportError as exc:
            unreadable += 1
            _say(f"sessionport: error: {exc}")
            continue
        if report:
            for finding in log.findings:
                _say(f"sessionport: redact: found: {finding.describe()}")
        if redactor.counts:
            with_findings += 1
            totals.update(redactor.counts)
    checked = len(sources) - unreadable
    summary = f"would redact {describe_counts(totals)}" if totals else "nothing to redact"
    files = f" in {with_findings} of {checked} input(s)" if len(sources) > 1 or with_findings > 1 else ""
    _say(f"sessionport: redact: {summary}{files}" + (f"; {unreadable} input(s) could not be read" if unreadable else ""))
    return 1 if totals or unreadable else 0


STAGE = Stage(
    name="redact",
    description="Replace secrets and personal data with typed tags",
    help=(
        "Replace secrets (API keys and tokens of ~110 vendors, private keys, JWTs, passwords in URLs, "
        "headers, flags and assignments, tokens named by context, card numbers, high-entropy strings; "
        "also through terminal colour codes and inside base64) and personal data (emails, home-directory "
        "usernames, public IPs) with stable tags such as [REDACTED:github-token#2]. Ids and links "
        "between messages are kept. Running it twice changes nothing more."
    ),
    build=build,
    check=check_inputs,
    reads_all=True,
    params=(
        click.Option(["--pattern"], multiple=True, metavar="REGEX", help="Also redact matches of REGEX (its group 's' or 1 if present) as 'custom' (repeatable)."),
        click.Option(["--allow"], multiple=True, metavar="REGEX", help="Keep findings whose text matches REGEX (repeatable)."),
        click.Option(["--no-pii"], is_flag=True, help="Keep emails, usernames and IP addresses; redact secrets only."),
        click.Option(["--report"], is_flag=True, help="Print the number of redactions per kind on stderr (never the values)."),
        click.Option(["--check"], is_flag=True, help="Report only: write nothing, print counts (with --report, each finding's input, session, message and field), exit 1 if anything would be redacted, 0 if not."),
    ),
)
