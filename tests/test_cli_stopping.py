"""A Ctrl-C or SIGTERM is never lost, even when its interrupt lands where Python drops exceptions."""
from __future__ import annotations

import os
import signal

import pytest

from pipelines.cli import stopping


@pytest.fixture
def own_handlers():
    """stop_on_sigterm installs process-wide handlers; put pytest's back afterwards."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    for s, handler in saved.items():
        signal.signal(s, handler)


class _SignalsWhileCollected:
    """Sends a signal from __del__, where Python prints a raised exception and drops it, as it
    does in SQLAlchemy's garbage-collection callbacks."""

    def __init__(self, sig: signal.Signals) -> None:
        self.sig = sig

    def __del__(self) -> None:
        os.kill(os.getpid(), self.sig)
        for _ in range(10_000):  # the handler runs between bytecodes, still inside __del__
            pass


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped interrupt, as intended
@pytest.mark.parametrize("sig, raised", [(signal.SIGTERM, stopping.Terminated), (signal.SIGINT, KeyboardInterrupt)])
def test_an_interrupt_swallowed_by_a_collection_callback_is_raised_again(own_handlers, sig, raised) -> None:
    stopping.stop_on_sigterm()
    victim = _SignalsWhileCollected(sig)
    del victim  # the handler's interrupt is printed as "Exception ignored" and dropped here
    with pytest.raises(raised) as stop:
        stopping.raise_if_stopped()
    assert stopping.exit_code(stop.value) == 128 + sig
    stopping.raise_if_stopped()  # raised once: nothing pending any more


def test_a_shells_ignored_ctrl_c_stays_ignored(own_handlers) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stopping.stop_on_sigterm()
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped interrupt, as intended
def test_a_swallowed_sigterm_is_sent_again_to_the_handler_that_owns_it_now(own_handlers) -> None:
    stopping.stop_on_sigterm()
    victim = _SignalsWhileCollected(signal.SIGTERM)
    del victim
    received = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: received.append(signum))  # as a Celery worker takes over
    stopping.resend_if_stopped()
    for _ in range(10_000):  # the handler runs between bytecodes
        pass
    assert received == [signal.SIGTERM]
    stopping.resend_if_stopped()  # sent once: nothing pending any more
    assert received == [signal.SIGTERM]
