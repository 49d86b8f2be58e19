"""What the metrics endpoint reads from the database: plain counts and times, no Prometheus.

Metrics come from the database rather than from counters in worker memory, so they hold for
prefork pools and for workers spread over several machines, and survive restarts.  Each
function is one read that a scrape makes; times are naive UTC, as the tables store them.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from pipelines.dag import Stage
from pipelines.datamodel import TERMINAL_STATUSES, BatchOrigin, BatchStatus, DocumentStatus, IntakeState, RunState, SkipReason
from storage import schema

BATCH_LABEL_HEX = 12


def batch_label(batch_id: str) -> str:
    """A batch as a metrics label: a digest of its id, never the id itself.

    Batch ids are free text (`--batch-id 'Project Falcon: Acme takeover'`) and /metrics is
    served without a login, so the label only tells batches apart; `clausemill status BATCH`
    prints the label of a batch.  Twelve hex digits keep a thousand batches from colliding."""
    return "b" + hashlib.sha256(batch_id.encode("utf-8")).hexdigest()[:BATCH_LABEL_HEX]


PENDING_INTAKE: tuple[IntakeState, ...] = tuple(state for state in IntakeState if not state.ended)


@dataclass(frozen=True)
class DocumentCount:
    batch_id: str
    status: DocumentStatus
    stage: Stage | None
    count: int


def shown_batches(session: Session, recent: int) -> list[str]:
    """The batches whose documents are shown one by one: every running batch and the `recent`
    newest others.  Batch ids are the one open-ended label, so they are bounded here."""
    running = session.scalars(select(schema.Batch.id).where(schema.Batch.status == BatchStatus.RUNNING)).all()
    newest = session.scalars(select(schema.Batch.id).where(schema.Batch.status != BatchStatus.RUNNING)
                             .order_by(schema.Batch.created_at.desc(), schema.Batch.id.desc()).limit(recent)).all()
    return [*running, *newest]


def documents_by_batch(session: Session, batch_ids: list[str]) -> list[DocumentCount]:
    """Documents of these batches per status and stage (the stage they reached or failed at)."""
    if not batch_ids:
        return []
    rows = session.execute(
        select(schema.Document.batch_id, schema.Document.status, schema.Document.stage, func.count())
        .where(schema.Document.batch_id.in_(batch_ids))
        .group_by(schema.Document.batch_id, schema.Document.status, schema.Document.stage)
    ).all()
    return [DocumentCount(batch_id, status, stage, count) for batch_id, status, stage, count in rows]


def ended_documents(session: Session) -> dict[DocumentStatus, int]:
    """Documents that ended, over every batch, per terminal status (zeros included)."""
    rows = session.execute(
        select(schema.Document.status, func.count()).where(schema.Document.status.in_(TERMINAL_STATUSES))
        .group_by(schema.Document.status)
    ).all()
    counts = {status: 0 for status in DocumentStatus if status.ended}
    counts.update({status: count for status, count in rows})
    return counts


def batches_by_status(session: Session) -> dict[tuple[BatchStatus, BatchOrigin], int]:
    rows = session.execute(
        select(schema.Batch.status, schema.Batch.origin, func.count()).group_by(schema.Batch.status, schema.Batch.origin)
    ).all()
    return {(status, origin): count for status, origin, count in rows}


def stage_timings(session: Session, batch_size: int = 1000) -> Iterator[dict[str, float]]:
    """Each document's seconds per completed stage, streamed: every document there is, so
    the histogram built from them only grows between scrapes, as Prometheus expects."""
    query = select(schema.Document.timings).where(schema.Document.timings.is_not(None))
    for timings in session.execute(query.execution_options(yield_per=batch_size)).scalars():
        if timings:
            yield timings


def intake_counts(session: Session) -> dict[IntakeState, int]:
    """Intake files per state (zeros included)."""
    rows = session.execute(select(schema.IntakeFile.state, func.count()).group_by(schema.IntakeFile.state)).all()
    return {state: 0 for state in IntakeState} | {state: count for state, count in rows}


def oldest_pending_intake(session: Session) -> datetime | None:
    """When the longest-waiting file still on its way (claimed or in a batch) was claimed."""
    return session.scalar(select(func.min(schema.IntakeFile.claimed_at))
                          .where(schema.IntakeFile.state.in_(PENDING_INTAKE)))


def resends_by_stage(session: Session) -> dict[Stage | None, int]:
    """Re-sends by the recovery sweep, per the stage the document resumed after."""
    rows = session.execute(select(schema.Recovery.stage, func.count()).group_by(schema.Recovery.stage)).all()
    return {stage: count for stage, count in rows}


def last_successful_run(session: Session) -> datetime | None:
    """When the newest scheduled run that completed finished (any schedule)."""
    return session.scalar(select(func.max(func.coalesce(schema.ScheduleRun.finished_at, schema.ScheduleRun.started_at)))
                          .where(schema.ScheduleRun.state == RunState.DONE))


def skipped_runs(session: Session) -> dict[str, int]:
    """Skipped scheduled runs per reason: the SkipReason the scheduler recorded in the run's
    summary (or as its reason), '' for a skip recorded without one."""
    rows = session.execute(select(schema.ScheduleRun.reason, schema.ScheduleRun.summary)
                           .where(schema.ScheduleRun.state == RunState.SKIPPED)).all()
    reasons = {str(r) for r in SkipReason}
    counts: dict[str, int] = {}
    for reason, summary in rows:
        recorded = (summary or {}).get("skip")
        label = recorded if recorded in reasons else (reason or "")
        counts[label] = counts.get(label, 0) + 1
    return counts


def any_scheduled_run(session: Session) -> bool:
    return session.scalar(select(schema.ScheduleRun.id).limit(1)) is not None
