"""Running the stream: inputs resolved, read, passed through stages, written."""
