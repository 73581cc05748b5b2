"""Files written beside an output that share its fate.

Markdown's ``--images DIR`` writes the images of a document while the
document is written.  Each file (and each folder made for them) is noted
here; when the output they belong to fails or is interrupted
(``sessionport.io.open_output``) they are removed again, newest first, so a
run that writes no document leaves no images; when it is complete they stay.
Positions in the ledger nest: an output opened while another is open
(a report) keeps or drops only what was noted after it opened.
"""

from __future__ import annotations

import os

_written: list[str] = []  # files, and folders (ending in os.sep), in order


def note_file(path: str) -> None:
    _written.append(path)


def note_folder(path: str) -> None:
    _written.append(path.rstrip(os.sep) + os.sep)


def mark() -> int:
    """Where the ledger stands: what :func:`discard_since` goes back to."""
    return len(_written)


def keep_since(position: int) -> None:
    """The output these files belong to is complete: they stay."""
    del _written[position:]


def discard_since(position: int) -> None:
    """The output these files belong to failed: remove the files and the
    (then empty) folders noted since ``position``, newest first."""
    made, _written[position:] = _written[position:], []
    for path in reversed(made):
        try:
            if path.endswith(os.sep):
                os.rmdir(path)
            else:
                os.unlink(path)
        except OSError:
            pass  # a folder something else wrote into stays, as does a file gone already
