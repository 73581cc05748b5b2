"""Choosing an importer from the first bytes of an input."""

from __future__ import annotations

from sessionport.errors import DetectionError
from sessionport.registry import Importer, Registry

# How many leading lines may be set aside to find one a sniffer knows:
# new versions put new record types first (Claude Code 2.1.17x starts with
# ``mode``/``permission-mode``/``ai-title`` lines).
HEAD_LINES = 24
# What each line set aside costs: the line an importer knows first wins.
LINE_COST = 1


def is_blank(head: bytes) -> bool:
    return not head.strip(b" \t\r\n\x00\xef\xbb\xbf")


def _score(sniff, head: bytes) -> int:
    try:
        return int(sniff(head))
    except Exception:  # a sniffer must never break detection of the others
        return 0


def _later_heads(head: bytes):
    """``head`` without its first line, without its first two... (complete
    lines only: the last, cut-off line of the head is never a start)."""
    at = 0
    for _ in range(HEAD_LINES):
        nl = head.find(b"\n", at)
        if nl < 0:
            return
        at = nl + 1
        if head.find(b"\n", at) < 0:  # what is left is no complete line
            return
        yield head[at:]


def scores(head: bytes, registry: Registry) -> list[tuple[int, str]]:
    """The name of every importer whose sniffer knows ``head``, with its
    score, best first (see :func:`rank`); no importer is loaded for it."""
    sniffers = registry.sniffers()
    scores = {name: _score(sniff, head) for name, sniff in sniffers}
    # Only when no sniffer knows the first line at all: a file recognised
    # from its first line is detected as it always was.
    if max(scores.values(), default=0) <= 0:
        for k, later in enumerate(_later_heads(head), 1):
            for name, sniff in sniffers:
                score = _score(sniff, later) - LINE_COST * k
                if score > scores[name]:
                    scores[name] = score
    ranked = [(scores[name], name) for name, _ in sniffers if scores[name] > 0]
    ranked.sort(key=lambda pair: -pair[0])  # stable: name order among equals
    return ranked


def rank(head: bytes, registry: Registry) -> list[tuple[int, Importer]]:
    """Every importer with its score for ``head``, best first.

    Each importer looks only at ``head`` (the first decompressed bytes), so
    nothing of the stream is consumed.  When no sniffer knows the first
    line, the head is scored again from each of its next lines (a
    line set aside costs ``LINE_COST``), so that lines of types no sniffer
    knows are outvoted by the known records that follow them.  Ties go to
    the importer first by name, which keeps detection deterministic.
    """
    return [(score, registry.importer(name)) for score, name in scores(head, registry)]


# A string value whose key names a credential: a directory walk meets the
# apps' own auth files (Codex's auth.json, Gemini CLI's oauth_creds.json),
# and the error naming such a file must not print the start of the key.
_SECRET_VALUE = r'("[^"]*(?:api[_-]?key|token|secret|passw|auth|credential|cookie|bearer)[^"]*"\s*:\s*")[^"]*'


def _masked(preview: str) -> str:
    import re  # only an input no format knows gets here

    return re.sub(_SECRET_VALUE, lambda m: m.group(1) + "…", preview, flags=re.IGNORECASE)


def detect(head: bytes, name: str, registry: Registry) -> Importer:
    """The importer that scores ``head`` highest (see :func:`rank`); only
    that one is loaded."""
    ranked = scores(head, registry)
    if not ranked:
        tried = ", ".join(known for known, _ in registry.sniffers())
        preview = _masked(head[:40].decode("utf-8", "replace")).replace("\n", "\\n")
        raise DetectionError(
            name,
            f"the format could not be recognised from its first bytes ({preview!r}); tried {tried}",
            hint=_reshaped(head, registry)
            or _prompt_history(head)
            or _cline_ui_messages(head)
            or "name the format with --from FORMAT; `sessionport formats` lists them",
        )
    return registry.importer(_task_history(name, ranked) or ranked[0][1])


# A Cline or Roo Code task's history, by its file name: a task of plain text
# messages (Roo Code writes no ``modelInfo``) has nothing in its first bytes
# that tells the three message-list APIs apart, and its name does.
_TASK_HISTORIES = ("api_conversation_history.json", "claude_messages.json")
_PLAIN = 45  # the score of a list of role/content messages no API marks


def _task_history(name: str, ranked: list[tuple[int, str]]) -> str | None:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if base not in _TASK_HISTORIES or ranked[0][0] > _PLAIN:
        return None
    return next((known for _, known in ranked if known == "anthropic-messages"), None)


def detect_input(inp, registry: Registry, detect_head=None) -> Importer:
    """:func:`detect` for an opened input (``sessionport.io.Input``).  A
    first line longer than the head (a first prompt with a long paste, an
    inline image) leaves the sniffers no complete line: then they look
    again at up to 4 MiB of it (put back in front of the stream for the
    reader).  ``detect_head`` is :func:`detect` unless given."""
    detect_head = detect_head or detect
    try:
        return detect_head(inp.head, inp.name, registry)
    except DetectionError:
        longer = _first_line_head(inp)
        if longer is None:
            raise
        try:
            return detect_head(longer, inp.name, registry)
        except DetectionError:
            pass
        raise


def _first_line_head(inp) -> bytes | None:
    head = inp.head
    if b"\n" in head or len(head) < (64 << 10) or head.lstrip(b" \t\r\xef\xbb\xbf")[:1] != b"{":
        return None
    import io

    from sessionport.io import READ_BUFFER, _Prepended

    stream = inp.stream
    parts: list[bytes] = []
    taken = 0
    try:
        while taken < FIRST_LINE_LOOK:
            part = stream.read(min(READ_BUFFER, FIRST_LINE_LOOK - taken))
            if not part:
                break
            parts.append(part)
            taken += len(part)
            if b"\n" in part:
                break
    finally:
        # what was read goes back in front of the rest, for the reader
        read = b"".join(parts)
        inp.stream = io.BufferedReader(_Prepended(read, stream), buffer_size=READ_BUFFER)
    return read if b"\n" in read and read.startswith(head) else None


# How far a first line longer than the head is read for detection.
FIRST_LINE_LOOK = 4 << 20


def _prompt_history(head: bytes) -> str | None:
    """What to do with Codex's prompt history (``~/.codex/history.jsonl``:
    ``{"session_id":…,"ts":<epoch s>,"text":…}`` per prompt, as real homes of
    0.34 and 0.46 hold it), which holds no session of its own."""
    first = head.lstrip(b" \t\r\n\xef\xbb\xbf").split(b"\n", 1)[0]
    if not first.startswith(b'{"session_id":') or b'"ts":' not in first or b'"text":' not in first:
        return None
    return (
        "it looks like Codex's prompt history (history.jsonl: one line per prompt typed, no replies); "
        "the sessions are the rollouts under sessions/YYYY/MM/DD/ beside it: convert those "
        "(a directory walk of the Codex home passes over history.jsonl)"
    )


def _cline_ui_messages(head: bytes) -> str | None:
    """What to do with a Cline task's ``ui_messages.json`` on its own (what
    the extension shows: ``[{"ts", "type": "say"|"ask", "say"|"ask", "text",
    …}]``, compact or pretty-printed, as real ones committed without their
    history are), which holds no conversation the model saw."""
    import re  # only an input no format knows gets here

    if re.match(rb'\s*\[\s*\{\s*"ts"\s*:\s*\d+\s*,\s*"type"\s*:\s*"(?:say|ask)"', head) is None:
        return None
    return (
        "it looks like a Cline task's ui_messages.json (what the extension shows); the conversation is the "
        "api_conversation_history.json of the same task folder: convert that (it reads this file for its token "
        "counts and errors)"
    )


def _reshaped(head: bytes, registry: Registry) -> str | None:
    """What to try for the records of a JSON Lines format put in one JSON
    array, or pretty-printed over several lines (an export tool's or a
    script's "save as JSON")."""
    body = head.lstrip(b" \t\r\n\xef\xbb\xbf")
    if body.startswith(b"["):
        items, shape, fix = body[1:], "in one JSON array", "jq -c '.[]' FILE > FILE.jsonl"
    elif body.startswith(b"{"):
        items, shape, fix = body, "pretty-printed over several lines", "jq -c . FILE > FILE.jsonl"
    else:
        return None
    ranked = scores(_as_lines(items), registry)
    if not ranked:
        return None
    name = ranked[0][1]
    if not any(".jsonl" in p or ".ndjson" in p for p in registry.importer(name).patterns):
        return None
    return f"it looks like {name} records {shape}, and {name} is JSON Lines (one record per line): write them one per line ({fix})"


def _as_lines(items: bytes, most: int = 8) -> bytes:
    """The first complete values of a JSON array's body (``items``, its
    ``[`` taken off), one per line, as a JSON Lines head would hold them."""
    import json

    text = items.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    lines, at = [], 0
    for _ in range(most):
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError):
            break
        lines.append(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else items.lstrip(b" \t\r\n")
