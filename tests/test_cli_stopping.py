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


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_schedulers_stop_asks_celery_for_a_warm_shutdown_and_raises_nothing(own_handlers, sig) -> None:
    """An interrupt raised into Celery as it starts could leave a lock held; the flag is what
    Celery's own handler sets, and its consumer checks it before taking any message."""
    from celery.exceptions import WorkerShutdown
    from celery.worker import state

    stopping.stop_on_sigterm()  # what every command starts with
    stopping.stop_celery_worker_on_signal()
    try:
        os.kill(os.getpid(), sig)
        for _ in range(10_000):  # the handler runs between bytecodes: nothing is raised here
            pass
        assert state.should_stop == 0
        with pytest.raises(WorkerShutdown):
            state.maybe_shutdown()
    finally:
        state.should_stop = None
