"""The ``sessionport/v1`` model on disk: ``portable`` (one JSON document) and
``portable-jsonl`` (the wire format, one event per line).  Both are lossless;
their JSON Schemas are in ``schemas/``.
"""

from sessionport.registry import lazy_parts

_PARTS = {
    "JSONL_IMPORTER": ("sessionport.formats.portable.jsonl_reader", "IMPORTER"),
    "JSONL_EXPORTER": ("sessionport.formats.portable.jsonl_writer", "EXPORTER"),
    "IMPORTER": ("sessionport.formats.portable.reader", "IMPORTER"),
    "EXPORTER": ("sessionport.formats.portable.writer", "EXPORTER"),
}
__all__ = list(_PARTS)

__getattr__ = lazy_parts(_PARTS)
