"""Payment card numbers (PANs): 13-19 digits, contiguous or in groups of
digits separated by single spaces or dashes, with the issuer prefix of a
card network and a valid Luhn check digit.

The Luhn digit is what separates a card number from the other long numbers
of a transcript (timestamps in milliseconds, snowflake ids, phone numbers):
one random number in ten passes it, and the issuer prefixes cut that
further.  Numbers inside longer digit runs, dotted numbers (versions, IPs)
and numbers glued to letters (hex, ids) are not candidates.
"""

from __future__ import annotations

from typing import Iterator

from sessionport.lazy import lazy

Span = tuple[int, int, str]

# 4-4-4-4(-3), Amex 4-6-5, Diners 4-6-4, or 13-19 contiguous digits.
CANDIDATE = lazy(
    r"(?<![0-9A-Za-z_.,/+-])(?:[0-9]{4}(?:([ -])[0-9]{4}\1[0-9]{4}\1[0-9]{1,4}(?:\1[0-9]{3})?|([ -])[0-9]{6}\2[0-9]{4,5})|[0-9]{13,19})(?![0-9A-Za-z_]|[.,][0-9]|-[0-9])"
)


def luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def issuer_ok(digits: str) -> bool:
    """Whether the number starts like a card of a network and has a length
    that network issues (Visa, Mastercard, Amex, Discover, JCB, Diners,
    UnionPay, Maestro)."""
    n = len(digits)
    two, four = int(digits[:2]), int(digits[:4])
    if digits[0] == "4":
        return n in (13, 16, 19)
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16
    if two in (34, 37):
        return n == 15
    if digits.startswith(("6011", "65")) or 644 <= int(digits[:3]) <= 649 or 622126 <= int(digits[:6]) <= 622925:
        return 16 <= n <= 19
    if 3528 <= four <= 3589:
        return 16 <= n <= 19
    if two in (36, 38, 39) or 300 <= int(digits[:3]) <= 305:
        return 14 <= n <= 19
    if two == 62:
        return 16 <= n <= 19
    if two in (50, 56, 57, 58) or digits[0] == "6":
        return 12 <= n <= 19  # Maestro
    return False


def card_spans(text: str) -> Iterator[Span]:
    for match in CANDIDATE.finditer(text):
        value = match.group()
        digits = value.replace(" ", "").replace("-", "")
        if 13 <= len(digits) <= 19 and digits.isdigit() and issuer_ok(digits) and luhn_ok(digits):
            yield match.start(), match.end(), "card-number"
