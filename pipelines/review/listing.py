"""The review queue as a reviewer browses it: filtered, most urgent first, one page at a time.

Listing only; claims and decisions belong to pipelines/review/queue.py.  The filters are
built here once (`filter_conditions`), for the listing and for assignment
(pipelines/review/assignment.py), which reaches documents by a subquery.  Two queries: the
count per status (a GROUP BY status, which the (status, priority) index covers), and one
page over review_items ordered by (priority DESC, id), which the same index walks for
status=open: the page after (or before) an item by keyset, so a deep page costs what the
first does; LIMIT/OFFSET only for a page asked for by number alone.  Documents are joined for counting only when a batch or contract
filter needs them.

Each filter has an index that keeps priority order: (status, category | severity | assignee,
priority) and documents.filename; ops/benchmarks/review_queue.py measures them at 100,000
items.  Severity is the playbook stakes the item's priority was computed from.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field, field_validator
from sqlalchemy import ColumnElement, Select, func, or_, select
from sqlalchemy.orm import Session

from pipelines.datamodel import ReviewEntry
from pipelines.playbook.severity import WEIGHTS
from storage.database import session_scope
from storage.repository import rerank_review_items
from storage.schema import Document, ReviewItem, utcnow

PER_PAGE = 50
ANY_STATUS = "all"
STATUSES = ("open", "decided", ANY_STATUS)
"""What the status filter offers (its Literal below says the same)."""


def blank_is_none(value: object) -> object:
    """A blank form field filters nothing; NUL characters are refused (PostgreSQL cannot even
    compare such text)."""
    if isinstance(value, str) and "\x00" in value:
        raise ValueError("must not contain a NUL character")
    return None if isinstance(value, str) and not value.strip() else value


@dataclass(frozen=True)
class Selection:
    """Which items: those with these ids (when given) that also match every filter set."""

    ids: Sequence[int] | None = None
    batch: str | None = None
    contract: str | None = None
    """A document's file name, exactly."""
    category: str | None = None
    severity: str | None = None
    assignee: str | None = None
    """Only items assigned to this person now."""


def filter_conditions(selection: Selection) -> tuple[list[ColumnElement[bool]], list[ColumnElement[bool]]]:
    """The WHERE clauses of a selection: those on review_items, and those on the documents,
    which the caller reaches by a join (a listing) or a subquery (an UPDATE has no join)."""
    items: list[ColumnElement[bool]] = []
    if selection.ids is not None:
        items.append(ReviewItem.id.in_(list(selection.ids)))
    if selection.category is not None:
        items.append(ReviewItem.category == selection.category)
    if selection.severity is not None:
        items.append(ReviewItem.severity == selection.severity)
    if selection.assignee is not None:
        items.append(ReviewItem.assignee == selection.assignee)
    documents: list[ColumnElement[bool]] = []
    if selection.batch is not None:
        documents.append(Document.batch_id == selection.batch)
    if selection.contract is not None:
        documents.append(Document.filename == selection.contract)
    return items, documents


class Filters(BaseModel):
    """The queue's filters as a request gives them (a query string, a form, a JSON body); a blank
    field (an empty form input) filters nothing."""

    batch: str | None = None
    contract: str | None = Field(default=None, description="A document's file name, exactly.")
    category: str | None = None
    severity: str | None = Field(default=None, description=f"The playbook stakes: {', '.join(WEIGHTS)}.")
    assignee: str | None = Field(default=None, description="Only items assigned to this user now.")

    @field_validator("batch", "contract", "category", "severity", "assignee", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return blank_is_none(value)

    @field_validator("severity")
    @classmethod
    def _known_severity(cls, value: str | None) -> str | None:
        if value is not None and value not in WEIGHTS:
            raise ValueError(f"severity is one of {', '.join(WEIGHTS)}")
        return value

    def selection(self, ids: Sequence[int] | None = None) -> Selection:
        return Selection(ids=ids, batch=self.batch, contract=self.contract, category=self.category,
                         severity=self.severity, assignee=self.assignee)

    def given(self) -> dict[str, str]:
        """The filters set, by name (to carry them back to the queue's URL)."""
        return {name: value for name, value in self.model_dump(include=set(Filters.model_fields)).items()
                if value is not None}


class QueueFilters(Filters):
    """What a reviewer narrows the queue to, which statuses, and which page."""

    status: Literal["open", "decided", "all"] = "open"
    page: int = Field(default=1, ge=1, le=1_000_000)  # OFFSET stays a 64-bit integer
    per_page: int = Field(default=PER_PAGE, ge=1, le=200)
    after: int | None = Field(default=None, ge=1, le=2**31 - 1,
                              description="The page after this item (the last of the page before): keyset.")
    before: int | None = Field(default=None, ge=1, le=2**31 - 1,
                               description="The page before this item (the first of the page after): keyset.")


@dataclass(frozen=True)
class QueuePage:
    rows: list[ReviewEntry]
    total: int
    """Items matching the filters, over every page."""
    by_status: dict[str, int]
    """Items matching the filters but the status one, per status."""
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))


def _conditions(filters: Filters, visible_to: str | None) -> tuple[list[ColumnElement[bool]], bool]:
    """The WHERE clauses but the status one, and whether they need the documents joined.

    `visible_to` limits a reviewer to items assigned to them or to nobody; None (an admin)
    sees everyone's."""
    items, documents = filter_conditions(filters.selection())
    if visible_to is not None:
        items.append(or_(ReviewItem.assignee == visible_to, ReviewItem.assignee.is_(None)))
    return [*items, *documents], bool(documents)


def _scoped(query: Select, conditions: list[ColumnElement[bool]], join: bool) -> Select:
    if join:
        query = query.join(Document, Document.id == ReviewItem.document_id)
    return query.where(*conditions)


def keep_priorities_current(state: object, database_url: str, today: date) -> None:
    """Age the items of batches with a due date once a day, before the queue is listed or an
    item claimed (storage.repository.rerank_review_items); `state` (the app's) remembers the day."""
    if getattr(state, "reranked_on", None) == today:
        return
    with session_scope(database_url) as session:
        rerank_review_items(session, today)
    state.reranked_on = today  # type: ignore[attr-defined]


def status_counts(session: Session, filters: Filters, visible_to: str | None = None) -> dict[str, int]:
    """How many items the filters match, per status: the queue's tiles, and where a reviewer
    stands in a batch after a decision ("5 of 34 decided")."""
    conditions, join = _conditions(filters, visible_to)
    return dict(session.execute(
        _scoped(select(ReviewItem.status, func.count()).select_from(ReviewItem), conditions, join)
        .group_by(ReviewItem.status)).all())


def list_queue(session: Session, filters: QueueFilters, visible_to: str | None = None) -> QueuePage:
    """One page of the queue, its total and the count per status."""
    conditions, _ = _conditions(filters, visible_to)
    by_status = status_counts(session, filters, visible_to)
    status = [] if filters.status == ANY_STATUS else [ReviewItem.status == filters.status]
    total = by_status.get(filters.status, 0) if status else sum(by_status.values())
    listing = (select(ReviewItem, Document.batch_id, Document.filename)
               .join(Document, Document.id == ReviewItem.document_id).where(*conditions, *status))
    anchor = session.get(ReviewItem, filters.after or filters.before) if filters.after or filters.before else None
    if anchor is None:
        listing = (listing.order_by(ReviewItem.priority.desc(), ReviewItem.id)
                   .offset((filters.page - 1) * filters.per_page))
    elif filters.after:
        listing = listing.where(ReviewItem.priority <= anchor.priority,  # a range the priority index walks
                                or_(ReviewItem.priority < anchor.priority, ReviewItem.id > anchor.id)
                                ).order_by(ReviewItem.priority.desc(), ReviewItem.id)
    else:
        listing = listing.where(ReviewItem.priority >= anchor.priority,
                                or_(ReviewItem.priority > anchor.priority, ReviewItem.id < anchor.id)
                                ).order_by(ReviewItem.priority.asc(), ReviewItem.id.desc())
    now = utcnow()
    rows = [_row(item, batch_id, filename, now)
            for item, batch_id, filename in session.execute(listing.limit(filters.per_page))]
    if anchor is not None and not filters.after:
        rows.reverse()
    return QueuePage(rows, total, by_status, filters.page, filters.per_page)


def _row(item: ReviewItem, batch_id: str, filename: str, now: datetime) -> ReviewEntry:
    """The entry shown; a claim whose lease ran out is shown as none (the item is back in the queue)."""
    live = item.lease_until is not None and item.lease_until > now
    return ReviewEntry(id=item.id, document_id=item.document_id, batch_id=batch_id, filename=filename,
                       category=item.category, reason=item.reason, priority=item.priority, status=item.status,
                       evidence=dict(item.evidence or {}), assignee=item.assignee,
                       claimed_by=item.claimed_by if live else None)
