"""Running the stream: inputs resolved, read, passed through stages, written.

- ``inputs``: what the inputs of a run name (paths, ``-``, directories,
  patterns, URLs, zip members, ``@ID``), resolved in one function;
- ``stream``: one stream's parts in data order: read (importer), stages,
  write (exporter, output);
- ``run``: the run loop: one input, a batch into a directory, a batch into
  one stream;
- ``batch``: one job per input, run in worker processes;
- ``targets``: where outputs go, and the guard every output path passes;
- ``signals``: SIGTERM and SIGHUP unwinding like Ctrl-C;
- ``discover``, ``select``, ``split``: sessions on this machine, sessions
  picked from a stream, one file per session.
"""
