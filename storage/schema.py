"""The tables that hold business state.

The Celery result backend only joins canvases; whether a document is done, why it failed and
what was found lives here, so a report can be rebuilt at any time and a redelivered task can
see what already happened.
"""
from __future__ import annotations

from datetime import date, datetime, timezone
from enum import StrEnum

from sqlalchemy import JSON, BigInteger, Enum, Float, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from pipelines.dag import Stage
from pipelines.datamodel import BatchOrigin, BatchStatus, ClauseTypeStatus, DocumentStatus, IntakeState, RunState


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


def closed_set(enum: type[StrEnum], length: int) -> Enum:
    """A VARCHAR column that stores the enum's values and reads them back as its members.

    Not a native database enum: a new stage or status then needs no migration, and the
    column stays the VARCHAR the first migration created.
    """
    return Enum(enum, native_enum=False, create_constraint=False, length=length, validate_strings=True,
                values_callable=lambda members: [m.value for m in members])


class Batch(Base):
    __tablename__ = "batches"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    status: Mapped[BatchStatus] = mapped_column(closed_set(BatchStatus, 16), default=BatchStatus.RUNNING)
    origin: Mapped[BatchOrigin] = mapped_column(closed_set(BatchOrigin, 16), default=BatchOrigin.AUDIT,
                                                server_default=BatchOrigin.AUDIT.value)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    summary: Mapped[dict] = mapped_column(JSON, default=dict)

    documents: Mapped[list[Document]] = relationship(back_populates="batch", order_by="Document.id")


class Document(Base):
    __tablename__ = "documents"
    __table_args__ = (
        UniqueConstraint("batch_id", "path", name="uq_document_batch_path"),
        # A path's documents newest first: the portfolio's latest audit of a contract, and the
        # nightly planner's last look at a file (history.known_files), read from the top of one
        # path's entries however many nights it has.
        Index("ix_documents_path_id", "path", "id"),
        Index("ix_documents_fingerprint_id", "fingerprint", "id"),  # the same for a fingerprint's audits
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    batch_id: Mapped[str] = mapped_column(ForeignKey("batches.id", ondelete="CASCADE"), index=True)
    path: Mapped[str] = mapped_column(Text)
    filename: Mapped[str] = mapped_column(Text, index=True)
    status: Mapped[DocumentStatus] = mapped_column(closed_set(DocumentStatus, 16), default=DocumentStatus.PENDING, index=True)
    stage: Mapped[Stage | None] = mapped_column(closed_set(Stage, 32))
    reason: Mapped[str | None] = mapped_column(Text)
    sha256: Mapped[str | None] = mapped_column(String(64), index=True)
    kind: Mapped[str | None] = mapped_column(String(8))
    size_bytes: Mapped[int | None]
    page_count: Mapped[int | None]
    duplicate_of: Mapped[int | None] = mapped_column(Integer)
    timings: Mapped[dict] = mapped_column(JSON, default=dict)
    # Deferred: every finding of the document, ranked tail included (a megabyte of JSON), which
    # each stage's bookkeeping would otherwise decode with the row it updates.
    assessment: Mapped[dict] = mapped_column(JSON, default=dict, deferred=True)
    risk_score: Mapped[float | None] = mapped_column(Float)
    risk_level: Mapped[str | None] = mapped_column(String(16))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow, index=True)
    """When the document last moved: the recovery sweep's clock (OCR pages touch it too)."""
    attempts: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    """Times the document was sent through the DAG: once by the producer, then by each sweep."""
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    """What an audit of these bytes depends on (sha256, rule pack, model, playbook), hashed:
    a nightly run skips a document whose fingerprint was already audited."""
    carried_from: Mapped[int | None] = mapped_column(Integer, index=True)
    """The earlier document whose results this one carries over (incremental audits)."""
    mtime_ns: Mapped[int | None] = mapped_column(BigInteger)
    """The file's modification time (ns) when a nightly run planned it, beside size_bytes: the
    next run keeps the sha256 of a file whose size and mtime did not change instead of reading it."""
    notes: Mapped[list | None] = mapped_column(JSON)
    """What reading the file took ("PDF repaired by qpdf ...", "text decoded as UTF-16"): the
    report says so beside its findings."""
    unfinished: Mapped[dict | None] = mapped_column(JSON)
    """Per task (a stage, or "ocr:PAGE"), its deliveries that started and never ended: each
    one a worker that died or was killed at the hard time limit (poison-pill detection)."""

    batch: Mapped[Batch] = relationship(back_populates="documents")


class Page(Base):
    __tablename__ = "pages"
    __table_args__ = (UniqueConstraint("document_id", "number", name="uq_page_document_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    source: Mapped[str] = mapped_column(String(16))  # text-layer | ocr | plain
    text: Mapped[str] = mapped_column(Text)
    words: Mapped[list] = mapped_column(JSON, default=list)  # [[text, start, end, x0, top, x1, bottom], ...]
    width: Mapped[float] = mapped_column(Float, default=0.0)
    height: Mapped[float] = mapped_column(Float, default=0.0)
    error: Mapped[str | None] = mapped_column(Text)
    seconds: Mapped[float] = mapped_column(Float, default=0.0)


class Segment(Base):
    __tablename__ = "segments"
    __table_args__ = (UniqueConstraint("document_id", "index", name="uq_segment_document_index"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    index: Mapped[int]
    text: Mapped[str] = mapped_column(Text)
    start: Mapped[int]
    end: Mapped[int]
    page: Mapped[int]
    box: Mapped[list | None] = mapped_column(JSON)


class Finding(Base):
    """A finding of one analyser (stage "analyse") or of aggregation (stage "aggregate").

    Analysers and aggregation each replace only their own rows, so re-running either never
    duplicates findings.
    """

    __tablename__ = "findings"
    __table_args__ = (Index("ix_findings_document_producer", "document_id", "producer"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    producer: Mapped[str] = mapped_column(String(32))  # analyser name, or "aggregate"
    category: Mapped[str] = mapped_column(String(64), index=True)
    text: Mapped[str] = mapped_column(Text)
    start: Mapped[int]
    end: Mapped[int]
    page: Mapped[int]
    box: Mapped[list | None] = mapped_column(JSON)
    confidence: Mapped[float] = mapped_column(Float)
    source: Mapped[str] = mapped_column(String(64))
    version: Mapped[str] = mapped_column(String(64))
    severity: Mapped[str] = mapped_column(String(16), default="info")
    value: Mapped[str | None] = mapped_column(Text)
    note: Mapped[str | None] = mapped_column(Text)
    detail: Mapped[dict | None] = mapped_column(JSON)


class ReviewItem(Base):
    """Something a person should look at, ranked by priority (highest first).

    `version` grows with every decision, so a decision made on a stale page is refused.  A
    claim is `claimed_by` until `lease_until`; a lease that ran out returns the item.
    """

    __tablename__ = "review_items"
    __table_args__ = (
        Index("ix_review_items_status_priority", "status", "priority"),
        # the queue's filters, each still walking priority order (ops/benchmarks/review_queue.py)
        Index("ix_review_items_status_category_priority", "status", "category", "priority"),
        Index("ix_review_items_status_severity_priority", "status", "severity", "priority"),
        Index("ix_review_items_status_assignee_priority", "status", "assignee", "priority"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    category: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    priority: Mapped[float] = mapped_column(Float)
    severity: Mapped[str | None] = mapped_column(String(16))  # the playbook stakes the priority weighs
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | decided
    evidence: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    assignee: Mapped[str | None] = mapped_column(String(80))
    claimed_by: Mapped[str | None] = mapped_column(String(80))
    lease_until: Mapped[datetime | None] = mapped_column(index=True)


class User(Base):
    """A person who reviews (role reviewer) or also assigns work and manages users (admin)."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(80), unique=True)
    role: Mapped[str] = mapped_column(String(16))  # reviewer | admin
    password_hash: Mapped[str] = mapped_column(String(255))
    disabled: Mapped[bool] = mapped_column(default=False, server_default="0")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Written into each session cookie at login, and raised at logout and when the user is
    # disabled: a cookie naming an older version is refused, so it is worthless once copied.
    session_version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")


class CalendarToken(Base):
    """A user's calendar subscription secret (the `.ics` URL's token), stored as its sha256 so
    a copy of the database holds no working URL.  Revoked, never deleted: one row at a time is
    live per user (pipelines/review/calendar_tokens.py)."""

    __tablename__ = "calendar_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]


class ReviewDecision(Base):
    """The audit trail: one row per decision, never updated or deleted.

    It outlives the item it decided (an item replaced by a re-run keeps its trail), so it holds
    the document, category and the values before and after, not just the item's id.
    """

    __tablename__ = "review_decisions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int | None] = mapped_column(ForeignKey("review_items.id", ondelete="SET NULL"), index=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    reviewer: Mapped[str] = mapped_column(String(80))
    action: Mapped[str] = mapped_column(String(16))  # accept | correct | reject | undo
    item_version: Mapped[int] = mapped_column(Integer)
    previous: Mapped[dict] = mapped_column(JSON, default=dict)
    new: Mapped[dict] = mapped_column(JSON, default=dict)
    reason: Mapped[str | None] = mapped_column(String(32))  # a reject's reason code
    comment: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class Recovery(Base):
    """One re-send by the recovery sweep: a document whose stage made no progress in time."""

    __tablename__ = "recoveries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    batch_id: Mapped[str] = mapped_column(String(64), index=True)
    stage: Mapped[Stage | None] = mapped_column(closed_set(Stage, 32))  # the stage it resumed after
    attempt: Mapped[int]
    at: Mapped[datetime] = mapped_column(default=utcnow)


class IntakeFile(Base):
    """The intake ledger: one row per file taken from a watched inbox, so a file is audited
    once however often the watcher restarts."""

    __tablename__ = "intake_files"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    inbox: Mapped[str] = mapped_column(Text)
    name: Mapped[str] = mapped_column(Text)  # path relative to the inbox, as it was dropped
    work_path: Mapped[str] = mapped_column(Text, unique=True)  # where the claim renamed it to
    sha256: Mapped[str | None] = mapped_column(String(64), index=True)
    size_bytes: Mapped[int | None]
    state: Mapped[IntakeState] = mapped_column(closed_set(IntakeState, 16), default=IntakeState.CLAIMED, index=True)
    reason: Mapped[str | None] = mapped_column(Text)
    batch_id: Mapped[str | None] = mapped_column(String(64), index=True)
    document_id: Mapped[int | None] = mapped_column(Integer)
    original_id: Mapped[int | None] = mapped_column(Integer)  # the intake row a duplicate repeats
    outcome_path: Mapped[str | None] = mapped_column(Text)  # where in the outbox it ended
    claimed_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class ScheduleRun(Base):
    """One run per (schedule, window): the unique row is the claim that two schedulers
    cannot both win."""

    __tablename__ = "schedule_runs"
    __table_args__ = (UniqueConstraint("schedule", "window_start", name="uq_schedule_run_window"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    schedule: Mapped[str] = mapped_column(String(64))
    window_start: Mapped[datetime]
    state: Mapped[RunState] = mapped_column(closed_set(RunState, 16), default=RunState.RUNNING, index=True)
    reason: Mapped[str | None] = mapped_column(Text)
    batch_id: Mapped[str | None] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    summary: Mapped[dict] = mapped_column(JSON, default=dict)


class Calibration(Base):
    """A calibration fitted from reviewers' decisions (`clausemill recalibrate`); its id is the
    version a finding records.  Rows are only added: the latest one applies to new audits, and
    an older finding can still say which one it was scored with."""

    __tablename__ = "calibrations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    decisions: Mapped[int] = mapped_column(Integer)
    params: Mapped[dict] = mapped_column(JSON)  # category -> {"scale": a, "bias": b}
    report: Mapped[dict] = mapped_column(JSON)  # category -> reliability before/after


class ContractSummary(Base):
    """A contract's row of the portfolio: its latest audit that ended done, reviewers'
    decisions applied, as the triage table, its search and the calendar read it.

    Assessing every contract again on each page view took seconds at 5,000 contracts; these
    rows are read a page at a time by an index (ops/benchmarks/web_scale.py).
    pipelines/reported.refresh_portfolio keeps them current: a row is rewritten when its
    document, or the decisions on it, change (`source` says which it was made from), and its
    dated columns (what the term in force and the deadlines say on a day) when `fresh_until`
    has passed."""

    __tablename__ = "contract_summaries"
    __table_args__ = (
        Index("ix_contract_summaries_triage", "level_order", "score_order", "filename", "document_id"),
        # a search's LIKE '%word%' through trigrams on PostgreSQL (pg_trgm), not a scan of every row
        Index("ix_contract_summaries_search", "search", postgresql_using="gin", postgresql_ops={"search": "gin_trgm_ops"}),
    )

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), unique=True)
    source: Mapped[str] = mapped_column(String(80))
    """The document's updated_at and its decisions (count, last id) the row was made from."""
    filename: Mapped[str] = mapped_column(Text)
    level: Mapped[str] = mapped_column(String(16))
    level_order: Mapped[int] = mapped_column(Integer)  # worst level first: minus its rank
    score_order: Mapped[float] = mapped_column(Float)  # highest score first: minus the score
    risk_score: Mapped[float | None] = mapped_column(Float)
    counterparty: Mapped[str] = mapped_column(Text)
    contract_type: Mapped[str] = mapped_column(Text)
    our_role: Mapped[str] = mapped_column(Text)
    top_issues: Mapped[list] = mapped_column(JSON)
    asks: Mapped[list] = mapped_column(JSON, default=list)
    """What to ask the counterparty for, worst issue first, in plain words ("Non-Compete: Ask ..."; the issues' requests
    without their quotes): the business owner's renegotiation list."""
    clauses: Mapped[str] = mapped_column(Text)
    """Clauses found and issues raised, lower-cased, one per line between newlines."""
    words: Mapped[str] = mapped_column(Text)
    """What a search reads that no date changes (pipelines.reports.search.searchable)."""
    terms: Mapped[dict] = mapped_column(JSON)
    """The key terms the term in force and the deadlines are computed from."""
    term: Mapped[str] = mapped_column(Text)
    deadline_on: Mapped[date | None] = mapped_column(index=True)
    deadline_kind: Mapped[str | None] = mapped_column(String(16))
    search: Mapped[str] = mapped_column(Text)
    """`words`, then what the date changes: the term in force and the deadline."""
    fresh_until: Mapped[date] = mapped_column(index=True)
    """The last day the dated columns hold; later they are computed again."""


class ContractEvent(Base):
    """A dated event of a portfolio contract's term in force (pipelines.deadlines.deadlines_of):
    the calendar page lists them soonest first, a page at a time."""

    __tablename__ = "contract_events"
    __table_args__ = (Index("ix_contract_events_due", "due", "contract", "path", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    path: Mapped[str] = mapped_column(ForeignKey("contract_summaries.path", ondelete="CASCADE"), index=True)
    document_id: Mapped[int] = mapped_column(Integer)
    due: Mapped[date]
    kind: Mapped[str] = mapped_column(String(16))
    contract: Mapped[str] = mapped_column(Text)
    filename: Mapped[str] = mapped_column(Text)
    explanation: Mapped[str] = mapped_column(Text)
    uid: Mapped[str] = mapped_column(String(64))  # the calendar event's (pipelines.deadlines.Deadline.uid)
    description: Mapped[str] = mapped_column(Text)  # the calendar event's: how it was computed, its quotes


class PortfolioMark(Base):
    """One row: when the contract summaries were last brought up to date (None: never)."""

    __tablename__ = "portfolio_marks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    refreshed_at: Mapped[datetime | None]


class ClauseType(Base):
    """A clause type a legal team teaches from examples (issue 44): a category like CUAD's,
    named by the team.  Retired, never deleted: past reports name it."""

    __tablename__ = "clause_types"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    slug: Mapped[str] = mapped_column(String(32), unique=True)
    description: Mapped[str] = mapped_column(Text)
    """What a reviewer reads on an item page of this type: what the clause does, what it is not."""
    status: Mapped[ClauseTypeStatus] = mapped_column(closed_set(ClauseTypeStatus, 16), default=ClauseTypeStatus.DRAFT)
    created_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    retired_at: Mapped[datetime | None]


class ClauseTypeExample(Base):
    """A quote that is (label true) or is not (label false) an example of a clause type.

    The quote's text is kept on the row, so pruning the audit it was picked from loses nothing;
    where it came from (a contract's path and offsets) is kept to show it.  Withdrawn, never
    deleted, so a trained version stays reproducible; the same quote given again is the same row.
    """

    __tablename__ = "clause_type_examples"
    __table_args__ = (UniqueConstraint("type_id", "key", name="uq_clause_type_example_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    type_id: Mapped[int] = mapped_column(ForeignKey("clause_types.id", ondelete="CASCADE"), index=True)
    label: Mapped[bool]
    text: Mapped[str] = mapped_column(Text)
    key: Mapped[str] = mapped_column(String(64))  # sha256 of the quote, case and spacing aside
    source: Mapped[str] = mapped_column(String(16))  # quote | file | span | search
    document_id: Mapped[int | None] = mapped_column(ForeignKey("documents.id", ondelete="SET NULL"))
    path: Mapped[str | None] = mapped_column(Text)
    start: Mapped[int | None]
    end: Mapped[int | None]
    added_by: Mapped[str] = mapped_column(String(80))
    added_at: Mapped[datetime] = mapped_column(default=utcnow)
    withdrawn_at: Mapped[datetime | None]


class ClauseTypeVersion(Base):
    """A trained version of a clause type: its add-on to the shipped model (models/addons.py),
    stored here so that every gpu worker, on any host, reads the same bytes.  A type's latest
    version is its current one; older ones stay, so a past audit can be traced to its weights."""

    __tablename__ = "clause_type_versions"
    __table_args__ = (UniqueConstraint("type_id", "number", name="uq_clause_type_version_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    type_id: Mapped[int] = mapped_column(ForeignKey("clause_types.id", ondelete="CASCADE"), index=True)
    number: Mapped[int]
    version: Mapped[str] = mapped_column(String(64), unique=True)  # what findings carry
    base_version: Mapped[str] = mapped_column(String(64))  # the checkpoint it extends
    weights: Mapped[bytes] = mapped_column(LargeBinary)
    examples: Mapped[int]
    counter_examples: Mapped[int]
    negatives: Mapped[int]
    metrics: Mapped[dict] = mapped_column(JSON)
    """Cross-validated quality (precision, recall and their intervals, average precision), whether
    it is young, and how long each phase took."""
    created_by: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
