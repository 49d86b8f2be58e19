"""SIGTERM stops a command the way Ctrl-C does, and neither can be lost.

`timeout`, systemd and `docker stop` send SIGTERM, and Python's default for it is to die on
the spot: `audit` and `nightly` would skip their `with` blocks' exits and leave their embedded
workers to finish whatever they held (the workers' parent-death signal is a warm shutdown,
which can take a stage's whole time limit).  Raised as an interrupt instead, SIGTERM runs the
same stop as Ctrl-C.  Commands that own their signals (a Celery worker, the scheduler's beat,
`watch`, `serve`) install their handlers later, which replace this one.

An interrupt raised while the interpreter runs a garbage-collection callback (SQLAlchemy's
`_collection_gced`, say) is printed as "Exception ignored" and dropped, so the audit would
carry on to the end.  The handler therefore also remembers the signal, and the loops a command
waits in call `raise_if_stopped()`, which raises it again; the scheduler, whose Celery worker
takes the signals over, has it sent again once that worker is ready (`resend_if_stopped()`).
"""
from __future__ import annotations

import os
import signal
from types import FrameType


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; a KeyboardInterrupt, so every Ctrl-C path handles it."""


_pending: KeyboardInterrupt | None = None


def stop_on_sigterm() -> None:
    """SIGTERM raises Terminated; Ctrl-C (unless the shell had it ignored) raises KeyboardInterrupt;
    both are remembered for raise_if_stopped."""
    global _pending
    _pending = None

    def stop(signum: int, _frame: FrameType | None) -> None:
        global _pending
        _pending = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
        raise _pending

    signal.signal(signal.SIGTERM, stop)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, stop)


def raise_if_stopped() -> None:
    """Raise the stop a signal asked for, if the interrupt it raised was swallowed."""
    global _pending
    if _pending is not None:
        stop, _pending = _pending, None
        raise stop


def resend_if_stopped() -> None:
    """Send a remembered stop again, to whichever handler owns the signal by now: the scheduler's
    Celery worker installs its own once started, and a SIGTERM swallowed before that would
    otherwise leave it running."""
    global _pending
    if _pending is not None:
        sig = signal.SIGTERM if isinstance(_pending, Terminated) else signal.SIGINT
        _pending = None
        os.kill(os.getpid(), sig)


def exit_code(stop: KeyboardInterrupt) -> int:
    """The shell's convention: 128 + the signal's number."""
    return 128 + (signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)
