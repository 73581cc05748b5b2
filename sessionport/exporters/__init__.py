"""One module per writable format; each defines ``EXPORTER``."""
