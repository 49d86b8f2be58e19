"""SIGTERM stops a command the way Ctrl-C does.

`timeout`, systemd and `docker stop` send SIGTERM, and Python's default for it is to die on
the spot: `audit` and `nightly` would skip their `with` blocks' exits and leave their embedded
workers to finish whatever they held (the workers' parent-death signal is a warm shutdown,
which can take a stage's whole time limit).  Raised as an interrupt instead, SIGTERM runs the
same stop as Ctrl-C.  Commands that own their signals (a Celery worker, the scheduler's beat,
`watch`, `serve`) install their handlers later, which replace this one.
"""
from __future__ import annotations

import signal
from types import FrameType


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; a KeyboardInterrupt, so every Ctrl-C path handles it."""


def stop_on_sigterm() -> None:
    def terminate(_signum: int, _frame: FrameType | None) -> None:
        raise Terminated()

    signal.signal(signal.SIGTERM, terminate)


def exit_code(stop: KeyboardInterrupt) -> int:
    """The shell's convention: 128 + the signal's number."""
    return 128 + (signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)
