"""Reads and writes of business state, each safe to repeat.

Every write a task makes replaces what that stage wrote before (delete, then insert, in one
transaction), so a task delivered twice, or a batch run twice, leaves exactly one copy of each
page, segment and finding.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from sqlalchemy import ColumnElement, delete, exists, func, insert, or_, select, tuple_, update
from sqlalchemy.orm import Session, undefer

from pipelines import datamodel as dm
from pipelines.dag import Stage
from pipelines.datamodel import BatchOrigin, BatchStatus, DocumentStatus
from pipelines.review.recalibration import Calibration, calibration_key
from storage import schema
from storage.schema import utcnow


# --- batches -----------------------------------------------------------------------------

def create_batch(session: Session, batch_id: str, paths: Iterable[Path], options: dict,
                 origin: BatchOrigin = BatchOrigin.AUDIT) -> list[int]:
    """Register a batch and its documents; on a re-run of the same id, reset them to pending."""
    batch = session.get(schema.Batch, batch_id)
    if batch is None:
        batch = schema.Batch(id=batch_id, options=options, summary={}, origin=origin)
        session.add(batch)
    else:
        batch.status, batch.finished_at, batch.options, batch.summary = BatchStatus.RUNNING, None, options, {}
        batch.origin = origin
    session.flush()
    D, paths = schema.Document, list(paths)
    existing = {d.path: d for d in session.scalars(select(D).where(D.batch_id == batch_id))}
    new = []
    for path in paths:
        document = existing.get(str(path))
        if document is None:
            new.append({"batch_id": batch_id, "path": str(path), "filename": path.name, "timings": {}, "assessment": {}})
        else:
            document.status, document.stage, document.reason, document.duplicate_of = DocumentStatus.PENDING, None, None, None
            document.timings, document.assessment, document.risk_score, document.risk_level = {}, {}, None, None
            document.attempts, document.fingerprint, document.carried_from = 1, None, None
            document.unfinished, document.notes = None, None  # a re-run is a person's choice to try again
    session.flush()
    # The new rows in one executemany, their ids read back after: an ORM flush needs each row's
    # id as it inserts it, which SQLite gives one INSERT at a time (11 of a 100,000-file nightly
    # batch's 38 s of planning, docs/BENCHMARKS.md).
    if new:
        session.execute(insert(D), new)
    ids = dict(session.execute(select(D.path, D.id).where(D.batch_id == batch_id)).all())
    return [ids[str(path)] for path in paths]


def batch_progress(session: Session, batch_id: str) -> dict[str, int]:
    """Documents per status (every status, zero included), plus pages seen so far: what a
    progress bar shows."""
    rows = session.execute(
        select(schema.Document.status, func.count()).where(schema.Document.batch_id == batch_id).group_by(schema.Document.status)
    ).all()
    counts: dict[str, int] = {status: 0 for status in DocumentStatus} | {status: n for status, n in rows}
    counts["pages"] = session.scalar(
        select(func.coalesce(func.sum(schema.Document.page_count), 0)).where(
            schema.Document.batch_id == batch_id, schema.Document.status.in_(dm.TERMINAL_STATUSES)
        )
    ) or 0
    return counts


@dataclass(frozen=True)
class BatchLine:
    """A batch as the app's batches page lists it."""

    id: str
    status: str
    origin: str
    created_at: datetime
    finished_at: datetime | None
    counts: dict[str, int]
    """Documents per status."""


def recent_batches(session: Session, limit: int = 100, only: str | None = None) -> list[BatchLine]:
    """The latest batches (or the one named `only`), newest first, each with its documents
    counted per status."""
    query = select(schema.Batch).order_by(schema.Batch.created_at.desc(), schema.Batch.id).limit(limit)
    batches = session.scalars(query if only is None else query.where(schema.Batch.id == only)).all()
    counts: dict[str, dict[str, int]] = {b.id: {} for b in batches}
    for batch_id, status, n in session.execute(
            select(schema.Document.batch_id, schema.Document.status, func.count())
            .where(schema.Document.batch_id.in_(list(counts))).group_by(schema.Document.batch_id, schema.Document.status)):
        counts[batch_id][str(status)] = n
    return [BatchLine(b.id, str(b.status), str(b.origin), b.created_at, b.finished_at, counts[b.id]) for b in batches]


def failures(session: Session, batch_id: str) -> list[tuple[str, str | None, str | None]]:
    """The batch's failed documents: (file name, the stage it failed at, why)."""
    return [(name, str(stage) if stage else None, reason) for name, stage, reason in session.execute(
        select(schema.Document.filename, schema.Document.stage, schema.Document.reason)
        .where(schema.Document.batch_id == batch_id, schema.Document.status == DocumentStatus.FAILED)
        .order_by(schema.Document.filename))]


def batch_status(session: Session, batch_id: str) -> BatchStatus | None:
    return session.scalar(select(schema.Batch.status).where(schema.Batch.id == batch_id))


def finalize_batch_if_complete(session: Session, batch_id: str) -> bool:
    """The ledger: the batch ends when its last document does, exactly once.

    Called after every document reaches a terminal status.  The conditional UPDATE is the
    claim: of several documents finishing together, only the one whose UPDATE changes the row
    finalizes, and a redelivered task finds the batch already done.
    """
    # Whether any is open, not how many: a count read every open row of the batch each time a
    # document ended (3.4 ms at 20,000 open on PostgreSQL, against 0.4 ms; docs/BENCHMARKS.md).
    if session.scalar(select(exists().where(schema.Document.batch_id == batch_id,
                                            schema.Document.status.not_in(dm.TERMINAL_STATUSES)))):
        return False
    counts = {s: n for s, n in session.execute(
        select(schema.Document.status, func.count()).where(schema.Document.batch_id == batch_id).group_by(schema.Document.status)
    ).all()}
    claimed = session.execute(
        update(schema.Batch)
        .where(schema.Batch.id == batch_id, schema.Batch.status == BatchStatus.RUNNING)
        .values(status=BatchStatus.DONE, finished_at=utcnow(), summary={"documents": {str(s): n for s, n in counts.items()}})
    ).rowcount
    return claimed == 1


# --- documents ---------------------------------------------------------------------------

def get_document(session: Session, document_id: int) -> schema.Document:
    document = session.get(schema.Document, document_id)
    if document is None:
        raise LookupError(f"document {document_id} does not exist")
    return document


def filename_and_pages(session: Session, document_id: int) -> tuple[str, int | None]:
    """What aggregation needs of the document row, without its stored assessment (large JSON)."""
    row = session.execute(select(schema.Document.filename, schema.Document.page_count)
                          .where(schema.Document.id == document_id)).one_or_none()
    if row is None:
        raise LookupError(f"document {document_id} does not exist")
    return row.filename, row.page_count


def store_assessment(session: Session, document_id: int, assessment: dict, risk_score: float | None,
                     risk_level: str | None) -> None:
    """Replace the document's assessment and risk, without reading the one stored before."""
    session.execute(update(schema.Document).where(schema.Document.id == document_id)
                    .values(assessment=assessment, risk_score=risk_score, risk_level=risk_level))


def complete_stage(session: Session, document_id: int, stage: Stage, seconds: float) -> set[str]:
    """Record a finished stage: its time, and (while the document runs) that it got this far;
    returns every stage the document has completed, this one included.

    One write per task: the start of a stage is not written, which halves the lock traffic on
    SQLite.  Locked, because analysers of one document finish concurrently and the set they
    see decides which of them continues the document (steps.complete_analyser).
    """
    document = session.get(schema.Document, document_id, with_for_update=True)
    if document is None:
        return set()
    document.timings = {**(document.timings or {}), stage: round(seconds, 4)}
    if not document.status.ended:
        document.status, document.stage = DocumentStatus.RUNNING, stage
    return set(document.timings)


def record_facts(session: Session, document_id: int, facts: dm.FileFacts) -> int | None:
    """Store ingest's facts; return the id of an earlier document of the batch with the same
    bytes (this one is then its duplicate).

    The batch row is locked, so documents of one batch record their facts one at a time; and
    a later document with the same bytes that got there first (two copies ingested at once)
    is made this one's duplicate here, so exactly one copy goes on, whatever the order.
    """
    document = get_document(session, document_id)
    session.get(schema.Batch, document.batch_id, with_for_update=True)
    document.sha256, document.size_bytes, document.kind, document.page_count = (
        facts.sha256, facts.size_bytes, facts.kind, facts.page_count,
    )
    document.notes = list(facts.notes) or None
    same_bytes = session.scalars(
        select(schema.Document.id).where(schema.Document.batch_id == document.batch_id,
                                         schema.Document.sha256 == facts.sha256).order_by(schema.Document.id)
    ).all()
    if same_bytes[0] < document_id:
        return same_bytes[0]
    for later in same_bytes[1:]:  # copies that got here first, and the duplicates they took
        mark_duplicate(session, later, document_id)
    return None


def mark_failed(session: Session, document_id: int, stage: Stage, reason: str) -> schema.Document:
    document = get_document(session, document_id)
    document.status, document.stage, document.reason = DocumentStatus.FAILED, stage, reason
    return document


def mark_duplicate(session: Session, document_id: int, original_id: int) -> schema.Document:
    document = get_document(session, document_id)
    original = get_document(session, original_id)
    document.status, document.stage, document.duplicate_of = DocumentStatus.DUPLICATE, Stage.INGEST, original_id
    document.reason = f"same content as {original.filename}; analysed once"
    return document


def mark_done(session: Session, document_id: int) -> schema.Document:
    document = get_document(session, document_id)
    document.status, document.stage, document.reason = DocumentStatus.DONE, Stage.PERSIST, None
    return document


def beat(session: Session, document_ids: list[int]) -> None:
    """A heartbeat: tasks are working on these documents now, so their clocks move and the
    recovery sweep leaves them alone (workers/heartbeat.py)."""
    session.execute(update(schema.Document).where(
        schema.Document.id.in_(document_ids), schema.Document.status.not_in(dm.TERMINAL_STATUSES))
        .values(updated_at=utcnow()))


@dataclass(frozen=True)
class OpenDocument:
    """A document still under way, as the recovery sweep sees it."""

    id: int
    batch_id: str
    sha256: str | None
    completed: frozenset[str]  # stages with a recorded time
    attempts: int
    updated_at: datetime


def open_documents_idle_since(session: Session, idle_since: datetime) -> list[OpenDocument]:
    """Documents of running batches that have not ended and have not moved since `idle_since`."""
    rows = session.execute(
        select(schema.Document.id, schema.Document.batch_id, schema.Document.sha256, schema.Document.timings,
               schema.Document.attempts, schema.Document.updated_at)
        .join(schema.Batch, schema.Batch.id == schema.Document.batch_id)
        .where(schema.Batch.status == BatchStatus.RUNNING, schema.Document.status.not_in(dm.TERMINAL_STATUSES),
               schema.Document.updated_at < idle_since)
        .order_by(schema.Document.id)
    ).all()
    return [OpenDocument(id, batch, sha, frozenset(timings or {}), attempts, updated)
            for id, batch, sha, timings, attempts, updated in rows]


def _unmoved(document: OpenDocument) -> list[ColumnElement[bool]]:
    """The document is as the sweep read it: not ended, and neither attempted again nor moved."""
    return [schema.Document.id == document.id, schema.Document.attempts == document.attempts,
            schema.Document.updated_at == document.updated_at, schema.Document.status.not_in(dm.TERMINAL_STATUSES)]


def claim_for_resend(session: Session, document: OpenDocument, resumed_after: Stage | None) -> bool:
    """The claim that makes two sweeps at once send a document only once: the conditional
    UPDATE succeeds for the sweep that still sees the attempts and clock it read."""
    claimed = session.execute(
        update(schema.Document).where(*_unmoved(document)).values(attempts=document.attempts + 1, updated_at=utcnow())
    ).rowcount == 1
    if claimed:
        session.add(schema.Recovery(document_id=document.id, batch_id=document.batch_id, stage=resumed_after,
                                    attempt=document.attempts + 1))
    return claimed


def fail_unmoved(session: Session, document: OpenDocument, stage: Stage, reason: str) -> bool:
    """End a stalled document `failed`, with the same claim: a document that moved or ended
    after the sweep read it (its last stage may have just ended it `done`) is left as it is."""
    return session.execute(
        update(schema.Document).where(*_unmoved(document))
        .values(status=DocumentStatus.FAILED, stage=stage, reason=reason, updated_at=utcnow())
    ).rowcount == 1


def pages_waiting_for_ocr(session: Session, document_id: int) -> list[int]:
    """Text-layer pages without text: OCR has not replaced them yet."""
    return [p.number for p in load_pages(session, document_id) if p.needs_ocr]


def add_note(session: Session, document_id: int, note: str) -> None:
    """Say on the document how it was read or analysed (a rules-only analysis, a repair)."""
    document = session.get(schema.Document, document_id, with_for_update=True)
    if document is not None and note not in (document.notes or []):
        document.notes = [*(document.notes or []), note]


def start_delivery(session: Session, document_id: int, task: str) -> int:
    """Record that a delivery of `task` starts; returns how many earlier ones never ended."""
    document = session.get(schema.Document, document_id, with_for_update=True)
    if document is None:
        raise LookupError(f"document {document_id} does not exist")
    unfinished = dict(document.unfinished or {})
    crashed = int(unfinished.get(task, 0))
    document.unfinished = {**unfinished, task: crashed + 1}
    return crashed


def end_delivery(session: Session, document_id: int, task: str) -> None:
    """The delivery ended, however: its step returned or raised, so no worker died in it."""
    document = session.get(schema.Document, document_id, with_for_update=True)
    if document is not None and (document.unfinished or {}).get(task):
        document.unfinished = {k: v for k, v in document.unfinished.items() if k != task} or None


def _lock_document(session: Session, document_id: int) -> None:
    """Serialize replace-writes of one document: two deliveries of a task running at once
    would otherwise both delete (seeing none of the other's rows) and both insert.

    Only the id is selected: the row's assessment JSON (every finding of the document, ranked
    tail included) would otherwise be read and decoded for each lock, three times an aggregate."""
    session.execute(select(schema.Document.id).where(schema.Document.id == document_id).with_for_update())


# --- pages -------------------------------------------------------------------------------

def _page_row(document_id: int, page: dm.PageText, error: str | None = None, seconds: float = 0.0) -> schema.Page:
    return schema.Page(
        document_id=document_id, number=page.number, source=page.source, text=page.text,
        words=[[w.text, w.start, w.end, *w.box] for w in page.words],
        width=page.width, height=page.height, error=error, seconds=seconds,
    )


def replace_pages(session: Session, document_id: int, pages: list[dm.PageText]) -> None:
    _lock_document(session, document_id)
    session.execute(delete(schema.Page).where(schema.Page.document_id == document_id))
    session.add_all(_page_row(document_id, p) for p in pages)


def replace_page(session: Session, document_id: int, page: dm.PageText, error: str | None, seconds: float) -> None:
    """Also moves the document's clock: a long scan makes progress page by page, and the
    recovery sweep must not take it for stalled."""
    _lock_document(session, document_id)
    session.execute(update(schema.Document).where(schema.Document.id == document_id).values(updated_at=utcnow()))
    session.execute(delete(schema.Page).where(schema.Page.document_id == document_id, schema.Page.number == page.number))
    session.add(_page_row(document_id, page, error, seconds))


def load_pages(session: Session, document_id: int) -> list[dm.PageText]:
    rows = session.scalars(select(schema.Page).where(schema.Page.document_id == document_id).order_by(schema.Page.number))
    return [
        dm.PageText(
            number=r.number, text=r.text, source=r.source, width=r.width, height=r.height,  # type: ignore[arg-type]
            words=[dm.Word(w[0], w[1], w[2], (w[3], w[4], w[5], w[6])) for w in r.words],
        )
        for r in rows
    ]


def load_text(session: Session, document_id: int) -> str:
    """The document text (as datamodel.document_text joins it) without loading word boxes."""
    texts = session.scalars(select(schema.Page.text).where(schema.Page.document_id == document_id).order_by(schema.Page.number))
    return dm.PAGE_SEPARATOR.join(texts)


def page_errors(session: Session, document_id: int) -> dict[int, str]:
    rows = session.execute(
        select(schema.Page.number, schema.Page.error).where(schema.Page.document_id == document_id, schema.Page.error.is_not(None))
    ).all()
    return {n: e for n, e in rows}


def ocr_page_count(session: Session, document_id: int) -> int:
    return session.scalar(
        select(func.count()).where(schema.Page.document_id == document_id, schema.Page.source == "ocr")
    ) or 0


def ocr_seconds(session: Session, document_id: int) -> float:
    """CPU time spent on OCR, summed over pages (they run in parallel, on several workers)."""
    return session.scalar(
        select(func.coalesce(func.sum(schema.Page.seconds), 0.0)).where(
            schema.Page.document_id == document_id, schema.Page.source == "ocr"
        )
    ) or 0.0


# --- segments ----------------------------------------------------------------------------

def replace_segments(session: Session, document_id: int, segments: list[dm.Segment]) -> None:
    _lock_document(session, document_id)
    session.execute(delete(schema.Segment).where(schema.Segment.document_id == document_id))
    if segments:  # one bulk INSERT, as for findings: a contract has hundreds of segments
        session.execute(insert(schema.Segment), [
            {"document_id": document_id, "index": s.index, "text": s.text, "start": s.start, "end": s.end,
             "page": s.page, "box": list(s.box) if s.box else None}
            for s in segments
        ])


def load_segments(session: Session, document_id: int) -> list[dm.Segment]:
    S = schema.Segment
    rows = session.execute(select(S.index, S.text, S.start, S.end, S.page, S.box)
                           .where(S.document_id == document_id).order_by(S.index))
    return [dm.Segment(r.index, r.text, r.start, r.end, r.page, tuple(r.box) if r.box else None) for r in rows]


# --- findings ----------------------------------------------------------------------------

def replace_findings(session: Session, document_id: int, producer: str, findings: list[dm.Finding]) -> None:
    _lock_document(session, document_id)
    session.execute(
        delete(schema.Finding).where(schema.Finding.document_id == document_id, schema.Finding.producer == producer)
    )
    if findings:  # one bulk INSERT: a model's ranked tail is hundreds of rows, each an ORM object otherwise
        session.execute(insert(schema.Finding), [
            {"document_id": document_id, "producer": producer, "category": f.category, "text": f.text,
             "start": f.start, "end": f.end, "page": f.page, "box": list(f.box) if f.box else None,
             "confidence": f.confidence, "source": f.source, "version": f.version, "severity": f.severity,
             "value": f.value, "note": f.note, "detail": f.detail}
            for f in findings
        ])


def results_of(document: schema.Document) -> int:
    """The document whose audit results (pages, findings, stored assessment) this one shows:
    the audit its results were carried from (storage/history.carry_over copies none of them),
    else itself."""
    return document.carried_from or document.id


def load_findings(session: Session, document_id: int, producers: Iterable[str] | None = None) -> list[dm.Finding]:
    """The document's findings of these producers; a carried document's are its audit's (results_of)."""
    F = schema.Finding  # columns, not ORM objects: an analyser's findings run to hundreds of rows
    audit = select(_ROOT).where(schema.Document.id == document_id).scalar_subquery()
    query = (select(F.category, F.text, F.start, F.end, F.page, F.confidence, F.source, F.version, F.box, F.severity,
                    F.value, F.note, F.detail).where(F.document_id == audit))
    if producers is not None:
        query = query.where(F.producer.in_(list(producers)))
    rows = session.execute(query.order_by(F.start, F.category, F.id))
    return [
        dm.Finding(
            category=r.category, text=r.text, start=r.start, end=r.end, page=r.page, confidence=r.confidence,
            source=r.source, version=r.version, box=tuple(r.box) if r.box else None, severity=r.severity,
            value=r.value, note=r.note, detail=r.detail,
        )
        for r in rows
    ]


def replace_review_items(session: Session, document_id: int, items: list[dict]) -> None:
    """Items: {category, reason, priority, evidence}; the document's undecided items are replaced.

    A decided item stays, with its trail, and the same finding (category and span) is not
    queued again: re-running an audit does not hand reviewers work they already did.  So does
    a double-reviewed item with its first decision, which waits for its second.
    """
    from pipelines.review.double_review import reviews_needed

    _lock_document(session, document_id)
    kept = [i for i in session.scalars(select(schema.ReviewItem).where(schema.ReviewItem.document_id == document_id)
                                       .where((schema.ReviewItem.status == "decided") | (schema.ReviewItem.version > 1)))
            if i.status == "decided" or (reviews_needed(i.evidence) > 1 and standing_reviewers(session, i.id))]
    done = {_review_key(k.category, k.evidence) for k in kept}
    session.execute(delete(schema.ReviewItem).where(schema.ReviewItem.document_id == document_id)
                    .where(schema.ReviewItem.id.not_in([k.id for k in kept])))
    session.add_all(
        schema.ReviewItem(document_id=document_id, category=i["category"], reason=i["reason"],
                          priority=float(i["priority"]), evidence=i.get("evidence", {}),
                          severity=(i.get("evidence", {}).get("priority_parts") or {}).get("stakes"))
        for i in items if _review_key(i["category"], i.get("evidence", {})) not in done
    )


def trail(session: Session, item_id: int) -> list[schema.ReviewDecision]:
    """Every decision on the item, oldest first."""
    return list(session.scalars(select(schema.ReviewDecision).where(schema.ReviewDecision.item_id == item_id)
                                .order_by(schema.ReviewDecision.id)))


def standing_reviewers(session: Session, item_id: int) -> list[str]:
    """Who made the decisions that stand on the item, first first."""
    from pipelines.review.double_review import standing_rows

    rows = ({"action": d.action, "reviewer": d.reviewer} for d in trail(session, item_id))
    return [row["reviewer"] for row in standing_rows(rows)]


def rerank_review_items(session: Session, today: date) -> int:
    """Recompute, as of `today`, the priority of every open item whose batch has a due date,
    so items age as the date nears (pipelines.review.budget.reranked); returns how many moved."""
    from pipelines.review.budget import reranked

    moved = 0
    due = schema.ReviewItem.evidence[("priority_parts", "due")].as_string()
    for item in session.scalars(select(schema.ReviewItem).where(schema.ReviewItem.status == "open")
                                .where(due.is_not(None))):
        parts = (item.evidence or {}).get("priority_parts") or {}
        new = reranked(parts, today)
        if new is not None and new[0] != item.priority:
            item.priority, item.evidence = new[0], {**item.evidence, "priority_parts": new[1]}
            moved += 1
    return moved


def decision_trails(session: Session, batch_id: str) -> dict[int, list[dict]]:
    """Per document of the batch, its review decisions in the order they were made, with those
    made on the audit it was carried from and on that audit's other carried copies: a nightly
    run that carries an unchanged contract carries what reviewers decided about it."""
    return _trails(session, schema.Document.batch_id == batch_id)


def document_trails(session: Session, document_ids: Iterable[int]) -> dict[int, list[dict]]:
    """decision_trails for these documents, of whatever batches."""
    return _trails(session, schema.Document.id.in_(list(document_ids)))


_ROOT = func.coalesce(schema.Document.carried_from, schema.Document.id)
"""The audit a document's results were carried from, else the document itself."""


def _sharing_a_root(roots: Iterable[int]) -> ColumnElement[bool]:
    """Documents whose root is among `roots`, through the indexes on id and carried_from."""
    roots = list(roots)
    return or_(schema.Document.id.in_(roots), schema.Document.carried_from.in_(roots))


def _trails(session: Session, which: ColumnElement[bool]) -> dict[int, list[dict]]:
    members: dict[int, list[int]] = {}
    for document_id, document_root in session.execute(select(schema.Document.id, _ROOT).where(which)):
        members.setdefault(document_root, []).append(document_id)
    rows = session.execute(
        select(schema.ReviewDecision, _ROOT).join(schema.Document, schema.Document.id == schema.ReviewDecision.document_id)
        .where(_sharing_a_root(members)).order_by(schema.ReviewDecision.id))
    trails: dict[int, list[dict]] = {}
    for r, document_root in rows:
        entry = {"item_id": r.item_id, "action": r.action, "previous": r.previous, "new": r.new, "reviewer": r.reviewer}
        for document_id in members.get(document_root, ()):
            trails.setdefault(document_id, []).append(entry)
    return trails


def _review_key(category: str, evidence: dict) -> tuple:
    return category, evidence.get("start"), evidence.get("end")


def review_queue(session: Session, batch_id: str | None = None, limit: int = 50) -> list[dm.ReviewEntry]:
    """Open review items, most urgent first."""
    query = (
        select(schema.ReviewItem, schema.Document.batch_id, schema.Document.filename)
        .join(schema.Document, schema.Document.id == schema.ReviewItem.document_id)
        .where(schema.ReviewItem.status == "open")
        .order_by(schema.ReviewItem.priority.desc(), schema.ReviewItem.id)
        .limit(limit)
    )
    if batch_id:
        query = query.where(schema.Document.batch_id == batch_id)
    return [
        dm.ReviewEntry(id=item.id, document_id=item.document_id, batch_id=batch, filename=filename,
                       category=item.category, reason=item.reason, priority=item.priority, status=item.status,
                       evidence=dict(item.evidence or {}))
        for item, batch, filename in session.execute(query).tuples()
    ]


def batch_options(session: Session, batch_id: str) -> dict:
    """What the batch was submitted with (view, playbook text): remote workers read it too."""
    options = session.scalar(select(schema.Batch.options).where(schema.Batch.id == batch_id))
    if options is None:
        raise LookupError(f"no batch with id {batch_id!r}")
    return dict(options)


def stored_assessments(session: Session, documents: Iterable[schema.Document]) -> dict[int, dict]:
    """Each document's stored assessment by id, a carried document's read from its audit
    (results_of); documents with none are left out.  Their `assessment` column loaded."""
    documents = list(documents)
    stored = {d.id: d.assessment for d in documents if d.assessment}
    audits = {d.id: d.carried_from for d in documents if d.id not in stored and d.carried_from}
    wanted = sorted(set(audits.values()))
    found: dict[int, dict] = {}
    for start in range(0, len(wanted), 500):  # far below SQLite's variable limit
        found |= dict(session.execute(select(schema.Document.id, schema.Document.assessment)
                                      .where(schema.Document.id.in_(wanted[start:start + 500]))).all())
    stored |= {i: found[audit] for i, audit in audits.items() if found.get(audit)}
    return stored


def load_assessments(session: Session, batch_id: str) -> dict[int, dict]:
    """Stored assessments by document id; a duplicate shares its original's."""
    documents = session.scalars(select(schema.Document).where(schema.Document.batch_id == batch_id)
                                .options(undefer(schema.Document.assessment))).all()
    stored = stored_assessments(session, [d for d in documents if d.status is DocumentStatus.DONE])
    for d in documents:
        if d.status is DocumentStatus.DUPLICATE and d.duplicate_of in stored:
            stored[d.id] = stored[d.duplicate_of]
    return stored


# --- reading a batch back for reports ----------------------------------------------------

def load_batch_result(session: Session, batch_id: str, analysers: Iterable[str] = ("rules",)) -> dm.BatchResult:
    """The batch with each done document's raw analyser findings (aggregation is stored apart).

    A document whose bytes repeat an earlier one's is analysed once; it is reported with its
    original's status and findings and names the original in `duplicate_of`.
    """
    analysers = list(analysers)
    batch = session.get(schema.Batch, batch_id)
    if batch is None:
        raise LookupError(f"no batch with id {batch_id!r}")
    by_id = {d.id: d for d in batch.documents}
    documents = []
    for d in batch.documents:
        # A duplicate is reported as its original is: same outcome, same findings, its own name.
        source = by_id.get(d.duplicate_of, d) if d.status is DocumentStatus.DUPLICATE else d
        documents.append(_document_result(session, d, source, analysers if source.status is DocumentStatus.DONE else [],
                                          by_id[d.duplicate_of].filename if d.duplicate_of in by_id else None))
    return dm.BatchResult(
        id=batch.id, status=batch.status, created_at=batch.created_at.isoformat(timespec="seconds"),
        finished_at=batch.finished_at.isoformat(timespec="seconds") if batch.finished_at else None,
        documents=documents,
    )


def _document_result(session: Session, d: schema.Document, source: schema.Document, analysers: list[str],
                     duplicate_of: str | None = None) -> dm.DocumentResult:
    """`d` as reports show it, with `source`'s outcome and these analysers' findings."""
    return dm.DocumentResult(
        id=d.id, filename=d.filename, path=d.path, status=source.status, stage=source.stage, reason=source.reason,
        sha256=d.sha256, kind=d.kind, size_bytes=d.size_bytes, page_count=d.page_count,
        ocr_pages=ocr_page_count(session, results_of(source)), timings=dict(d.timings or {}),
        findings=load_findings(session, source.id, analysers) if analysers else [],
        risk_score=source.risk_score, risk_level=source.risk_level, duplicate_of=duplicate_of,
        notes=list(source.notes or []),
    )


def load_documents(session: Session, document_ids: Iterable[int], analysers: Iterable[str],
                   with_findings: set[int]) -> list[tuple[str, dm.DocumentResult, dict]]:
    """(batch id, result, stored assessment) of each document, its analysers' findings loaded
    only when it is in `with_findings` (the portfolio needs them for a reviewed contract)."""
    documents = session.scalars(select(schema.Document).where(schema.Document.id.in_(list(document_ids)))
                                .options(undefer(schema.Document.assessment)).order_by(schema.Document.id)).all()
    stored = stored_assessments(session, documents)
    return [(d.batch_id, _document_result(session, d, d, list(analysers) if d.id in with_findings else []),
             stored.get(d.id, {})) for d in documents]


def latest_calibration(session: Session) -> Calibration | None:
    """The reviewer calibration new audits apply (pipelines.review.recalibration), if any was fitted."""
    row = session.scalars(select(schema.Calibration).order_by(schema.Calibration.id.desc()).limit(1)).first()
    return Calibration.from_row(row.id, row.params) if row is not None else None


def load_calibration(session: Session, version: int) -> Calibration | None:
    row = session.get(schema.Calibration, version)
    return Calibration.from_row(row.id, row.params) if row is not None else None


def save_calibration(session: Session, decisions: int, params: dict, report: dict) -> int:
    """A new calibration version (never replaces one: findings name the version they went through)."""
    row = schema.Calibration(decisions=decisions, params=params, report=report)
    session.add(row)
    session.flush()
    return row.id


def item_trails(session: Session, batch_id: str | None = None) -> dict[int, list[dict]]:
    """Each review item's decisions in the order they were made (of one batch, or all), as
    dicts with action, reason, previous, new and document_id; a decision whose item was
    deleted keeps a key of its own."""
    query = select(schema.ReviewDecision).order_by(schema.ReviewDecision.id)
    if batch_id is not None:
        query = (query.join(schema.Document, schema.Document.id == schema.ReviewDecision.document_id)
                 .where(schema.Document.batch_id == batch_id))
    trails: dict[int, list[dict]] = {}
    for row in session.scalars(query):
        trails.setdefault(row.item_id if row.item_id is not None else -row.id, []).append(
            {"action": row.action, "reason": row.reason, "new": row.new or {}, "previous": row.previous or {},
             "document_id": row.document_id})
    return trails


def review_item_counts(session: Session) -> dict[tuple[str, bool], int]:
    """How many presence and value items each (calibration key, sampled) has, decided or not:
    what recalibration weighs reviewers' labels by.  A value item counts under its field's
    value key (pipelines.review.recalibration.calibration_key)."""
    counts: dict[tuple[str, bool], int] = {}
    for category, evidence in session.execute(select(schema.ReviewItem.category, schema.ReviewItem.evidence)):
        parts = (evidence or {}).get("priority_parts") or {}
        key = calibration_key(category, parts.get("question"), (evidence or {}).get("version"))
        if key is not None:
            counted = (key, bool(parts.get("sample")))
            counts[counted] = counts.get(counted, 0) + 1
    return counts



# --- the portfolio's summaries (pipelines/reported.refresh_portfolio writes them) ------------

def portfolio_refreshed_at(session: Session, lock: bool = False) -> datetime | None:
    """When the summaries were last brought up to date; `lock` holds the mark until the
    transaction ends, so two refreshes never rewrite the same rows at once."""
    query = select(schema.PortfolioMark.refreshed_at).where(schema.PortfolioMark.id == 1)
    return session.scalar(query.with_for_update() if lock else query)


def mark_portfolio_refreshed(session: Session, at: datetime) -> None:
    session.execute(update(schema.PortfolioMark).where(schema.PortfolioMark.id == 1).values(refreshed_at=at))


def paths_changed_since(session: Session, since: datetime) -> set[str]:
    """Contracts with a document that moved since `since`, or one whose audit (or the audit
    it was carried from) got a decision since."""
    decided = (select(_ROOT).join(schema.ReviewDecision, schema.ReviewDecision.document_id == schema.Document.id)
               .where(schema.ReviewDecision.created_at >= since))
    roots = set(session.scalars(decided))
    changed = set(session.scalars(select(schema.Document.path).where(schema.Document.updated_at >= since)))
    return changed | (set(session.scalars(select(schema.Document.path).where(_sharing_a_root(roots)))) if roots else set())


def latest_audits(session: Session, paths: Iterable[str] | None = None) -> dict[str, tuple[int, str]]:
    """Per contract (of `paths`, or all), its latest audit that ended done and what it is
    made from: the document's last move and its decisions (count, last id), carried ones
    included.  A summary made from the same source needs no rewrite."""
    latest = select(func.max(schema.Document.id)).where(schema.Document.status == DocumentStatus.DONE)
    if paths is not None:
        latest = latest.where(schema.Document.path.in_(list(paths)))
    rows = session.execute(select(schema.Document.id, schema.Document.path, schema.Document.updated_at, _ROOT)
                           .where(schema.Document.id.in_(latest.group_by(schema.Document.path)))).all()
    marks: dict[int, tuple[int, int]] = {}
    roots = {root for *_, root in rows}
    for start in range(0, len(roots), 5_000):
        chunk = list(roots)[start:start + 5_000]
        marks |= {root: (n, last) for root, n, last in session.execute(
            select(_ROOT, func.count(), func.max(schema.ReviewDecision.id))
            .join(schema.ReviewDecision, schema.ReviewDecision.document_id == schema.Document.id)
            .where(_sharing_a_root(chunk)).group_by(_ROOT))}
    return {path: (document_id, f"{updated.isoformat()}|{marks.get(root, (0, 0))[0]}|{marks.get(root, (0, 0))[1]}")
            for document_id, path, updated, root in rows}


def summary_sources(session: Session, paths: Iterable[str] | None = None) -> dict[str, tuple[int, str]]:
    """Per summarised contract (of `paths`, or all): the document and source it was made from."""
    S = schema.ContractSummary
    query = select(S.path, S.document_id, S.source)
    if paths is not None:
        query = query.where(S.path.in_(list(paths)))
    return {path: (document_id, source) for path, document_id, source in session.execute(query)}


def replace_summaries(session: Session, summaries: list[dict], events: list[dict], gone: Iterable[str] = ()) -> None:
    """Write these contracts' summaries and events in place of their earlier ones, and drop
    the contracts in `gone` (no audit of them ended done any more)."""
    paths = [s["path"] for s in summaries] + list(gone)
    for start in range(0, len(paths), 5_000):
        chunk = paths[start:start + 5_000]
        session.execute(delete(schema.ContractEvent).where(schema.ContractEvent.path.in_(chunk)))
        session.execute(delete(schema.ContractSummary).where(schema.ContractSummary.path.in_(chunk)))
    session.flush()
    if summaries:
        session.execute(insert(schema.ContractSummary), summaries)
    if events:
        session.execute(insert(schema.ContractEvent), events)


def stale_summaries(session: Session, today: date) -> list[tuple[str, int, str, str, dict]]:
    """(path, document id, file name, undated words, key terms) of the summaries whose dated
    columns no longer hold on `today`."""
    S = schema.ContractSummary
    return [tuple(row) for row in session.execute(  # type: ignore[misc]
        select(S.path, S.document_id, S.filename, S.words, S.terms).where(S.fresh_until < today))]


def replace_dated(session: Session, path: str, values: dict, events: list[dict]) -> None:
    """A summary's dated columns and its events, as they are on another day."""
    session.execute(update(schema.ContractSummary).where(schema.ContractSummary.path == path).values(**values))
    session.execute(delete(schema.ContractEvent).where(schema.ContractEvent.path == path))
    if events:
        session.execute(insert(schema.ContractEvent), events)


TRIAGE_ORDER = (schema.ContractSummary.level_order, schema.ContractSummary.score_order,
                schema.ContractSummary.filename, schema.ContractSummary.document_id)
"""The triage table's order (worst level, then highest score, then name), as its index has it."""


def triage(session: Session, conditions: list[ColumnElement[bool]], per_page: int, after: int | None = None,
           before: int | None = None, offset: int = 0) -> tuple[list[schema.ContractSummary], int]:
    """One page of summaries matching `conditions` in triage order, and how many match: the
    page after the contract `after`, or before `before` (keyset: a deep page costs what the
    first does), else from `offset`."""
    S = schema.ContractSummary
    found = session.scalar(select(func.count()).select_from(S).where(*conditions)) or 0
    query = select(S).where(*conditions)
    anchor = session.execute(select(*TRIAGE_ORDER).where(S.document_id == (after or before))).first() \
        if after or before else None
    if anchor is not None:
        position = tuple_(*TRIAGE_ORDER)
        if not after:
            rows = list(session.scalars(query.where(position < tuple_(*anchor))
                                        .order_by(*(c.desc() for c in TRIAGE_ORDER)).limit(per_page)))
            return rows[::-1], found
        query = query.where(position > tuple_(*anchor))
    return list(session.scalars(query.order_by(*TRIAGE_ORDER).offset(offset).limit(per_page))), found


def level_counts(session: Session) -> dict[str, int]:
    """Summarised contracts per level."""
    S = schema.ContractSummary
    return dict(session.execute(select(S.level, func.count()).group_by(S.level)).all())  # type: ignore[arg-type]


def summary_of(session: Session, document_id: int) -> schema.ContractSummary | None:
    """The contract's summary when `document_id` is its latest audit, else None."""
    return session.scalar(select(schema.ContractSummary).where(schema.ContractSummary.document_id == document_id))


def events_between(session: Session, start: date, end: date, limit: int,
                   after: int | None = None) -> list[schema.ContractEvent]:
    """Up to `limit` events from `start` to `end`, soonest first (then by contract and path),
    after the event `after` (keyset)."""
    E = schema.ContractEvent
    order = (E.due, E.contract, E.path, E.id)
    query = select(E).where(E.due >= start, E.due <= end)
    anchor = session.execute(select(*order).where(E.id == after)).first() if after is not None else None
    if anchor is not None:
        query = query.where(tuple_(*order) > tuple_(*anchor))
    return list(session.scalars(query.order_by(*order).limit(limit)))


def renegotiation(session: Session, worst: int, per_page: int, offset: int = 0) -> tuple[list[schema.ContractSummary], int]:
    """The contracts at level order `worst` or worse (level_order <= worst), the soonest deadline
    first (a notice window closes first), those without one last, then worst first; one page."""
    S = schema.ContractSummary
    which = S.level_order <= worst
    found = session.scalar(select(func.count()).select_from(S).where(which)) or 0
    rows = session.scalars(select(S).where(which).order_by(
        S.deadline_on.is_(None), S.deadline_on, *TRIAGE_ORDER).offset(offset).limit(per_page))
    return list(rows), found


@dataclass(frozen=True)
class Backlog:
    """The review queue at a glance: open items per playbook stakes, the oldest one's age, and
    the decisions of the last week."""

    open_by_severity: dict[str, int]
    oldest_open: datetime | None
    decided_this_week: int


def review_backlog(session: Session, now: datetime) -> Backlog:
    R, D = schema.ReviewItem, schema.ReviewDecision
    by_severity = dict(session.execute(select(R.severity, func.count()).where(R.status == "open")
                                       .group_by(R.severity)).all())
    oldest = session.scalar(select(func.min(R.created_at)).where(R.status == "open"))
    week = session.scalar(select(func.count()).select_from(D).where(
        D.created_at >= now - timedelta(days=7), D.action != "undo")) or 0
    return Backlog({str(k or "unrated"): v for k, v in by_severity.items()}, oldest, week)


def events_counted(session: Session, start: date, ends: Iterable[date]) -> dict[date, int]:
    """How many dated events fall from `start` to each of `ends`."""
    E = schema.ContractEvent
    return {end: session.scalar(select(func.count()).select_from(E).where(E.due >= start, E.due <= end)) or 0
            for end in ends}
