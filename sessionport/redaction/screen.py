"""A cheap first look at a string: can any detector find something in it?

Most strings of a transcript (prose, code, test output) hold nothing to
redact.  Running every layer on them costs a dozen regex scans per string;
this module answers "maybe" or "no" with a few scans that run at C speed:
substring tests, one ``bytes.translate`` and regexes that start with a rare
literal character (the regex engine skips ahead to it).  A "no" must be
certain, so every test here is a superset of the trigger of one layer; a
"maybe" sends the string through the full detectors unchanged, so screening
never changes what is found, only how fast nothing is found.

Layer by layer (see :mod:`.engine`):

- private keys: their marker literals;
- vendor tokens and high-entropy strings: they live in runs of >= 20 token
  characters (found with a translate table and a substring search), and a
  run must hold a vendor trigger literal or an entropy candidate;
- structural contexts: the rule triggers, grouped by the ``=`` or ``-`` they
  contain (one anchored scan per group) plus a few word tests;
- keyword assignments: a keyword inside a name that an operator follows,
  searched backwards from the operators in the reversed text (operators are
  rarer than letters, and a regex anchored on one literal skips ahead);
- personal data: home-directory markers, ``@domain``, dotted quads and
  colon groups, learned usernames.
"""

from __future__ import annotations

import codecs
import re

from sessionport.redaction import entropy, keywords, normalise, pii, rules
from sessionport.lazy import lazy

_RUN_MIN = 20
# Token characters (the class of :data:`rules._TOKEN_RUN`) -> "a", others -> " ".
_RUN_TABLE = bytes(
    ord("a") if chr(c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+/=:~-" else ord(" ")
    for c in range(256)
)
_RUN_NEEDLE = b"a" * _RUN_MIN

# Lower-cased text for the assignment screen: the characters that end an
# operator (= : >) become "=", quotes '"', whitespace " ", non-ASCII "?".
_OP_TABLE = bytearray(range(256))
for _c in b"=:>,":
    _OP_TABLE[_c] = ord("=")
for _c in b"\"'`":
    _OP_TABLE[_c] = ord('"')
for _c in b" \t\n\r\f\v\x1c\x1d\x1e\x1f":
    _OP_TABLE[_c] = ord(" ")
for _c in range(ord("A"), ord("Z") + 1):
    _OP_TABLE[_c] = _c + 32
_OP_TABLE = bytes(_OP_TABLE)
_KEYWORDS_REVERSED = b"|".join(k[::-1].encode() for k in keywords.KEYWORDS)
# Read backwards from an operator: optional spaces, quotes, escapes and an
# arrow's dash, then a name (<= 80 name characters) holding a keyword.  This
# is looser than keywords._OPERATOR_VALUE, so it never misses one.
_ASSIGN_AT_OP = lazy(rb"=[=\" \\\]-]{0,16}(?:[a-z0-9_.-]{0,80}?(?:" + _KEYWORDS_REVERSED + rb")|tap_)")
# The "name <whitespace> 'value'" form (strong names): quote, escapes, a space.
_ASSIGN_AT_QUOTE = lazy(rb"\"\\{0,3} [\" \\]{0,16}[a-z0-9_.-]{0,80}?(?:" + _KEYWORDS_REVERSED + rb")")

_CONTEXT_TRIGGERS = {t for _, _, triggers in rules.CONTEXT_RULES for t in triggers}
_EQ_TRIGGERS = sorted(t for t in _CONTEXT_TRIGGERS if t.endswith("="))
_DASH_TRIGGERS = sorted(t for t in _CONTEXT_TRIGGERS if "-" in t and not t.endswith("="))
_WORD_TRIGGERS = sorted(t for t in _CONTEXT_TRIGGERS if t not in _EQ_TRIGGERS and t not in _DASH_TRIGGERS)
# "=" preceded by a trigger: the literal "=" leads, lookbehinds confirm.
_EQ_SCAN = lazy("=(?:" + "|".join(f"(?<={re.escape(t)})" for t in _EQ_TRIGGERS) + ")")
# "-" followed by the rest of a trigger that holds a dash.
_DASH_SCAN = lazy("-(?:" + "|".join(sorted({re.escape(t[t.index("-") + 1 :]) for t in _DASH_TRIGGERS})) + ")")
_PRIVATE_MARKERS = ("PRIVATE KEY", "PuTTY-User-Key-File", "LS0tLS1CRUdJTi")
_HOME_MARKERS = ("Users", "/home/", "Documents and Settings")
_V6_HINT = lazy(r":[0-9a-fA-F]{0,4}:")
# A superset of cards.CANDIDATE: 4 digits, 4 more after an optional
# separator, then at least 4 more digits or separators.
_CARD_HINT = lazy(r"[0-9]{4}[ -]?[0-9]{4}[0-9 -]{4}")
_PHRASE_HINT = lazy(r"(?i)token|key|secret|passw|passphrase|passcode|credential|\bpat")
_TILDE_HOME = lazy(r"~[a-z_][a-z0-9._-]{0,31}/")


def _one_byte_each(error: UnicodeEncodeError) -> tuple[str, int]:
    # Keeps positions (one byte per character) and keeps whitespace visible:
    # an operator may be any Unicode whitespace (``\\s``).
    chunk = error.object[error.start : error.end]
    return "".join(" " if c.isspace() else "?" for c in chunk), error.end


codecs.register_error("sessionport.screen", _one_byte_each)


def one_byte_each(text: str) -> bytes:
    """``text`` as bytes with one byte per character (non-ASCII whitespace
    as a space, other non-ASCII as ``?``), so byte offsets are positions."""
    return text.encode() if text.isascii() else text.encode("ascii", "sessionport.screen")


def token_runs(text: str, raw: bytes | None = None) -> list[tuple[int, int]]:
    """Spans of the runs of >= 20 token characters, like
    :func:`rules.token_runs` but by table lookup and substring search."""
    if len(text) < _RUN_MIN:
        return []
    if raw is None:
        raw = one_byte_each(text)
    mapped = raw.translate(_RUN_TABLE)
    runs = []
    find = mapped.find
    position = find(_RUN_NEEDLE)
    while position >= 0:
        end = find(b" ", position + _RUN_MIN)
        if end < 0:
            end = len(mapped)
        runs.append((position, end))
        position = find(_RUN_NEEDLE, end)
    return runs


def might_hold(text: str, lower: str, raw: bytes, runs: list[tuple[int, int]], *, pii_on: bool, users: tuple[str, ...] = ()) -> bool:
    """False only when no detector of :class:`.engine.Redactor` can find
    anything in ``text`` (``lower``: ASCII-lower-cased, ``raw``: one byte per
    character, ``runs``: :func:`token_runs`)."""
    for marker in _PRIVATE_MARKERS:
        if marker in text:
            return True
    if runs and _runs_hold(text, runs):
        return True
    if len(text) <= _ALONE_TEXT_MAX and alone_password_possible(text):
        return True
    if "=" in lower and _EQ_SCAN.search(lower):
        return True
    if "-" in lower and _DASH_SCAN.search(lower):
        return True
    for trigger in _WORD_TRIGGERS:
        if trigger in lower:
            return True
    if "value" in lower and ("name" in lower or "key" in lower) and keywords._NAME_VALUE.search(lower):
        return True
    if _assignment_possible(raw):
        return True
    if _CARD_HINT.search(text):
        return True
    if " " in text and keywords.SPACED_SCREEN.search(text):
        return True
    if "{" in text and keywords.LABEL_SCREEN.search(text):
        return True
    if keywords.table_possible(text, lower):
        return True
    if keywords.prose_possible(text):
        return True
    if "curl" in lower and (" -b" in lower or "--cookie" in lower):
        return True
    if pii_on:
        for marker in _HOME_MARKERS:
            if marker in text:
                return True
        if "~" in text and _TILDE_HOME.search(text):
            return True
        if "@" in text and pii._AT_DOMAIN.search(text):
            return True
        if "." in text and pii._IPV4_TAIL.search(text):
            return True
        if ("::" in text or text.count(":") >= 5) and _V6_HINT.search(text):
            return True
        for user in users:
            if user in text:
                return True
    return False


def _runs_hold(text: str, runs: list[tuple[int, int]]) -> bool:
    """Whether a vendor rule or the entropy layer can match in ``runs``."""
    joined = "\n".join(text[s:e] for s, e in runs)
    if rules._TRIGGER_FIND.search(joined) or rules._DISCORD_HINT.search(joined) or entropy.RUN.search(joined):
        return True
    if len(runs) == 1 and entropy.alone_span(text) is not None:
        return True  # a token printed alone (see entropy.alone_span)
    # a value named by a credential noun in the text around it (its runs
    # are >= 20 characters, the phrase rule's minimum)
    return _PHRASE_HINT.search(text) is not None


def _assignment_possible(raw: bytes) -> bool:
    mapped = raw.translate(_OP_TABLE)
    has_op = b"=" in mapped
    if not has_op and b'"' not in mapped:
        return False
    backwards = mapped[::-1]
    if has_op and _ASSIGN_AT_OP.search(backwards):
        return True
    return b'"' in mapped and _ASSIGN_AT_QUOTE.search(backwards) is not None


# -- one pass with RE2, when installed ------------------------------------------
#
# google-re2's Set runs many regexes in one DFA pass (~2 ns a character,
# against ~15 for the tests above in Python's ``re``).  Each pattern is a
# superset of one test of :func:`might_hold` written without look-arounds;
# Python's ``\s`` (Unicode whitespace) is spelled out, RE2's is ASCII only.

_SPACE_CHARS = r"\x{9}-\x{d}\x{1c}-\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
_SPACE = "[" + _SPACE_CHARS + "]"


def _spell_spaces(pattern: str) -> str:
    return pattern.replace(r"[^\s", "[^" + _SPACE_CHARS).replace(r"\s", _SPACE)


def _alternation(literals) -> str:
    return "(?:" + "|".join(re.escape(t) for t in sorted(literals)) + ")"


# Dash triggers of the header rule (``x-...-token:``) and of the long-flag
# rule (``--...-token VALUE``) only; see "dash-header" and "dash-flag".
_NAMED_DASH = frozenset(("auth", "secret", "secret ", "token", "token "))

_RE2_PATTERNS: list[tuple[str, str, bool]] = [  # (name, pattern, personal data)
    ("private", _alternation(_PRIVATE_MARKERS), False),
    ("runs", "[A-Za-z0-9_.+/=:~-]{%d}" % _RUN_MIN, False),
    ("words", "(?i)" + _alternation(_WORD_TRIGGERS), False),
    ("eq", "(?i)" + _alternation(t[:-1] for t in _EQ_TRIGGERS) + "=", False),
    ("dash", "(?i)-" + _alternation({t[t.index("-") + 1 :] for t in _DASH_TRIGGERS} - _NAMED_DASH), False),
    # "-token", "-secret", "-auth" are common words in prose and diffs (a
    # removed line starting "token"); the rules they trigger need more: a
    # header's colon, or a long flag's "--" and its "=" or space.
    ("dash-header", r"(?i)(?:api-?key|token|secret|auth)[a-z0-9-]*\\?[\"']?" + _SPACE + "*:", False),
    ("dash-flag", "(?i)--(?:[a-z0-9]+-)*(?:token|secret)[= ]", False),
    # Counted repetitions are unrolled into RE2's program ({1,400} of a
    # Unicode class made the set take 3 ms to compile); "one or more" is a
    # superset of either, wherever it stands in the pattern.
    ("name-value", "(?i)" + _spell_spaces(keywords._NAME_VALUE.pattern).replace("{1,80}", "+").replace("{1,400}", "+"), False),
    (
        "assignment",
        "(?i)" + _alternation(keywords.KEYWORDS) + r"[a-z0-9_.-]*[\\\"'` \t\]]*(?:[:=>]|->|,[ \t]*\\*[\"']|" + _SPACE + r"\\*[\"'])",
        False,
    ),
    # a name ending in "_pat" (GITHUB_PAT=, ado_pat:) and its operator
    ("assignment-pat", r"(?i)_pat[\\\"'` \t\]]*(?:[:=>]|->)", False),
    ("card", _CARD_HINT.pattern, False),
    ("curl-cookie", r"(?i)curl\b.*\s(?:-b|--cookie)", False),
    # what normalise.needed looks for (a superset): ESC, \u, \x1, \033, \e,
    # HTML character references, percent-encoded punctuation
    ("normal", r"\x1b|\\u|\\x1|\\033|\\e|&(?:quot|apos|amp|lt|gt|#)|" + normalise.PERCENT.pattern, False),
    ("table", keywords.TABLE_RE2, False),
    ("label-block", keywords.LABEL_SCREEN.pattern, False),
    ("prose-secret", keywords.PROSE_SCREEN.pattern, False),
    # "not a space" spelled as "not an ASCII space": a superset (a Unicode
    # space is not a space here), compiled and walked at a fraction of the
    # cost of the class of every non-space code point
    ("spaced", keywords.SPACED_SCREEN.pattern.replace(r"[^\s]", r"[^\x{9}-\x{d}\x{1c}-\x{20}]"), False),
    ("home", _alternation(_HOME_MARKERS), True),
    ("tilde-home", _TILDE_HOME.pattern, True),
    ("email", r"@[A-Za-z0-9][A-Za-z0-9.-]*\.[A-Za-z]{2}", True),
    ("ipv4", r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}", True),
    ("ipv6", r":[0-9a-fA-F]{0,4}:", True),
]
_RUNS_INDEX = 1
# A text this short may be a password alone (entropy.alone_password_span):
# the set has no pattern for it (one anchored to a whole text cost every
# text a tenth more of the walk), so a short text of one token is looked
# at in Python, and never screened inside a join.
_ALONE_TEXT_MAX = entropy.PASSWORD_MAX + 32
ALONE_TEXT_MAX = _ALONE_TEXT_MAX


def alone_password_possible(text: str) -> bool:
    """Whether ``text`` may be a password printed alone: short, one token."""
    return len(text) <= _ALONE_TEXT_MAX and len(text.split()) == 1 and entropy.alone_password_span(text) is not None
NORMAL_INDEX = next(i for i, (name, _, _) in enumerate(_RE2_PATTERNS) if name == "normal")


def _re2_set():
    try:
        import re2
    except ImportError:
        return None
    try:
        options = re2.Options()
        options.max_mem = 64 << 20  # room for the DFA: a Set never gives up on a slow DFA, only on memory
        patterns = re2.Set.SearchSet(options)
        for _, pattern, _ in _RE2_PATTERNS:
            patterns.Add(pattern)
        patterns.Compile()
    except Exception:  # an older or broken binding: the pure-Python screen still works
        return None
    return patterns


_SET = _re2_set()
# The binding's own object skips a Python wrapper call per string.
_MATCH = getattr(getattr(_SET, "_set", None), "Match", None) or (_SET.Match if _SET is not None else None)
MATCH = _MATCH  # for callers that inline the common "no hit at all" answer
_PII = frozenset(i for i, (_, _, personal) in enumerate(_RE2_PATTERNS) if personal)
FAST = _SET is not None


def join_is_clear(texts: list[str]) -> bool | None:
    """True when the RE2 set finds nothing in ``texts`` (ASCII strings)
    joined by newlines, so nothing in any of them (``MATCH(text.encode())``
    empty for each); False when the join has a hit; None when RE2 is not in
    use.  A match inside a text is a match inside the join: the patterns
    have no anchors, and a newline is a boundary for their ``\\b`` as the
    ends of a string are.  One call instead of one per text saves the
    call's fixed cost, which is most of what screening a short string
    costs."""
    match = _MATCH
    if match is None:
        return None
    return not match("\n".join(texts).encode())


def quick_might_hold(text: str, *, pii_on: bool, users: tuple[str, ...] = (), hits=None) -> bool | None:
    """:func:`might_hold` in one RE2 pass; None when RE2 is missing or
    cannot take the text (lone surrogates), so the caller screens in Python.
    ``hits``: the pattern indices when the caller matched already."""
    if _SET is None:
        return None
    if hits is None:
        try:
            hits = _MATCH(text.encode())
        except Exception:
            return None
    if hits is None:
        hits = ()
    runs = False
    for index in hits:
        if index == _RUNS_INDEX:
            runs = True
        elif pii_on or index not in _PII:
            return True
    if len(text) <= _ALONE_TEXT_MAX and alone_password_possible(text):
        return True
    if pii_on:
        for user in users:
            if user in text:
                return True
    return runs and _runs_hold(text, token_runs(text))
