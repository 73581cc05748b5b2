"""What commands report about inputs rather than convert: ``inspect``'s summary,
schema validation and the progress bar."""
