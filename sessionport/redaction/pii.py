"""Personal data: email addresses, home-directory usernames, public IPs.

- Emails, but not ``git@host:`` remotes, ``pkg@1.2.3`` versions, ``@scope``
  packages, ``noreply@`` addresses or ``example.com``/``.test``/``.invalid``
  domains (placeholders by design).
- The username of ``/Users/<u>``, ``/home/<u>``, ``C:\\Users\\<u>`` (also
  written with escaped or forward slashes).  Only the name is replaced, so
  paths stay readable.  Learned names are also redacted where they appear
  alone (``ls -l`` owners, shell prompts), when long and unusual enough.
- Public IPv4 and IPv6 addresses; private, loopback, link-local, unspecified
  and broadcast addresses, OIDs and 4-part versions are kept.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

from sessionport.lazy import lazy

Span = tuple[int, int, str]

# Anchored on "@" (a literal sre finds fast); the local part is walked back in Python.
_AT_DOMAIN = lazy(
    r"@(?P<domain>[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24})"
    r"(?![A-Za-z0-9-]|\.[A-Za-z0-9])"
)
_KEEP_LOCAL = frozenset({"git", "noreply", "no-reply", "donotreply", "do-not-reply", "mailer-daemon", "postmaster"})
_KEEP_DOMAIN = lazy(
    r"(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid|localhost|local|iam\.gserviceaccount\.com|"
    r"developer\.gserviceaccount\.com|appspot\.gserviceaccount\.com)$",
    re.I,
)

# Accounts of cloud images and services: user@host is a login, not a person
_SERVICE_ACCOUNTS = frozenset(
    "root ubuntu admin ec2-user centos fedora debian pi opc azureuser bitnami core deploy deployer git www-data "
    "postgres mysql redis jenkins runner vagrant docker ansible".split()
)
_REMOTE_LOGIN_BEFORE = lazy(r"(?:^|[\s;&|(\"'`])(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id|autossh)\b[^\n;&|]{0,60}?[\s:\"']$")
HOME = lazy(
    r"(?:(?<![A-Za-z0-9_])|(?<=/mnt/[a-z]))(?:/Users|/home|/export/home|/var/home)/(?P<user>[A-Za-z0-9._-]{1,64}?)(?=$|[\\/\s\"'`:;,)\]}>])"
    # Windows names may hold spaces ("Jane Doe"); they end at the next separator
    r"|[A-Za-z]:(?:\\{1,4}|/)(?:Users|Documents and Settings)(?:\\{1,4}|/)(?P<wuser>[A-Za-z0-9._-](?:[A-Za-z0-9._ -]{0,62}[A-Za-z0-9._-])??)(?=$|[\\/\"'`:;,)\]}>\n])"
    # ~name/ (a user's home in shell syntax)
    r"|(?<![A-Za-z0-9_~])~(?P<tuser>[a-z_][a-z0-9._-]{1,31})(?=/)"
)
# Account names that are not people; kept in paths and never learned.
GENERIC_USERS = frozenset(
    "user users username me you runner ubuntu debian ec2-user admin administrator root node app appuser www www-data "
    "default public shared guest vscode codespace codespaces coder dev developer jenkins circleci travis vagrant docker "
    "git build builder ci test tester nobody runneradmin all default.migrated localuser linuxbrew".split()
)
_COMMON_WORDS = frozenset(
    "main master home data work code test tests docs src project projects file files name user admin local temp tmp "
    "build dist list item path true false none null info error debug warning config setup".split()
)

# Anchored on the first dot (a literal the engine finds fast); the first
# octet is walked back in Python.
_IPV4_TAIL = lazy(r"\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}(?![0-9]|\.[0-9])")
IPV6 = lazy(r"(?<![0-9A-Za-z:])(?:[0-9a-fA-F]{1,4}:){2,7}(?::|[0-9a-fA-F]{1,4}|(?::[0-9a-fA-F]{1,4}){1,6})(?![0-9A-Za-z:])")
# A version's own words and the comparison operators of version specifiers
# (``pip install x==1.2.3.4``, ``^1.2.3.4``); a plain ``=`` (``HOST=``), a
# ``/`` (URLs) or a word merely ending in "ver" (server, driver) is no such
# context.
_VERSION_BEFORE = lazy(r"(?i)(?:\bv|\bver|\bversion|\brelease|\bbuild|[~^<>]=?|==|~=|!=)\s*[:=]?\s*$")


_LOCAL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")


def email_spans(text: str) -> Iterator[Span]:
    if "@" not in text:
        return
    for match in _AT_DOMAIN.finditer(text):
        at = match.start()
        start = at
        while start > 0 and at - start < 64 and text[start - 1] in _LOCAL_CHARS:
            start -= 1
        while start < at and not text[start].isalnum():
            start += 1  # a local part starts with a letter or digit
        if start >= 1 and text[start - 1] == "\\" and text[start] in "nrt":
            start += 1  # "\nalice@x.com" in escaped text
        local = text[start:at]
        if not local or local.lower() in _KEEP_LOCAL or _KEEP_DOMAIN.search(match.group("domain")):
            continue
        if local.lower() in _SERVICE_ACCOUNTS or _REMOTE_LOGIN_BEFORE.search(text, max(0, start - 80), start):
            continue  # user@host of ssh/scp: an account on a machine, not a mailbox
        yield start, match.end(), "email"


def home_users(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, username) of each home-directory username."""
    if "Users" not in text and "/home/" not in text and "Documents and Settings" not in text and "~" not in text:
        return
    for match in HOME.finditer(text):
        group = "user" if match.group("user") is not None else "wuser" if match.group("wuser") is not None else "tuser"
        user = match.group(group)
        if user.lower() in GENERIC_USERS or user in (".", ".."):
            continue
        yield match.start(group), match.end(group), user


def learnable(user: str) -> bool:
    """Whether a username is distinctive enough to redact where it stands alone."""
    return len(user) >= 4 and user.lower() not in GENERIC_USERS and user.lower() not in _COMMON_WORDS


def bare_user_pattern(users: set[str]) -> re.Pattern | None:
    names = sorted((u for u in users if learnable(u)), key=len, reverse=True)
    if not names:
        return None
    return re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, names)) + r")(?![A-Za-z0-9_])")


# Well-known public resolvers: services, not people.
_SERVICE_IPS = frozenset(("8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1", "9.9.9.9", "149.112.112.112", "208.67.222.222", "208.67.220.220"))


def _is_public(address: str) -> bool:
    if address in _SERVICE_IPS or address.endswith((".0", ".255")):
        return False  # network/broadcast addresses are mostly versions and masks
    import ipaddress  # only for candidate addresses: kept out of start-up

    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.is_private and not _is_documentation(ip):
        return False
    return not (ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified or ip.is_reserved)


def _is_documentation(ip) -> bool:
    # 192.0.2/24, 198.51.100/24, 203.0.113/24, 2001:db8::/32 stand for public
    # addresses in examples and tests; a real log would hold the real thing.
    return any(ip in net for net in _doc_nets() if net.version == ip.version)


@lru_cache(maxsize=None)
def _doc_nets() -> list:
    import ipaddress

    return [ipaddress.ip_network(n) for n in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")]


def ip_spans(text: str) -> Iterator[Span]:
    if "." in text:
        for match in _IPV4_TAIL.finditer(text):
            dot = match.start()
            start = dot
            while start > 0 and dot - start < 3 and "0" <= text[start - 1] <= "9":
                start -= 1
            if start == dot:
                continue
            if start and (text[start - 1].isdigit() or text[start - 1] == "."):
                continue  # inside a longer number or dotted sequence
            address = text[start : match.end()]
            if start and text[start - 1].isalpha() and not (start >= 2 and text[start - 2] == "\\"):
                continue
            if _VERSION_BEFORE.search(text[max(0, start - 12):start]):
                continue
            if any(len(part) > 1 and part[0] == "0" for part in address.split(".")):
                continue  # zero-padded: a version or a date, not an address
            if _is_public(address):
                yield start, match.end(), "ip-address"
    if "::" in text or text.count(":") >= 5:
        for match in IPV6.finditer(text):
            value = match.group()
            if value[0] not in "23" or value.index(":") != 4 or (value.count(":") < 3 and "::" not in value):
                continue  # global unicast (2000::/3) written in full form only
            if _is_public(value):
                yield match.start(), match.end(), "ip-address"
