"""The redaction engine: layered detection over decoded strings, typed and
stable replacements, structure-aware walking of events.

Layers run from precise to broad; where two findings overlap, the more
precise one wins (a PEM block beats the entropy of its body, a URL password
beats the email look-alike ``pass@host``):

1. private key blocks (also JSON-escaped, also base64 of a PEM);
2. ``--pattern`` regexes given by the user;
3. vendor-prefixed tokens and JWTs (:mod:`.rules`);
4. structural contexts: auth headers, URL userinfo, query parameters, CLI
   password flags, ``.netrc`` (:mod:`.rules`);
5. keyword assignments (:mod:`.keywords`);
6. personal data: home-directory usernames, emails, public IPs (:mod:`.pii`);
7. high-entropy runs outside known-safe shapes (:mod:`.entropy`);
8. usernames learned from home paths, where they stand alone.

Existing ``[REDACTED:...]`` tokens are never matched again, which makes
redaction idempotent.  A replacement is ``[REDACTED:<kind>#<n>]`` where n
numbers the distinct values of that kind in this run, so the same secret
gets the same tag in every copy of it.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from typing import Any, Iterable, Iterator

import orjson

from sessionport.redaction import blobs, cards, entropy, keywords, normalise, pii, printers, rules, screen
from sessionport.lazy import lazy

# compiled on first use: only a text that holds a tag (or a field
# token) needs it
TOKEN = lazy(r"\[REDACTED:[a-z0-9-]+(?:#\d+)?\]")
# Entropy findings this long are decoded before judging; longer than
# _OPAQUE_MAX with no context and no readable content, they are data.
_JUDGE_MIN = 32
_OPAQUE_MAX = 256
_USER_PASS = lazy(r"^[A-Za-z][A-Za-z0-9._@+-]{0,63}:[^\s:]{3,128}$")
_VENDOR_PLACEHOLDER = lazy(r"(?i)example|x{6,}|\*{3,}|your[_-]|0{12,}|1234567890|abcdefghij")


def _context_placeholder(secret: str, kind: str) -> bool:
    """A value of a context rule that is no credential: a template, a
    variable, code.  In a URL's password slot only what reads as a whole
    reference is (``${PW}``, ``$(cat f)``, ``getpass()``, ``$[ variables.pw ]``):
    a password there may start with symbols that read as code (``$[k9…``)."""
    if kind == "url-password":
        return keywords.is_userinfo_placeholder(secret)
    return keywords.is_placeholder(secret)


def _vendor_placeholder(secret: str):
    # the pattern is compiled when a vendor token is found, not when a text
    # is looked at
    return _VENDOR_PLACEHOLDER.search(secret)


_MIN_TEXT = 6
# Lower-cases ASCII letters only, so positions in the result match the original.
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
_CACHE_CHARS = 32 << 20
# Only short strings are cached (metadata values, paths, commands, keys):
# they repeat on every event.  Long ones (tool outputs) rarely repeat, the
# screen reads them at C speed, and hashing and keeping them costs more.
_CACHE_MAX_TEXT = 256
# Keys of metadata whose values are load-bearing identifiers or opaque
# payloads, never free text: rewriting them would break the session.
_STRUCTURAL_KEYS = frozenset(
    "id uuid parentUuid parentId logicalParentUuid leafUuid sessionId requestId messageId agentId callId call_id "
    "tool_use_id toolUseId toolCallId item_id itemId turn_id turnId response_id responseId thread_id threadId "
    "kind model type role timestamp createdAt updatedAt version signature encrypted_content encryptedContent "
    "schema source hash sha commit digest etag".split()
)
_SCALARS = frozenset((int, float, bool))
_NOT_TEXT = frozenset((int, float, bool, type(None)))  # values never visited
_JOIN_BACKOFF_MAX = 64
_SKIP, _PLAIN, _FULL, _ID = 0, 1, 2, 3  # _ID: an identifier's key in a parsed payload
_WHOLE = "whole"  # a dict read as a whole (name/value pairs, JWKs)
_MIXED = "mixed"  # a dict with a key checked in full: each one takes the general path
_SHAPE_MAX_KEYS = 64  # bigger dicts are rare and not worth remembering
# Plans and shapes hold their keys: long keys (data used as keys) are not
# remembered, so the memo stays small whatever the input.
_MEMO_KEY_CHARS = 256
_JWK_PRIVATE = ("d", "p", "q", "dp", "dq", "qi", "k")
_JWK_PUBLIC = ("n", "e", "x", "y", "x5c", "x5t", "kid", "crv", "alg", "use", "kty")


_STRUCTURAL_SUFFIXES = ("Id", "_id", "ID", "Uuid", "_uuid", "ignature", "Hash", "_hash", "Digest", "_digest", "Sha", "_sha", "ncrypted_content", "ncryptedContent")
_structural_memo: dict[str, bool] = {}


def _is_structural_key(key: str) -> bool:
    known = _structural_memo.get(key)
    if known is None:
        known = key in _STRUCTURAL_KEYS or key.endswith(_STRUCTURAL_SUFFIXES)
        if len(_structural_memo) < 4096:  # keys are few; a stream of random keys must not grow it
            _structural_memo[key] = known
    return known


class Redactor:
    """Redacts strings and JSON-like values; one instance per run, so the
    numbering of replacements is stable within that run."""

    def __init__(self, *, patterns: Iterable[str] = (), allow: Iterable[str] = (), pii: bool = True) -> None:
        self.custom = [re.compile(p) for p in patterns]
        self.allow = [re.compile(a) for a in allow]
        self.pii = pii
        self.counts: Counter[str] = Counter()
        self._numbers: dict[str, dict[str, int]] = {}
        self._users: set[str] = set()
        self._bare_users: re.Pattern | None = None
        self._learned: tuple[str, ...] = ()
        self._cache: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._plans: tuple[dict[str, int], dict[str, int]] = ({}, {})  # by keep_ids
        # by keep_ids: the keys of a dict, in order -> its keys that are
        # neither skipped nor checked in full (a tuple, in order), or
        # _MIXED when one is checked in full, or _WHOLE for dicts read as
        # a whole
        self._shapes: tuple[dict[tuple, Any], dict[tuple, Any]] = ({}, {})
        self._generation = 0  # counts _clear_cache calls
        self._cache_chars = 0
        self._depth = 0  # nesting of decoded payloads being judged
        self._join_wait = 0  # batches to screen text by text before trying a join again
        self._join_backoff = 1  # the wait after the next join with a hit
        self._printed = 0  # strings still to come that may be the output of a command printing a credential

    # -- replacements -------------------------------------------------------

    def token(self, kind: str, secret: str) -> str:
        numbers = self._numbers.setdefault(kind, {})
        number = numbers.get(secret)
        if number is None:
            number = numbers[secret] = len(numbers) + 1
        return f"[REDACTED:{kind}#{number}]"

    def _allowed(self, secret: str) -> bool:
        return any(a.search(secret) for a in self.allow)

    # -- detection ----------------------------------------------------------

    def find(self, text: str, lower: str | None = None, runs: list[tuple[int, int]] | None = None) -> list[tuple[int, int, str]]:
        """Non-overlapping (start, end, kind) findings in ``text``, in order
        (``lower`` and ``runs``: see :meth:`_screened`, computed when absent)."""
        taken = _Covered()
        if "[REDACTED:" in text:
            for m in TOKEN.finditer(text):
                taken.add(*m.span())
        for start, end in rules.public_block_spans(text):
            taken.add(start, end)
        found: list[tuple[int, int, str]] = []

        def offer(spans: Iterable[tuple[int, int, str]], check=None) -> None:
            for start, end, kind in spans:
                if end <= start:
                    continue
                if taken.overlaps(start, end):
                    continue
                secret = text[start:end]
                if check is not None and (check(secret, kind) if check is _context_placeholder else check(secret)):
                    continue
                if self.allow and self._allowed(secret):
                    continue
                taken.add(start, end)
                found.append((start, end, kind))

        offer(rules.private_key_spans(text))
        if "base64," in text:
            for start, end, decoded in blobs.data_uris(text):
                kind = self._decoded_kind(decoded) if decoded is not None else None
                if kind is not None:
                    offer(((start, end, kind),))
                else:
                    taken.add(start, end)  # an image, a font, a text with no secret: data
        for pattern in self.custom:
            offer(_custom_spans(pattern, text))
        if lower is None:
            lower = _lower(text)
        if runs is None:
            runs = screen.token_runs(text)
        offer(rules.vendor_spans(text, runs), _vendor_placeholder)
        offer(cards.card_spans(text))
        present = rules.context_triggers(lower)
        offer(rules.context_spans(text, lower, present), _context_placeholder)
        if "cookie" in lower or ("curl" in lower and " -b" in lower):
            offer(rules.cookie_spans(text, lower), keywords.is_placeholder)
        offer(keywords.assignment_spans(text, lower))
        offer(keywords.name_value_spans(text, lower))
        if "{" in text:
            offer(keywords.label_block_spans(text, lower))
        if "</" in text:
            offer(keywords.element_spans(text))
        if keywords.prose_possible(text):
            offer(keywords.prose_secret_spans(text, lower), keywords.is_placeholder)
        if keywords.table_possible(text, lower):
            offer(keywords.table_spans(text, lower))
        if runs:
            offer(keywords.chain_key_spans(text, lower, runs))
        if runs and (any(noun in lower for noun in keywords.PHRASE_NOUNS) or lower.startswith("pat")):
            offer(keywords.phrase_spans(text, lower, runs))
        if self.pii:
            offer(self._home_spans(text))
            offer(pii.email_spans(text))
            offer(pii.ip_spans(text))
        if runs and len(runs) == 1:
            alone = entropy.alone_span(text)
            if alone is not None and entropy.alone_is_secret(text[alone[0] : alone[1]]):
                # judged as the entropy layer's runs are: base64 of a file is data
                offer(self._judged(text, ((alone[0], alone[1], "high-entropy"),)))
        if runs:
            offer(self._judged(text, entropy.entropy_spans(text, entropy.url_spans(text), runs)))
        if len(text) <= screen.ALONE_TEXT_MAX:
            password = entropy.alone_password_span(text)
            if password is not None:
                offer(((password[0], password[1], "password"),))
        if self.pii and self._bare_users is not None:
            offer((m.start(), m.end(), "username") for m in self._bare_users.finditer(text))
        found.sort()
        return found

    def _judged(self, text: str, spans: Iterable[tuple[int, int, str]]) -> Iterator[tuple[int, int, str]]:
        """Entropy findings judged by what they decode to (:mod:`.blobs`):
        data is kept, encoded text goes only when it holds a secret (its
        encoded form is replaced), and long opaque runs with no context are
        data too (protobufs, ciphertexts, test vectors)."""
        for start, end, kind in spans:
            value = text[start:end]
            if len(value) >= _JUDGE_MIN:
                verdict, decoded = blobs.judge(value)
                if verdict == blobs.OPAQUE and value[0] in "+/-_":
                    verdict, decoded = blobs.judge(value[1:])  # a diff's "+", a path's "/"
                if verdict == blobs.DATA:
                    continue
                if verdict == blobs.TEXT:
                    inner = self._decoded_kind(decoded)
                    if inner is not None:
                        yield start, end, inner
                    continue
                if len(value) > _OPAQUE_MAX:
                    continue
            yield start, end, kind

    def _decoded_kind(self, decoded: str | None) -> str | None:
        """The kind of the first secret in a decoded payload, if any."""
        if not decoded or self._depth >= 2:
            return None
        if _USER_PASS.match(decoded):
            return "basic-auth"
        self._depth += 1
        try:
            findings = self.find(decoded)
        finally:
            self._depth -= 1
        return findings[0][2] if findings else None

    def _home_spans(self, text: str):
        for start, end, user in pii.home_users(text):
            if user not in self._users:
                self._users.add(user)
                if pii.learnable(user):
                    self._bare_users = pii.bare_user_pattern(self._users)
                    self._learned = tuple(u for u in self._users if pii.learnable(u))
                    self._clear_cache()  # strings seen before may hold the name
            yield start, end, "username"

    # -- strings ------------------------------------------------------------

    def redact_text(self, text: str) -> str:
        """``text`` with every finding replaced by its tag."""
        length = len(text)
        if length < _MIN_TEXT:
            return text
        # long strings are never cached: looking them up would hash them
        cached = self._cache.get(text) if length <= _CACHE_MAX_TEXT else None
        if cached is not None:
            if self._printed and printers.is_output(text):
                self._printed = 0  # an output seen before: the command's output
            result, kinds = cached
            if kinds:
                counts = self.counts
                for kind in kinds:  # cheaper than Counter.update for a few items
                    counts[kind] += 1
            return result
        if self._printed:
            self._printed -= 1
            span = printers.printed_secret(text) if length <= entropy.ALONE_MAX + 16 else None
            if span is None and printers.is_output(text):
                self._printed = 0  # the command's output, and no credential alone in it
            if span is not None:
                self._printed = 0
                start, end = span
                self.counts["secret"] += 1
                result = text[:start] + self.token("secret", text[start:end]) + text[end:]
                if length <= _CACHE_MAX_TEXT:
                    # the copies of the output (Claude Code's stdout) come later
                    self._cache[text] = (result, ("secret",))
                    self._cache_chars += len(text) + len(result)
                return result
        head = text[0]
        if head.isspace():
            # indented code and output: JSON only when its first visible
            # character opens an object or an array (no copy of the text)
            head = text[:32].lstrip()[:1] or text.lstrip()[:1]
        plain = head not in ("{", "[") and not self.custom
        match = screen.MATCH
        if plain and match is not None and text.isascii():
            # the common case: one RE2 pass answers every question, also
            # whether there are codes or escapes to take out first
            encoded = text.encode()
            hits = match(encoded)
            wants_normal = bool(hits) and screen.NORMAL_INDEX in hits
            if length <= printers.COMMAND_MAX and (" " in text or "?" in text) and printers.is_printer(text):
                self._printed = printers.WINDOW
        else:
            hits = None
            if length <= printers.COMMAND_MAX and (" " in text or "?" in text) and printers.is_printer(text):
                self._printed = printers.WINDOW
            wants_normal = ("\x1b" in text or "\\" in text or "\x9b" in text or "&" in text or "%" in text) and normalise.needed(text)
        if wants_normal:
            # JSON is decoded by parsing it (its escapes are its own); other
            # text has its codes and escapes taken out for matching
            done = self._redact_embedded_json(text) if text.lstrip()[:1] in ("{", "[") else None
            if done is None:
                done = self._redact_normalised(text)
            if done is not None:
                if done[1]:
                    self.counts.update(done[1])
                return done[0]
        if plain:
            if hits is not None and not hits and not self._learned and (length > screen.ALONE_TEXT_MAX or not screen.alone_password_possible(text)):
                if length > _CACHE_MAX_TEXT:
                    return text  # RE2 saw nothing (the usual answer) in a long text
                result, kinds = text, ()
            else:
                verdict = screen.quick_might_hold(text, pii_on=self.pii, users=self._learned, hits=hits)
                result, kinds = (text, ()) if verdict is False else self._redact_plain(text, verdict)
        else:
            result, kinds = self._redact_uncached(text)
        if kinds:
            self.counts.update(kinds)
        if length > _CACHE_MAX_TEXT or self._printed == printers.WINDOW:
            # a command printing a credential is not cached: each time it
            # is seen, the strings after it are judged as its output
            return result
        if self._cache_chars + len(text) > _CACHE_CHARS:
            self._clear_cache()
        self._cache[text] = (result, kinds)
        self._cache_chars += len(text) + len(result)
        return result

    def screened_clear(self, texts: list) -> list[bool] | None:
        """For each of ``texts``, True when it is a string that
        :meth:`redact_text` would return as it is, counting nothing, unless
        it holds a username learned after this call (``_learned``): a
        short one it has cached so, or one of those it hands to the RE2
        screen when the screen finds nothing in all of them joined
        (:func:`.screen.join_is_clear`).  None when this is not tried for
        these texts: RE2 is not in use, or recent joins had hits."""
        if self.custom or screen.MATCH is None:
            return None
        # A join with a hit tells nothing about its texts, which are then
        # screened one by one as well: after one, the next joins are tried
        # ever more rarely (1, 2, 4 ... 64 batches apart), so a stream where
        # hits are common costs little more than screening each text alone.
        if self._join_wait:
            self._join_wait -= 1
            return None
        flags = [False] * len(texts)
        cache = self._cache
        where = []  # the indices of the texts to screen
        for index, text in enumerate(texts):
            # the conditions of redact_text's RE2 path: long enough, ASCII,
            # and not JSON by its first visible character
            if text.__class__ is not str or len(text) < _MIN_TEXT or not text.isascii():
                continue
            if text[0] in _HEADS_AND_SPACES and not _plain_indented(text):
                continue
            if len(text) <= screen.ALONE_TEXT_MAX and len(text.split()) == 1:
                continue  # a token alone: a pattern anchored to a whole text looks for passwords there
            # Repeated short strings are answered by the cache, as
            # redact_text would answer them: kept when cached unchanged,
            # else looked at.
            if len(text) <= _CACHE_MAX_TEXT:
                known = cache.get(text)
                if known is not None:
                    if not known[1] and known[0] == text:
                        flags[index] = True
                    continue
            where.append(index)
        if where:
            clear = screen.join_is_clear([texts[index] for index in where])
            if clear is None:
                return None
            if clear:
                for index in where:
                    flags[index] = True
                self._join_backoff = 1
            else:
                self._join_wait = self._join_backoff
                self._join_backoff = min(2 * self._join_backoff, _JOIN_BACKOFF_MAX)
        return flags

    def _redact_normalised(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """Terminal codes and ``\\uXXXX`` escapes taken out for matching
        (:mod:`.normalise`); each finding replaces the original range it
        came from, codes inside it included, with the tag of the clean
        value, so a coloured copy and a plain copy get the same tag."""
        normal = normalise.normalise(text)
        if normal is None:
            return None
        clean, origin = normal
        if not clean.strip():
            return text, ()
        findings = self._found_in(clean, origin, text)
        if "%" in text and normalise.PERCENT.search(text):
            # A percent escape is a character of a nested URL or of a
            # query value (decoded above), or part of a password in a
            # URL's userinfo, where "%40" decoded would end it: the
            # findings of named and structured layers in the text with its
            # escapes kept come first, then those of the decoded text, then
            # runs judged by their entropy alone in the text as it is.
            kept = normalise.normalise(text, percent=False)
            as_is = self._found_in(*kept, text) if kept is not None else [(start, end, kind, text[start:end]) for start, end, kind in self.find(text)]
            findings = _merged(_merged([f for f in as_is if f[2] != "high-entropy"], findings), [f for f in as_is if f[2] == "high-entropy"])
        if not findings:
            return text, ()
        parts: list[str] = []
        kinds: list[str] = []
        position = 0
        for first, last, kind, secret in findings:
            if first < position:
                continue
            parts.append(text[position:first])
            parts.append(self.token(kind, secret))
            kinds.append(kind)
            position = last
        parts.append(text[position:])
        return "".join(parts), tuple(kinds)

    def _found_in(self, clean: str, origin: normalise.Origin, text: str) -> list[tuple[int, int, str, str]]:
        """Findings in a normalised text: (start, end) in the original
        ``text``, kind, the clean secret."""
        return [(*normalise.original_span(origin, start, end, text), kind, clean[start:end]) for start, end, kind in self.find(clean)]

    def _clear_cache(self) -> None:
        self._cache.clear()
        for plans in self._plans:
            plans.clear()
        for shapes in self._shapes:
            shapes.clear()
        self._generation += 1
        self._cache_chars = 0

    def _redact_uncached(self, text: str) -> tuple[str, tuple[str, ...]]:
        embedded = self._redact_embedded_json(text)
        if embedded is not None:
            return embedded
        return self._redact_plain(text)

    def _redact_plain(self, text: str, verdict: bool | None = None) -> tuple[str, tuple[str, ...]]:
        screened = self._screened(text, verdict)
        if screened is None:
            return text, ()
        findings = self.find(text, *screened)
        if not findings:
            return text, ()
        parts: list[str] = []
        position = 0
        for start, end, kind in findings:
            parts.append(text[position:start])
            parts.append(self.token(kind, text[start:end]))
            position = end
        parts.append(text[position:])
        return "".join(parts), tuple(kind for _, _, kind in findings)

    def _screened(self, text: str, verdict: bool | None = None) -> tuple[str, list[tuple[int, int]]] | None:
        """None when no detector can find anything in ``text`` (most
        strings); else what :meth:`find` needs, computed once.  ``verdict``:
        the RE2 screen's answer when the caller has it already."""
        if verdict is None and not self.custom:
            verdict = screen.quick_might_hold(text, pii_on=self.pii, users=self._learned)
        if verdict is False:
            return None
        lower = _lower(text)
        raw = screen.one_byte_each(text)
        runs = screen.token_runs(text, raw)
        if self.custom or verdict:
            return lower, runs
        if screen.might_hold(text, lower, raw, runs, pii_on=self.pii, users=self._learned):
            return lower, runs
        return None

    def _redact_embedded_json(self, text: str) -> tuple[str, tuple[str, ...]] | None:
        """A string that is itself a JSON object or array (tool arguments,
        serialized outputs) is parsed, redacted value by value and written
        back, so escapes never split a secret.  None when it is not JSON."""
        head, tail = text[0], text[-1]
        if head not in "{[" or tail not in "}]":
            # copies of the string only when it starts or ends with a space
            if not (head.isspace() or tail.isspace()):
                return None
            head, tail = text.lstrip()[:1], text.rstrip()[-1:]
            if head not in ("{", "[") or tail not in ("}", "]"):
                return None
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(value, (dict, list)):
            return None
        snapshot = Counter(self.counts)
        redacted = self.redact_value(value)
        kinds = tuple((self.counts - snapshot).elements())
        self.counts = snapshot  # the caller counts these kinds once
        if redacted is value:
            return text, ()
        return _dump_like(redacted, text), kinds

    # -- values -------------------------------------------------------------

    def redact_value(self, value: Any, key: str | None = None, *, keep_ids: bool = False) -> Any:
        """A copy of a JSON-like value with secrets replaced; the very same
        object when nothing changed (cheap to test with ``is``).  ``key`` is
        the dict key the value sits under (its name may say "password");
        with ``keep_ids``, identifier-like keys (``uuid``, ``*_id``, ...)
        are left alone at every depth."""
        kind_of_value = type(value)
        if kind_of_value is str or isinstance(value, str):
            if key is not None and value and keywords.classify_name(key) is not None:
                kind = keywords.secret_kind_for_field(key, value)
                if kind is not None and not TOKEN.fullmatch(value) and not (self.allow and self._allowed(value)):
                    self.counts[kind] += 1
                    return self.token(kind, value)
            return self.redact_text(value)
        if kind_of_value is dict or isinstance(value, dict):
            return self.redact_dict(value, keep_ids)
        if kind_of_value is list or isinstance(value, list):
            out: list | None = None  # a copy only once an item changes
            cache = self._cache
            flag = None  # the secret a password option before this item names
            for index, item in enumerate(value):
                if type(item) is str:
                    if flag is not None:
                        if item.startswith("-") or (flag == "-p" and not _short_option_password(item)):
                            kind = None
                        else:
                            kind = keywords.secret_kind_for_field("password" if flag == "-p" else flag, item)
                        flag = None
                        if kind is not None and not TOKEN.fullmatch(item) and not (self.allow and self._allowed(item)):
                            self.counts[kind] += 1
                            if out is None:
                                out = list(value)
                            out[index] = self.token(kind, item)
                            continue
                    if item[:1] == "-" and len(item) <= 40:
                        flag = _argument_flag(item, value)
                    size = len(item)
                    if size < _MIN_TEXT:
                        continue
                    known = cache.get(item) if size <= _CACHE_MAX_TEXT else None
                    if known is not None and not known[1]:
                        continue
                    new = self.redact_text(item)
                else:
                    new = self.redact_value(item, keep_ids=keep_ids)
                if new is not item:
                    if out is None:
                        out = list(value)
                    out[index] = new
            return value if out is None else out
        return value

    def _key_plan(self, key: str, keep_ids: bool) -> int:
        """How a dict key is handled, memoized per run: skipped (an
        identifier), plain (no secret name, nothing to redact in the key
        itself) or checked in full."""
        plans = self._plans[keep_ids]
        plan = plans.get(key)
        if plan is None:
            if keep_ids and _is_structural_key(key):
                plan = _SKIP
            elif keywords.classify_name(key) is not None:
                plan = _FULL
            elif _is_structural_key(key):
                plan = _ID
            elif len(key) < _MIN_TEXT:
                plan = _PLAIN
            else:
                known = self._cache.get(key)
                kinds = known[1] if known is not None else self._redact_uncached(key)[1]
                plan = _FULL if kinds else _PLAIN
            if len(plans) < 4096 and len(key) <= _MEMO_KEY_CHARS:
                plans[key] = plan
        return plan

    def redact_dict(self, value: dict, keep_ids: bool = False) -> dict:
        """:meth:`redact_value` for a dict (``keep_ids``: as in
        :meth:`redact_metadata`)."""
        # Transcripts repeat a few dict shapes (metadata, usage, tool
        # inputs) thousands of times: once a shape's key plans are known,
        # only the keys that are not skipped are visited, with no plan
        # look-up per key.  The first dict of a shape takes the general
        # path, which decides the plans in key order, as every dict did.
        if len(value) > _SHAPE_MAX_KEYS:
            return self._redact_dict(value, keep_ids)
        shape = tuple(value)
        fields = self._shapes[keep_ids].get(shape)
        if fields is None:
            return self._redact_dict_learning(value, shape, keep_ids)
        if fields.__class__ is tuple:
            return self.redact_fields(value, fields, keep_ids) if fields else value
        if fields is _WHOLE:
            return self._redact_dict_full(value, keep_ids)
        return self._redact_dict(value, keep_ids)

    def redact_fields(self, value: dict, keys: tuple[str, ...], keep_ids: bool) -> dict:
        """:meth:`redact_dict` for a dict of a known shape whose keys are
        plain or skipped, given the plain ones (``_shapes``)."""
        out: dict | None = None
        cache = self._cache
        generation = self._generation
        for key in keys:
            item = value[key]
            kind = type(item)
            # numbers first: counters and flags fill usage and metadata
            if kind in _NOT_TEXT:
                continue
            if kind is str:
                size = len(item)
                if size < _MIN_TEXT:
                    continue
                if size <= _CACHE_MAX_TEXT:
                    known = cache.get(item)
                    if known is not None and not known[1]:
                        continue
                new = self.redact_text(item)
            elif kind is dict:
                new = self.redact_dict(item, keep_ids)
            else:
                new = self.redact_value(item, key, keep_ids=keep_ids)
            if new is not item:
                if out is None:
                    out = dict(value)
                out[key] = new
            if self._generation != generation:
                # A value of this dict taught a username, which may sit in
                # a later key: the keys left are planned afresh, as the
                # general path does (only a call can teach one).
                rest = keys[keys.index(key) + 1 :]
                return self._redact_items(value, out, ((name, value[name]) for name in rest), keep_ids)
        return value if out is None else out

    def _redact_named(self, value: dict, out: dict | None, key: str, item: Any, keep_ids: bool) -> dict | None:
        """Redact ``value[key]`` under a key that is checked in full (its
        name may say "password", or the key itself holds a secret); returns
        the copy of ``value`` being built, made here on the first change."""
        new_key = self.redact_text(key) if len(key) >= _MIN_TEXT else key
        new = self.redact_value(item, key, keep_ids=keep_ids)
        if new is not item or new_key is not key:
            if out is None:
                out = dict(value)
            if new_key is not key:
                del out[key]
            out[new_key] = new
        return out

    def _redact_dict_learning(self, value: dict, shape: tuple, keep_ids: bool) -> dict:
        """The general path for a dict of a new shape; then the shape is
        remembered, unless redacting cleared the plans (a username was
        learned) or some key's plan was not memoized."""
        generation = self._generation
        result = self._redact_dict(value, keep_ids)
        shapes = self._shapes[keep_ids]
        if self._generation != generation or len(shapes) >= 4096 or sum(map(len, shape)) > 4 * _MEMO_KEY_CHARS:
            return result
        if "value" in value or "Value" in value or "kty" in value:
            shapes[shape] = _WHOLE
            return result
        plans = self._plans[keep_ids]
        fields = []
        for key in shape:
            plan = plans.get(key)
            if plan is None:
                return result
            if plan == _FULL or plan == _ID:
                shapes[shape] = _MIXED
                return result
            if plan == _PLAIN:
                fields.append(key)
        shapes[shape] = tuple(fields)
        return result

    def _redact_dict(self, value: dict, keep_ids: bool) -> dict:
        if "value" in value or "Value" in value or "kty" in value:
            return self._redact_dict_full(value, keep_ids)
        return self._redact_items(value, None, value.items(), keep_ids)

    def _redact_items(self, value: dict, out: dict | None, items: Iterable[tuple[str, Any]], keep_ids: bool) -> dict:
        """Redact the (key, item) pairs ``items`` of ``value`` by their key
        plans; ``out``: the copy of ``value`` being built, if any."""
        plans = self._plans[keep_ids]
        cache = self._cache
        for key, item in items:
            plan = plans.get(key)
            if plan is None:
                plan = self._key_plan(key, keep_ids)
            if plan == _SKIP:
                continue
            if plan == _FULL:
                out = self._redact_named(value, out, key, item, keep_ids)
                continue
            kind = type(item)
            if plan == _ID and kind is str:
                new = self._redact_identifier(item)
                if new is not item:
                    if out is None:
                        out = dict(value)
                    out[key] = new
                continue
            if kind is str:
                size = len(item)
                if size < _MIN_TEXT:
                    continue
                known = cache.get(item) if size <= _CACHE_MAX_TEXT else None
                new = item if known is not None and not known[1] else self.redact_text(item)
            elif item is None or kind in _SCALARS:
                continue
            else:
                new = self.redact_value(item, key, keep_ids=keep_ids)
            if new is not item:
                if out is None:
                    out = dict(value)
                out[key] = new
        return value if out is None else out

    def _redact_dict_full(self, value: dict, keep_ids: bool) -> dict:
        out: dict | None = None
        paired = _name_value_secret(value) if ("value" in value or "Value" in value) else None
        jwk = "kty" in value
        cache = self._cache
        for key, item in value.items():
            if keep_ids and (_structural_memo.get(key) or (key not in _structural_memo and _is_structural_key(key))):
                continue
            if paired is not None and key in ("value", "Value") and isinstance(item, str):
                new: Any = self._field_token(paired, item)
            elif jwk and isinstance(item, str) and key in _JWK_PRIVATE:
                new = self._field_token("private-key", item) if len(item) >= 16 else item
            elif jwk and key in _JWK_PUBLIC:
                continue
            elif item is None or type(item) in _SCALARS:
                new = item
            elif type(item) is str and keywords.classify_name(key) is None:
                # the common case, inlined: a plain string under a plain key
                if len(item) < _MIN_TEXT:
                    new = item
                else:
                    known = cache.get(item) if len(item) <= _CACHE_MAX_TEXT else None
                    new = item if known is not None and not known[1] else self.redact_text(item)
            else:
                new = self.redact_value(item, key, keep_ids=keep_ids)
            if len(key) < _MIN_TEXT:
                new_key = key
            else:
                # a key seen before with nothing in it costs one lookup, no call
                known = cache.get(key)
                new_key = key if known is not None and not known[1] else self.redact_text(key)
            if new is not item or new_key is not key:
                if out is None:
                    out = dict(value)
                if new_key is not key:
                    del out[key]
                out[new_key] = new
        return value if out is None else out

    def _redact_identifier(self, text: str) -> str:
        """A value under an identifier's key (``"id"``, ``"VersionId"``,
        ``"etag"``) in a parsed payload: redacted by every layer but
        entropy, whose random-looking runs are what ids look like (S3
        version ids, cuids, request ids); not cached, as the same string
        elsewhere is judged in full."""
        if len(text) < _MIN_TEXT:
            return text
        known = self._cache.get(text) if len(text) <= _CACHE_MAX_TEXT else None
        if known is not None and not known[1]:
            return text
        screened = self._screened(text)
        if screened is None:
            return text
        findings = [f for f in self.find(text, *screened) if f[2] != "high-entropy"]
        if not findings:
            return text
        parts: list[str] = []
        position = 0
        for start, end, kind in findings:
            parts.append(text[position:start])
            parts.append(self.token(kind, text[start:end]))
            self.counts[kind] += 1
            position = end
        parts.append(text[position:])
        return "".join(parts)

    def _field_token(self, kind: str, item: str) -> str:
        if TOKEN.fullmatch(item) or keywords.is_placeholder(item) or (self.allow and self._allowed(item)):
            return item
        self.counts[kind] += 1
        return self.token(kind, item)

    def redact_metadata(self, value: Any) -> Any:
        """Like :meth:`redact_value`, keeping identifier-like keys untouched."""
        return self.redact_value(value, keep_ids=True)

    def redact_json_line(self, line: str | bytes) -> bytes:
        """One line of any JSONL transcript (Claude Code, Codex, ...) redacted
        in place: parsed, walked with identifiers kept, written back compact.
        The line is returned unchanged when nothing was found."""
        record = orjson.loads(line)
        redacted = self.redact_metadata(record)
        if redacted is record:
            return line.encode() if isinstance(line, str) else bytes(line)
        return orjson.dumps(redacted)


# First characters that need a second look: JSON opens with them, and
# indented text is judged by its first visible character.
_HEADS_AND_SPACES = frozenset("{[" + "".join(chr(c) for c in range(128) if chr(c).isspace()))


# An argument list (a tool call's args, argv in a log): an option naming a
# secret, and the item after it its value.  "-p" is a password only for the
# tools whose -p is one (mkdir -p, ssh -p, docker run -p are not).
_ARGUMENT_FLAG = lazy(r"--?(?!no-|ask-|prompt-|skip-|reset-|change-|forgot-|show-)((?:[a-z0-9]+-){0,3}(?:password|passwd|passphrase|pass|token|secret|api-key|apikey))")
_P_IS_PASSWORD = frozenset(("mysql", "mysqldump", "mysqladmin", "mariadb", "sshpass", "mongosh", "mongo", "mongodump", "mongorestore", "cqlsh", "sqlcmd", "login"))


def _short_option_password(value: str) -> bool:
    # gh auth login -p https: a protocol; a password has eight characters or a digit or a symbol
    return len(value) >= 8 or not value.isalpha()


def _argument_flag(item: str, items: list) -> str | None:
    if item == "-p":
        return "-p" if any(type(other) is str and other in _P_IS_PASSWORD for other in items) else None
    match = _ARGUMENT_FLAG.fullmatch(item)
    return match.group(1) if match is not None else None


def _plain_indented(text: str) -> bool:
    """For a text whose first character is in _HEADS_AND_SPACES: whether
    redact_text takes it for plain text (see its ``head``)."""
    head = text[0]
    if head.isspace():
        head = text[:32].lstrip()[:1] or text.lstrip()[:1]
    return head != "{" and head != "["


def _lower(text: str) -> str:
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


class _Covered:
    """The parts of a text findings already cover, as disjoint sorted
    ranges: whether a new span overlaps one is two bisections, so a text
    with tens of thousands of findings (a ``git log`` of emails, a list of
    addresses) costs time in proportion to them, not to their square."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect_right(self.starts, start) - 1
        if i >= 0 and self.ends[i] > start:
            return True
        return i + 1 < len(self.starts) and self.starts[i + 1] < end

    def add(self, start: int, end: int) -> None:
        if end <= start:
            return
        # the ranges this one overlaps or touches are merged into it
        lo = bisect_left(self.ends, start)
        hi = bisect_right(self.starts, end)
        if lo < hi:
            start = min(start, self.starts[lo])
            end = max(end, self.ends[hi - 1])
        self.starts[lo:hi] = [start]
        self.ends[lo:hi] = [end]


def _merged(first: list[tuple[int, int, str, str]], second: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """The findings of ``first`` and those of ``second`` that overlap none
    of them, in order."""
    taken = _Covered()
    for start, end, _, _ in first:
        taken.add(start, end)
    return sorted(first + [f for f in second if f[1] > f[0] and not taken.overlaps(f[0], f[1])])


def _custom_spans(pattern: re.Pattern, text: str):
    for match in pattern.finditer(text):
        group = "s" if "s" in pattern.groupindex else (1 if pattern.groups else 0)
        start, end = match.span(group)
        if start >= 0:
            yield start, end, "custom"


def _name_value_secret(value: dict) -> str | None:
    """``{"name": "DB_PASSWORD", "value": "..."}`` (k8s env, CI variables)."""
    if "value" not in value and "Value" not in value:
        return None
    for name_key in ("name", "Name", "key", "Key"):
        name = value.get(name_key)
        if isinstance(name, str) and keywords.classify_name(name) == "strong":
            return keywords.kind_for_name(name)
    return None


def _dump_like(value: Any, original: str) -> str:
    """Serialize ``value`` in the style of ``original`` (compact, spaced or
    indented), so a redacted JSON string still looks like its source."""
    import json  # rarely needed: kept out of the start-up of every run
    if "\n" in original.strip():
        match = re.search(r"\n([ \t]+)\S", original)
        indent = match.group(1) if match else 2
        return json.dumps(value, ensure_ascii=False, indent=indent)
    if re.search(r"\"\s*:\s|,\s\"", original):
        return json.dumps(value, ensure_ascii=False)
    return orjson.dumps(value).decode()
