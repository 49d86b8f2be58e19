"""Reads and writes for runs that follow each other: scheduled and nightly runs, and the
results a nightly batch carries over from earlier audits.

The claim on a schedule window is the row itself: (schedule, window_start) is unique, so of
two schedulers inserting the same window one succeeds and the other learns it lost.  Ending a
run is a conditional UPDATE on its state, so exactly one process reports and notifies.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy import insert, literal, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from pipelines.dag import Stage
from pipelines.datamodel import BatchStatus, DocumentStatus, RunState
from storage import schema
from storage.schema import utcnow

_CHUNK = 500
"""Ids per IN (...) list: far below SQLite's variable limit."""

_CARRIED_REVIEW_COLUMNS = ("category", "reason", "priority", "severity", "status", "evidence", "created_at")


# --- schedule runs -------------------------------------------------------------------------

def claim_window(session: Session, schedule: str, window_start: datetime, *, state: RunState = RunState.RUNNING,
                 reason: str | None = None, batch_id: str | None = None, summary: dict | None = None) -> schema.ScheduleRun | None:
    """Insert the run of one window; None when another process already holds that window."""
    run = schema.ScheduleRun(schedule=schedule, window_start=window_start, state=state, reason=reason,
                             batch_id=batch_id, summary=summary or {},
                             finished_at=None if state is RunState.RUNNING else utcnow())
    try:
        with session.begin_nested():
            session.add(run)
            session.flush()
    except IntegrityError:
        return None
    return run


def get_run(session: Session, run_id: int) -> schema.ScheduleRun:
    run = session.get(schema.ScheduleRun, run_id)
    if run is None:
        raise LookupError(f"no schedule run {run_id}")
    return run


def run_for_window(session: Session, schedule: str, window_start: datetime) -> schema.ScheduleRun | None:
    return session.scalar(select(schema.ScheduleRun).where(
        schema.ScheduleRun.schedule == schedule, schema.ScheduleRun.window_start == window_start))


def runs(session: Session, schedule: str) -> list[schema.ScheduleRun]:
    """Every run of a schedule, oldest window first."""
    return list(session.scalars(select(schema.ScheduleRun).where(schema.ScheduleRun.schedule == schedule)
                                .order_by(schema.ScheduleRun.window_start)))


@dataclass(frozen=True)
class OpenRun:
    """A run that has not ended, and where its batch is."""

    id: int
    window_start: datetime
    batch_id: str | None
    batch_status: BatchStatus | None  # None: the batch is gone (deleted)

    @property
    def batch_done(self) -> bool:
        return self.batch_status is BatchStatus.DONE

    @property
    def still_running(self) -> bool:
        return self.batch_status is BatchStatus.RUNNING


def open_runs(session: Session, schedule: str | None = None) -> list[OpenRun]:
    """Runs in state running (of one schedule, or of all), oldest first."""
    query = (select(schema.ScheduleRun.id, schema.ScheduleRun.window_start, schema.ScheduleRun.batch_id, schema.Batch.status)
             .outerjoin(schema.Batch, schema.Batch.id == schema.ScheduleRun.batch_id)
             .where(schema.ScheduleRun.state == RunState.RUNNING)
             .order_by(schema.ScheduleRun.window_start))
    if schedule is not None:
        query = query.where(schema.ScheduleRun.schedule == schedule)
    return [OpenRun(id, window, batch, status) for id, window, batch, status in session.execute(query)]


def end_run(session: Session, run_id: int, state: RunState, summary: dict | None = None,
            reason: str | None = None) -> bool:
    """End a running run (replacing its summary, if one is given); False when another process
    ended it first."""
    values: dict = {"state": state, "reason": reason, "finished_at": utcnow()}
    if summary is not None:
        values["summary"] = summary
    return session.execute(
        update(schema.ScheduleRun)
        .where(schema.ScheduleRun.id == run_id, schema.ScheduleRun.state == RunState.RUNNING)
        .values(**values)
    ).rowcount == 1


def update_summary(session: Session, run_id: int, **fields: object) -> None:
    """Add to an ended run's summary (what the notification did)."""
    run = get_run(session, run_id)
    run.summary = {**(run.summary or {}), **fields}


def previous_done_run(session: Session, schedule: str, before: datetime) -> schema.ScheduleRun | None:
    """The latest run of the schedule that ended with a batch, before the window `before`."""
    return session.scalar(
        select(schema.ScheduleRun)
        .where(schema.ScheduleRun.schedule == schedule, schema.ScheduleRun.state == RunState.DONE,
               schema.ScheduleRun.batch_id.is_not(None), schema.ScheduleRun.window_start < before)
        .order_by(schema.ScheduleRun.window_start.desc()).limit(1)
    )


# --- incremental batches -------------------------------------------------------------------

def pending_documents(session: Session, batch_id: str) -> list[tuple[int, Path]]:
    rows = session.execute(select(schema.Document.id, schema.Document.path).where(
        schema.Document.batch_id == batch_id, schema.Document.status == DocumentStatus.PENDING).order_by(schema.Document.id))
    return [(document_id, Path(path)) for document_id, path in rows]


def known_files(session: Session, paths: Iterable[str], *, exclude_batch: str) -> dict[str, tuple[int, int, str]]:
    """Per path, the (size, mtime_ns, sha256) its latest document of another batch was planned
    with: a file still that size and mtime has those bytes."""
    D, ordered, found = schema.Document, sorted(set(paths)), {}
    for start in range(0, len(ordered), _CHUNK):
        rows = session.execute(select(D.path, D.size_bytes, D.mtime_ns, D.sha256).where(
            D.path.in_(ordered[start:start + _CHUNK]), D.batch_id != exclude_batch, D.mtime_ns.is_not(None),
            D.size_bytes.is_not(None), D.sha256.is_not(None)).order_by(D.id.desc()))
        for path, size, mtime_ns, sha256 in rows:
            found.setdefault(path, (size, mtime_ns, sha256))
    return found


def set_file_stats(session: Session, stats: dict[int, tuple[int, int]]) -> None:
    """Each document's file size and mtime (ns), as its run planned it."""
    for document_id, (size, mtime_ns) in stats.items():
        session.execute(update(schema.Document).where(schema.Document.id == document_id)
                        .values(size_bytes=size, mtime_ns=mtime_ns))


def set_fingerprints(session: Session, fingerprints: dict[int, str]) -> None:
    for document_id, fingerprint in fingerprints.items():
        session.execute(update(schema.Document).where(schema.Document.id == document_id).values(fingerprint=fingerprint))


def audited_hashes(session: Session, batch_id: str) -> dict[int, str]:
    """The bytes (sha256) each document the batch itself audited was read with."""
    rows = session.execute(select(schema.Document.id, schema.Document.sha256).where(
        schema.Document.batch_id == batch_id, schema.Document.carried_from.is_(None),
        schema.Document.status != DocumentStatus.DUPLICATE, schema.Document.sha256.is_not(None)))
    return {document_id: sha256 for document_id, sha256 in rows}


@dataclass(frozen=True)
class Audit:
    """An earlier document with a fingerprint: a candidate to carry results from."""

    id: int
    fingerprint: str
    failed: bool
    reason: str | None


def audits_with_fingerprints(session: Session, fingerprints: Iterable[str], *, exclude_batch: str) -> Iterator[Audit]:
    """Ended (done or failed) documents of other batches with these fingerprints, latest first."""
    ordered = sorted(fingerprints)
    for start in range(0, len(ordered), _CHUNK):
        rows = session.execute(
            select(schema.Document.id, schema.Document.fingerprint, schema.Document.status, schema.Document.reason)
            .where(schema.Document.fingerprint.in_(ordered[start:start + _CHUNK]),
                   schema.Document.status.in_([DocumentStatus.DONE, DocumentStatus.FAILED]),
                   schema.Document.batch_id != exclude_batch)
            .order_by(schema.Document.id.desc())
        )
        for document_id, fingerprint, status, reason in rows:
            yield Audit(document_id, fingerprint, status is DocumentStatus.FAILED, reason)


def carry_over(session: Session, document_id: int, source_id: int, sha256: str | None) -> bool:
    """Give a pending document the results of an earlier audit of the same fingerprint: its
    outcome and risk, and its review items (with their review status) copied; its findings,
    stored assessment and pages stay with the audit that made them, which `carried_from`
    names and every reader follows (storage/repository.results_of).  A 100,000-contract night
    carries most of its contracts, and copying each one's findings (its model's ranked tail,
    some 1,450 rows and 0.65 MB) was nearly all of its planning time and of its writes
    (docs/BENCHMARKS.md).  False, and nothing written, when the document no longer waits."""
    target = session.get(schema.Document, document_id, with_for_update=True)
    source = session.get(schema.Document, source_id)
    if target is None or source is None or target.status is not DocumentStatus.PENDING:
        return False
    target.status, target.stage, target.reason = source.status, source.stage or Stage.PERSIST, source.reason
    target.sha256 = source.sha256 or sha256
    target.kind, target.size_bytes, target.page_count = source.kind, source.size_bytes, source.page_count
    target.risk_score, target.risk_level = source.risk_score, source.risk_level
    target.timings, target.carried_from = {}, source.carried_from or source.id
    _copy_rows(session, schema.ReviewItem, _CARRIED_REVIEW_COLUMNS, source_id, document_id)
    return True


def _copy_rows(session: Session, table: type[schema.Base], columns: tuple[str, ...], source_id: int, target_id: int) -> None:
    """INSERT ... SELECT: a carried document's rows are copied inside the database."""
    model = table.__table__  # type: ignore[attr-defined]
    session.execute(insert(model).from_select(
        ["document_id", *columns],
        select(literal(target_id), *(model.c[c] for c in columns)).where(model.c.document_id == source_id)
        .order_by(model.c.id),
    ))
