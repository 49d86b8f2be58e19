"""The recovery sweep: documents whose messages were lost are sent again, from the database.

Broker delivery is at least once at best: Redis here keeps nothing on disk, so a restart
drops every queued message (and the OCR chords' counters); the embedded filesystem transport
has no redelivery, so a SIGKILLed worker takes the messages it held with it; and a message can
go missing between two tasks.  The database knows each document's completed stages and when it
last moved, so a sweep finds what stalled and resumes it from its last completed stage (every
stage is idempotent).  The ledger, not the broker, makes the outcome exactly once.

A document is stalled when:
  - its batch runs and it has not ended;
  - it has not moved for longer than its next stage's hard time limit plus
    `recovery_margin_s` (a task running for it would have been killed by then: tasks that
    start after a long wait in a queue mark the document as moving, pipelines/steps.begin);
  - and no message for it waits in the broker (queued, or taken and not yet acknowledged),
    so a long queue is never mistaken for a lost message.

Each re-send is claimed with a conditional UPDATE (two sweeps at once send a document once),
recorded in `recoveries`, and counted in the document's attempts; past
`recovery_max_attempts` the document ends `failed`, naming the stage and the attempts.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any

from celery import Celery, bootsteps

from pipelines import logs, steps
from pipelines.dag import SPECS, STAGES, Stage, next_stage
from pipelines.producer import resume_canvas
from pipelines.settings import HARD_LIMIT_GRACE_S, Settings
from storage import repository
from storage.database import session_scope
from storage.schema import utcnow
from workers.broker import waiting_document_ids

LOG_STAGE = "recovery"


@dataclass
class SweepReport:
    resent: dict[int, Stage] = field(default_factory=dict)  # document id -> the stage it resumes at
    failed: dict[int, str] = field(default_factory=dict)  # document id -> reason
    waiting: int = 0  # stalled-looking documents left alone: their message is in the broker


def stall_limit(settings: Settings, stage: Stage) -> timedelta:
    """How long a document may sit at `stage` before the sweep takes it for lost."""
    limit_s = settings.time_limit_s(SPECS[stage])
    if stage is Stage.SEGMENT:  # waits for the OCR pages, which record their own progress
        limit_s = max(limit_s, settings.time_limit_s(SPECS[Stage.OCR]))
    return timedelta(seconds=limit_s + HARD_LIMIT_GRACE_S + settings.recovery_margin_s)


def sweep(app: Celery, settings: Settings, now: datetime | None = None) -> SweepReport:
    """One pass over the open documents; safe to run from several processes at once."""
    now = now or utcnow()
    report = SweepReport()
    shortest = min(stall_limit(settings, spec.stage) for spec in STAGES if not spec.per_page)
    url = settings.effective_database_url
    with session_scope(url, write=False) as session:
        candidates = repository.open_documents_idle_since(session, now - shortest)
    resume_points = [(d, next_stage(d.completed, settings.analysers)) for d in candidates]
    stalled = [(d, stage) for d, stage in resume_points if d.updated_at < now - stall_limit(settings, stage)]
    if not stalled:
        return report
    waiting = waiting_document_ids(settings)  # raises when the broker cannot be read: guess nothing
    for document, resume_at in stalled:
        if document.id in waiting:
            report.waiting += 1
            continue
        if document.attempts >= settings.recovery_max_attempts:
            reason = (f"no progress at the {resume_at} stage after {document.attempts} attempts "
                      f"(the recovery sweep re-sent it {document.attempts - 1} times)")
            steps.fail(settings, document.id, resume_at, reason)
            report.failed[document.id] = reason
            continue
        with session_scope(url) as session:
            if not repository.claim_for_resend(session, document, resume_at):
                continue  # another sweep, or the document itself, moved first
            ocr_pages = repository.pages_waiting_for_ocr(session, document.id) if resume_at is Stage.SEGMENT else []
        resume_canvas(app, document.id, resume_at, completed=document.completed, ocr_pages=ocr_pages,
                      analysers=settings.analysers).apply_async()
        report.resent[document.id] = resume_at
        logs.log("document re-sent", stage=LOG_STAGE, batch_id=document.batch_id, sha256=document.sha256,
                 document_id=document.id, level=logging.WARNING, resumes_at=str(resume_at),
                 attempt=document.attempts + 1, idle_s=round((now - document.updated_at).total_seconds()))
    return report


class SweepLoop:
    """Runs `sweep` every `settings.recovery_interval_s` in a daemon thread while the block
    runs: the embedded audit, the drop-folder watcher and the scheduler each keep one."""

    def __init__(self, app: Celery, settings: Settings) -> None:
        self._app, self._settings = app, settings
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recovery-sweep", daemon=True)

    def __enter__(self) -> SweepLoop:
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while not self._stop.wait(self._settings.recovery_interval_s):
            sweep_until_next_time(self._app, self._settings)


def sweep_until_next_time(app: Celery, settings: Settings) -> None:
    """One pass of a repeating sweep, which an outage must not stop."""
    try:
        sweep(app, settings)
    except Exception:  # noqa: BLE001 - a broker or database outage: the next pass tries again
        logs.log("recovery sweep failed; retrying at the next interval", stage=LOG_STAGE, batch_id=None,
                 level=logging.WARNING, exc_info=True)


def sweeping_step(settings: Settings) -> type[bootsteps.StartStopStep]:
    """A worker's consumer step that sweeps every `settings.recovery_interval_s`.

    A server-mode batch sent with `audit --no-wait` may have no waiting `audit`, watcher or
    scheduler to sweep for it, so each server worker sweeps too (sweeps at once are safe).  It
    runs on the consumer's timer, in the worker's event loop: a thread in a prefork parent
    could hold a lock at the moment a pool child is forked."""

    class RecoverySweep(bootsteps.StartStopStep):
        label = "recovery sweep"
        timer_entry: Any = None

        def start(self, consumer: Any) -> None:
            self.timer_entry = consumer.timer.call_repeatedly(settings.recovery_interval_s, sweep_until_next_time,
                                                              (consumer.app, settings))

        def stop(self, consumer: Any) -> None:
            if self.timer_entry is not None:
                self.timer_entry.cancel()
                self.timer_entry = None

        shutdown = stop

    return RecoverySweep
