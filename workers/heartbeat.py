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
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from pipelines import logs
from pipelines.settings import Settings
from storage import repository
from storage.database import session_scope

LOG_STAGE = "heartbeat"
RETRY_S = 1.0


class Heartbeat:
    """The documents this process works on now, and the thread that beats for them."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._running: Counter[int] = Counter()
        self._held: dict[int, float] = {}  # document id -> monotonic time its beats may stop
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

    def hold(self, document_id: int, seconds: float) -> None:
        """Keep beating for a task that will run again in `seconds` (a retry's countdown): it
        waits in this process, not in the broker, so without beats the sweep would take its
        document for lost."""
        with self._lock:
            self._start_in_this_process()
            self._held[document_id] = max(self._held.get(document_id, 0.0), time.monotonic() + seconds)

    def _working_on(self) -> list[int]:
        now = time.monotonic()
        with self._lock:
            self._held = {d: until for d, until in self._held.items() if until > now}
            return sorted(set(self._running) | set(self._held))

    def _start_in_this_process(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            return
        self._pid = os.getpid()
        # What the parent was working on when this process was forked is not this one's.
        self._running, self._held = Counter(), {}
        self._thread = threading.Thread(target=self._run, name="clausemill-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        wait = self._settings.heartbeat_interval_s
        while True:
            time.sleep(wait)
            documents = self._working_on()
            if not documents:
                wait = self._settings.heartbeat_interval_s
                continue
            try:
                with session_scope(self._settings.effective_database_url) as session:
                    repository.beat(session, documents)
                wait = self._settings.heartbeat_interval_s
            except Exception:  # noqa: BLE001 - the database is away: beat again soon, never die
                logs.log("heartbeat not written; trying again", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                         documents=len(documents), exc_info=True)
                wait = RETRY_S
