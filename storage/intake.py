"""The intake ledger: reads and writes of `intake_files`, the drop folder's memory.

A file's row is written right after its claim (the rename into the work folder) and moves
claimed → submitted → processed | failed | duplicate.  Every write is safe to repeat and the
state changes are conditional UPDATEs, so a watcher restarted after a kill -9 picks up each
file where the last committed step left it, and no file is submitted or finished twice.
Rows belong to an outbox through their work path (OUTBOX/.work/…): `prefix` selects them.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import ColumnElement, and_, exists, or_, select, update
from sqlalchemy.orm import Session, aliased

from pipelines import datamodel as dm
from pipelines.datamodel import IntakeState
from storage import repository, schema
from storage.schema import IntakeFile, utcnow

_OPEN_STATES = (IntakeState.CLAIMED, IntakeState.SUBMITTED)


def _in_outbox(prefix: str) -> ColumnElement[bool]:
    return IntakeFile.work_path.startswith(prefix, autoescape=True)


def record_claim(session: Session, *, inbox: str, name: str, work_path: str, sha256: str | None,
                 size_bytes: int | None, reason: str | None = None) -> IntakeFile:
    """The row of a claimed file; the existing one when the claim was already recorded.

    `reason` marks a file refused at the claim (a symlink, an unreadable file): it goes to
    failed/ without being submitted."""
    row = session.scalar(select(IntakeFile).where(IntakeFile.work_path == work_path))
    if row is None:
        row = IntakeFile(inbox=inbox, name=name, work_path=work_path, sha256=sha256, size_bytes=size_bytes,
                         reason=reason, state=IntakeState.CLAIMED)
        session.add(row)
        session.flush()
    return row


def work_paths(session: Session, prefix: str) -> set[str]:
    return set(session.scalars(select(IntakeFile.work_path).where(_in_outbox(prefix))))


def open_rows(session: Session, prefix: str) -> list[IntakeFile]:
    """Files of this outbox not yet in their outbox folder, oldest first."""
    return list(session.scalars(
        select(IntakeFile).where(_in_outbox(prefix), IntakeFile.state.in_(_OPEN_STATES)).order_by(IntakeFile.id)))


def submittable(session: Session, prefix: str) -> list[IntakeFile]:
    """Claimed files that may go into the next batch, oldest first.

    Left out: files refused at the claim, files already known to be duplicates, and a file
    whose bytes are in flight elsewhere (in a batch, or claimed earlier): it waits for that
    file's outcome, then is a duplicate (it was audited) or is submitted (it failed, and a
    file dropped again is retried).  So the same bytes are never audited twice at once.
    """
    other = aliased(IntakeFile)
    in_flight = exists().where(
        other.sha256 == IntakeFile.sha256, other.id != IntakeFile.id,
        or_(other.state == IntakeState.SUBMITTED,
            and_(other.state == IntakeState.CLAIMED, or_(other.batch_id.is_not(None), other.id < IntakeFile.id))),
    )
    return list(session.scalars(
        select(IntakeFile).where(
            _in_outbox(prefix), IntakeFile.state == IntakeState.CLAIMED, IntakeFile.batch_id.is_(None),
            IntakeFile.reason.is_(None), IntakeFile.original_id.is_(None), ~in_flight,
        ).order_by(IntakeFile.id)))


def audited_original(session: Session, sha256: str, row_id: int) -> IntakeFile | None:
    """The earliest other file with these bytes that was audited (processed)."""
    return session.scalar(
        select(IntakeFile).where(IntakeFile.sha256 == sha256, IntakeFile.id != row_id,
                                 IntakeFile.state == IntakeState.PROCESSED).order_by(IntakeFile.id).limit(1))


def mark_duplicate_of(session: Session, row_id: int, original: IntakeFile) -> bool:
    """Decide, before any move, that a claimed file repeats `original`."""
    reason = f"same content as {original.name}, already audited" + (f" in batch {original.batch_id}" if original.batch_id else "")
    return _update_open(session, row_id, IntakeFile.batch_id.is_(None), original_id=original.id, reason=reason) == 1


def assign_batch(session: Session, row_ids: Sequence[int], batch_id: str) -> list[int]:
    """Put claimed files into a batch before it is submitted; returns the rows that took it.

    Written first so that a watcher killed while submitting finds out on restart whether the
    batch was created (then its documents are linked) or not (then it is submitted again)."""
    taken = session.scalars(
        update(IntakeFile)
        .where(IntakeFile.id.in_(list(row_ids)), IntakeFile.state == IntakeState.CLAIMED, IntakeFile.batch_id.is_(None))
        .values(batch_id=batch_id)
        .returning(IntakeFile.id)
    ).all()
    return sorted(taken)


def batches_to_submit(session: Session, prefix: str) -> dict[str, list[IntakeFile]]:
    """Claimed files already given a batch: its submission was interrupted (or is under way)."""
    rows = session.scalars(select(IntakeFile).where(
        _in_outbox(prefix), IntakeFile.state == IntakeState.CLAIMED, IntakeFile.batch_id.is_not(None)).order_by(IntakeFile.id))
    batches: dict[str, list[IntakeFile]] = {}
    for row in rows:
        batches.setdefault(row.batch_id, []).append(row)  # type: ignore[arg-type]
    return batches


def batch_exists(session: Session, batch_id: str) -> bool:
    return repository.batch_status(session, batch_id) is not None


def link_documents(session: Session, batch_id: str) -> int:
    """The batch is in the database: its claimed files become submitted, each with its
    document (the producer registers a document per path)."""
    documents = dict(session.execute(
        select(schema.Document.path, schema.Document.id).where(schema.Document.batch_id == batch_id)).all())
    linked = 0
    for row in session.scalars(select(IntakeFile).where(
            IntakeFile.batch_id == batch_id, IntakeFile.state == IntakeState.CLAIMED)):
        document_id = documents.get(row.work_path)
        if document_id is not None:
            row.state, row.document_id = IntakeState.SUBMITTED, document_id
            linked += 1
    return linked


def ended_documents(session: Session, prefix: str) -> list[tuple[IntakeFile, schema.Document]]:
    """Submitted files whose document has ended: ready to leave the work folder."""
    return list(session.execute(
        select(IntakeFile, schema.Document)
        .join(schema.Document, schema.Document.id == IntakeFile.document_id)
        .where(_in_outbox(prefix), IntakeFile.state == IntakeState.SUBMITTED,
               schema.Document.status.in_(dm.TERMINAL_STATUSES))
        .order_by(IntakeFile.id)
    ).all())


def refused_or_known(session: Session, prefix: str) -> list[IntakeFile]:
    """Claimed files that end without a batch: refused at the claim, or known duplicates."""
    return list(session.scalars(select(IntakeFile).where(
        _in_outbox(prefix), IntakeFile.state == IntakeState.CLAIMED, IntakeFile.batch_id.is_(None),
        or_(IntakeFile.reason.is_not(None), IntakeFile.original_id.is_not(None))).order_by(IntakeFile.id)))


def row_of_document(session: Session, document_id: int) -> IntakeFile | None:
    return session.scalar(select(IntakeFile).where(IntakeFile.document_id == document_id).order_by(IntakeFile.id).limit(1))


def plan_outcome(session: Session, row_id: int, outcome_path: str) -> bool:
    """Write down where the file is about to go, before it is moved: a move interrupted by a
    crash is finished on restart (the file is at one of the two places)."""
    return _update_open(session, row_id, outcome_path=outcome_path) == 1


def finish(session: Session, row_id: int, state: IntakeState, *, reason: str | None,
           original_id: int | None = None, outcome_path: str | None) -> bool:
    """The file is in its outbox folder: the row's last change, made once."""
    return _update_open(session, row_id, state=state, reason=reason, original_id=original_id,
                        outcome_path=outcome_path, finished_at=utcnow()) == 1


def _update_open(session: Session, row_id: int, *conditions: ColumnElement[bool], **values: object) -> int:
    return session.execute(
        update(IntakeFile).where(IntakeFile.id == row_id, IntakeFile.state.in_(_OPEN_STATES), *conditions)
        .values(**values, updated_at=utcnow())
    ).rowcount


def get_row(session: Session, row_id: int) -> IntakeFile | None:
    return session.get(IntakeFile, row_id)


def batches_closed(session: Session, prefix: str, candidates: Iterable[str] | None = None) -> list[str]:
    """Watch batches of this outbox (of `candidates`, or all) whose every file is in its
    outbox folder: their reports can be written."""
    query = select(IntakeFile.batch_id).where(_in_outbox(prefix), IntakeFile.batch_id.is_not(None)).distinct()
    if candidates is not None:
        query = query.where(IntakeFile.batch_id.in_(list(candidates)))
    batch_ids = set(session.scalars(query))
    still_open = set(session.scalars(select(IntakeFile.batch_id).where(
        _in_outbox(prefix), IntakeFile.batch_id.in_(batch_ids), IntakeFile.state.in_(_OPEN_STATES)).distinct()))
    return sorted(batch_ids - still_open)


def ledger(session: Session, inbox: str | None = None) -> list[IntakeFile]:
    """Every intake row (of one inbox), in claim order: what `clausemill intake` lists."""
    query = select(IntakeFile).order_by(IntakeFile.id)
    if inbox is not None:
        query = query.where(IntakeFile.inbox == inbox)
    return list(session.scalars(query))


def taken_from(session: Session, inbox: str, folder: str, limit: int = 100) -> list[tuple[IntakeFile, IntakeFile | None]]:
    """The newest `limit` rows of files taken from `folder` of `inbox` (a user's uploads),
    newest first, each with the row it repeats when it is a duplicate."""
    rows = list(session.scalars(select(IntakeFile).where(
        IntakeFile.inbox == inbox, IntakeFile.name.startswith(folder.rstrip("/") + "/", autoescape=True),
    ).order_by(IntakeFile.id.desc()).limit(limit)))
    ids = {row.original_id for row in rows if row.original_id is not None}
    originals = {row.id: row for row in session.scalars(select(IntakeFile).where(IntakeFile.id.in_(ids)))} if ids else {}
    return [(row, originals.get(row.original_id)) for row in rows]  # type: ignore[arg-type]


def portfolio_documents(session: Session, prefix: str) -> dict[str, set[int]]:
    """Every contract this outbox handled, for the rolling report, as {batch id: document ids}:
    each audited file's document; of files with the same bytes (a failed file dropped again)
    only the latest attempt."""
    rows = session.scalars(select(IntakeFile).where(
        _in_outbox(prefix), IntakeFile.document_id.is_not(None), IntakeFile.batch_id.is_not(None),
        IntakeFile.state.in_((IntakeState.PROCESSED, IntakeState.FAILED, IntakeState.DUPLICATE))).order_by(IntakeFile.id)).all()
    latest: dict[object, IntakeFile] = {}
    for row in rows:
        latest[row.sha256 or ("row", row.id)] = row
    members: dict[str, set[int]] = {}
    for row in latest.values():
        members.setdefault(row.batch_id, set()).add(row.document_id)
    return members
