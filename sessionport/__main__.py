"""``python -m sessionport``."""

import sys

from sessionport.cli import main

try:
    main()
except SystemExit as exc:
    from sessionport.pipeline import signals

    if signals.received is None:
        raise
    # After Ctrl-C, CPython started with -m ends the process by SIGINT
    # itself, after its clean-up, whenever the KeyboardInterrupt once passed
    # out of an exec() of a string (a dataclass being made by an import the
    # signal landed in), even though the run caught it and chose its exit
    # code.  The exit code the run chose is kept: the exit handlers run, the
    # streams are flushed, and the process ends with that code.
    import atexit
    import os

    code = exc.code
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code or 0)
