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

from sqlalchemy import (ColumnElement, Integer, Row, Select, Text, and_, column, false, func, insert, not_, or_, select,
                        update, values)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import InstrumentedAttribute, Session

from pipelines.dag import Stage
from pipelines.datamodel import BatchStatus, DocumentStatus, RunState
from storage import schema
from storage.schema import utcnow

_CHUNK = 500
"""Ids per IN (...) list: far below SQLite's variable limit."""

_CARRIED_REVIEW_COLUMNS = ("category", "reason", "priority", "severity", "status", "evidence", "created_at")
_CARRIED_COLUMNS = ("status", "stage", "reason", "sha256", "kind", "size_bytes", "page_count", "risk_score",
                    "risk_level", "carried_from")
"""What a carried document takes from the audit it carries (with `_carried_row`'s adjustments)."""


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
    D, found = schema.Document, {}
    for ids in _latest_per_key(D.path, paths, D.batch_id != exclude_batch, D.mtime_ns.is_not(None),
                               D.size_bytes.is_not(None), D.sha256.is_not(None)):
        rows = session.execute(select(D.path, D.size_bytes, D.mtime_ns, D.sha256).where(D.id.in_(ids)))
        found.update((path, (size, mtime_ns, sha256)) for path, size, mtime_ns, sha256 in rows)
    return found


def _latest_per_key(key: InstrumentedAttribute[str | None], values_: Iterable[str],
                    *conditions: ColumnElement[bool]) -> Iterator[Select[tuple[int]]]:
    """Per chunk of key values, a query of each value's latest document (highest id) that meets
    the conditions.

    Document rows are kept for ever (storage/retention.py prunes their details, not the rows),
    and a contract audited or carried every night has a row per night, all with its path and its
    fingerprint.  Reading them all and keeping the newest made each night's planning slower than
    the last (docs/BENCHMARKS.md); here each value's latest row is found from the top of its
    entries in the (key, id) index, a row or two per value whatever the number of nights."""
    D, ordered = schema.Document, sorted(set(values_))
    for start in range(0, len(ordered), _CHUNK):
        wanted = values(column("key", Text), name="wanted").data([(v,) for v in ordered[start:start + _CHUNK]]).cte()
        latest = select(D.id).where(key == wanted.c.key, *conditions).order_by(D.id.desc()).limit(1) \
            .correlate(wanted).scalar_subquery()
        yield select(latest).select_from(wanted)


def set_file_stats(session: Session, stats: dict[int, tuple[int, int]]) -> None:
    """Each document's file size and mtime (ns), as its run planned it: one statement for all
    (executemany by primary key; one ORM statement per document was most of a 100,000-file
    night's planning, docs/BENCHMARKS.md)."""
    if stats:
        session.execute(update(schema.Document), [{"id": document_id, "size_bytes": size, "mtime_ns": mtime_ns}
                                                  for document_id, (size, mtime_ns) in stats.items()])


def set_fingerprints(session: Session, fingerprints: dict[int, str]) -> None:
    if fingerprints:
        session.execute(update(schema.Document), [{"id": document_id, "fingerprint": fingerprint}
                                                  for document_id, fingerprint in fingerprints.items()])


def audited_hashes(session: Session, batch_id: str) -> dict[int, str]:
    """The bytes (sha256) each document the batch itself audited was read with."""
    rows = session.execute(select(schema.Document.id, schema.Document.sha256).where(
        schema.Document.batch_id == batch_id, schema.Document.carried_from.is_(None),
        schema.Document.status != DocumentStatus.DUPLICATE, schema.Document.sha256.is_not(None)))
    return {document_id: sha256 for document_id, sha256 in rows}


def latest_audits(session: Session, fingerprints: Iterable[str], *, exclude_batch: str,
                  failures_retried: tuple[str, ...]) -> dict[str, int]:
    """Per fingerprint, the latest ended document of another batch whose results can be carried:
    done, or failed for a reason other than those a later run tries again (reasons starting
    with one of `failures_retried`)."""
    D, found = schema.Document, {}
    retried = or_(false(), *(func.substr(D.reason, 1, len(prefix)) == prefix for prefix in failures_retried))
    carried = or_(D.status == DocumentStatus.DONE, and_(D.status == DocumentStatus.FAILED,
                                                        or_(D.reason.is_(None), not_(retried))))
    for ids in _latest_per_key(D.fingerprint, fingerprints, D.batch_id != exclude_batch, carried):
        found.update((fingerprint, document_id) for fingerprint, document_id in
                     session.execute(select(D.fingerprint, D.id).where(D.id.in_(ids))))
    return found


def carry_over(session: Session, sources: dict[int, int], hashes: dict[int, str | None]) -> set[int]:
    """Give pending documents (`sources`: document -> an earlier audit of the same fingerprint)
    that audit's results: its outcome and risk, and its review items (with their review status)
    copied; its findings, stored assessment and pages stay with the audit that made them, which
    `carried_from` names and every reader follows (storage/repository.results_of).  A
    100,000-contract night carries most of its contracts, and copying each one's findings (its
    model's ranked tail, some 1,450 rows and 0.65 MB) was nearly all of its planning time and of
    its writes (docs/BENCHMARKS.md).  Set by set, 500 documents to a statement.

    Returns the documents carried; one that no longer waits (the recovery sweep sent it) is left
    alone.  `hashes` gives a document's sha256 where its source has none."""
    D, carried, pairs = schema.Document, set(), list(sources.items())
    for start in range(0, len(pairs), _CHUNK):
        chunk = dict(pairs[start:start + _CHUNK])
        waiting = set(session.scalars(select(D.id).where(D.id.in_(chunk), D.status == DocumentStatus.PENDING)
                                      .with_for_update()))
        audits = {row.id: row for row in session.execute(select(D.id, *(getattr(D, name) for name in _CARRIED_COLUMNS))
                                                         .where(D.id.in_(set(chunk.values()))))}
        rows = [_carried_row(target, audits[source], hashes.get(target)) for target, source in chunk.items()
                if target in waiting and source in audits]
        if rows:
            session.execute(update(D), rows)
            _copy_review_items(session, [(row["id"], chunk[row["id"]]) for row in rows])
            carried.update(row["id"] for row in rows)
    return carried


def _carried_row(target: int, audit: Row, sha256: str | None) -> dict:
    """The columns a carried document takes from the audit it carries."""
    row = {name: getattr(audit, name) for name in _CARRIED_COLUMNS}
    row.update(id=target, stage=audit.stage or Stage.PERSIST, sha256=audit.sha256 or sha256, timings={},
               carried_from=audit.carried_from or audit.id)
    return row


def _copy_review_items(session: Session, pairs: list[tuple[int, int]]) -> None:
    """INSERT ... SELECT of the sources' review items for their targets, inside the database, in
    the targets' order and each source's own."""
    model = schema.ReviewItem.__table__
    pairing = values(column("ordinal", Integer), column("target", Integer), column("source", Integer), name="pairs") \
        .data([(i, target, source) for i, (target, source) in enumerate(pairs)]).cte()
    session.execute(insert(model).from_select(
        ["document_id", *_CARRIED_REVIEW_COLUMNS],
        select(pairing.c.target, *(model.c[name] for name in _CARRIED_REVIEW_COLUMNS))
        .join(pairing, pairing.c.source == model.c.document_id).order_by(pairing.c.ordinal, model.c.id),
    ))
