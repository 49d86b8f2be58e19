"""Retention: the last runs keep everything; older runs keep their record, not their working material.

Every nightly run adds a batch: the contracts that changed are audited again (pages, segments,
findings), and every other contract's results are carried into the new batch (its outcome and
review items copied; its findings, pages and stored assessment read through `carried_from`
from the audit that made them, storage/history.carry_over).  A document that a later audit
of the same contract superseded is then kept only as a record, once its batch is older than
the last `keep_runs` batches of its kind (nightly, audit, watch):

  - its pages lose their text and word boxes (the rows stay: number, source, OCR time, error);
  - its segments and its findings rows (every producer's) are deleted;
  - its stored assessment keeps every finding at or above the playbook's floor, and loses the
    candidates under it (the model's ranked tail, which only predictions.jsonl shows): every
    report, the nightly deltas and the item pages read only the findings it keeps;
  - its fingerprint is cleared, so no later run carries results from it (a contract changed
    back is audited afresh), and a note says "details pruned on DATE", which every report
    shows beside the document.

Never touched: the latest audit of every contract (the last document of its path that ended
done, and anything after it); every document of a review decision's family (the audit it was
made on, the audit that one was carried from, and every copy carried from it, whose reports
apply the decision to their own findings); the audit a kept document was carried from or
duplicates; every batch still running; and the record itself: batch and document rows
(status, reason, sha256, risk), review items and decisions, recoveries, the intake ledger and
the runs' rows.

Each chunk of documents is checked and pruned in one short transaction that holds its
batch's row, so a prune killed at any point leaves every document either whole or pruned,
and running it again finishes the rest (a pruned document is known by its note).
"""
from __future__ import annotations

import logging
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import ColumnElement, Text, and_, cast, create_engine, delete, exists, false, func, inspect, not_, or_, \
    select, update
from sqlalchemy.orm import Session, aliased

from pipelines import logs
from pipelines.datamodel import BatchOrigin, BatchStatus, DocumentStatus
from pipelines.settings import Settings
from storage import history, schema
from storage.database import session_scope
from storage.schema import utcnow

LOG_STAGE = "retention"
PRUNED = "details pruned on"
"""How a pruned document's note begins: "details pruned on 2026-12-21 (...)"."""
CHUNK = 50
"""Documents per transaction: a model-audited document's stored assessment is most of a
megabyte of JSON, read and written again, so 50 keep a transaction under a second or so."""
RESULTS_KEPT = timedelta(days=1)
"""A result in a database result backend older than this is Celery's to expire (its
result_expires, workers/celery_app.py); only the OCR chords store results, and a chord joins
within its pages' time limits."""
AFTER_RUN_BUDGET_S = 600.0
"""How long a nightly run's own prune may go on: a first prune of a long history can take
hours, and a scheduler's run must end; the next run (or `clausemill prune`) goes on from there."""
RUN_FOLDER = re.compile(r"\d{4}-\d{2}-\d{2}_\d{4}(-\d+)?")
"""The name pipelines/nightly/runs.run_folder gives a run's report folder."""

D, B = schema.Document, schema.Batch


@dataclass
class Pruned:
    """What a prune deleted (or, dry, would delete)."""

    keep_runs: int
    dry_run: bool
    documents: int = 0
    batches: set[str] = field(default_factory=set)
    rows: dict[str, int] = field(default_factory=lambda: {"pages": 0, "segments": 0, "findings": 0, "candidates": 0})
    """pages: emptied of text and word boxes; segments, findings: deleted; candidates: taken
    out of stored assessments."""
    bytes: int = 0
    """Text and JSON the rows held, about (the database's own overhead comes on top)."""
    folders: list[tuple[Path, int]] = field(default_factory=list)
    """Report folders of older runs, with their size in bytes."""
    results: int = 0
    """Expired rows of a database result backend."""
    seconds: float = 0.0
    finished: bool = True
    """False when it stopped at its time budget with documents left to look at."""

    @property
    def nothing(self) -> bool:
        return not (self.documents or self.folders or self.results)

    def to_dict(self) -> dict:
        return {"keep_runs": self.keep_runs, "dry_run": self.dry_run, "documents": self.documents,
                "batches": len(self.batches), "rows": dict(self.rows), "bytes": self.bytes,
                "folders": [str(path) for path, _ in self.folders], "folder_bytes": sum(n for _, n in self.folders),
                "results": self.results, "seconds": round(self.seconds, 3), "finished": self.finished}


def prune(settings: Settings, keep_runs: int, *, dry_run: bool = False,
          progress: Callable[[Pruned], None] | None = None, budget_s: float | None = None) -> Pruned:
    """Prune what the last `keep_runs` runs of each kind and the rules above do not keep (0:
    keep everything); `dry_run` counts it without deleting.  `progress` is called after each
    chunk with the totals so far; past `budget_s` no chunk is started (`finished` is then False)."""
    started = time.monotonic()
    pruned = Pruned(keep_runs, dry_run)
    if keep_runs > 0:
        url = settings.effective_database_url
        with session_scope(url, write=False) as session:
            cuts = cutoffs(session, keep_runs)
            batches = list(session.scalars(select(B.id).where(old(B, cuts)).order_by(B.created_at, B.id)))
        _prune_folders(url, cuts, pruned, dry_run)
        pruned.results = _expired_results(settings.effective_result_backend, utcnow() - RESULTS_KEPT, dry_run)
        for batch_id in batches:
            for chunk in _chunks(url, batch_id):
                if budget_s is not None and time.monotonic() - started > budget_s:
                    pruned.finished = False
                    break
                if _prune_chunk(url, batch_id, chunk, pruned, dry_run):
                    pruned.batches.add(batch_id)
                if progress is not None:
                    progress(pruned)
            if not pruned.finished:
                break
    pruned.seconds = time.monotonic() - started
    return pruned


def after_run(settings: Settings, run_id: int) -> Pruned | None:
    """The nightly run's own prune (Settings.keep_runs; 0 turns it off), at most
    AFTER_RUN_BUDGET_S long, recorded in the run's summary and the log.  A prune that fails is
    logged and leaves the run done: the next run tries again."""
    if not settings.keep_runs:
        return None
    try:
        pruned = prune(settings, settings.keep_runs, budget_s=AFTER_RUN_BUDGET_S)
        with session_scope(settings.effective_database_url) as session:
            history.update_summary(session, run_id, pruned=pruned.to_dict())
    except Exception as error:  # noqa: BLE001 - a run's reports are out; a failed prune must not undo that
        logs.log("prune after the nightly run failed", stage=LOG_STAGE, batch_id=None, level=logging.ERROR,
                 exc_info=error, run_id=run_id)
        return None
    logs.log("pruned after the nightly run", stage=LOG_STAGE, batch_id=None, run_id=run_id, **pruned.to_dict())
    return pruned


# --- which batches, which documents --------------------------------------------------------------

Cuts = dict[BatchOrigin, tuple[datetime, list[str]]]
"""Per kind of batch: when the oldest of its last runs was created, and the ids of those runs."""


def cutoffs(session: Session, keep_runs: int) -> Cuts:
    """Per kind of batch, its `keep_runs` newest batches (and when the oldest of them was
    created): the batches of that kind created before it are old.  A kind with no more
    batches than that has none."""
    cuts: Cuts = {}
    for origin in BatchOrigin:
        newest = session.execute(select(B.created_at, B.id).where(B.origin == origin)
                                 .order_by(B.created_at.desc(), B.id.desc()).limit(keep_runs)).all()
        if len(newest) == keep_runs:
            cuts[origin] = (newest[-1].created_at, [row.id for row in newest])
    return cuts


def old(batch: type[schema.Batch], cuts: Cuts) -> ColumnElement[bool]:
    """A batch that ended and is older than the last runs of its kind (one created since the
    cuts were taken is newer than all of them)."""
    if not cuts:
        return false()
    return and_(batch.status == BatchStatus.DONE, or_(*(
        and_(batch.origin == origin, batch.created_at <= at, batch.id.not_in(kept))
        for origin, (at, kept) in cuts.items())))


def _superseded(doc: type[schema.Document]) -> ColumnElement[bool]:
    """A later document of the same contract (path) ended done: the portfolio shows that one."""
    later = aliased(schema.Document)
    return exists().where(later.path == doc.path, later.id > doc.id, later.status == DocumentStatus.DONE)


def _root(doc: type[schema.Document]) -> ColumnElement[int]:
    """The audit a document's results were carried from, else the document itself
    (storage/repository: decisions reach every document of the same root)."""
    return func.coalesce(doc.carried_from, doc.id)


def _chunks(url: str, batch_id: str) -> Iterator[list[int]]:
    """The batch's documents not pruned yet, CHUNK ids at a time, each read in a short
    transaction of its own (keyset: a chunk pruned meanwhile changes nothing ahead)."""
    after = 0
    while True:
        with session_scope(url, write=False) as session:
            rows = session.execute(select(D.id, D.notes).where(D.batch_id == batch_id, D.id > after)
                                   .order_by(D.id).limit(CHUNK * 4)).all()
        if not rows:
            return
        after = rows[-1].id
        waiting = [row.id for row in rows if not is_pruned(row.notes)]
        for start in range(0, len(waiting), CHUNK):
            yield waiting[start:start + CHUNK]


def is_pruned(notes: list | None) -> bool:
    return any(isinstance(note, str) and note.startswith(PRUNED) for note in notes or ())


def prunable(session: Session, batch_id: str, ids: list[int], cuts: Cuts) -> list[int]:
    """Of these documents of an old batch, those whose details go now: superseded, in no
    decision's family, and no kept document's root or original."""
    superseded = list(session.scalars(select(D.id).where(D.id.in_(ids), D.batch_id == batch_id, _superseded(D))))
    if not superseded:
        return []
    roots = dict(session.execute(select(D.id, _root(D)).where(D.id.in_(superseded))).all())
    decider = aliased(schema.Document)
    decided = set(session.scalars(
        select(_root(decider)).distinct().join(schema.ReviewDecision, schema.ReviewDecision.document_id == decider.id)
        .where(or_(decider.id.in_(set(roots.values())), decider.carried_from.in_(set(roots.values()))))))
    candidates = [i for i in superseded if roots[i] not in decided]
    if not candidates:
        return []
    other, its_batch = aliased(schema.Document), aliased(schema.Batch)
    kept = or_(not_(old(its_batch, cuts)), not_(_superseded(other)))
    needed = set(session.scalars(select(other.carried_from).distinct()
                                 .join(its_batch, its_batch.id == other.batch_id)
                                 .where(other.carried_from.in_(candidates), kept)))
    needed |= set(session.scalars(select(other.duplicate_of).distinct()
                                  .join(its_batch, its_batch.id == other.batch_id)
                                  .where(other.status == DocumentStatus.DUPLICATE, other.duplicate_of.in_(candidates),
                                         or_(kept, _root(other).in_(decided)))))
    return [i for i in candidates if i not in needed]


# --- pruning a chunk -----------------------------------------------------------------------------

def _prune_chunk(url: str, batch_id: str, ids: list[int], pruned: Pruned, dry_run: bool) -> bool:
    """Check and prune (or count) one chunk in one transaction, holding the batch's row: a
    batch run again meanwhile (`audit --batch-id`) is left alone.  True when any went."""
    with session_scope(url, write=not dry_run) as session:
        query = select(B.id).where(B.id == batch_id, B.status == BatchStatus.DONE)
        if session.scalar(query if dry_run else query.with_for_update()) is None:
            return False
        notes = session.execute(select(D.id, D.notes).where(D.id.in_(ids))).all()
        waiting = [document_id for document_id, noted in notes if not is_pruned(noted)]  # a prune beside this one
        chosen = prunable(session, batch_id, waiting, cutoffs(session, pruned.keep_runs)) if waiting else []
        if not chosen:
            return False
        trimmed = _trimmed(session, chosen)
        _count(session, chosen, trimmed, pruned)
        if not dry_run:
            _delete(session, chosen, trimmed)
        pruned.documents += len(chosen)
        return True


def _count(session: Session, ids: list[int], trimmed: list[tuple[int, dict, int]], pruned: Pruned) -> None:
    P, S, F = schema.Page, schema.Segment, schema.Finding
    pages, page_bytes = session.execute(select(func.count(), func.coalesce(func.sum(
        func.length(P.text) + func.length(cast(P.words, Text))), 0)).where(P.document_id.in_(ids))).one()
    segments, segment_bytes = session.execute(select(func.count(), func.coalesce(func.sum(
        func.length(S.text) + func.coalesce(func.length(cast(S.box, Text)), 0)), 0)).where(S.document_id.in_(ids))).one()
    findings, finding_bytes = session.execute(select(func.count(), func.coalesce(func.sum(
        func.length(F.text) + func.coalesce(func.length(cast(F.detail, Text)), 0)
        + func.coalesce(func.length(F.note), 0) + func.coalesce(func.length(F.value), 0)), 0))
        .where(F.document_id.in_(ids))).one()
    pruned.rows["pages"] += pages
    pruned.rows["segments"] += segments
    pruned.rows["findings"] += findings
    pruned.bytes += int(page_bytes) + int(segment_bytes) + int(finding_bytes)
    if trimmed:
        lengths = dict(session.execute(select(D.id, func.length(cast(D.assessment, Text)))
                                       .where(D.id.in_([i for i, _, _ in trimmed]))).all())
        for document_id, after, removed in trimmed:
            pruned.rows["candidates"] += removed
            # about: the candidates' share of the stored JSON (serializing it again costs more than the prune)
            pruned.bytes += int(lengths[document_id] or 0) * removed // (removed + len(after["findings"]))


def _trimmed(session: Session, ids: list[int]) -> list[tuple[int, dict, int]]:
    """(id, stored assessment without the candidates under its floor, how many those were)
    of each document whose assessment has such candidates.  The stored form of
    DocumentAssessment.shown(), filtered as stored: a model's assessment holds hundreds of
    candidates, and making each a Finding and back took most of a prune's time."""
    found = []
    for document_id, stored in session.execute(select(D.id, D.assessment).where(D.id.in_(ids))):
        if not stored or "findings" not in stored or "thresholds" not in stored:
            continue
        floor = stored["thresholds"]["floor"]
        shown = [m for m in stored["findings"] if m["finding"]["confidence"] >= floor]
        if len(shown) < len(stored["findings"]):
            found.append((document_id, {**stored, "findings": shown}, len(stored["findings"]) - len(shown)))
    return found


def _delete(session: Session, ids: list[int], trimmed: list[tuple[int, dict, int]]) -> None:
    """Every write keeps the document's clock (updated_at): pruning is not a change of its audit."""
    P = schema.Page
    session.execute(update(P).where(P.document_id.in_(ids)).values(text="", words=[])
                    .execution_options(synchronize_session=False))
    for table in (schema.Segment, schema.Finding):
        session.execute(delete(table).where(table.document_id.in_(ids)).execution_options(synchronize_session=False))
    for document_id, after, _ in trimmed:
        session.execute(update(D).where(D.id == document_id).values(assessment=after, updated_at=D.updated_at)
                        .execution_options(synchronize_session=False))
    note = (f"{PRUNED} {utcnow():%Y-%m-%d} (a later audit of this contract superseded this one): its page "
            "text, segments, findings rows and candidates under the floor were deleted; its status, results "
            "and review decisions are kept")
    for document_id, notes in session.execute(select(D.id, D.notes).where(D.id.in_(ids))).all():
        session.execute(update(D).where(D.id == document_id)
                        .values(notes=[*(notes or []), note], fingerprint=None, updated_at=D.updated_at)
                        .execution_options(synchronize_session=False))


# --- report folders and result-backend leftovers ----------------------------------------------------

def _prune_folders(url: str, cuts: Cuts, pruned: Pruned, dry_run: bool) -> None:
    """The report folders of nightly runs whose batch is old, except one a `latest` link leads
    to; the run's row keeps where they were and says when they went."""
    with session_scope(url, write=False) as session:
        runs = session.execute(select(schema.ScheduleRun.id, schema.ScheduleRun.summary)
                               .join(B, B.id == schema.ScheduleRun.batch_id).where(old(B, cuts))
                               .order_by(schema.ScheduleRun.window_start)).all()
    latest = {_resolved(summary.get("latest")) for _, summary in runs if summary}
    for run_id, summary in runs:
        folder = Path(summary["out"]) if summary and summary.get("out") else None
        if folder is None or not RUN_FOLDER.fullmatch(folder.name) or folder.is_symlink() or not folder.is_dir():
            continue
        if folder.resolve() in latest:
            continue
        pruned.folders.append((folder, folder_bytes(folder)))
        if not dry_run:
            shutil.rmtree(folder)
            with session_scope(url) as session:
                history.update_summary(session, run_id, reports_pruned_on=f"{utcnow():%Y-%m-%d}")


def _resolved(link: str | None) -> Path | None:
    return Path(link).resolve() if link and Path(link).is_symlink() else None


def folder_bytes(folder: Path) -> int:
    """The size of the files under `folder` (links not followed)."""
    total = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(parent, name)).st_size
            except OSError:
                continue
    return total


def _expired_results(backend_url: str, before: datetime, dry_run: bool) -> int:
    """Rows of a database result backend (CLAUSEMILL_RESULT_BACKEND=db+postgresql://...) done
    before `before`: nothing else removes them, since the scheduler's beat runs no
    backend_cleanup.  Redis expires its own, and the embedded SQLite file is emptied each time
    the embedded workers start (workers/lifecycle.reset_embedded_broker)."""
    if not backend_url.startswith("db+"):
        return 0
    sqlite = backend_url.startswith("db+sqlite")
    if sqlite and not Path(backend_url.split("///", 1)[-1]).exists():
        return 0  # connecting would create it
    from celery.backends.database.models import Task, TaskSet

    engine = create_engine(backend_url.removeprefix("db+"), connect_args={"timeout": 60} if sqlite else {})
    try:
        with engine.begin() as connection:
            found = 0
            for table in (Task.__table__, TaskSet.__table__):
                if not inspect(connection).has_table(table.name):
                    continue
                which = table.c.date_done < before
                found += connection.scalar(select(func.count()).select_from(table).where(which)) or 0
                if not dry_run:
                    connection.execute(delete(table).where(which))
            return found
    finally:
        engine.dispose()


# --- what the app and the CLI show -----------------------------------------------------------------

def pruned_documents(session: Session, batch_id: str) -> tuple[int, list[str]]:
    """How many of the batch's documents had their details pruned, and on which days."""
    days: set[str] = set()
    count = 0
    for (notes,) in session.execute(select(D.notes).where(D.batch_id == batch_id,
                                                          cast(D.notes, Text).like(f"%{PRUNED}%"))):
        marks = [n for n in notes or () if isinstance(n, str) and n.startswith(PRUNED)]
        if marks:
            count += 1
            days.update(mark[len(PRUNED):].split()[0] for mark in marks)
    return count, sorted(days)


def database_bytes(session: Session) -> int | None:
    """The bytes an SQLite database has in use (its pages less the free ones, which it
    reuses); None on PostgreSQL, where a file only shrinks by VACUUM FULL."""
    if session.get_bind().dialect.name != "sqlite":
        return None
    connection = session.connection()
    page_count = connection.exec_driver_sql("PRAGMA page_count").scalar() or 0
    free = connection.exec_driver_sql("PRAGMA freelist_count").scalar() or 0
    size = connection.exec_driver_sql("PRAGMA page_size").scalar() or 0
    return (page_count - free) * size
