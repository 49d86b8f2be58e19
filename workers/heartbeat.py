"""Heartbeats: a running task says, on its document's row, that it is still working.

The recovery sweep (workers/recovery.py) must tell a lost message from a long task.  Without a
sign of life it could only wait out the longest time a task may run (15 minutes for the
analysers), so a broker restart that dropped queued messages stalled a batch for a quarter of
an hour.  Each worker process keeps one daemon thread that moves the clock (`updated_at`) of
every document one of its tasks is working on, every `heartbeat_interval_s`; a document whose
clock stopped for `Settings.stall_after` (three missed beats and a margin) and that has no
message in the broker is lost, and is sent again at once.

One thread per process, started in the process that runs the tasks: a prefork pool child
starts its own on its first task (a thread does not survive a fork), the gpu worker's task
threads share one.  A beat that cannot reach the database is tried again every second, so an
outage shorter than the stall limit is invisible to the sweep.

A task the worker has taken from the broker but not started (prefetched while every pool
process is busy, or held while a pool process is replaced) is in no queue and in no running
task: `reserved_beating_step` beats for those from the worker's main process.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from celery import bootsteps
from celery.worker import state
from celery.worker.request import Request

from pipelines import logs
from pipelines.dag import STAGES
from pipelines.settings import Settings
from storage import repository
from storage.database import session_scope
from workers.timer_steps import timer_step

LOG_STAGE = "heartbeat"
RETRY_S = 1.0


class Heartbeat:
    """The documents this process works on now, and the thread that beats for them."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._running: Counter[int] = Counter()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pid = 0

    @contextmanager
    def beating(self, document_id: int) -> Iterator[None]:
        """While the block runs, `document_id`'s clock moves every heartbeat interval."""
        with self._lock:
            self._start_in_this_process()
            self._running[document_id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._running[document_id] -= 1
                if self._running[document_id] <= 0:
                    del self._running[document_id]

    def _working_on(self) -> list[int]:
        with self._lock:
            return sorted(self._running)

    def _start_in_this_process(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            return
        self._pid = os.getpid()
        # What the parent was working on when this process was forked is not this one's.
        self._running = Counter()
        self._thread = threading.Thread(target=self._run, name="clausemill-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        wait = self._settings.heartbeat_interval_s
        while True:
            time.sleep(wait)
            documents = self._working_on()
            wait = self._settings.heartbeat_interval_s if not documents or write_beat(self._settings, documents) else RETRY_S


def write_beat(settings: Settings, documents: list[int]) -> bool:
    """Move these documents' clocks; False (logged) when the database is away, never raises:
    a heartbeat must outlive an outage."""
    try:
        with session_scope(settings.effective_database_url) as session:
            repository.beat(session, documents)
        return True
    except Exception:  # noqa: BLE001 - the database is away: the caller beats again soon
        logs.log("heartbeat not written; trying again", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                 documents=len(documents), exc_info=True)
        return False


STAGE_TASKS = frozenset(spec.task_name for spec in STAGES)
"""Every stage's task takes its document's id first (workers/tasks.py)."""


def documents_of(requests: Iterable[Any]) -> list[int]:
    """The documents of these Celery requests that are stage tasks."""
    return sorted({request.args[0] for request in requests
                   if request.name in STAGE_TASKS and request.args and isinstance(request.args[0], int)})


def taken_requests(consumer: Any) -> list[Any]:
    """The requests this worker has taken from the broker and not finished: reserved (waiting
    for a pool process, or running) and held on its timer until their ETA (a retry's
    countdown, which may reach any worker).  The pool's threads change these while they are read."""
    for _ in range(5):
        try:
            held = [entry.entry.args[0] for entry in list(consumer.timer.schedule.queue)
                    if isinstance(getattr(entry.entry, "args", None), (list, tuple)) and entry.entry.args
                    and isinstance(entry.entry.args[0], Request)]
            return list(state.reserved_requests) + held
        except RuntimeError:  # changed size during iteration: read them again
            continue
    return []


def reserved_beating_step(settings: Settings) -> type[bootsteps.StartStopStep]:
    """A worker's consumer step that beats, every heartbeat interval, for each document whose
    task the worker has taken from the broker, started, waiting or held until its ETA.

    With acks-late and a prefetch of one per pool process, a message the worker has taken but
    not started is rare and short, but not impossible: a pool process being replaced, a retry's
    countdown (which raises the prefetch), a slow machine.  The sweep sees such a document in no
    queue and beating in no task, and after the stall limit sends it again.  It runs on the
    consumer's timer, in the worker's event loop (workers/timer_steps.py)."""

    def beat_taken(consumer: Any) -> None:
        documents = documents_of(taken_requests(consumer))
        if documents:
            write_beat(settings, documents)

    return timer_step("reserved heartbeat", lambda consumer: [
        consumer.timer.call_repeatedly(settings.heartbeat_interval_s, beat_taken, (consumer,))])
