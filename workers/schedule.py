"""Nightly audits as a process: a run per schedule window, claimed once, reported once.

`clausemill scheduler` is Celery beat and a small worker of its own queue in one process.
Beat fires two entries: the nightly schedule (CLAUSEMILL_NIGHTLY_CRON in CLAUSEMILL_TIMEZONE,
pipelines/schedule.py), which starts the run of the current window, and a short interval that
finishes runs whose batch has ended (reports, notification).  The runs themselves are
ordinary nightly batches on the cpu and gpu workers.

Safe with several schedulers:
  - a beat lock (a PostgreSQL advisory lock, or a file lock beside an SQLite database) lets
    one scheduler's beat send while the others stand by and take over when it dies;
  - the claim is the ScheduleRun row, unique per (schedule, window): whoever inserts it runs
    the window, a late or second attempt finds it and does nothing;
  - ending a run is a conditional UPDATE, so one process writes the reports and notifies.

A window whose run finds the previous run still going is recorded `skipped` (with the
reason) rather than stacked on it.  When beat starts it looks at the current window once: a
night missed within 24 hours runs then, once (the row says it ran); an older one is recorded
`skipped` and not replayed.  A crash leaves nothing lost: the row and the batch are written
in one transaction, the recovery sweep the scheduler runs re-sends stalled documents, and the
finishing entry completes any run whose batch ended.
"""
from __future__ import annotations

import faulthandler
import fcntl
import hashlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from celery import Celery
from celery.beat import EmbeddedService, Scheduler
from celery.schedules import BaseSchedule, schedstate
from celery.signals import worker_shutting_down
from kombu import Queue as KombuQueue

from pipelines import logs
from pipelines.assessment import Assessed
from pipelines.datamodel import BatchOrigin, BatchResult, BatchStatus, RunState, SkipReason
from pipelines.deadlines import upcoming_deadlines
from pipelines.deltas import NightlyReport, compare_runs, write_nightly_report
from pipelines.incremental import AuditVersions, Plan, audit_versions, plan_batch, refresh_fingerprints
from pipelines.playbook import Playbook
from pipelines.producer import document_canvas
from pipelines.reported import load_reported
from pipelines.schedule import Cron, catch_up, to_naive_utc, zone
from pipelines.settings import Settings
from storage import history, repository
from storage.database import session_scope
# Imported with this module, not when the scheduler starts: a SIGTERM that lands while a
# native extension (pikepdf) initialises aborts the interpreter instead of stopping it.
from workers.celery_app import TASK_ROUTES, create_app
from workers.recovery import SweepLoop

if TYPE_CHECKING:
    from workers.lifecycle import EmbeddedWorkers

LOG_STAGE = "schedule"
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
WEBHOOK_BACKOFF_S = 0.5
"""First wait between webhook attempts; it doubles each time, up to 30 s."""


# --- what a nightly run audits -----------------------------------------------------------

@dataclass(frozen=True)
class NightlyJob:
    """The contract repository a nightly run audits, and how."""

    paths: tuple[Path, ...]
    options: dict = field(default_factory=dict)  # batch options: view, playbook text
    full: bool = False

    @property
    def schedule(self) -> str:
        """The history a run belongs to: runs over the same paths are compared with each other,
        whether started by the scheduler or by `clausemill nightly`."""
        named = "\n".join(sorted(str(p.resolve()) for p in self.paths))
        return "nightly-" + hashlib.sha256(named.encode()).hexdigest()[:16]


def nightly_paths(settings: Settings) -> tuple[Path, ...]:
    """CLAUSEMILL_NIGHTLY_PATHS, separated like PATH."""
    return tuple(Path(p).expanduser() for p in settings.nightly_paths.split(os.pathsep) if p.strip())


@dataclass(frozen=True)
class Started:
    """What starting a window's run did."""

    run_id: int | None
    state: RunState | None  # None: the window was already claimed, nothing was done
    window_start: datetime
    batch_id: str | None = None
    reason: str | None = None
    plan: Plan | None = None


@dataclass(frozen=True)
class Finished:
    """A run this process ended: where its reports are and how the notification went."""

    run_id: int
    report: NightlyReport
    out: Path
    written: list[Path]
    webhook_error: str | None = None
    reports_error: str | None = None


# --- starting a run ------------------------------------------------------------------------

def start_run(app: Celery, settings: Settings, job: NightlyJob, *, window_start: datetime, trigger: str,
              out: Path) -> Started:
    """Claim the window and plan its incremental audit: the batch holds every contract found,
    the already-audited ones carry their results over; `send_planned` sends the rest."""
    from pipelines.inputs import collect_inputs

    window = to_naive_utc(window_start)
    summary = {"trigger": trigger, "out": str(out.resolve()), "paths": [str(p) for p in job.paths]}
    try:
        inputs = collect_inputs(job.paths)
        problem = None if inputs else f"no .pdf, .txt or .docx files found in {', '.join(map(str, job.paths))}"
    except OSError as error:
        inputs, problem = [], str(error)
    if problem:
        return _record_without_batch(settings, job, window, RunState.FAILED, problem, summary)
    versions = audit_versions(settings, job.options)
    batch_id = f"nightly-{window:%Y%m%dT%H%M}-{uuid.uuid4().hex[:6]}"
    summary["versions"] = versions.to_dict()
    with session_scope(settings.effective_database_url) as session:
        run = history.claim_window(session, job.schedule, window, batch_id=batch_id, summary=summary)
        if run is None:
            return Started(None, None, window)
        repository.create_batch(session, batch_id, inputs, job.options, BatchOrigin.NIGHTLY)
        run_id = run.id
    plan = plan_batch(settings, batch_id, versions, full=job.full)
    with session_scope(settings.effective_database_url) as session:
        history.update_summary(session, run_id, audited=plan.to_dict())
    logs.log("nightly run planned", stage=LOG_STAGE, batch_id=batch_id, schedule=job.schedule, trigger=trigger,
             window_start=window.isoformat(), **plan.to_dict())
    return Started(run_id, RunState.RUNNING, window, batch_id, plan=plan)


def send_planned(app: Celery, settings: Settings, started: Started) -> None:
    """Send the documents the plan re-audits through the DAG; a batch with none ends now.
    Apart from `start_run`, so that the plan is recorded (and shown) before a document moves."""
    if started.plan is None or started.batch_id is None:
        return
    for document_id in started.plan.to_send:
        document_canvas(app, document_id).apply_async()
    if not started.plan.to_send:
        with session_scope(settings.effective_database_url) as session:
            repository.finalize_batch_if_complete(session, started.batch_id)


def start_scheduled(app: Celery, settings: Settings, job: NightlyJob, cron: Cron, out: Path,
                    now: datetime | None = None) -> Started:
    """The beat entry's work: run the current window unless it is claimed, too old to catch
    up, or the previous run still holds the schedule (then the skip is recorded)."""
    now = now or datetime.now(UTC)
    window = cron.latest_window(now)
    with session_scope(settings.effective_database_url, write=False) as session:
        claimed = history.run_for_window(session, job.schedule, to_naive_utc(window)) is not None
    if claimed:
        logs.log("nightly window already claimed", stage=LOG_STAGE, batch_id=None, schedule=job.schedule,
                 window_start=window.isoformat())
        return Started(None, None, to_naive_utc(window))
    finish_ready_runs(settings, job.schedule)
    summary = {"trigger": "schedule", "cron": cron.expression, "timezone": cron.timezone_name}
    with session_scope(settings.effective_database_url, write=False) as session:
        running = [r for r in history.open_runs(session, job.schedule) if r.still_running]
        first_ever = not history.runs(session, job.schedule)
    if not catch_up(window, now):
        hours = (now - window).total_seconds() / 3600
        reason = (f"the window of {cron.local(window):%Y-%m-%d %H:%M %Z} was missed by {hours:.0f} h; "
                  "only a run missed within 24 h is caught up")
        if first_ever:  # a new schedule missed nothing: its first run is at its next window
            logs.log("first window is at the next start", stage=LOG_STAGE, batch_id=None, schedule=job.schedule,
                     next_window=cron.next_window(now).isoformat())
            return Started(None, None, to_naive_utc(window))
        return _record_without_batch(settings, job, window, RunState.SKIPPED, reason,
                                     {**summary, "skip": SkipReason.MISSED.value})
    if running:
        previous = running[-1]
        reason = (f"the previous run (window {cron.local(previous.window_start):%Y-%m-%d %H:%M %Z}, batch "
                  f"{previous.batch_id}) is still running")
        return _record_without_batch(settings, job, window, RunState.SKIPPED, reason,
                                     {**summary, "skip": SkipReason.OVERLAP.value})
    local = cron.local(window)
    started = start_run(app, settings, job, window_start=window, trigger="schedule", out=out / f"{local:%Y-%m-%d_%H%M}")
    if started.state is None:
        logs.log("nightly window already claimed", stage=LOG_STAGE, batch_id=None, schedule=job.schedule,
                 window_start=window.isoformat())
    send_planned(app, settings, started)
    return started


def _record_without_batch(settings: Settings, job: NightlyJob, window: datetime, state: RunState, reason: str,
                          summary: dict) -> Started:
    """A window that ends without a batch (skipped, or failed before one): recorded, claimed
    like any run, and notified."""
    window = to_naive_utc(window)
    with session_scope(settings.effective_database_url) as session:
        run = history.claim_window(session, job.schedule, window, state=state, reason=reason, summary=summary)
        run_id = run.id if run else None
    if run_id is None:
        return Started(None, None, window)
    logs.log(f"nightly run {state}", stage=LOG_STAGE, batch_id=None, level=logging.WARNING, schedule=job.schedule,
             window_start=window.isoformat(), reason=reason)
    payload = {**_payload_head(job.schedule, window, state, reason, None), "trigger": summary.get("trigger")}
    _notify_and_record(settings, run_id, payload)
    return Started(run_id, state, window, reason=reason)


# --- finishing a run -----------------------------------------------------------------------

def finish_ready_runs(settings: Settings, schedule: str | None = None) -> list[Finished]:
    """End every running run (of one schedule, or all) whose batch has ended; one whose batch
    was deleted ends `failed`, so it cannot hold the schedule for ever."""
    with session_scope(settings.effective_database_url, write=False) as session:
        runs = history.open_runs(session, schedule)
    if lost := [r for r in runs if r.batch_status is None]:
        with session_scope(settings.effective_database_url) as session:
            for run in lost:
                history.end_run(session, run.id, RunState.FAILED, reason=f"its batch {run.batch_id} no longer exists")
    ready = [r.id for r in runs if r.batch_done]
    return [finished for run_id in ready if (finished := finish_run(settings, run_id)) is not None]


def finish_run(settings: Settings, run_id: int, *, as_of: date | None = None,
               now: datetime | None = None) -> Finished | None:
    """Report a run whose batch ended: the batch reports and the nightly report in its folder,
    then the webhook.  None when the batch still runs or another process ended the run."""
    url = settings.effective_database_url
    now = now or datetime.now(UTC)
    with session_scope(url, write=False) as session:
        run = history.get_run(session, run_id)
        if run.state is not RunState.RUNNING or run.batch_id is None:
            return None
        if repository.batch_status(session, run.batch_id) is not BatchStatus.DONE:
            return None
        schedule, window, batch_id, summary = run.schedule, run.window_start, run.batch_id, dict(run.summary or {})
        previous = history.previous_done_run(session, schedule, window)
        previous_batch, previous_window = (previous.batch_id, previous.window_start) if previous else (None, None)
    if "versions" in summary:
        refresh_fingerprints(settings, batch_id, AuditVersions(**summary["versions"]))
    tz = zone(settings.timezone)
    current, batch, playbook, options = _assessed(settings, batch_id)
    earlier = _assessed(settings, previous_batch)[0] if previous_batch else None
    delta = compare_runs(current, earlier)
    as_of = as_of or now.astimezone(tz).date()
    report = NightlyReport(
        run={"schedule": schedule, "trigger": summary.get("trigger", "schedule"),
             "trigger_label": "Scheduled run" if summary.get("trigger") == "schedule" else "Run by hand",
             "window_start": window.isoformat(), "when": _local(window, tz), "batch_id": batch_id,
             "previous_batch_id": previous_batch, "previous_when": _local(previous_window, tz) if previous_window else None,
             "timezone": settings.timezone, "paths": summary.get("paths", [])},
        audited=summary.get("audited") or {"documents": len(current), "re_audited": len(current), "unchanged": 0,
                                           "carried": 0, "full": False},
        delta=delta, deadlines=upcoming_deadlines(current, as_of), as_of=as_of, generated_at=now.astimezone(tz),
    )
    out = Path(summary.get("out") or ".")
    ended = {**summary, "changes": delta.counts(), "deadlines": report.deadline_counts(), "previous_batch": previous_batch}
    with session_scope(url) as session:
        if not history.end_run(session, run_id, RunState.DONE, ended):
            return None
    logs.log("nightly run done", stage=LOG_STAGE, batch_id=batch_id, schedule=schedule, **delta.counts())
    written: list[Path] = []
    reports_error = None
    try:
        from pipelines.reports import write_reports

        written = write_reports(batch, out, view=options.get("view", "full"), playbook=playbook,
                                assessments={doc.id: a for doc, a in current if a is not None})
        written += write_nightly_report(report, out)
    except OSError as error:
        reports_error = f"cannot write the reports to {out}: {error}"
        logs.log("nightly reports not written", stage=LOG_STAGE, batch_id=batch_id, level=logging.ERROR, error=reports_error)
    payload = {**_payload_head(schedule, window, RunState.DONE, reports_error, batch_id),
               "trigger": summary.get("trigger"), "documents": report.audited, "changes": delta.counts(),
               "deadlines": report.deadline_counts(), "reports": str(out), "previous_batch": previous_batch}
    webhook_error = _notify_and_record(settings, run_id, payload, reports_error=reports_error)
    return Finished(run_id, report, out, written, webhook_error, reports_error)


def _assessed(settings: Settings, batch_id: str) -> tuple[list[Assessed], BatchResult, Playbook, dict]:
    """A batch's documents as its reports show them (reviewers' decisions applied), its
    playbook and options."""
    with session_scope(settings.effective_database_url, write=False) as session:
        reported = load_reported(session, batch_id, settings.analysers)
    return reported.assessed(), reported.batch, reported.playbook, reported.options


def _local(moment: datetime, tz: Any) -> str:
    return moment.replace(tzinfo=UTC).astimezone(tz).strftime("%Y-%m-%d %H:%M %Z")


# --- the notification ----------------------------------------------------------------------

class WebhookError(RuntimeError):
    """The webhook could not be delivered; the message names the URL and the last problem."""


def notify(settings: Settings, payload: dict, *, sleep: Callable[[float], None] = time.sleep) -> None:
    """POST the run's JSON summary to CLAUSEMILL_WEBHOOK_URL, if set: each attempt times out
    after webhook_timeout_s; failures worth retrying (no answer, 5xx, 408, 429) are retried
    webhook_retries times with a doubling wait, any other answer fails at once."""
    import httpx

    url = settings.webhook_url
    if not url:
        return
    attempts = max(1, settings.webhook_retries + 1)
    problem = ""
    for attempt in range(1, attempts + 1):
        try:
            answer = httpx.post(url, json=payload, timeout=settings.webhook_timeout_s)
        except httpx.TimeoutException:
            problem, retry = f"no answer within {settings.webhook_timeout_s:g} s", True
        except httpx.HTTPError as error:
            problem, retry = f"{type(error).__name__}: {error}", True
        else:
            if answer.is_success:
                return
            problem = f"answered {answer.status_code} {answer.reason_phrase}"
            retry = answer.status_code >= 500 or answer.status_code in (408, 429)
        if not retry:
            break
        if attempt < attempts:
            sleep(min(WEBHOOK_BACKOFF_S * 2 ** (attempt - 1), 30.0))
    raise WebhookError(f"webhook {shown_url(url)} failed after {attempt} attempt(s): {problem}")


def shown_url(url: str) -> str:
    """The URL as messages show it: a password in it is masked."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _payload_head(schedule: str, window: datetime, state: RunState, reason: str | None, batch_id: str | None) -> dict:
    return {"event": "clausemill.nightly.run_ended", "schedule": schedule, "window_start": window.isoformat() + "Z",
            "state": str(state), "reason": reason, "batch_id": batch_id}


def _notify_and_record(settings: Settings, run_id: int, payload: dict, **extra: object) -> str | None:
    error = None
    try:
        notify(settings, payload)
    except WebhookError as failure:
        error = str(failure)
        logs.log("webhook failed", stage=LOG_STAGE, batch_id=payload.get("batch_id"), level=logging.ERROR, error=error)
    if settings.webhook_url:
        with session_scope(settings.effective_database_url) as session:
            history.update_summary(session, run_id, webhook={"delivered": error is None, "error": error}, **extra)
    return error


# --- Celery beat ---------------------------------------------------------------------------

class NightlySchedule(BaseSchedule):
    """The cron schedule as Celery beat asks for it: due once per window (pipelines/schedule.py)."""

    def __init__(self, cron: Cron, nowfun: Any = None, app: Celery | None = None) -> None:
        super().__init__(nowfun=nowfun, app=app)
        self.cron = cron

    def is_due(self, last_run_at: datetime) -> schedstate:  # type: ignore[override]
        from pipelines.schedule import is_due

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


def locked_scheduler(lock: BeatLock) -> type[Scheduler]:
    """Beat's scheduler, ticking only while this process holds the beat lock.  In memory: the
    database, not a schedule file, remembers which windows ran."""

    class LockedScheduler(Scheduler):
        _standing_by = False

        def install_default_entries(self, data: Any) -> None:
            pass  # no result-backend cleanup entry: this beat sends the nightly schedule only

        def tick(self, *args: Any, **kwargs: Any) -> float:
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
    app.conf.task_queues = [*app.conf.task_queues, KombuQueue(SCHEDULE_QUEUE)]
    app.conf.task_routes = {**TASK_ROUTES, "clausemill.schedule.*": {"queue": SCHEDULE_QUEUE}}

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
    beat = EmbeddedService(app, thread=True, scheduler_cls=locked_scheduler(lock))
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

