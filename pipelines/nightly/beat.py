"""`clausemill scheduler`: Celery beat and a small worker of its own queue in one process,
sending the nightly runs (pipelines/nightly/runs.py) on the schedule.

Beat fires two entries: the nightly schedule (CLAUSEMILL_NIGHTLY_CRON in CLAUSEMILL_TIMEZONE,
pipelines/nightly/cron.py), which starts the run of the current window, and a short interval
that finishes runs whose batch has ended (reports, notification).  The runs themselves are
ordinary nightly batches on the cpu and gpu workers.

Safe with several schedulers: a beat lock (a PostgreSQL advisory lock, or a file lock beside
an SQLite database) lets one scheduler's beat send while the others stand by and take over
when it dies; the runs' claims keep each window to one run whichever beat sends it.  When beat
starts it looks at the current window once, so a night missed within 24 hours is caught up
then.  A crash leaves nothing lost: the recovery sweep the scheduler runs re-sends stalled
documents, and the finishing entry completes any run whose batch ended.
"""
from __future__ import annotations

import faulthandler
import fcntl
import hashlib
import logging
import os
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from celery import Celery
from celery.beat import EmbeddedService, Scheduler
from celery.schedules import BaseSchedule, schedstate
from celery.signals import worker_shutting_down

from pipelines import logs
from pipelines.liveness import LivenessFile, Process
from pipelines.nightly.cron import Cron
from pipelines.nightly.runs import LOG_STAGE, NightlyJob, finish_ready_runs, start_scheduled
from pipelines.settings import Settings
# Imported with this module, not when the scheduler starts: a SIGTERM that lands while a
# native extension (pikepdf) initialises aborts the interpreter instead of stopping it.
from workers.celery_app import create_app, declared_queue
from workers.recovery import SweepLoop

if TYPE_CHECKING:
    from workers.lifecycle import EmbeddedWorkers

SCHEDULE_QUEUE = "schedule"
START_TASK = "clausemill.schedule.start"
FINISH_TASK = "clausemill.schedule.finish"
FINISH_EVERY_S = 10.0
"""How soon after its batch ends a scheduled run is reported."""
LOCK_RETRY_S = 2.0
"""How often a standing-by scheduler tries the beat lock, and a holder checks it still holds it."""
BEAT_STOP_S = 10.0
"""How long a stopping scheduler waits for beat's thread to finish its tick."""
STOP_DEADLINE_S = 60.0
"""How long a stop may take once the scheduler's tasks have ended; longer, it prints the threads'
stacks and exits (status 1): the database, not this process, knows which windows ran."""
TASK_STOP_S = 900.0
"""How long a stop waits for a running task first: a finishing run writes its reports after it
is marked done, and a large nightly's reports take minutes."""


class NightlySchedule(BaseSchedule):
    """The cron schedule as Celery beat asks for it: due once per window (pipelines/nightly/cron.py)."""

    def __init__(self, cron: Cron, nowfun: Any = None, app: Celery | None = None) -> None:
        super().__init__(nowfun=nowfun, app=app)
        self.cron = cron

    def is_due(self, last_run_at: datetime) -> schedstate:  # type: ignore[override]
        from pipelines.nightly.cron import is_due

        due, next_s = is_due(self.cron, last_run_at, self.now())
        return schedstate(due, next_s)

    def remaining_estimate(self, last_run_at: datetime) -> timedelta:
        now = self.now()
        return self.cron.next_window(now) - now

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NightlySchedule):
            return NotImplemented
        return (self.cron.expression, self.cron.timezone_name) == (other.cron.expression, other.cron.timezone_name)

    def __hash__(self) -> int:
        return hash((self.cron.expression, self.cron.timezone_name))

    def __repr__(self) -> str:
        return f"<NightlySchedule {self.cron.expression!r} in {self.cron.timezone_name}>"

    def __reduce__(self) -> tuple[type[NightlySchedule], tuple[Cron, Any]]:
        return self.__class__, (self.cron, self.nowfun)


class BeatLock:
    """Held by the one scheduler whose beat sends: a PostgreSQL advisory lock on a connection
    of its own (released when the process or its connection dies), or, for an SQLite
    database (one machine), an flock on a file beside it."""

    def __init__(self, settings: Settings, name: str) -> None:
        self.url = settings.effective_database_url
        self.name = name
        self.key = int.from_bytes(hashlib.blake2b(f"clausemill-beat:{name}".encode(), digest_size=8).digest(),
                                  "big", signed=True)
        self._connection: Any = None
        self._file: IO[str] | None = None
        self._checked = 0.0

    @property
    def held(self) -> bool:
        return self._connection is not None or self._file is not None

    def acquire(self) -> bool:
        """Take the lock if free (never waits); True while this process holds it."""
        if self._file is not None:
            return True
        if self._connection is not None:
            return self._still_held()
        if self.url.startswith("sqlite"):
            return self._flock()
        return self._advisory_lock()

    def release(self) -> None:
        if self._connection is not None:
            try:
                self._connection.close()
            except Exception:  # noqa: BLE001 - a dead connection has released the lock already
                pass
            self._connection = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def _advisory_lock(self) -> bool:
        from sqlalchemy import create_engine, text
        from sqlalchemy.pool import NullPool

        engine = create_engine(self.url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        connection = engine.connect()
        if connection.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": self.key}):
            self._connection, self._checked = connection, time.monotonic()
            return True
        connection.close()
        return False

    def _still_held(self) -> bool:
        """A lost connection has lost the lock: find out every few seconds."""
        if time.monotonic() - self._checked < LOCK_RETRY_S * 5:
            return True
        from sqlalchemy import text

        try:
            self._connection.execute(text("SELECT 1"))
            self._checked = time.monotonic()
            return True
        except Exception:  # noqa: BLE001 - any failure: the lock may be gone
            logs.log("beat lock lost with its database connection", stage=LOG_STAGE, batch_id=None, level=logging.WARNING)
            self.release()
            return False

    def _flock(self) -> bool:
        database = self.url.split("///", 1)[-1]
        path = Path(f"{database}.beat-{self.name}.lock") if database and database != ":memory:" else None
        if path is None:
            return True  # an in-memory database has one process
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._file = handle
        return True


def locked_scheduler(lock: BeatLock, heartbeat: LivenessFile) -> type[Scheduler]:
    """Beat's scheduler, ticking only while this process holds the beat lock.  In memory: the
    database, not a schedule file, remembers which windows ran.  Every tick beats the heartbeat
    (`clausemill health scheduler`), standing by included."""

    class LockedScheduler(Scheduler):
        _standing_by = False

        def install_default_entries(self, data: Any) -> None:
            pass  # no result-backend cleanup entry: this beat sends the nightly schedule only

        def tick(self, *args: Any, **kwargs: Any) -> float:
            heartbeat.beat()
            try:
                holding = lock.acquire()
            except Exception:  # noqa: BLE001 - the database is away: try again, never let beat's thread die
                logs.log("beat lock unavailable", stage=LOG_STAGE, batch_id=None, level=logging.WARNING, exc_info=True)
                return LOCK_RETRY_S
            if not holding:
                if not self._standing_by:
                    logs.log("another scheduler holds the beat lock; standing by", stage=LOG_STAGE, batch_id=None,
                             lock=lock.name)
                    self._standing_by = True
                return LOCK_RETRY_S
            if self._standing_by or not getattr(self, "_announced", False):
                logs.log("beat lock taken: this scheduler sends the schedule", stage=LOG_STAGE, batch_id=None,
                         lock=lock.name)
                self._standing_by, self._announced = False, True
            return min(super().tick(*args, **kwargs), LOCK_RETRY_S)

        def close(self) -> None:
            super().close()
            lock.release()

    return LockedScheduler


def scheduler_app(settings: Settings, job: NightlyJob, cron: Cron, out: Path,
                  embedded_workers: EmbeddedWorkers | None = None) -> Celery:
    """The pipeline's app plus the schedule's queue, tasks and beat entries.  The finishing
    entry also restarts an embedded worker that died (the sweep re-sends what it held)."""
    app = create_app(settings)
    app.conf.task_queues = [*app.conf.task_queues, declared_queue(settings, SCHEDULE_QUEUE)]
    app.conf.task_routes = {**app.conf.task_routes, "clausemill.schedule.*": {"queue": SCHEDULE_QUEUE}}

    @app.task(name=START_TASK, shared=False, ignore_result=True)
    def start_nightly() -> None:
        start_scheduled(app, settings, job, cron, out)

    @app.task(name=FINISH_TASK, shared=False, ignore_result=True)
    def finish_nightly() -> None:
        if embedded_workers is not None and (revived := embedded_workers.revive()):
            logs.log("embedded worker restarted", stage=LOG_STAGE, batch_id=None, level=logging.WARNING,
                     workers=revived)
        finish_ready_runs(settings, job.schedule)

    app.conf.beat_schedule = {
        # Due at start for the current window whatever happened before: the task decides
        # (already run, caught up, or too old) from the database.
        "nightly audit": {"task": START_TASK, "schedule": NightlySchedule(cron, app=app),
                          "last_run_at": datetime(1970, 1, 1, tzinfo=UTC)},
        "finish nightly runs": {"task": FINISH_TASK, "schedule": timedelta(seconds=FINISH_EVERY_S),
                                "options": {"expires": FINISH_EVERY_S}},
    }
    return app


def run_scheduler(settings: Settings, job: NightlyJob, cron: Cron, out: Path,
                  embedded_workers: EmbeddedWorkers | None = None) -> None:
    """Run until stopped (SIGTERM or Ctrl-C: the current task finishes first)."""
    app = scheduler_app(settings, job, cron, out, embedded_workers)
    lock = BeatLock(settings, job.schedule)
    beat = EmbeddedService(app, thread=True,
                           scheduler_cls=locked_scheduler(lock, LivenessFile(settings.data_dir, Process.SCHEDULER)))
    argv = ["worker", "--queues", SCHEDULE_QUEUE, "--pool", "threads", "--concurrency", "2",
            "--hostname", f"scheduler-{os.getpid()}@%h", "--loglevel", "INFO"]
    if settings.embedded:
        argv += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    with StopDeadline(), SweepLoop(app, settings):  # the deadline ends before embedded workers stop
        beat.start()
        try:
            app.worker_main(argv)
        finally:
            beat.service.stop()  # beat's own stop() waits for ever on a tick that never returns
            beat.join(BEAT_STOP_S)
            lock.release()


class StopDeadline:
    """A stop that hangs must not keep a stopped scheduler alive: STOP_DEADLINE_S after its
    tasks have ended (or TASK_STOP_S after the stop, if one never does) it prints every thread's
    stack, so whoever waits for the process sees what held it, and exits with status 1.

    Celery's warm shutdown sends `worker_shutting_down` from its signal handler, which only sets
    an event: a thread started there could need a lock the interrupted main thread holds."""

    def __init__(self) -> None:
        self._stopping = threading.Event()
        self._over = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="stop-deadline", daemon=True)

    def __enter__(self) -> StopDeadline:
        worker_shutting_down.connect(self._on_stop, weak=False)
        self._watcher.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._over.set()
        self._watcher.join(5)
        faulthandler.cancel_dump_traceback_later()
        worker_shutting_down.disconnect(self._on_stop)

    def _on_stop(self, **_: object) -> None:
        self._stopping.set()

    def _watch(self) -> None:
        from celery.worker import state

        while not self._stopping.wait(1.0):
            if self._over.is_set():
                return
        give_up = time.monotonic() + TASK_STOP_S
        while state.active_requests and time.monotonic() < give_up:
            if self._over.wait(1.0):
                return
        if not self._over.is_set():
            faulthandler.dump_traceback_later(STOP_DEADLINE_S, exit=True)


def describe_next(cron: Cron, now: datetime | None = None) -> str:
    """"02:00 CET on Wed 2 Dec 2026 (in 14 h 33 min)": when the next window starts."""
    now = now or datetime.now(UTC)
    start = cron.next_window(now)
    minutes = int((start - now).total_seconds() // 60)
    return f"{cron.local(start):%H:%M %Z on %a %d %b %Y} (in {minutes // 60} h {minutes % 60} min)"
