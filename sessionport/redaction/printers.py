"""Commands that print a credential with no label, and what they print.

``cat ~/.config/datadog/api_key``, ``gh auth token``, ``gcloud auth
print-access-token``, ``echo $HEROKU_API_KEY``, ``kubectl get secret ... -o
jsonpath='{.data.token}' | base64 -d``: the output is the bare value, often
pure hex or a UUID, shapes that are kept everywhere else because git SHAs,
digests and ids have them.  When a command like these has just been seen,
the next few strings of the session (its output, the copies of it) are
judged with that context: a value printed alone is redacted whatever its
shape, unless it is a path, a URL, an address or a word.
"""

from __future__ import annotations

from sessionport.lazy import lazy
from sessionport.redaction.entropy import alone_span, is_wordy

# A word that names a credential, in a file name, a variable, a field
_NAMED = r"[a-z0-9_.-]*(?:token|key|secret|pass|pwd|cred|auth|pat\b|apikey)"
# the credential asked for (also the end of a name: DEEPGRAM_API_KEY)
_ASKED = r"(?:\b|_)(?:api[ _-]?key|key|token|secret|password|passphrase|passcode|credentials?|pat)s?\b"
PRINTER = lazy(
    r"(?i)\b(?:cat|head|tail|less|more|bat|type|get-content)\s+[^\n|;&]*" + _NAMED
    + r"|\becho\s+[\"']?\$\{?" + _NAMED
    + r"|\bprintenv\s+" + _NAMED
    + r"|\bgh\s+auth\s+token|\bglab\s+auth\s+token|\bgcloud\s+auth\s+(?:application-default\s+)?print-(?:access|identity)-token"
    + r"|\baz\s+account\s+get-access-token|\baws\s+(?:configure\s+get\s+" + _NAMED + r"|ecr\s+get-login-password|codeartifact\s+get-authorization-token)"
    + r"|\bheroku\s+auth:token|\bvault\s+(?:kv\s+get|read|print\s+token)\b[^\n]*-field|\bvault\s+print\s+token|\bop\s+read\b|\bpass\s+show\b"
    + r"|\bsecurity\s+find-(?:generic|internet)-password\b[^\n]*\s-w|\bkeyring\s+get\b|\bdoppler\s+secrets\s+get\b"
    + r"|\bterraform\s+output\s+-raw\s+" + _NAMED
    + r"|\bkubectl\b[^\n]*\bget\s+secrets?\b[^\n]*(?:jsonpath|go-template)|\bbase64\s+(?:-d|--decode|-D)\b"
    + r"|\bjq\b[^\n]*\.\w*(?:token|key|secret|password)\b|\bgit\s+config\b[^\n]*(?:token|password)"
    + r"|\bopenssl\s+rand\b|\bpwgen\b|/dev/urandom"
    + "|" + r"(?:\b(?:paste|share|provide)\b[^\n?.]{0,80}?" + _ASKED
    + r"|\b(?:send|give|enter|type|need|what(?:'s|\s+is)|where(?:'s|\s+is))\b[^\n?.]{0,80}?" + _ASKED + r"[^\n?]{0,80}\?"
    + r"|(?:api[ _-]?key|\bkey|token|secret|password|passphrase|credentials?)[ \t]*\?)"
)
# An assistant's question asking for a credential ("What is your API
# token?", "Please paste the password", "token?") is read like a command
# printing one: the user's answer is often the bare value.
# What the RE2 set looks for, cheaply: a line that starts with one of the
# commands above and names a credential further on (or generates one).
# PRINTER then decides, on that line only.  Not a detector's trigger: the
# screen's answer for detection ignores it.
_COMMANDS = (
    r"(?:sudo[ \t]+)?(?:cat|head|tail|less|more|bat|type|get-content|echo|printenv|gh|glab|gcloud|az|aws|heroku|vault|op|pass|"
    r"security|keyring|doppler|terraform|kubectl|jq|git|curl)[ \t]"
)
# the credential word inside a path, a variable, an option or a field
# (``~/.dd/api_key``, ``$API_KEY``, ``-field=password``, ``.data.token``)
SCREEN = (
    r"(?im)^[ \t]*" + _COMMANDS + r"[^\n]*[/._$:={-](?:token|key|secret|pass|pwd|cred|auth|pat)"
    r"|\b(?:cat|head|tail|less|more|bat|type)[ \t]+[^ \t\n]*(?:token|key|secret|pass|pwd|cred)"
    r"|gh[ \t]+auth[ \t]+token|glab[ \t]+auth|gcloud[ \t]+auth|op[ \t]+read|pass[ \t]+show|keyring[ \t]+get|doppler[ \t]+secrets"
    r"|heroku[ \t]+auth|vault[ \t]+print|openssl[ \t]+rand|pwgen|/dev/urandom"
    r"|(?:paste|share|provide|send|give|enter|type|need|what|where)[^\n?.]{0,90}(?:key|token|secret|password|passphrase|passcode|credential|pat)"
    r"|(?:key|token|secret|password|passphrase|credential|credentials)[ \t]*\?"
)
_LINE_MAX = 512


def _byte_line_finder():
    # RE2 finds the lines in linear time (Python's re tries every position
    # of a long output against every alternative); on the bytes of an
    # ASCII text its offsets are the text's
    try:
        import re2

        return re2.compile(SCREEN.encode()).finditer
    except Exception:  # no RE2, or a binding that cannot take the pattern
        return None


_LINES = lazy(SCREEN)
# compiled on first use: most runs have no command line that names a
# credential, and the set below answers for the others first
_BYTE_LINES: list = []


def _byte_lines():
    if not _BYTE_LINES:
        _BYTE_LINES.append(_byte_line_finder())
    return _BYTE_LINES[0]


def _screen_set():
    # one pattern in an RE2 set: the binding's Match is a single C call
    try:
        import re2

        options = re2.Options()
        patterns = re2.Set.SearchSet(options)
        patterns.Add(SCREEN)
        patterns.Compile()
        return getattr(getattr(patterns, "_set", None), "Match", None) or patterns.Match
    except Exception:
        return None


_SCREEN_MATCH = _screen_set()
COMMAND_MAX = 512  # a command line, or a short script


def is_printer(text: str) -> bool:
    """Whether ``text`` (a command, at most COMMAND_MAX characters) prints
    a credential alone.  Not part of the detection screen: the strings it
    looks at are few (short ones the cache has not seen), and its pattern
    would cost every byte of every text a share of the RE2 walk."""
    if len(text) > COMMAND_MAX or (" " not in text and "?" not in text):
        return False  # a path, an id, a word: no command line, no question
    if _SCREEN_MATCH is not None and text.isascii():
        encoded = text.encode()
        return bool(_SCREEN_MATCH(encoded)) and prints_credential(text, encoded)
    return prints_credential(text)


def prints_credential(text: str, ascii_bytes: bytes | None = None) -> bool:
    """Whether ``text`` holds a command line that prints a credential
    alone (PRINTER, tried on the lines :data:`SCREEN` picks);
    ``ascii_bytes``: the text's bytes when it is ASCII."""
    byte_lines = _byte_lines()
    if byte_lines is not None and (ascii_bytes is not None or text.isascii()):
        matches = byte_lines(ascii_bytes if ascii_bytes is not None else text.encode())
    else:
        matches = _LINES.finditer(text)
    for match in matches:
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        if end < 0:
            end = len(text)
        if PRINTER.search(text, start, min(end, start + _LINE_MAX)):
            return True
    return False


# How many strings after the command may be its output: the tool call's
# description or working directory, then the output (a copy of it, such as
# Claude Code's ``stdout``, is answered by the cache).  Strings the walk
# answers from its cache are not counted, so an output seen before does not
# close the window: the next command and its description do.
WINDOW = 2
PRINTED_MIN = 8
_NOT_SECRET_START = ("/", "~", "./", "../", "http:", "https:", "file:", "-")


# A reply that is the value with a few words before it or a remark after
# it: "sure: VALUE", "here it is: VALUE", "use this -> VALUE", "here you
# go" and the value on the next line, "VALUE - that's the prod one"
_LEAD_IN = lazy(
    r"[ \t\r\n]*(?:[A-Za-z']{1,12}(?:[ \t]+[A-Za-z']{1,12}){0,3}[ \t]*(?:[:,.!]|->|=>|\u2192)?[ \t\r\n]+)?"
    r"([^ \t\r\n]{8,1024})(?:[ \t]+(?:\u2014|\u2013|-{1,2})[ \t][^\n]{0,120})?[ \t\r\n]*"
)


def printed_secret(text: str) -> tuple[int, int] | None:
    """The span of the value ``text`` holds alone, when it may be the
    credential a printer command printed (or the answer to a question
    asking for one)."""
    span = alone_span(text, PRINTED_MIN)
    if span is None:
        match = _LEAD_IN.fullmatch(text) if len(text) <= 1200 else None
        if match is None:
            return None
        span = match.span(1)
    value = text[span[0] : span[1]].strip("\"'`")
    if "[REDACTED:" in value:
        return None  # redacted already: redacting twice equals redacting once
    if value.startswith(_NOT_SECRET_START) or "://" in value or "@" in value and "." in value.rsplit("@", 1)[-1]:
        return None
    if value.isdigit() and len(value) < 12:
        return None  # a count, a port, a pid
    if value.isalpha() and value.islower():
        return None  # a word: "null", "undefined", "error"
    if is_wordy(value) and not any(c.isdigit() for c in value):
        return None  # an identifier, a file name
    return span


def is_output(text: str) -> bool:
    """Whether ``text`` reads as a command's output (more than one line,
    or one value that is not a path), which closes the window."""
    if "\n" in text.rstrip("\n"):
        return True
    span = alone_span(text, 1)
    return span is not None and not text[span[0] : span[1]].startswith(_NOT_SECRET_START[:4])
