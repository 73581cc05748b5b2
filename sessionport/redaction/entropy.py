"""The last resort: long random-looking runs with no prefix and no keyword.

This is where scanners do most of their damage, so a run is redacted only
when it is long (>= 24), mixes character classes like random data does,
has high Shannon entropy, and is none of the shapes transcripts are full of:
hex (git SHAs, digests, container ids), UUIDs, API object ids (``toolu_``,
``msg_``, ``call_``, ...), SRI/``sha256:``/``h1:`` hashes, SSH public keys,
paths, camelCase/snake_case identifiers, and anything inside a URL (URL
credentials have their own rules).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterator

from sessionport.lazy import lazy

Span = tuple[int, int, str]

MIN_LENGTH = 24
RUN = lazy(r"[A-Za-z0-9+/_-]{%d,}={0,2}" % MIN_LENGTH)
_HEX = lazy(r"^[0-9a-fA-F-]+$")
# 0x and 64 hex digits: an Ethereum private key, or a transaction or block
# hash; the words before it tell which
_HASH_0X = lazy(r"^0x[0-9a-fA-F]{40,}$")
# 0x and 40 hex digits, mixed case for its checksum (EIP-55): an Ethereum
# account or contract address, public by design
_ADDRESS_0X = lazy(r"^0x[0-9a-fA-F]{40}$")
_CHAIN_HASH_BEFORE = lazy(r"(?i)(?:transaction|\btx|hash|block|receipt|address|contract|root|topic|log)\b[^\n]{0,24}$")
# UUID-shaped, also with non-hex letters (tools that mint their own ids)
_UUID = lazy(r"[0-9a-zA-Z]{8}-[0-9a-zA-Z]{4}-[0-9a-zA-Z]{4}-[0-9a-zA-Z]{4}-[0-9a-zA-Z]{12}")
# ULIDs (a 48-bit time, then 80 random bits, in Crockford's base32):
# record ids, never credentials
_ULID = lazy(r"^[0-7][0-9A-HJKMNP-TV-Z]{25}$")
# Object ids of APIs and tools: load-bearing, high-entropy, never secrets.
_ID_PREFIX = lazy(
    r"^(?:[A-Z]{1,5}_kw[A-Za-z]{2}|toolu|srvtoolu|msg|msgbatch|req|call|fc|resp|rs|ctc|chatcmpl|cmpl|cus|pi|pm|ch|evt|sub|in|ii|price|prod|txn|"
    r"ws|file|batch|run|thread|asst|step|vs|org|proj|user|sess|item|conv|ctx|ses|cs|seti|si|acct|tok|pk_live|pk_test|"
    r"src|card|ba|py|po|tr|re|il|li|cn|dp|du|ic|iv|plink|prc|promo|qt|sched|sh|tax|tmpl|trr|wh|gen|img|span|trace|"
    r"toolu_vrtx|req_vrtx|agent|task|job|deployment|build|commit|node|pod|container|image|layer|vol|snap|ami|i|vpc|subnet|sg|eni|igw|rtb|acl|arn)[_-]"
)
_SAFE_BEFORE = lazy(
    r"(?:sha1|sha224|sha256|sha384|sha512|md5|blake2b|h1|base64|integrity|commit|rev|revision|HEAD|tree|blob|nonce)"
    r"[\s:=\"'-]{0,4}$|(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com) $|[@#]$|\"(?:n|e|x|y|kid|x5t|x5c)\"\s*:\s*\"$",
    re.I,
)
# The value of a key that names an identifier or a digest: "node_id": "...".
_ID_VALUE_BEFORE = lazy(
    r"(?:id|Id|ID|id-2|uuid|Uuid|sha|Sha|hash|Hash|digest|Digest|etag|ETag|rev|commit|checksum|fingerprint|nonce|cursor|"
    r"signature|Signature)\\?[\"']?\s*[:=]\s*\\?[\"']?$"
)
_VALUE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~")
_AGE_RECIPIENT = lazy(r"^age1[02-9ac-hj-np-z]{50,}$")  # public by design
_SSH_PUBLIC = lazy(r"^AAAA(?:B3NzaC1|C3NzaC1|E2VjZHNh|B3NzaC|C3NzaC)")
_TOKENS = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z\d]")
_VOWELS = frozenset("aeiouyAEIOUY")
_SHORT_WORDS = frozenset("If Is In It To Of On Or By At As An Be Do Go Up No My We Id Ok Ui Io Db Os Fs".split())
_URL = lazy(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s\"'<>`]+")


def shannon(value: str) -> float:
    length = len(value)
    if not length:
        return 0.0
    return -sum(n / length * math.log2(n / length) for n in Counter(value).values())


def is_wordy(value: str) -> bool:
    """Made of words, acronyms, short numbers and separators: an identifier,
    a file name or a path segment (``callFunctionCheckIfDataExists``,
    ``ColumnHeader2``), not key material.  Tokenised, never a backtracking
    regex, so long runs cost linear time."""
    for token in _TOKENS.findall(value):
        first = token[0]
        if first.isdigit():
            if len(token) > 8:  # dates like 20251101 are fine, long numbers are not words
                return False
        elif first.isalpha():
            if token.isupper():
                if len(token) > 5 and not (_VOWELS & set(token)):
                    return False
            elif token in _SHORT_WORDS:
                continue
            elif sum(c.islower() for c in token) < 2 or not (_VOWELS & set(token)):
                return False
    return True


_CAPS_DIGITS = lazy(r"^[A-Z0-9]{28,}$")
_LETTER_RUNS = lazy(r"[A-Z]+")


def _caps_and_digits(core: str) -> bool:
    """A long run of capitals and digits mixed throughout (Vultr's API keys,
    base32 secrets): the short letter runs between its digits read as
    acronyms to :func:`is_wordy`, not as words."""
    return bool(_CAPS_DIGITS.match(core)) and len(_LETTER_RUNS.findall(core)) >= 6


def looks_random(value: str, *, min_length: int = MIN_LENGTH) -> bool:
    """Whether ``value`` looks like key material rather than a word, an id
    shape, a path or a hash.  Used by this layer and for weak keyword names."""
    if len(value) < min_length:
        return False
    core = value.rstrip("=")
    if _HEX.match(core) or _UUID.search(core) or _ADDRESS_0X.match(core):
        return False
    if is_wordy(core) and not _caps_and_digits(core):
        return False
    digits = sum(c.isdigit() for c in core)
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    if "/" in core:
        parts = [p for p in core.split("/") if p]
        odd = [p for p in parts if not is_wordy(p)]
        wordy = len(parts) - len(odd)
        if len(odd) <= 1 and (wordy >= 2 or (wordy == 1 and all(len(p) < 20 for p in odd))):
            return False  # a path: words with at most one odd segment (a hash in a file name)
    words = [p for p in re.split(r"[-_./+]", core) if len(p) >= 4 and p.isalpha() and (p.islower() or p[1:].islower()) and _VOWELS & set(p)]
    if len(words) >= 2:
        return False  # setup-uv-1-x86_64-unknown-linux-gnu, ocodex-x86_64-unknown-linux-musl
    entropy = shannon(core)
    if upper and lower and digits:
        # random base62/64: digits ~16%, both cases well represented
        return entropy >= 3.6 and digits >= 2 and min(upper, lower) >= 3
    if lower and digits and not upper:
        return entropy >= 3.5 and digits >= max(3, len(core) // 8) and lower >= len(core) // 4
    if upper and digits and not lower:
        return entropy >= 3.5 and digits >= max(3, len(core) // 8) and upper >= len(core) // 4
    return False


def url_spans(text: str) -> list[tuple[int, int]]:
    if "://" not in text:
        return []
    return [m.span() for m in _URL.finditer(text)]


def entropy_spans(text: str, shielded: list[tuple[int, int]], runs: list[tuple[int, int]] | None = None) -> Iterator[Span]:
    """Random-looking runs outside ``shielded`` spans (URLs, public blocks).
    ``runs`` limits the search to these spans (the token runs of the text)."""
    for run_start, run_end in runs if runs is not None else [(0, len(text))]:
        if run_end - run_start >= MIN_LENGTH:
            yield from _entropy_in(text, shielded, run_start, run_end)


def _entropy_in(text: str, shielded: list[tuple[int, int]], pos: int, endpos: int) -> Iterator[Span]:
    for match in RUN.finditer(text, pos, endpos):
        start, end = match.span()
        if start >= 1 and text[start - 1] == "\\" and text[start] in "nrt":
            start += 1  # "\nABC..." in escaped text: the n belongs to the escape
        value = text[start:end]
        if len(value) < MIN_LENGTH:
            continue
        if start and text[start - 1] == "." and start >= 2 and text[start - 2].isalnum():
            continue  # part of a dotted name (domain, module path, file name)
        if end + 1 < len(text) and text[end] == "." and text[end + 1].isalnum():
            continue
        if _ULID.match(value) or _ID_PREFIX.match(value) or _SSH_PUBLIC.match(value) or _AGE_RECIPIENT.match(value) or value.startswith(("LS0tLS1CRUdJTi", "sha512-", "sha384-", "sha256-", "sha1-")):
            continue
        before = text[max(0, start - 40):start]
        if _SAFE_BEFORE.search(before) or _ID_VALUE_BEFORE.search(before):
            continue
        if value.startswith("0x") and _HASH_0X.match(value) and _CHAIN_HASH_BEFORE.search(before):
            continue
        # the run may be the tail of a value with dots ("VersionId: a_.b...")
        head = start
        while head > 0 and start - head < 64 and text[head - 1] in _VALUE_CHARS:
            head -= 1
        if head < start and _ID_VALUE_BEFORE.search(text, max(0, head - 40), head):
            continue
        if any(s <= start < e for s, e in shielded):
            continue
        if looks_random(value):
            yield start, end, "high-entropy"


# -- a token printed alone ------------------------------------------------------
#
# ``cat ~/.config/app/token``, ``gh auth token``, ``echo $API_KEY``,
# ``kubectl get secret ... | base64 -d``: a tool output (or a prompt) that
# is nothing but one token carries no name and no prefix, but being alone
# is context: ids and hashes printed alone are hex, UUIDs, ULIDs or words,
# and those stay.  A lone token is judged with a lower length floor (20,
# the screen's run length) than a token inside text (24), and a dotted one
# by its longest part (Vault's ``s.…``, Salesforce's ``00D…!…``).

ALONE_MIN = 20
ALONE_MAX = 1024
_ALONE = lazy(r"[ \t\r\n]*(?:\d+(?:\u2192|\t))?([^ \t\r\n]+)[ \t\r\n]*")
_ALONE_PART = lazy(r"[!.:]")


def alone_span(text: str, min_length: int = ALONE_MIN) -> tuple[int, int] | None:
    """Where the one token of ``text`` is, when ``text`` is a token alone
    (padding, a trailing newline and a Read tool's line number aside)."""
    if len(text) > ALONE_MAX + 16:
        return None
    match = _ALONE.fullmatch(text)
    if match is None or match.end(1) - match.start(1) < min_length:
        return None
    return match.span(1)


def alone_is_secret(value: str) -> bool:
    """Whether a token printed alone is key material (not an id, a hash,
    a name, a path, a URL, a version or an address)."""
    if "://" in value or "@" in value or value.startswith(("sha256:", "sha512-", "sha1-", "h1:", "-", "/", "~", ".", "arn:")):
        return False
    value = value.strip("\"'`")  # an ETag prints with its quotes
    core = value.rstrip("=")
    if "=" in core:
        return False  # NAME=value: an assignment, the keyword layers' case
    if _HEX.match(core) or _UUID.search(core) or _ULID.match(core) or _ID_PREFIX.match(core) or _SSH_PUBLIC.match(core) or _AGE_RECIPIENT.match(core):
        return False
    if looks_random(value, min_length=ALONE_MIN):
        return True
    if "/" in core:
        return False
    parts = _ALONE_PART.split(core)
    if len(parts) > 1:
        longest = max(parts, key=len)
        return len(longest) >= 16 and looks_random(longest, min_length=16) and not all(is_wordy(p) for p in parts if p != longest)
    return False


# -- a password printed alone ---------------------------------------------------
#
# A generated password holds symbols (``4!dgO%4HMp9$F&``), which break the
# token runs the layers above look in; alone in a tool output or a prompt
# it is judged by its character classes: letters, digits and symbols
# mixed, no word, path, address, version, template or code shape.

PASSWORD_MIN = 10
PASSWORD_MAX = 64
_STRONG_SYMBOLS = frozenset("!#$%^&*~@?[]")
_PASSWORD_SYMBOLS = frozenset("!#$%^&*~@?[]-_+=:/.")
_CODE_LIKE = lazy(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$|^[#@~]|[!=]=|&&|\|\||\?\?|\.\.|::|^\w+://|\$\(|^\[.*\]$|^#[0-9a-fA-F]{3,8}$")


_AT_VERSION = lazy(r"@v?\d+(?:\.\d+)*$")


def alone_password(value: str) -> bool:
    """Whether a token printed alone reads as a generated password."""
    if not PASSWORD_MIN <= len(value) <= PASSWORD_MAX:
        return False
    symbols = [c for c in value if not c.isalnum()]
    if not symbols or not _STRONG_SYMBOLS.intersection(symbols) or not set(symbols) <= _PASSWORD_SYMBOLS:
        return False  # quotes, brackets of code, commas, backslashes: not a password printed alone
    if not value.isascii() or _CODE_LIKE.search(value):
        return False
    digits = sum(c.isdigit() for c in value)
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    if not digits or not (upper or lower):
        return False
    if "@" in value and ("." in value.rsplit("@", 1)[-1] or _AT_VERSION.search(value)):
        return False  # an address, a package or a file at a version (``9fafceb7ae33b7f5@v2``)
    if _HEX.match("".join(c for c in value if c.isalnum())):
        return False  # a hex id with a separator
    letters = re.sub(r"[^A-Za-z]+", " ", value).split()
    if letters and max(map(len, letters)) >= 6 and all(is_wordy(w) for w in letters) and len(symbols) < 3:
        return False  # words joined by a symbol and a number: a name, a heading
    return shannon(value) >= 3.0


def alone_password_span(text: str) -> tuple[int, int] | None:
    """Where the password ``text`` holds alone is, if it holds one."""
    if len(text) > PASSWORD_MAX + 32:
        return None
    span = alone_span(text, PASSWORD_MIN)
    if span is None or not alone_password(text[span[0] : span[1]]):
        return None
    return span
