"""What a ChatGPT answer cites, and what a web search found, as text.

An answer's text holds inline references as private-use markers
(``\ue200cite\ue202turn0search0\ue201``, ``\ue200entity\ue202[…]\ue201``) or,
in older exports, ``【12†L3-L9】`` marks; ``metadata.content_references``
says what the ChatGPT app shows in their place and which pages they cite.
A ``web.run`` search's results are only in ``metadata.search_result_groups``.
"""

from __future__ import annotations

import re

import orjson


# The characters that open, separate and close an inline reference in an
# answer's text (``\ue200cite\ue202turn0search0\ue201``), and the older
# ``【12†L3-L9】`` citation marks: what ``metadata.content_references`` names.
_MARKS = ("\ue200", "\ue203", "【")


def read_references(text: str, refs: list) -> tuple[str, list[dict]]:
    """``text`` with each inline reference replaced as the ChatGPT app shows
    it (the reference's ``alt``: a source link, an entity's name; a cited
    page as its link, a cited file as its name), and the sources the
    references name (title and URL, once each)."""
    sources: list[dict] = []
    seen: set[str] = set()

    def source(title: object, url: object) -> None:
        if isinstance(url, str) and url.startswith(("https://", "http://")) and url not in seen:
            seen.add(url)
            sources.append({"title": title, "url": url} if isinstance(title, str) and title else {"url": url})

    ordered = sorted((r for r in refs if isinstance(r, dict)), key=lambda r: r.get("start_idx") if isinstance(r.get("start_idx"), int) else 0)
    cursor = 0
    for ref in ordered:
        for item in ref.get("items") or () if isinstance(ref.get("items"), list) else ():
            if isinstance(item, dict):
                source(item.get("title"), item.get("url"))
        source(ref.get("title") or ref.get("attribution"), ref.get("url"))
        matched = ref.get("matched_text")
        if not isinstance(matched, str) or not matched.startswith(_MARKS):
            continue  # a plain span (an attribution, a follow-up) reads as it is
        alt = ref.get("alt")
        if not isinstance(alt, str):
            url, name = ref.get("url"), ref.get("name")
            if isinstance(url, str) and url.startswith(("https://", "http://")):
                label = ref.get("attribution") or ref.get("title") or url
                alt = f"([{label}]({url}))"
            elif ref.get("type") == "file" and isinstance(name, str) and name:
                alt = f"[file: {name}]"
            else:
                continue
        at = text.find(matched, cursor)
        if at < 0:
            at = text.find(matched)
            if at < 0:
                continue
        text = text[:at] + alt + text[at + len(matched):]
        cursor = at + len(alt)
    return text, sources


# A marker no content reference names: ``\ue200name\ue202arg\ue202arg\ue201``.
_MARKER = re.compile("\ue200([a-z_]+)((?:\ue202[^\ue200\ue201\ue202]*)*)\ue201")


def _unnamed_reference(found: re.Match) -> str:
    name, args = found.group(1), [a for a in found.group(2).split("\ue202") if a]
    if name == "entity" and len(args) == 1:
        try:
            value = orjson.loads(args[0])
        except orjson.JSONDecodeError:
            value = None
        if isinstance(value, list) and len(value) > 1 and isinstance(value[1], str) and value[1]:
            return value[1]  # ["kind", "name", "description"]: the app shows the name
    return f"[{name}: {', '.join(args)}]" if args else f"[{name}]"


# The older (2024-2025) markers of an attributed span: they open and
# close a sentence the text holds anyway (``\ue203sentence\ue204\ue206``).
_SPAN_MARKS = {0xE203: None, 0xE204: None, 0xE205: None, 0xE206: None}


def unnamed_references(text: str) -> str:
    """An answer's markers that no content reference names (an export
    without ``content_references``), readable: an entity as its name, any
    other as ``[cite: turn0search0, turn0search1]``; the marks around an
    attributed span are dropped, the span kept."""
    if "\ue200" in text:
        text = _MARKER.sub(_unnamed_reference, text)
    return text.translate(_SPAN_MARKS)


def search_results(groups: list) -> str:
    """The results a web search gave (``metadata.search_result_groups``),
    one line each: the page's title and link, then its snippet."""
    lines = []
    for group in groups:
        entries = group.get("entries") if isinstance(group, dict) else None
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
                continue
            title = entry.get("title") if isinstance(entry.get("title"), str) and entry.get("title") else entry["url"]
            lines.append(f"- [{title}]({entry['url']})")
            if isinstance(entry.get("snippet"), str) and entry["snippet"].strip():
                lines.append(f"  {entry['snippet'].strip()}")
    return "\n".join(lines)
