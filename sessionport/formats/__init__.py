"""One package per format, named after the format.

Each package holds everything about its format (reading, its record and item
helpers, usage, writing) and exposes ``IMPORTER`` and/or ``EXPORTER``; the
entry points in ``pyproject.toml`` name them.  A format package imports the
core (``sessionport.model``, ``registry``, ``io``, ``jsonl``, ``jsondoc``,
``context``, ``errors``, ...) and never another format package.
"""
