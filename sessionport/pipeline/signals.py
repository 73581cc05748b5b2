"""Termination signals as an exception, so a run cleans up on its way out.

SIGINT already arrives as ``KeyboardInterrupt``; SIGTERM (``timeout``,
systemd, a cancelled CI job) and SIGHUP (a closed terminal) would end the
process on the spot and leave the partial ``.part`` file beside ``-o``, the
scratch folder of a batch and its worker processes behind.  With
:func:`raise_on_termination` installed they raise :class:`Terminated`
instead, which unwinds through every ``finally`` like an interrupt.
"""

from __future__ import annotations

import os
import signal
import sys

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


def _forked_child(signum: int) -> None:
    """A process forked from this one (a worker of ``--jobs``) runs these
    handlers until it installs its own; a signal in that window has
    nothing of the parent's to clean up, and raising would end the child
    with a traceback printed by multiprocessing.  It ends quietly, as by
    the signal's default action."""
    if _owner is not None and os.getpid() != _owner:
        os._exit(128 + signum)


def _raise(signum, frame) -> None:
    # Once is enough: a second signal while cleaning up must not cut the
    # clean-up short.
    global received
    _forked_child(signum)
    received = signum
    for sig in SIGNALS:
        signal.signal(sig, ignore_later)
    if signal.getsignal(signal.SIGINT) is _interrupt:
        signal.signal(signal.SIGINT, ignore_later)
    raise Terminated(signum)


# The termination signal or Ctrl-C that reached this process, if one did.
received: int | None = None
# The process that installed the handlers (see _forked_child).
_owner: int | None = None
# A signal whose exception was lost.  Python runs a handler between any two
# bytecodes, a finaliser's or a weakref callback's too (an import's module
# lock has one), and an exception raised there goes to sys.unraisablehook,
# is printed as "Exception ignored" and the run goes on: it would end with
# 0.  check() raises it again at the points of no return.
lost: int | None = None


def _unraisable(unraisable) -> None:
    global lost
    exc = unraisable.exc_value
    if isinstance(exc, Terminated):
        lost = exc.signum
    elif isinstance(exc, KeyboardInterrupt) and received is not None:
        lost = signal.SIGINT
    _previous_hook(unraisable)


_previous_hook = sys.unraisablehook


def exception(signum: int) -> BaseException:
    """What a signal raises here."""
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)


def check() -> None:
    """Raise, once, the exception of a signal that was lost (see ``lost``):
    before an output replaces its target and when a command has run.
    Nothing when none was."""
    global lost
    signum, lost = lost, None
    if signum is None:
        return
    raise exception(signum)


def _interrupt(signum, frame) -> None:
    # Python's own handler raises KeyboardInterrupt at every Ctrl-C: a
    # second one while the first unwinds (a busy machine delivers it late,
    # or a key pressed twice) cut the clean-up short and ended the process
    # by the signal instead of with 130.  Once is enough here too.
    global received
    _forked_child(signum)
    received = signal.SIGINT
    for sig in (*SIGNALS, signal.SIGINT):
        signal.signal(sig, ignore_later)
    raise KeyboardInterrupt


def raise_on_termination() -> None:
    """Turn SIGTERM and SIGHUP into :class:`Terminated`, and make Ctrl-C
    raise KeyboardInterrupt once (main thread only)."""
    global _previous_hook, _owner
    _owner = os.getpid()
    if sys.unraisablehook is not _unraisable:
        _previous_hook = sys.unraisablehook
        sys.unraisablehook = _unraisable
    try:
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when started with SIGINT ignored
            signal.signal(signal.SIGINT, _interrupt)
    except (ValueError, OSError):  # not the main thread
        pass
    for sig in SIGNALS:
        try:
            if signal.getsignal(sig) is signal.SIG_IGN and sig == getattr(signal, "SIGHUP", None):
                continue  # started under nohup: keep ignoring hang-ups
            signal.signal(sig, _raise)
        except (ValueError, OSError):  # not the main thread
            pass


def settle() -> None:
    """On the way out after a signal: the do-nothing handlers become
    ``SIG_IGN``.  Python puts the default action back for a handler of its
    own when it shuts down, so a late signal would end the process by the
    signal (status -2) after the clean-up and the exit code were done."""
    for sig in (*SIGNALS, signal.SIGINT):
        try:
            if signal.getsignal(sig) is ignore_later:
                signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):
            pass
