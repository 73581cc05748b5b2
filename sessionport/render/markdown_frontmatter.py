"""YAML front matter for note vaults (Obsidian, Jekyll, Hugo).

Every value is written as a YAML double-quoted scalar with every character
that YAML would read differently escaped (quotes, backslashes, control
characters, line separators, BOM), so a title such as ``"]: &x\n---`` can
neither end the block nor add keys.  ``<``, ``>`` and ``&`` are written as
``\\u`` escapes too (the same value to YAML): a viewer that does not know
front matter shows the block as Markdown text, where a title holding
``<img src=x onerror=...>`` would be live HTML.
"""

from __future__ import annotations

from typing import Iterable

from sessionport.render.session import parse_time


def yaml_quote(value: str) -> str:
    out = ['"']
    for char in value:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char in "<>&":
            out.append(f"\\u{code:04x}")
        elif 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
            out.append("\ufffd")  # bidi overrides reorder the title on screen
        elif code < 0x20 or 0x7F <= code <= 0x9F or code in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF) or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def iso_date(value) -> str | None:
    """An ISO 8601 date-time: the value as written when it is one already."""
    moment = parse_time(value)
    if moment is None:
        return None
    if isinstance(value, str):
        return value.strip()
    return moment.isoformat().replace("+00:00", "Z")


def front_matter(fields: Iterable[tuple[str, object]]) -> str:
    """``---``-delimited YAML; values are strings, ints or lists of strings."""
    lines = ["---"]
    for key, value in fields:
        if value is None or value == "" or value == []:
            continue
        if isinstance(value, bool):
            lines.append(f"{key}: {'true' if value else 'false'}")
        elif isinstance(value, int):
            lines.append(f"{key}: {value}")
        elif isinstance(value, list):
            lines.append(f"{key}: [" + ", ".join(yaml_quote(str(v)) for v in value) + "]")
        else:
            lines.append(f"{key}: {yaml_quote(str(value))}")
    lines.append("---")
    return "\n".join(lines) + "\n\n"


def tag(value: str) -> str:
    """A tag vaults accept: no spaces, no '#'."""
    return "".join(c if c.isalnum() or c in "-_/" else "-" for c in value).strip("-") or "unknown"
