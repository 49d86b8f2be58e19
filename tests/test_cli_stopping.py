"""A Ctrl-C or SIGTERM is never lost, even when its interrupt lands where Python drops exceptions."""
from __future__ import annotations

import faulthandler
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipelines.cli import stopping

REPO = Path(__file__).resolve().parents[1]


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
    stopping.stop_celery_worker_on_signal(deadline_s=600)
    try:
        os.kill(os.getpid(), sig)
        for _ in range(10_000):  # the handler runs between bytecodes: nothing is raised here
            pass
        assert state.should_stop == 0
        with pytest.raises(WorkerShutdown):
            state.maybe_shutdown()
    finally:
        faulthandler.cancel_dump_traceback_later()  # the deadline the stop armed
        state.should_stop = None


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped interrupt, as intended
def test_a_stop_swallowed_before_the_scheduler_took_the_signals_is_still_asked_for(own_handlers) -> None:
    from celery.worker import state

    stopping.stop_on_sigterm()
    victim = _SignalsWhileCollected(signal.SIGTERM)
    del victim  # swallowed while the scheduler was still setting up
    try:
        stopping.stop_celery_worker_on_signal(deadline_s=600)
        assert state.should_stop == 0
    finally:
        faulthandler.cancel_dump_traceback_later()
        state.should_stop = None


HANGS_AFTER_ITS_STOP = """
import os, signal, threading, time
from pipelines.cli import stopping

stopping.stop_on_sigterm()
stopping.stop_celery_worker_on_signal(deadline_s=1.0)
print("ready", flush=True)
threading.Event().wait()  # a stop that never finishes: a task stuck on a lost connection, say
"""


def test_a_stop_that_hangs_prints_the_stacks_and_exits_at_its_deadline() -> None:
    """The stopped process must not outlive whatever waits for it (a cluster script, systemd)."""
    process = subprocess.Popen([sys.executable, "-c", HANGS_AFTER_ITS_STOP], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout.readline() == "ready\n"
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 1
    assert time.monotonic() - started < 20
    assert "Thread" in stderr and "in <module>" in stderr, stderr  # where it hung


WRITES_ITS_REPORTS_THEN_HANGS = """
import threading, time
from celery.signals import worker_shutting_down
from celery.worker import state
import pipelines.nightly.beat as beat

beat.STOP_DEADLINE_S, beat.TASK_STOP_S = 1.0, 30.0
with beat.StopDeadline():
    class Request:  # what Celery keeps in its (weak) set of running tasks
        pass
    task = Request()
    state.active_requests.add(task)  # a finishing run still writing its reports
    worker_shutting_down.send(sender="scheduler", sig="SIGTERM", how="Warm", exitcode=0)
    time.sleep(3)
    print("reports written", flush=True)
    state.active_requests.discard(task)
    threading.Event().wait()  # then the stop hangs
"""


def test_the_schedulers_stop_deadline_waits_for_a_running_task_first() -> None:
    """A finishing run is marked done before its reports are written: cutting it off would lose them."""
    process = subprocess.run([sys.executable, "-c", WRITES_ITS_REPORTS_THEN_HANGS], cwd=REPO, capture_output=True,
                             text=True, timeout=60)
    assert process.returncode == 1, process.stderr
    assert "reports written" in process.stdout
    assert "Thread" in process.stderr and "in <module>" in process.stderr  # the stacks


ENDS_ITS_STOP_IN_TIME = """
import time
from celery.signals import worker_shutting_down
import pipelines.nightly.beat as beat

beat.STOP_DEADLINE_S = 2.0
with beat.StopDeadline():
    worker_shutting_down.send(sender="scheduler", sig="SIGTERM", how="Warm", exitcode=0)
    time.sleep(0.5)
time.sleep(3)  # the embedded workers' stop, which the deadline does not cover
print("stopped", flush=True)
"""


def test_the_schedulers_stop_deadline_ends_with_the_scheduler() -> None:
    process = subprocess.run([sys.executable, "-c", ENDS_ITS_STOP_IN_TIME], cwd=REPO, capture_output=True,
                             text=True, timeout=60)
    assert (process.returncode, process.stdout) == (0, "stopped\n"), process.stderr
