"""Entry points of the installed distributions, found without importlib.metadata.

Every run names its formats from the ``sessionport.formats`` entry points.
``importlib.metadata`` imports the ``email`` package (and with it socket,
urllib, zipfile...) to be able to parse any distribution's metadata, which
costs a small conversion about a fifth of its CPU; naming entry points needs
none of it.  :func:`entry_points` reads the ``entry_points.txt`` of each
``*.dist-info`` / ``*.egg-info`` directory on ``sys.path`` exactly as
importlib.metadata's path finder does (the same order, the first
distribution of a name wins, the same parsing of the file), and hands any
case it does not cover (a zip or egg on the path, a finder of other
distributions on ``sys.meta_path``, a metadata directory spelt in capitals)
to importlib.metadata itself.  tests/test_entrypoints.py compares the two.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from sessionport.lazy import lazy

# importlib.metadata.EntryPoint.pattern
_PATTERN = lazy(r"(?P<module>[\w.]+)\s*" r"(:\s*(?P<attr>[\w.]+)\s*)?" r"((?P<extras>\[.*\])\s*)?$")
_SUFFIXES = (".dist-info", ".egg-info")


class Unusual(Exception):
    """The path holds what only importlib.metadata knows how to read."""


class EntryPoint:
    """What sessionport uses of ``importlib.metadata.EntryPoint``."""

    __slots__ = ("name", "value", "group")

    def __init__(self, name: str, value: str, group: str) -> None:
        self.name = name
        self.value = value
        self.group = group

    def load(self) -> Any:
        # as importlib.metadata.EntryPoint.load does
        from importlib import import_module

        match = _PATTERN.match(self.value)
        module = import_module(match.group("module"))
        attrs = filter(None, (match.group("attr") or "").split("."))
        for attr in attrs:
            module = getattr(module, attr)
        return module

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def _normalize(name: str) -> str:
    # re.sub(r"[-_.]+", "-", name).lower().replace("-", "_"), without compiling
    # a pattern at every start
    name = name.lower().replace("-", "_").replace(".", "_")
    while "__" in name:
        name = name.replace("__", "_")
    return name


def _standard_finders_only() -> bool:
    import importlib.machinery

    return all(
        finder is importlib.machinery.PathFinder for finder in sys.meta_path if getattr(finder, "find_distributions", None) is not None
    )


def _metadata_dirs(root: str) -> list[str]:
    """The metadata directories in ``root``, in the order the path finder
    yields them (grouped by distribution name, names in listing order)."""
    try:
        children = os.listdir(root or ".")
    except OSError:
        if os.path.isfile(root):
            raise Unusual(root) from None  # a zip file on the path
        return []
    base_is_egg = os.path.basename(root).lower().endswith(".egg")
    by_name: dict[str, list[str]] = {}
    for child in children:
        low = child.lower()
        if low.endswith(_SUFFIXES):
            if not child.endswith(_SUFFIXES):
                raise Unusual(child)  # named from its METADATA instead
            by_name.setdefault(_normalize(low.rpartition(".")[0].partition("-")[0]), []).append(child)
        elif base_is_egg and low == "egg-info":
            raise Unusual(root)
    return [os.path.join(root, child) for children_of_name in by_name.values() for child in children_of_name]


def _parse(text: str, group: str) -> list[EntryPoint]:
    # importlib.metadata's Sectioned: stripped lines, '#' comments, [sections]
    found = []
    section = None
    for line in map(str.strip, text.splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section == group:
            name, _, value = line.partition("=")
            found.append(EntryPoint(name.strip(), value.strip(), section))
    return found


def _scan(group: str) -> list[EntryPoint]:
    if not _standard_finders_only():
        raise Unusual("sys.meta_path")
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for root in sys.path:
        for path in _metadata_dirs(root):
            key = _normalize(os.path.splitext(os.path.basename(path))[0].partition("-")[0])
            if key in seen:
                continue
            seen.add(key)
            try:
                with open(os.path.join(path, "entry_points.txt"), encoding="utf-8") as handle:
                    text = handle.read()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
                continue
            found.extend(_parse(text, group))
    return found


def entry_points(group: str) -> list:
    """The entry points of ``group``, as ``importlib.metadata.entry_points(group=group)``
    lists them."""
    try:
        return _scan(group)
    except Unusual:
        from importlib.metadata import entry_points as from_metadata

        return list(from_metadata(group=group))
