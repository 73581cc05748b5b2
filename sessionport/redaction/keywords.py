"""Keyword assignments: ``password=...``, ``API_KEY: ...``, ``"clientSecret": "..."``.

Found in env files, YAML, JSON (also escaped: ``\\"token\\": \\"...\\"``), CLI
flags and source code.  Two parts decide:

- the *name*: :func:`classify_name` says whether a name holds a secret
  (``strong``: any real value is redacted), might (``weak``: only random-
  looking values), or is a known non-secret (``*_id``, ``max_tokens``,
  ``public_key``, ``keyboard``, ...);
- the *value*: :func:`is_placeholder` rejects templates, variables, code
  references and placeholders, which are not secrets and must survive.

The same two functions serve structured data (dict keys in tool inputs and
metadata) through :func:`secret_kind_for_field`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator

from sessionport.redaction.entropy import is_wordy, looks_random, shannon
from sessionport.lazy import lazy
from sessionport.redaction.re2_spelling import Re2OrRe

Span = tuple[int, int, str]

_STRONG = lazy(
    r"pass(?:word|wd|phrase|wrd)?|pwd|secret|private[_.-]?key|privkey|api[_.-]?key|apikey|access[_.-]?key|"
    r"token|credential|bearer|signing[_.-]?key|session[_.-]?key|master[_.-]?key|encryption[_.-]?key|"
    r"client[_.-]?key|auth[_.-]?key|account[_.-]?key|shared[_.-]?access[_.-]?key|subscription[_.-]?key|"
    r"app[_.-]?key|license[_.-]?key|webhook[_.-]?key|consumer[_.-]?key|deploy[_.-]?key|admin[_.-]?key|"
    r"service[_.-]?key|secret[_.-]?key|write[_.-]?key|connection[_.-]?string|conn[_.-]?str|"
    r"dsn|salt|cookie|auth"
)
_WEAK = lazy(r"key|creds?|sig|signature")
# Names that contain a keyword but hold no secret.  Checked on the
# lower-cased name with separators normalised to "_".
_NOT_SECRET = lazy(
    r"(?:^|_)(?:id|ids|name|names|url|uri|urls|file|filename|path|dir|type|len|length|count|size|limit|max|min|ttl|"
    r"timeout|expiry|expires|expires_in|expiration|at|header|env|var|field|prefix|suffix|format|mode|policy|version|"
    r"endpoint|domain|region|zone|enabled|required|method|hint|label|strategy|provider|source|store|helper|command|cmd|index|usage|"
    r"budget|regex|pattern|placeholder|reset|error|scope|scopes|algorithm|alg|location|lifetime|rotation|"
    r"hash_algorithm|param|params|schema|description|desc|title|key_id|kid|fingerprint|policy|flag|option|"
    r"status|state|kind|class|input|output|in|out|button|icon|link|host|port|user|username|login|email|"
    r"rotated|changed|updated|created|reset_at|strength|validation|validator|policy|"
    r"manager|service|handler|loader|reader|provider|factory|generator|module|plugin|client|db_index|"
    r"server|servers|host|hosts|hostname|addr|address|issuer|realm|audience|tenant|base_url|callback|redirect|"
    r"webhook_url|endpoint_url|audience|backend|engine|cache|storage|ref|refs|pointer)$"
    r"|tokens|tokeniz|keyboard|keyword|keys$|keycode|keydown|keyup|keypress|keymap|keybind|key_?binding|hotkey|"
    r"monkey|donkey|turkey|jockey|whiskey|public|author(?!iz)|authority|csrf|xsrf|passthrough|pass_through|passenger|passive|"
    r"compass|bypass|surpass|passed|passes|passing|primary_key|foreign_key|sort_key|partition_key|cache_key|"
    r"idempotency|dedup|lookup_key|row_key|hash_key|range_key|object_key|s3_key|map_key|dict_key|key_?name|"
    r"page_?token|next_?token|continuation|cursor|sync_?token|token_?type|auth_?type|authn?_?method|"
    r"oauth_?url|^(?:has|is|use|uses|should|needs?|requires?|allows?|disable|enable|show|hide|no|with|can|must)_|_(?:enabled|disabled|allowed|required|needed)$|"
    r"token_?count|max_?token|secret_?name|secret_?ref|secretref|secret_?key_?ref|secrets_?manager|"
    r"key_?vault|keychain|keyring|keystore|keyfile|key_?file|key_?path|(?:^|_)cert(?:ificate)?s?$|(?:^|_)cert(?:ificate)?_(?:path|file|data|chain|pem|name|id|dir)$|pubkey|hashed|hash_?type|"
    r"pinned|pinyin|spinner|pinch|hashtag|hashmap|hash_?map|signature_?version|sig_?version|design|assign|signal"
)


# The password or token *of* a key store or a secret manager is a secret,
# though the store's name alone is not (keystore_password, key_vault_secret).
_STORE_SECRET = lazy(
    r"(?:keystore|key_?store|truststore|trust_?store|keychain|keyring|key_?file|key_?vault|secrets?_?manager)_"
    r"(?:[a-z0-9]+_)*(?:password|passwd|passphrase|pass|pwd|secret|token)$"
)
# A personal access token named by its abbreviation: GITHUB_PAT, ado_pat
_PAT_NAME = lazy(r"(?:^|[_.-])pat$")

# The same language in RE2's spelling (see .re2_spelling): "author" not
# followed by "iz" is "author" followed by the end, by a letter other than
# "i", or by "i" and then the end or a letter other than "z".
_NOT_SECRET_SEARCH = Re2OrRe(_NOT_SECRET.pattern.replace("author(?!iz)", "author(?:$|[^i]|i$|i[^z])"), _NOT_SECRET)


# Every name _STRONG, _WEAK or _PAT_NAME can match holds one of these (the
# letters of a match in the normalised name are a run of the lower-cased
# name): a name with none of them is no secret name, and its test compiles
# none of the patterns below.
_NAME_NEEDLES = ("pass", "pwd", "secret", "key", "token", "cred", "bearer", "conn", "dsn", "salt", "cookie", "auth", "pat", "sig")


@lru_cache(maxsize=8192)
def classify_name(name: str) -> str | None:
    """``"strong"``, ``"weak"`` or None (not a secret name)."""
    lowered = name.lower()
    for needle in _NAME_NEEDLES:
        if needle in lowered:
            break
    else:
        return None
    normal = re.sub(r"[^a-z0-9]+", "_", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()).strip("_")
    if not normal:
        return None
    if _NOT_SECRET_SEARCH.search(normal) and not _STORE_SECRET.search(normal):
        return None
    if _STRONG.search(lowered) or _PAT_NAME.search(normal):
        return "strong"
    if _WEAK.search(normal):
        return "weak"
    return None


def kind_for_name(name: str) -> str:
    lowered = name.lower()
    if "pass" in lowered or "pwd" in lowered:
        return "password"
    if "aws" in lowered and "secret" in lowered:
        return "aws-secret-key"
    if "token" in lowered or "bearer" in lowered or lowered.endswith("pat"):
        return "token"
    if "private" in lowered:
        return "private-key"
    if re.search(r"api[_.-]?key|apikey", lowered):
        return "api-key"
    if "connection" in lowered or "dsn" in lowered or "conn" in lowered:
        return "connection-string"
    return "secret"


_PLACEHOLDER = lazy(
    r"(?i)example|x{4,}|\*{3,}|\.\.\.|…|^<.*>$|^<[a-z_ -]*$|^\[.*\]$|^\{.*\}$|^\(.*\)$|\$\{[\w{.:-]+[^}]*\}|\$\{\w*$|\{\{[ \t]*[\w.$\-\[\]\"']+.*\}\}|\{\{[ \t]*[\w.$]*$|^%\(|^%s$|^#\{|"
    r"your[_-]?(?:own[_-]?)?(?:api[_-]?)?(?:key|token|secret|password|pass)|changeme|change[_-]me|replace[_-]?me|"
    r"placeholder|redacted|^\[redacted|<redacted>|^(?:true|false|null|none|nil|undefined|yes|no|on|off|empty|"
    r"string|str|int|integer|bool|boolean|number|any|object|optional|required|secret|password|token|value|"
    r"default|unset|set|todo|tbd|n/a|na|test|foo|bar|baz|hidden|masked|omitted|sensitive|bearer|basic|digest|"
    r"negotiate|bot|apikey|api-key|key|ssws)$"
)
_CODE_REF = lazy(
    # calls, indexing, generics: getpass(), os.environ["X"], ENV.fetch('K'), Option<String>
    # (also cut off at a quote: ``re.compile(r"...``, ``ENV[``)
    # (also cut off at a quote: ``re.compile(r"...``, ``ENV[``), references
    # and types: ``&Option<Auth>``, ``&[u8]``, ``*mut T``
    r"^[&*!]*(?:[A-Za-z_$][\w$.:]*[(\[<]|[(\[])"
    r"|^(?:self|this|os|env|process|config|settings|cfg|args|opts|options|ctx|request|req|params)\b"
    r"|^[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET|PASSWORD|PASS)$"  # another variable's name
)
# settings.API_KEY, process.env.TOKEN: a dotted name whose parts are words.
# A dotted value with a random part is a token (Vault ``s.``, Doppler
# ``dp.st.``, Dynatrace ``dt0c01.``, a password such as ``Kx9fQ2.bz7``).
_DOTTED_NAME = lazy(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$")
# Public by design: publishable keys, age recipients, SSH public keys.
_PUBLIC_VALUE = lazy(r"^(?:pk_(?:live|test)_|age1[02-9ac-hj-np-z]{50,}$|ssh-(?:rsa|dss|ed25519) |ecdsa-sha2-|AAAA[BCE][0-9A-Za-z]{3}NzaC1|AAAAC3NzaC1|LS0tLS1CRUdJTiBDRVJU)")
_IDENTIFIER_WORD = lazy(r"^[A-Za-z$]*\d{0,3}$")


def _name_part(part: str) -> bool:
    """A part of a dotted name in code (``settings``, ``OPENAI_API_KEY``,
    ``v2``), not a random part of a token (``s.eac5uebh9itickvv10oxd7ve``)."""
    return len(part) <= 3 or (all(_IDENTIFIER_WORD.match(word) for word in part.split("_")) and is_wordy(part))


_KEYWORD_IN_VALUE = lazy(r"(?i)key|token|secret|pass|pwd|auth|cred")
_IDENTIFIER = lazy(r"^[A-Za-z_][A-Za-z0-9_]*$")


_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def _balanced(value: str) -> bool:
    stack = []
    for c in value:
        if c in _OPENERS:
            stack.append(_OPENERS[c])
        elif c in ")]}>":
            if not stack or stack.pop() != c:
                return False
    return not stack


_BRACKETS = frozenset("()[]{}<>")
# "$" and a variable's name: a reference ($DB_PASSWORD, $HOME/.pgpass,
# $env:TOKEN), unless a password's symbol follows the name ($Y6$X=Dm#wy9)
_VAR_REF = lazy(r"^\$[A-Za-z_]\w*(?![\w!#$%^&*~@?=+\[\]])")


def _random_with_brackets(value: str) -> bool:
    """A generated password whose first characters or brackets read as code
    (``NM[z9ZY{oJp#Q>8``, ``awn[I#X2&e*py#vdx``, ``$S@+mp2%k~*$:^H[81``):
    both letter cases, a digit, symbols of three kinds (two and two digits),
    a random mix, and brackets that do not pair up unless symbols of three
    other kinds come with them.  An index, a call or a type
    (``os.environ[``, ``getpass()``, ``Option<String>``, ``keys[2]``) pairs
    its brackets, has few symbols or no digit."""
    if not 10 <= len(value) <= 64 or not value.isascii():
        return False
    digits = sum(c.isdigit() for c in value)
    if not digits or not any(c.isupper() for c in value) or not any(c.islower() for c in value):
        return False
    symbols = {c for c in value if not c.isalnum() and c not in "_."}
    if len(symbols) < 2 or (len(symbols) < 3 and digits < 2):
        return False
    if _balanced(value) and len(symbols - _BRACKETS) < 3:
        return False
    return shannon(value) >= 3.3


def is_placeholder(value: str) -> bool:
    """True for values that are not secrets: templates, variables, code, words."""
    if not value or value.startswith("[REDACTED"):
        return True
    if _PLACEHOLDER.search(value) or _PUBLIC_VALUE.match(value):
        return True
    if value.startswith("$") and _VAR_REF.match(value) and not _random_with_brackets(value):
        return True
    if _CODE_REF.search(value) and not _random_with_brackets(value):
        return True
    if "." in value and _DOTTED_NAME.match(value) and all(map(_name_part, value.split("."))):
        return True
    # api_key=api_key, token: authToken -- a variable, not a value
    if _IDENTIFIER.match(value) and _KEYWORD_IN_VALUE.search(value) and not any(c.isdigit() for c in value):
        return True
    return False


# A reference that fills a URL's password slot as a whole: a call, an index,
# a command substitution, an Azure Pipelines runtime expression
_WHOLE_REFERENCE = lazy(
    r"^(?:\$\(.*\)|`.*`|[A-Za-z_$][\w$.:]*\([\w$.:,]*\)|[A-Za-z_$][\w$.:]*\[[\w$.:-]*\](?:\.[\w$.]+)?|\$\[[ \t]*[A-Za-z_][\w.\[\]-]*[ \t]*\])$"
)


def is_userinfo_placeholder(value: str) -> bool:
    """:func:`is_placeholder` for the password of ``scheme://user:PW@host``,
    where the position says it is a credential: a value that only starts
    like code (``$[k9Xz!q2]w``, ``x[3#Qv``) is a password; templates,
    variables and whole references are not."""
    if not is_placeholder(value):
        return False
    if not _CODE_REF.search(value) or _PLACEHOLDER.search(value) or _PUBLIC_VALUE.match(value):
        return True
    if value.startswith("$") and _VAR_REF.match(value):
        return True
    if "." in value and _DOTTED_NAME.match(value) and all(map(_name_part, value.split("."))):
        return True
    if _IDENTIFIER.match(value) and _KEYWORD_IN_VALUE.search(value) and not any(c.isdigit() for c in value):
        return True
    return _WHOLE_REFERENCE.match(value) is not None or not any(c.isdigit() or not c.isalnum() and c not in "_$.:()[]<>&*!" for c in value)


_PLAIN_WORD = lazy(r"^[a-z]{1,12}$")


def secret_value(name_class: str, value: str, *, min_strong: int = 4, name: str = "") -> bool:
    """Whether ``value`` assigned to a name of class ``name_class`` is a secret."""
    value = value.strip()
    if is_placeholder(value):
        return False
    if any(c.isspace() for c in value) or any(ord(c) > 0x2000 for c in value):
        return False  # prose and translated UI strings, not credentials
    if _PLAIN_WORD.match(value) and not re.search(r"(?i)pass|pwd", name):
        return False  # auth: match, id-token: write -- code and settings, not secrets
    if name_class == "strong":
        if len(value) < min_strong:
            return False
        if value.isdigit() and len(value) < 6:
            return False
        if re.fullmatch(r"[0-9.:/-]+", value) and not value.isdigit():
            return False  # dates, times, versions, ports
        return True
    return len(value) >= 12 and looks_random(value, min_length=12)


# -- text ---------------------------------------------------------------------

# What follows a name: an optional closing quote, the operator, the value.
_OPERATOR_VALUE = lazy(
    r"(?P<nq>\\{0,3}[\"'])?\]?[ \t]*"
    # a type annotation between name and value (``api_key: str = "..."``),
    # a comma between a quoted name and a quoted value (``setenv("K", "v")``)
    r"(?P<op>:=|=>|->|=(?!=)|:[ \t]*[A-Za-z_][\w.\[\]|]{0,40}(?:,[ \t]*[\w.\[\]|]{1,20})?[ \t]*=(?!=)|:(?!:)|,(?:[ \t]*(?:default|fallback)[ \t]*=)?(?=[ \t]*\\{0,3}[\"'])|\s(?=\\{0,3}[\"']))[ \t]*"
    r"(?:(?P<q>\\{0,3}[\"'`])(?P<qv>(?:(?!(?P=q)|\n).){1,400}?)(?P=q)|(?P<uv>[^\s\"'`,;]{1,400}))"
)
_CURLY_OPEN = {"\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb", "\u201e": "\u201c", "\u201a": "\u2018"}
# NAME='value with no closing quote before the end of its line (a cut
# line, a shell line continued below)
_UNCLOSED = lazy(r"(?:\\{0,3}[\"'])?\]?[ \t]*(?::=|=(?!=)|:(?!:))[ \t]*[\"'`](?P<v>[^\s\"'`\\]{8,400})[ \t]*(?=\r?\n|$)")
# the first line of a block scalar, also behind a diff's "+" or a line number
_BLOCK_SCALAR = lazy(r"[ \t]*(?:\n|\\n)(?:[+-]|[ \t]*\d+(?:\u2192|\t))?[ \t]+(?P<v>[^\s\\][^\n\\]*)")
_KEYWORD_HIT = lazy(r"pass|pwd|secret|key|token|cred|auth|bearer|dsn|salt|cookie|sig|_pat(?![a-z0-9])")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_MAX_NAME = 80


KEYWORDS = ("pass", "pwd", "secret", "key", "token", "cred", "auth", "bearer", "dsn", "salt", "cookie", "sig")


def assignment_spans(text: str, lower: str, hits: Iterable[int] | None = None) -> Iterator[Span]:
    """Values assigned to secret-sounding names.  Anchored on keyword
    positions in ``lower`` (the lower-cased text; ``hits`` when the caller
    already scanned for them), so text without keywords costs one scan."""
    done_until = -1
    if hits is None:
        hits = [m.start() for m in _KEYWORD_HIT.finditer(lower)]
    for position in hits:
        if position < done_until:
            continue  # another keyword inside a name already handled
        start = position
        floor = max(0, start - _MAX_NAME)
        while start > floor and text[start - 1] in _NAME_CHARS:
            start -= 1
        end = position + 1
        while end < len(text) and text[end] in _NAME_CHARS and end - start < _MAX_NAME:
            end += 1
        done_until = end
        while start < end and not (text[start].isalpha() or text[start] == "_"):
            start += 1
        name = text[start:end]
        if not name:
            continue
        name_class = classify_name(name.rsplit(".", 1)[-1] if "." in name else name)
        if name_class is None:
            continue
        match = _OPERATOR_VALUE.match(text, end)
        whole = _whole_line_password(text, end) if name_class == "strong" else None
        if whole is not None and (match is None or whole[1] > match.end()):
            yield whole[0], whole[1], kind_for_name(name)
            continue
        if match is None and name_class == "strong":
            unclosed = _UNCLOSED.match(text, end)
            if unclosed is not None and secret_value(name_class, unclosed.group("v"), name=name):
                # API_KEY='k3Jd9sL2mQ0pzXa: a quote that the line never closes
                yield unclosed.start("v"), unclosed.end("v"), kind_for_name(name)
                continue
        if match is None:
            spaced = _SPACED_VALUE.match(text, end) if name_class == "strong" and _SHOUTED_OR_SNAKE.match(name) else None
            if spaced is not None and _spaced_secret(spaced.group("v")):
                # fish `set -x NAME value`, `aws configure set name value`
                yield spaced.start("v"), spaced.end("v"), kind_for_name(name)
            continue
        op = match.group("op")
        if op.isspace() and name_class != "strong":
            continue
        if op == "," and (match.group("nq") is None or match.group("qv") is None):
            continue  # f(password, x): only ("NAME", "value") pairs name a value
        if match.group("uv") in ("|", ">", "|-", ">-", "|+", ">+") and op == ":":
            # a YAML block scalar: the value is the indented lines below
            block = _BLOCK_SCALAR.match(text, match.end())
            if block is not None and name_class == "strong":
                vstart, vend = block.span("v")
                vend = len(text[:vend].rstrip())
                if secret_value(name_class, text[vstart:vend], name=name):
                    yield vstart, vend, kind_for_name(name)
            continue
        if match.group("qv") is not None:
            vstart, vend = match.span("qv")
            if text[vend - 1] == "\\":
                vend = _closing_quote(text, vstart, vend, match.group("q"))
                if vend < 0:
                    continue
        else:
            vstart, vend = match.span("uv")
            cut = text.find("\\", vstart, vend)  # stop at a literal \n, \t, \" escape
            if cut >= 0:
                vend = cut
            elif name_class == "strong" and text[vend : vend + 1] in _CUTS and op != ",":
                vend = _through_cuts(text, vstart, vend)
            while vend > vstart and text[vend - 1] in ")}],.":
                vend -= 1
            if text[vstart] in _CURLY_OPEN:
                # token=“...”: typographic quotes (chat apps, pasted docs)
                close = text.find(_CURLY_OPEN[text[vstart]], vstart + 1, vend)
                if close < 0:
                    continue
                vstart, vend = vstart + 1, close
            if text.startswith("...", vend):
                continue  # "sk_test_...": a value left out, not a value
        value = text[vstart:vend]
        if not value or value.startswith("\\"):
            continue
        if "\\" in value and match.group("qv") is not None:
            value = _ESCAPED_QUOTE.sub(r"\1", value)  # judged as the value it spells
        if match.group("uv") is not None and op != "=" and value.isalpha() and re.match(r" [a-z]", text[vend : vend + 2]):
            continue  # "password: Override config password" -- a sentence
        if op == "," and (len(value) < 8 or value.isalpha()):
            continue  # ("password", "login", ...): a list of words, not a pair
        if secret_value(name_class, value, name=name):
            yield vstart, vend, kind_for_name(name)


def _closing_quote(text: str, vstart: int, at: int, quote: str) -> int:
    """Where a quoted value that starts at ``vstart`` ends, given the first
    ``quote`` found after it at ``at``: a quote with more backslashes before
    it than the opening one is part of the value (``"ab\\"cd"``, and in
    escaped JSON ``\\"ab\\\\\\"cd\\"``: a quote escaped once more than its
    delimiter).  A delimiter of ``k`` backslashes and a quote closes where
    the backslashes before the quote character number ``k`` plus a multiple
    of ``2k + 2`` (the value's own backslashes, each escaped as often as the
    delimiter).  -1 when no closing quote comes before the end of the line
    or 400 characters."""
    k = len(quote) - 1
    period = 2 * k + 2
    limit = text.find("\n", vstart, vstart + 800)
    if limit < 0:
        limit = min(len(text), vstart + 800)
    while 0 <= at < limit:
        quote_at = at + k
        run = 0
        while quote_at - run - 1 >= vstart and text[quote_at - run - 1] == "\\":
            run += 1
        # (a single-quoted value escaped once more, \\' in a string of
        # escaped JSON, holds its quote; a value that ends in a backslash
        # before a single quote is rare)
        if (run - k) % period == 0 and not (quote == "'" and run):
            return at if at - vstart <= 400 else -1
        at = text.find(quote, quote_at + 1, limit)
    return -1


_ESCAPED_QUOTE = lazy(r"\\+([\"'`])")


# An unquoted value ends at a quote, a comma or a semicolon; a generated
# password holds them too (``API_TOKEN=eiNNCi"ia3an#9``), and stopping there
# would leave its tail in the clear.  The value runs on through them when the
# whole run reads as one password: no brackets, variables or escapes (code),
# no second assignment after the cut (``a=1,b=2``), both letter cases and a
# digit, mixed enough.
_CUTS = frozenset("\"'`,;")
_RUN = lazy(r"[^\s\\]{1,64}(?=\s|$)")
_AFTER_CUT = lazy(r"[\"'`,;]+(?P<rest>[A-Za-z_][\w.-]*[ \t]*[=:])")
_NOT_IN_RUN = frozenset("()[]{}<>$\\")
_TRAILING = "\"'`,;)}]."


def _through_cuts(text: str, vstart: int, vend: int) -> int:
    run = _RUN.match(text, vstart)
    if run is None:
        return vend
    value = run.group().rstrip(_TRAILING)
    if len(value) < 10 or len(value) <= vend - vstart or not value.isascii():
        return vend
    if _NOT_IN_RUN.intersection(value) or "://" in value:
        return vend
    inner = [i for i, c in enumerate(value) if c in _CUTS]
    if not inner or inner[0] != vend - vstart:
        return vend
    for i in inner:
        if _AFTER_CUT.match(value, i):
            return vend  # token=abc,user=bob: a list of assignments
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)):
        return vend
    if shannon(value) < 3.0 or is_placeholder(value.strip("\"'`")):
        return vend
    return vstart + len(value)


# NAME=value or name: value as the rest of its line (an env dump, an .ini
# file, YAML), where the value holds a quote, a backslash, a comma or a
# semicolon that would end it early: ``admin_password = 6m'8}H^Z76<Ne$iu;p``
_WHOLE_LINE = lazy(r"[ \t]*[:=][ \t]*(?P<r>[^\s]{10,64})[ \t]*(?=\r?\n|$)")
_ENDS_EARLY = frozenset("'\"\\,;`")


def _whole_line_password(text: str, end: int) -> tuple[int, int] | None:
    if not _ENDS_EARLY.intersection(text[end : end + 80]):
        return None  # (the usual case: nothing would end the value early)
    match = _WHOLE_LINE.match(text, end)
    if match is None:
        return None
    value = match.group("r")
    quotes = value.count("'") + value.count('"') + value.count("`")
    opened = value[0] in "'\"`" and value.find(value[0], 1) < 0  # a quote that never closes
    if not (quotes % 2 or "\\" in value or value[0] in ",;" or opened or (quotes and value[0] not in "'\"`")):
        return None  # a quoted value, code (``"x";``): the usual grammar reads it
    if _CODE_REF.search(value) and _balanced(value):
        return None  # a call or an index: ``re.compile(r"(\[\d+\])")``
    if not _random_with_brackets(value) or is_placeholder(value.strip("'\"`")):
        return None
    return match.span("r")


# NAME value: an identifier-like name (SHOUTED or snake_case), one space, a
# value that looks like a credential by itself
_SHOUTED_OR_SNAKE = lazy(r"^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{5,}|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)$")
_SPACED_VALUE = lazy(r" (?P<v>[^\s\"'`,;<>()]{8,400})(?=$|\s|\\[nrt])")
SPACED_SCREEN = lazy(
    r"(?:[A-Z0-9]_|[A-Z])(?:PASS|PWD|SECRET|TOKEN|KEY|CRED|AUTH|DSN|SALT)[A-Z0-9_]* [^\s]{8}"
    r"|[a-z0-9]_(?:pass|pwd|secret|token|key|cred|auth|dsn|salt)[a-z0-9_]* [^\s]{8}"
    r"|(?:PASS|PWD|SECRET|TOKEN|KEY|CRED|AUTH|pass|pwd|secret|token|key|cred|auth)[A-Za-z0-9]*_[A-Za-z0-9_]+ [^\s]{8}"
    r"|\b(?:PASS|PWD|SECRET|TOKEN|APIKEY|AUTH|CRED)[A-Z0-9]* [^\s]{8}"
)


def _spaced_secret(value: str) -> bool:
    if is_placeholder(value) or "/" in value or "://" in value or value.startswith("-"):
        return False
    mixed_case = len(value) >= 10 and sum(c.isupper() for c in value) >= 2 and sum(c.islower() for c in value) >= 2
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)) and not mixed_case:
        return False
    if any(c in "!@#$%^&*+=~?" for c in value) or not is_wordy(value):
        return True
    return len(value) >= 10 and sum(c.isupper() for c in value) >= 2 and sum(c.islower() for c in value) >= 2


# <password>...</password>, <add key="ApiKey" value="..."/> is name/value
ELEMENT = lazy(r"<(?P<name>[A-Za-z_][A-Za-z0-9_.:-]{0,60})(?:\s[^<>]{0,200})?>(?P<v>[^<>\n]{1,400})</(?P=name)>")


def element_spans(text: str) -> Iterator[Span]:
    """XML and HTML elements named like a secret."""
    for match in ELEMENT.finditer(text):
        name = match.group("name").rsplit(":", 1)[-1]
        name_class = classify_name(name)
        if name_class is not None and secret_value(name_class, match.group("v"), name=name):
            yield match.start("v"), match.end("v"), kind_for_name(name)


_NAME_VALUE = lazy(
    r"(?:name|key)\\?[\"']?\s*[:=]\s*\\?[\"']?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{1,80})\\?[\"']?\s*(?:,|\\n|\n)?\s*"
    r"\\?[\"']?value\\?[\"']?\s*[:=]\s*(?P<q>\\{0,3}[\"'])?(?P<value>[^\s\"'\\,}]{1,400})"
)


# Terraform and HCL name a secret by the block's label and give it a
# ``default``: ``variable "db_password" { default = "..." }``
_LABEL_BLOCK = lazy(
    r"\b(?:variable|locals?|param(?:eter)?)[ \t]+\\?[\"']?(?P<name>[A-Za-z_][\w.-]{0,80})\\?[\"']?[ \t]*\{(?P<body>[^{}]{0,800})"
)
# the screen's superset of _LABEL_BLOCK with a secret name (see .screen):
# every name classify_name can call strong holds one of its needles
LABEL_SCREEN = lazy(r"(?i)(?:variable|local|param)[a-z]*[ \t]+\\?[\"']?[a-z0-9_.-]*(?:" + "|".join(_NAME_NEEDLES) + ")")
_LABEL_DEFAULT = lazy(r"(?:^|\s|\\n|;)(?:default|value)[ \t]*[=:][ \t]*(?P<q>\\{0,3}[\"'])(?P<v>[^\s\"'\\]{1,400})(?P=q)")


def label_block_spans(text: str, lower: str) -> Iterator[Span]:
    """Defaults of blocks whose label names a secret (HCL variables)."""
    if "default" not in lower and "value" not in lower:
        return
    for block in _LABEL_BLOCK.finditer(text):
        name = block.group("name")
        if classify_name(name) != "strong":
            continue
        value = _LABEL_DEFAULT.search(text, block.start("body"), block.end("body"))
        if value is not None and secret_value("strong", value.group("v"), name=name):
            yield value.start("v"), value.end("v"), kind_for_name(name)


def name_value_spans(text: str, lower: str) -> Iterator[Span]:
    """``name: DB_PASSWORD`` followed by ``value: ...`` (k8s env, CI variables)."""
    if "value" not in lower or ("name" not in lower and "key" not in lower):
        return
    for match in _NAME_VALUE.finditer(lower):
        name = text[match.start("name") : match.end("name")]
        if classify_name(name) == "strong" and not is_placeholder(text[match.start("value") : match.end("value")]):
            yield match.start("value"), match.end("value"), kind_for_name(name)


# -- structured data ----------------------------------------------------------


def secret_kind_for_field(name: str, value: str) -> str | None:
    """The replacement kind when ``value`` under dict key ``name`` is a secret."""
    name_class = classify_name(name)
    if name_class is None or not secret_value(name_class, value, name=name):
        return None
    return kind_for_name(name)


# -- opaque values named only by the words before them ----------------------------

# What a CLI or a web page prints before a credential it has just made or
# shown: "Your new token is ...", "api key: ...", "Personal access token
# created: ...", a column headed "token".  Matched on the lower-cased text.
PHRASE_NOUN = lazy(
    r"(?<![a-z0-9_])(?:(?:personal[ _-])?access[ _-]token|api[ _-]?(?:key|token|secret)|auth(?:entication|orization)?[ _-]token|"
    r"bearer[ _-]token|refresh[ _-]token|client[ _-]secret|secret(?:[ _-](?:key|token|value))?|private[ _-]token|signing[ _-]key|"
    r"license[ _-]key|recovery[ _-](?:key|code)|deploy[ _-](?:key|token)|password|passphrase|passcode|credentials?|token|pat|key)s?(?![a-z0-9_])"
)
# Substrings one of which every noun holds ("pat" as a word: " pat", or at
# the start of the text, which callers test)
PHRASE_NOUNS = ("token", "key", "secret", "passw", "passphrase", "passcode", "credential", " pat", "\npat", "\tpat", "(pat", "|pat", "-pat")
# Words between the noun and the value that make the value something else
# (an id, a digest, a count, a file) rather than the credential itself.
_PHRASE_STOP = lazy(
    r"(?<![a-z0-9])(?:ids?|uuid|sha\d*|hash|digest|commit|rev|revision|request|trace|span|version|file|path|url|name|count|limit|"
    r"length|expires?|expiry|expiration|at|checksum|fingerprint|model|session|user|username|email|account|org|project|"
    r"type|scope|scopes|prefix|last|ends|ending|hint)(?![a-z0-9])"
)
_PHRASE_BEFORE_STOP = lazy(
    r"(?:page|next|continuation|sync|cancellation|csrf|xsrf|max|input|output|total|cache|reasoning|id|"
    # keys that name a row, an object or a public half, not a credential
    r"primary|foreign|sort|partition|hash|range|row|lookup|object|s3|map|dict|idempotency|dedup|public|host|gpg|pgp|ssh|"
    r"composite|unique|index|cache|registry|translation|i18n|react|list)[ _-]?$"
)
_CANDIDATE = lazy(r"(?:(?<![A-Za-z0-9_\-./+=~])|(?<=\n\+))[A-Za-z0-9][A-Za-z0-9_\-.+/=~]{19,199}(?![A-Za-z0-9_\-+/=~])")
_UUID_SHAPE = lazy(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_HEXISH = lazy(r"^[0-9a-fA-F]{16,}$")
PHRASE_WINDOW = 160


def _opaque(value: str) -> bool:
    """Looks like a credential by itself: a UUID, a long hex string or a
    random run (not a word, a path, a version or a file name)."""
    core = value.rstrip(".=")
    if _UUID_SHAPE.match(core):
        return True
    if _HEXISH.match(core):
        return any(c.isdigit() for c in core) and any(c.isalpha() for c in core)
    if "/" in core or core.count(".") >= 2:
        return False
    if looks_random(core, min_length=16):
        return True
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    if len(core) >= 20 and upper >= 3 and lower >= 3 and shannon(core) >= 3.5 and not is_wordy(core):
        return True  # base62 with few digits, named a credential
    digits = sum(c.isdigit() for c in core)
    letters = sum(c.isalpha() for c in core)
    return digits >= 4 and letters >= 4 and not is_wordy(core)


def _nouns_near(lower: str, runs: list[tuple[int, int]] | None):
    """Credential nouns close enough before a run of token characters (a
    value lives in one) to name it; the whole text when ``runs`` is None."""
    if runs is None:
        yield from PHRASE_NOUN.finditer(lower)
        return
    seen = -1
    for start, end in runs:
        for noun in PHRASE_NOUN.finditer(lower, max(seen + 1, start - PHRASE_WINDOW), end):
            seen = noun.start()
            yield noun


def phrase_spans(text: str, lower: str, runs: list[tuple[int, int]] | None = None) -> Iterator[Span]:
    """The first opaque value within a short window after a credential
    noun (the rest of its line and up to two more lines).  ``runs``: the
    runs of >= 20 token characters of the text, where values can be."""
    for noun in _nouns_near(lower, runs):
        before = lower[max(0, noun.start() - 16) : noun.start()]
        if _PHRASE_BEFORE_STOP.search(before):
            continue
        end = noun.end()
        window_end = end
        lines = 0
        while window_end < len(text) and window_end - end < PHRASE_WINDOW:
            if text[window_end] == "\n":
                lines += 1
                if lines > 3:
                    break
            window_end += 1
        candidate = _CANDIDATE.search(text, end, window_end)
        if candidate is None:
            continue
        between = lower[end : candidate.start()]
        if _PHRASE_STOP.search(between) or "(" in between or "`" in between and between.count("`") % 2 == 0 and "`" in text[candidate.end() : candidate.end() + 1]:
            continue
        if lines and "\n" in between and between.strip(" \t\n-=|:*#>") and not between.rstrip(" \t").endswith(("\n", ":", "|")):
            # on a later line, the value must stand alone (a table cell, a
            # line of its own), not in a sentence about something else
            last_line = between.rsplit("\n", 1)[-1]
            if last_line.strip(" \t|:-*>+\u21920123456789") and not last_line.rstrip().endswith(("|", ":")):
                continue
        value = text[candidate.start() : candidate.end()].rstrip(".")
        if is_placeholder(value) or not _opaque(value):
            continue
        name = noun.group()
        kind = "password" if "pass" in name else "token" if "token" in name or name.startswith("pat") else "api-key" if "key" in name else "secret"
        yield candidate.start(), candidate.start() + len(value), kind


# -- tables -------------------------------------------------------------------

# A row whose first cell names a secret and whose second cell holds it:
# Markdown (``| `DB_PASSWORD` | value |``), ``psql -x`` records
# (``password | value``), ASCII tables.
_TABLE_ROW = lazy(
    r"(?m)^[ \t]*(?:\|[ \t]*)?(?:\*\*)?`?(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,79})`?(?:\*\*)?[ \t]*\|[ \t]*(?P<cell>[^|\n]*)"
)
# A space-aligned row: ``vault kv get`` (Key / Value columns), ``op item get``
_ALIGNED_ROW = lazy(r"(?m)^[ \t]*(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,79})(?:\t+| {2,})(?P<v>[^\s|]{4,400})[ \t]*\r?$")
# The line under a table's header (Markdown ``|---|:--|``, psql ``----+----``)
_RULE_LINE = lazy(r"[ \t|:+=-]*-{3,}[ \t|:+=-]*\r?$")
_CELL_TRIM = " \t\r"
# What the screens look for: a keyword in a name followed by a cell border
# or by column alignment, or a keyword in a header row after a border.
TABLE_KEYWORDS = r"(?:pass|pwd|secret|key|token|cred|auth|bearer|dsn|salt|cookie|sig|_pat)"
TABLE_SCREEN = lazy(
    r"(?i)" + TABLE_KEYWORDS + r"[a-z0-9_.-]*`?(?:\*\*)?(?:[ \t]*\||\t| {2})|\|[^\n]*" + TABLE_KEYWORDS
)  # for RE2 (linear time); in Python, "|" and a keyword, or ALIGNED_SCREEN
# A header cell that names a secret: the keyword first, or after one word
# (``token``, ``api key``, ``db_password``), markup and padding aside.
# No counted repetition: in RE2's DFA, a bounded gap after every border
# multiplies the states by its length.
_HEADER_CELL = r"[ \t]*[`*]*(?:[a-z0-9_-]+[ \t_-]+)?" + TABLE_KEYWORDS
_HEADER_START = lazy(r"(?i)" + _HEADER_CELL)
# The RE2 set's spelling: a keyword then, in its row's name, a border or an
# alignment; or a header cell after a border
TABLE_RE2 = r"(?i)" + TABLE_KEYWORDS + r"[a-z0-9_.-]*`?(?:\*\*)?(?:[ \t]*\||\t| {2})|\|" + _HEADER_CELL
ALIGNED_SCREEN = lazy(r"(?i)" + TABLE_KEYWORDS + r"[a-z0-9_.-]*(?:\t| {2})")


def table_possible(text: str, lower: str) -> bool:
    """A superset of :func:`table_spans`' triggers, in linear time."""
    if "|" in text and _KEYWORD_HIT.search(lower):
        return True
    return ("  " in text or "\t" in text) and ALIGNED_SCREEN.search(text) is not None


def table_spans(text: str, lower: str) -> Iterator[Span]:
    """Values in the cells of tables whose row or column names a secret."""
    if "|" in text:
        for match in _TABLE_ROW.finditer(text):
            name = match.group("name")
            name_class = classify_name(name)
            if name_class is None:
                continue
            start, end = _trimmed(text, *match.span("cell"))
            if start < end and secret_value(name_class, text[start:end], name=name):
                yield start, end, kind_for_name(name)
        yield from _column_spans(text)
    if "  " in text or "\t" in text:
        for match in _ALIGNED_ROW.finditer(text):
            name = match.group("name")
            if classify_name(name) == "strong" and _spaced_secret(match.group("v")):
                yield match.start("v"), match.end("v"), kind_for_name(name)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """A cell without its padding and without the code or bold markup
    around it (```value```, ``**value**``)."""
    while start < end and text[start] in _CELL_TRIM:
        start += 1
    while end > start and text[end - 1] in _CELL_TRIM:
        end -= 1
    for mark in ("`", "**"):
        if end - start > 2 * len(mark) and text.startswith(mark, start) and text.endswith(mark, start, end):
            start, end = start + len(mark), end - len(mark)
    return start, end


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    cells = []
    position = start
    while True:
        bar = text.find("|", position, end)
        if bar < 0:
            cells.append((position, end))
            return cells
        cells.append((position, bar))
        position = bar + 1


def _column_spans(text: str) -> Iterator[Span]:
    """Cells under a header that names a secret (``| service | token |``,
    psql's `` id | username | password ``), down to the table's end."""
    lines = []
    position = 0
    while position <= len(text):
        end = text.find("\n", position)
        if end < 0:
            end = len(text)
        lines.append((position, end))
        position = end + 1
    index = 0
    while index + 1 < len(lines):
        start, end = lines[index]
        rule_start, rule_end = lines[index + 1]
        if "|" not in text[start:end] or not _RULE_LINE.match(text, rule_start, rule_end):
            index += 1
            continue
        header = _cells(text, start, end)
        columns = []
        for number, (cell_start, cell_end) in enumerate(header):
            if not number or not _HEADER_START.match(text, cell_start, cell_end):
                continue  # no border before it (psql's first column), or the keyword deep in a phrase
            name = text[slice(*_trimmed(text, cell_start, cell_end))].replace(" ", "_")
            name_class = classify_name(name) if name and len(name) <= 80 else None
            if name_class is not None:
                columns.append((number, name, name_class))
        index += 2
        while index < len(lines) and "|" in text[lines[index][0] : lines[index][1]]:
            if columns:
                cells = _cells(text, *lines[index])
                if len(cells) == len(header):
                    for number, name, name_class in columns:
                        value_start, value_end = _trimmed(text, *cells[number])
                        if value_start < value_end and secret_value(name_class, text[value_start:value_end], name=name):
                            yield value_start, value_end, kind_for_name(name)
            index += 1


# -- a short password named in a sentence ---------------------------------------

# "the password is Tiger#3068maple", "my key is -#PPD6PziWJ#pgV5B", "set the
# token to Xk3…", "here's the key …": a value shorter than the phrase rule's 20 characters, right
# after a credential noun and "is", "was", "to", ":" or "=".  Matched on the
# lower-cased text; the value must have a password's mix of characters.
_PROSE_NOUN = r"(?:password|passphrase|passcode|passwd|pwd|secret|key|token)"
_PROSE_VALUE = r"[^\s\"'`]"
# ("api key below" and the value on the next line, "token here: …")
_PROSE_HERE = r"|[ \t]+(?:below|here)[ \t]*:?(?:[ \t]+|[ \t]*\r?\n[ \t]*)"
PROSE_SECRET = lazy(
    r"(?<![a-z0-9_])" + _PROSE_NOUN + r"s?(?:(?:[ \t]+(?:is|was|should[ \t]+be|will[ \t]+be|=|:|to)|[ \t]*[:=])[ \t]+" + _PROSE_HERE + r")[\"'`]?(?P<v>" + _PROSE_VALUE + "{8,200})"
    # "here's the key X"
    r"|(?<![a-z0-9_])(?:the|my|our|your|this|new)[ \t]+" + _PROSE_NOUN + r"s?[ \t]+[\"'`]?(?P<u>" + _PROSE_VALUE + "{8,200})"
)
# A superset for the screens: the value holds a digit (the detector's rule)
_PROSE_NAMED = (
    r"(?i)(?:(?:" + _PROSE_NOUN + r"s?(?:[ \t]+(?:is|was|should[ \t]+be|will[ \t]+be|=|:|to)|[ \t]*[:=])|(?:the|my|our|your|this|new)[ \t]+" + _PROSE_NOUN + r"s?)"
    r"[ \t]+" + r"|" + _PROSE_NOUN + r"s?" + _PROSE_HERE[1:] + r")[\"'`]?" + _PROSE_VALUE + "*[0-9]"
)
# for RE2 (linear time)
PROSE_SCREEN = lazy(_PROSE_NAMED)


def prose_possible(text: str) -> bool:
    """A superset of :func:`prose_secret_spans`' triggers."""
    if " " not in text and "\t" not in text:
        return False
    return PROSE_SCREEN.search(text) is not None


_WORD_PARTS = lazy(r"[A-Za-z]{4,}")
_PROSE_NOT = lazy(r"(?i)^(?:sha\d*|md5|v?\d+(?:\.\d+)+)|://|^[\w.+-]+@[\w-]+\.[\w.]+$|^[/~.]")


def _prose_candidates(text: str, lower: str) -> Iterator[tuple[int, int, str, int, str]]:
    """(value start, value end, form, where the phrase starts, the phrase)"""
    for match in PROSE_SECRET.finditer(lower):
        group = "v" if match.group("v") is not None else "u"
        yield (*match.span(group), group, match.start(), match.group(0))


def prose_secret_spans(text: str, lower: str) -> Iterator[Span]:
    for start, end, group, phrase_start, phrase in _prose_candidates(text, lower):
        while end > start and text[end - 1] in ".,;:!?)]}":
            end -= 1
        value = text[start:end]
        if len(value) < 8 or is_placeholder(value) or _PROSE_NOT.search(value):
            continue
        letters = sum(c.isalpha() for c in value)
        digits = sum(c.isdigit() for c in value)
        symbols = len(value) - letters - digits
        upper = sum(c.isupper() for c in value)
        if not digits:
            continue
        if _PHRASE_BEFORE_STOP.search(lower, max(0, phrase_start - 16), phrase_start):
            continue  # a cache key, a primary key, a page token
        if len(_WORD_PARTS.findall(value)) >= 3:
            continue  # made of words: a cache key, a file or package name
        if (len(value) <= 64 and letters >= 2 and digits and (symbols or (upper and upper < letters))) or (len(value) >= 16 and _opaque(value)):
            name = phrase
            yield start, end, "password" if "pass" in name or "pwd" in name else "token" if "token" in name else "secret"


# -- a chain's private key, told from a hash of the same shape ----------------------

# 64 hex digits (with 0x or without) are an Ethereum/secp256k1 private key
# or a transaction, block or state hash; the nearest word before it on its
# line tells which.  A key word ("private key", "privkey", "pk", "signing
# key", "signed with", "mnemonic") with no hash word after it (a hash, an
# id, a receipt, a root, an address) names a key; "transaction" alone
# says nothing ("the key that signs the transaction: 0x…").
_CHAIN_RUN = lazy(r"(?:0x)?[0-9a-fA-F]{64}")
_CHAIN_KEY_WORD = lazy(
    r"private[ _-]?key|priv[ _-]?key|secret[ _-]?key|sign(?:ing|er)[ _-]?key|(?:wallet|account|deployer|owner|validator|operator)[ _-]?key|"
    r"signed[ _-](?:by|with)|sign(?:ing)?[ _-]with|mnemonic|keystore|keypair|key[ _-]?pair|hex[ _-]?key|"
    # words that name a key only right before the value: "pk: 0x…", "secret = …"
    r"(?<![a-z0-9])(?:pk|secret)(?=[ \t]*(?:\\?[\"'])?[ \t]*(?:[:=]|is\b)[ \t]*(?:\\?[\"'])?[ \t]*(?:0x)?[0-9a-f]{64})"
)
_CHAIN_HASH_WORD = lazy(
    r"hash|(?<![a-z0-9])(?:tx|transaction|block|trace|request|event|log)[ _-]?(?:id|hash|number|root)|txid|receipt|digest|"
    r"(?<![a-z0-9])(?:state|storage|merkle|parent|tx)[ _-]?root|address|addr|(?<![a-z0-9])(?:topic|nonce|commit|sha|checksum|salt|selector|calldata|data|input|id)s?(?![a-z0-9])"
)
# a digest of something secret ("sha256 of the key file: …") names no key
_CHAIN_DIGEST_WORD = lazy(r"(?<![a-z0-9])(?:sha-?\d*|md5|blake\w*|keccak\w*|checksum|digest|fingerprint)(?![a-z])")
CHAIN_WINDOW = 100


def chain_key_spans(text: str, lower: str, runs: list[tuple[int, int]]) -> Iterator[Span]:
    """64 hex digits after a key word on their line (see above)."""
    for run_start, run_end in runs:
        if run_end - run_start < 64:
            continue
        for value in _CHAIN_RUN.finditer(text, run_start, run_end):
            start, end = value.span()
            if (start and text[start - 1].isalnum() and not (start >= 2 and text[start - 2] == "\\")) or text[end : end + 1].isalnum():
                continue
            line_start = max(0, start - CHAIN_WINDOW)
            for newline in ("\n", "\\n", "\r"):
                cut = lower.rfind(newline, line_start, start)
                if cut >= 0:
                    line_start = cut + len(newline)
            key_at = -1
            for match in _CHAIN_KEY_WORD.finditer(lower, line_start, end):  # (to the value's end: a lookahead reads it)
                if match.end() > start:
                    break
                key_at = match.end()
            if key_at < 0 or start - key_at > 48 or _CHAIN_HASH_WORD.search(lower, key_at, start):
                continue
            if _CHAIN_DIGEST_WORD.search(lower, line_start, start):
                continue
            yield start, end, "private-key"
