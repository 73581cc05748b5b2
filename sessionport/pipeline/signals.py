"""Termination signals as an exception, so a run cleans up on its way out.

SIGINT already arrives as ``KeyboardInterrupt``; SIGTERM (``timeout``,
systemd, a cancelled CI job) and SIGHUP (a closed terminal) would end the
process on the spot and leave the partial ``.part`` file beside ``-o``, the
scratch folder of a batch and its worker processes behind.  With
:func:`raise_on_termination` installed they raise :class:`Terminated`
instead, which unwinds through every ``finally`` like an interrupt.
"""

from __future__ import annotations

import signal

SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Terminated(BaseException):
    """The process was asked to end (SIGTERM or SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


def ignore_later(signum, frame) -> None:
    """The handler after the first signal: the clean-up goes on.

    A handler that does nothing rather than ``SIG_IGN``: a second signal
    can land while the first one's handler is being replaced, and Python
    then finds it pending with no handler to run, which it reports as an
    ``OSError`` ("ignored due to race condition") raised wherever the
    clean-up happens to be."""


def _raise(signum, frame) -> None:
    # Once is enough: a second signal while cleaning up must not cut the
    # clean-up short.
    for sig in SIGNALS:
        signal.signal(sig, ignore_later)
    raise Terminated(signum)


def raise_on_termination() -> None:
    """Turn SIGTERM and SIGHUP into :class:`Terminated` (main thread only)."""
    for sig in SIGNALS:
        try:
            if signal.getsignal(sig) is signal.SIG_IGN and sig == getattr(signal, "SIGHUP", None):
                continue  # started under nohup: keep ignoring hang-ups
            signal.signal(sig, _raise)
        except (ValueError, OSError):  # not the main thread
            pass
