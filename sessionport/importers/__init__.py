"""One module per readable format; each defines ``IMPORTER``."""
