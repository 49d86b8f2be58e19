"""The recovery sweep: documents whose messages were lost are sent again, from the database.

Broker delivery is at least once at best: Redis here keeps nothing on disk, so a restart
drops every queued message (and the OCR chords' counters); the embedded filesystem transport
has no redelivery, so a SIGKILLed worker takes the messages it held with it; and a message can
go missing between two tasks.  The database knows each document's completed stages and when it
last moved, so a sweep finds what stalled and resumes it from its last completed stage (every
stage is idempotent).  The ledger, not the broker, makes the outcome exactly once.

A document is stalled when:
  - its batch runs and it has not ended;
  - nothing has moved it for `Settings.stall_after` (45 s by default): no stage ended, no
    task started on it, and no running task's heartbeat (workers/heartbeat.py) moved its clock,
    so no task is working on it;
  - and no message for it waits in a queue of the broker, so a long queue is never mistaken
    for a lost message (on RabbitMQ, which cannot list its messages, no message waits in any
    queue: workers/broker.Waiting).  With more than `recovery_list_limit` messages queued the
    sweep reads neither the broker's messages nor the database: every document is left alone
    until the queues are shorter.

Each re-send is claimed with a conditional UPDATE (two sweeps at once send a document once),
recorded in `recoveries`, and counted in the document's attempts; past
`recovery_max_attempts` the document ends `failed`, naming the stage and the attempts.
Sweeps run every `recovery_interval_s` in `audit`, `watch`, the scheduler and every server
worker, and once more `stall_after` after a server worker reconnects to the broker: a restart
that dropped the queues is repaired within a minute, not at the next stage's time limit.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any

from celery import Celery, bootsteps

from pipelines import logs, steps
from pipelines.dag import Stage, next_stage
from pipelines.producer import resume_canvas
from pipelines.settings import Settings
from storage import repository
from storage.database import session_scope
from storage.schema import utcnow
from workers.broker import queue_lengths, waiting
from workers.timer_steps import timer_step

LOG_STAGE = "recovery"


@dataclass
class SweepReport:
    resent: dict[int, Stage] = field(default_factory=dict)  # document id -> the stage it resumes at
    failed: dict[int, str] = field(default_factory=dict)  # document id -> reason
    waiting: int = 0  # stalled-looking documents left alone: their message is in the broker
    held: int = 0  # messages queued when the sweep left every document alone (the queues were long)


def sweep(app: Celery, settings: Settings, now: datetime | None = None) -> SweepReport:
    """One pass over the open documents; safe to run from several processes at once."""
    now = now or utcnow()
    report = SweepReport()
    url = settings.effective_database_url
    queued_now = sum(queue_lengths(settings).values())  # cheap on every broker; raises when it cannot be read
    if queued_now > settings.recovery_list_limit or (queued_now and settings.rabbitmq):
        report.held = queued_now
        return report
    with session_scope(url, write=False) as session:
        stalled = repository.open_documents_idle_since(session, now - settings.stall_after)
    if not stalled:
        return report
    queued = waiting(settings)  # raises when the broker cannot be read: guess nothing
    for document in stalled:
        resume_at = next_stage(document.completed, settings.analysers)
        if queued.holds(document.id):
            report.waiting += 1
            continue
        if document.attempts >= settings.recovery_max_attempts:
            reason = (f"no progress at the {resume_at} stage after {document.attempts} attempts "
                      f"(the recovery sweep re-sent it {document.attempts - 1} times)")
            if steps.give_up(settings, document, resume_at, reason):  # not if it moved, or ended, meanwhile
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
    """A worker's consumer step that sweeps every `settings.recovery_interval_s`, and once
    more after the worker reconnects to the broker.

    A server-mode batch sent with `audit --no-wait` may have no waiting `audit`, watcher or
    scheduler to sweep for it, so each server worker sweeps too (sweeps at once are safe), on
    its timer (workers/timer_steps.py)."""

    def schedule(consumer: Any) -> list[Any]:
        entries = [consumer.timer.call_repeatedly(settings.recovery_interval_s, sweep_until_next_time,
                                                  (consumer.app, settings))]
        if consumer.restart_count > 0:
            # Back after losing the broker, whose restart may have dropped every queued
            # message: sweep as soon as those documents can be told from running ones.
            logs.log("reconnected to the broker; sweeping once the stall limit has passed", stage=LOG_STAGE,
                     batch_id=None, level=logging.WARNING, in_s=settings.stall_after.total_seconds())
            entries.append(consumer.timer.call_after(
                settings.stall_after.total_seconds() + 1, sweep_until_next_time, (consumer.app, settings)))
        return entries

    return timer_step("recovery sweep", schedule)
