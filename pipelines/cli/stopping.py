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
waits in call `raise_if_stopped()`, which raises it again.

The scheduler runs a Celery worker in its own process, and an interrupt raised into Celery
while it starts can land between a lock's acquire and the `with` block that would release it,
leaving a thread waiting for ever.  Until Celery takes the signals over, the scheduler's stop
therefore only sets the flag Celery's own warm shutdown sets (`stop_celery_worker_on_signal()`),
and arms a deadline: a stop that is not over by then prints every thread's stack and exits,
as systemd's SIGKILL after TimeoutStopSec would, but with the stacks on record.
"""
from __future__ import annotations

import faulthandler
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
    signal.signal(signal.SIGTERM, _stop_handler)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _stop_handler)


def _stop_handler(signum: int, _frame: FrameType | None) -> None:
    global _pending
    _pending = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    raise _pending


def raise_if_stopped() -> None:
    """Raise the stop a signal asked for, if the interrupt it raised was swallowed."""
    global _pending
    if _pending is not None:
        stop, _pending = _pending, None
        raise stop


def stop_celery_worker_on_signal(deadline_s: float) -> None:
    """SIGTERM or Ctrl-C asks this process's Celery worker for a warm shutdown, whether it has
    started yet or not: Celery's consumer checks the flag between connection attempts and
    before each message, and replaces this handler with its own once it starts.  A stop that
    arrived earlier and whose interrupt was swallowed is not lost: it is asked for at once."""

    def stop(_signum: int, _frame: FrameType | None) -> None:
        from celery.platforms import EX_OK
        from celery.worker import state

        state.should_stop = EX_OK  # what Celery's own warm-shutdown handler sets
        faulthandler.dump_traceback_later(deadline_s, exit=True)  # the stacks, then exit status 1

    signal.signal(signal.SIGTERM, stop)
    if signal.getsignal(signal.SIGINT) in (signal.default_int_handler, _stop_handler):
        signal.signal(signal.SIGINT, stop)
    if _pending is not None:
        stop(signal.SIGTERM, None)


def exit_code(stop: KeyboardInterrupt) -> int:
    """The shell's convention: 128 + the signal's number."""
    return 128 + (signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)
