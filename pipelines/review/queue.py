"""Claims with a lease, and decisions that refuse a stale page.

"Next item" hands the most urgent open item to one reviewer for `lease_s` seconds: nobody else
gets it while the lease runs, and it returns to the queue by itself when the lease runs out
(a closed laptop never locks an item).  On PostgreSQL concurrent claimers skip each other's
locked rows (FOR UPDATE SKIP LOCKED); on SQLite every write transaction holds the database
lock (storage/database.py), so the select and the update are one step there too.

A decision names the item version its page showed.  Every decision bumps the version, so a
second decision made on the same page is refused with who decided first.  Decisions are
appended to `review_decisions` and never changed: an undo is a decision of its own, and so is
re-opening a decided item (which anyone may do; its page is read-only until then).

An item in a batch's double-review share (double_review.py) needs two decisions by different
reviewers: the first joins the trail and leaves the item open, and neither "next item" nor
opening it hands it back to the reviewer who made it; the second closes it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.orm import Session, aliased

from pipelines.review.decisions import question_of
from pipelines.review.double_review import TAKE_BACK, reviews_needed
from storage import schema
from storage.repository import standing_reviewers

Action = Literal["accept", "correct", "reject"]
ACTIONS: tuple[str, ...] = ("accept", "correct", "reject")
REJECT_REASONS: tuple[str, ...] = ("wrong_category", "not_a_clause", "wrong_span", "duplicate", "ocr_error")
OPEN, DECIDED = "open", "decided"


class ReviewConflict(Exception):
    """The item changed since the reviewer's page was drawn (HTTP 409)."""

    def __init__(self, item_id: int, version: int, decided_by: str | None, decided_at: datetime | None) -> None:
        who = f"{decided_by} decided it at {decided_at:%Y-%m-%d %H:%M} UTC" if decided_by and decided_at else \
            "it changed"
        super().__init__(f"Item {item_id} is at version {version}, not the one on your page: {who}. "
                         "Reload it to see the decision.")
        self.item_id, self.version, self.decided_by = item_id, version, decided_by


class NotYours(Exception):
    """The item is claimed by someone else, or not claimed by the reviewer deciding it."""


class NeedsAnotherReviewer(NotYours):
    """A double-reviewed item whose first decision is the reviewer's own: the second must be
    someone else's."""

    def __init__(self, item_id: int, reviewer: str) -> None:
        super().__init__(f"Item {item_id} needs a second, independent decision: {reviewer}'s is on record, "
                         "so another reviewer makes it.")


@dataclass(frozen=True)
class Decision:
    item_id: int
    reviewer: str
    action: str
    version: int
    status: str
    """open while a double-reviewed item waits for its second decision (or after an undo)."""


def claim_next(session: Session, reviewer: str, now: datetime, lease_s: int,
               batch_id: str | None = None) -> schema.ReviewItem | None:
    """Claim the most urgent open item nobody holds (or whose lease ran out) that is
    unassigned or assigned to `reviewer`; an item the reviewer already holds comes first, so
    a reload does not claim a second one."""
    held = session.scalars(_claimable(reviewer, now, batch_id).where(schema.ReviewItem.claimed_by == reviewer)
                           .where(schema.ReviewItem.lease_until > now).limit(1)).first()
    if held is not None:
        held.lease_until = now + timedelta(seconds=lease_s)
        return held
    query = (_claimable(reviewer, now, batch_id)
             .where(or_(schema.ReviewItem.claimed_by.is_(None), schema.ReviewItem.lease_until <= now))
             .limit(1).with_for_update(skip_locked=True))
    item = session.scalars(query).first()
    if item is not None:
        item.claimed_by, item.lease_until = reviewer, now + timedelta(seconds=lease_s)
    return item


def _claimable(reviewer: str, now: datetime, batch_id: str | None):  # type: ignore[no-untyped-def]
    query = (select(schema.ReviewItem).where(schema.ReviewItem.status == OPEN)
             .where(or_(schema.ReviewItem.assignee.is_(None), schema.ReviewItem.assignee == reviewer))
             .where(~decided_by(reviewer))
             .order_by(schema.ReviewItem.priority.desc(), schema.ReviewItem.id))
    if batch_id is not None:
        query = query.join(schema.Document).where(schema.Document.batch_id == batch_id)
    return query


def decided_by(reviewer: str) -> ColumnElement[bool]:
    """SQL: `reviewer`'s decision stands on the item (their last row on it is not an undo).
    Only a double-reviewed item is open with one; an item at version 1 has no decision yet,
    which spares the lookup for almost every item."""
    mine, later = aliased(schema.ReviewDecision), aliased(schema.ReviewDecision)
    taken_back = (select(later.id).where(later.item_id == mine.item_id, later.reviewer == reviewer,
                                         later.id > mine.id).exists())
    return and_(schema.ReviewItem.version > 1,
                select(mine.id).where(mine.item_id == schema.ReviewItem.id, mine.reviewer == reviewer,
                                      mine.action.not_in(TAKE_BACK), ~taken_back).exists())


def decide(session: Session, item_id: int, reviewer: str, action: Action, version: int, now: datetime,
           new: dict | None = None, reason: str | None = None, comment: str | None = None) -> Decision:
    """Record `reviewer`'s decision on the item as of `version`.

    `new` holds a correction (category, span or normalized value); a reject needs a reason
    code from REJECT_REASONS.  Raises ReviewConflict when the item moved past `version`, and
    NotYours when someone else holds its lease.
    """
    if action not in ACTIONS:
        raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
    if action == "reject" and reason not in REJECT_REASONS:
        raise ValueError(f"a rejection needs a reason: one of {', '.join(REJECT_REASONS)}")
    if action == "correct" and not new:
        raise ValueError("a correction needs the corrected values (category, span or value)")
    item = _locked(session, item_id)
    if item.version != version:
        raise ReviewConflict(item_id, item.version, *_who_last(session, item_id))
    if question_of(item.evidence) == "value" and not (action == "accept" or "value" in (new or {})):
        raise ValueError(f"this item asks for the {item.category}: confirm the value read, or type the right one "
                         "(or “not stated”); a value is corrected, not rejected")
    if item.claimed_by not in (None, reviewer) and item.lease_until is not None and item.lease_until > now:
        raise NotYours(f"item {item_id} is claimed by {item.claimed_by} until {item.lease_until:%H:%M} UTC")
    needed = reviews_needed(item.evidence)
    standing = standing_reviewers(session, item.id) if needed > 1 else []
    if reviewer in standing:
        raise NeedsAnotherReviewer(item_id, reviewer)
    session.add(schema.ReviewDecision(
        item_id=item.id, document_id=item.document_id, reviewer=reviewer, action=action, item_version=version,
        previous=_state(item), new=new or {}, reason=reason, comment=comment, created_at=now))
    item.status = DECIDED if len(standing) + 1 >= needed else OPEN
    item.version, item.claimed_by, item.lease_until = item.version + 1, None, None
    return Decision(item.id, reviewer, action, item.version, item.status)


def hold(session: Session, item_id: int, reviewer: str, now: datetime, lease_s: int) -> datetime | None:
    """Claim this very item for `reviewer`, or extend their lease on it, and return when the
    lease ends: the item page's Hold button does this (an item reached by j / k or a link, not
    only by "next item"), and its script renews the lease of an item the reviewer holds while
    they work; opening a page claims nothing, so a link from another site cannot claim.  A
    reviewer holds one item at a time, so their other claims go back to the queue.  None for a decided item (nothing to hold); NotYours
    while someone else's lease runs or the item is assigned to someone else."""
    item = _locked(session, item_id)
    if item.status != OPEN:
        return None
    if item.claimed_by not in (None, reviewer) and item.lease_until is not None and item.lease_until > now:
        raise NotYours(f"item {item_id} is claimed by {item.claimed_by} until {item.lease_until:%H:%M} UTC")
    if item.assignee not in (None, reviewer):
        raise NotYours(f"item {item_id} is assigned to {item.assignee}")
    if reviews_needed(item.evidence) > 1 and reviewer in standing_reviewers(session, item_id):
        raise NeedsAnotherReviewer(item_id, reviewer)
    session.execute(update(schema.ReviewItem).where(schema.ReviewItem.claimed_by == reviewer)
                    .where(schema.ReviewItem.id != item_id).values(claimed_by=None, lease_until=None))
    item.claimed_by, item.lease_until = reviewer, now + timedelta(seconds=lease_s)
    return item.lease_until


def undo_last(session: Session, reviewer: str, now: datetime, lease_s: int) -> Decision | None:
    """Reopen the item of `reviewer`'s last decision, if nobody decided it since: an "undo"
    row joins the trail and the item goes back to the queue, claimed by the reviewer for a
    fresh lease (without one nobody, the reviewer included, could claim it again).  A
    double-reviewed item another reviewer holds while it waits for its second decision stays
    theirs (their page is one version behind, so they reload before deciding)."""
    last = session.scalars(select(schema.ReviewDecision).where(schema.ReviewDecision.reviewer == reviewer)
                           .where(schema.ReviewDecision.action.not_in(TAKE_BACK))
                           .order_by(schema.ReviewDecision.id.desc()).limit(1)).first()
    if last is None or last.item_id is None:
        return None
    item = _locked(session, last.item_id)
    if item.version != last.item_version + 1:
        raise ReviewConflict(item.id, item.version, *_who_last(session, item.id))
    session.add(schema.ReviewDecision(
        item_id=item.id, document_id=item.document_id, reviewer=reviewer, action="undo", item_version=item.version,
        previous={"action": last.action, **(last.new or {})}, new=last.previous, created_at=now))
    held_by_another = item.claimed_by not in (None, reviewer) and item.lease_until is not None and item.lease_until > now
    item.status, item.version = OPEN, item.version + 1
    if not held_by_another:
        item.claimed_by, item.lease_until = reviewer, now + timedelta(seconds=lease_s)
    return Decision(item.id, reviewer, "undo", item.version, item.status)


def reopen(session: Session, item_id: int, reviewer: str, version: int, now: datetime, lease_s: int) -> Decision:
    """Re-open a decided item so it can be decided again: a "reopen" row joins the trail and
    takes back the decision that stood (anyone's, unlike an undo), and the item is open again,
    held by `reviewer`.  A decided item's page is read-only until someone does this, so a key
    pressed by mistake never re-decides it."""
    item = _locked(session, item_id)
    if item.version != version:
        raise ReviewConflict(item_id, item.version, *_who_last(session, item_id))
    last = _last_decision(session, item_id)
    if item.status != DECIDED or last is None or last.action in TAKE_BACK:
        raise ValueError(f"item {item_id} is open: there is no decision to re-open")
    session.add(schema.ReviewDecision(
        item_id=item.id, document_id=item.document_id, reviewer=reviewer, action="reopen", item_version=version,
        previous={"action": last.action, **(last.new or {})}, new=last.previous, created_at=now))
    item.status, item.version = OPEN, item.version + 1
    item.claimed_by, item.lease_until = reviewer, now + timedelta(seconds=lease_s)
    return Decision(item.id, reviewer, "reopen", item.version, item.status)


def _locked(session: Session, item_id: int) -> schema.ReviewItem:
    item = session.get(schema.ReviewItem, item_id, with_for_update=True)
    if item is None:
        raise LookupError(f"no review item {item_id}")
    return item


def _last_decision(session: Session, item_id: int) -> schema.ReviewDecision | None:
    return session.scalars(select(schema.ReviewDecision).where(schema.ReviewDecision.item_id == item_id)
                           .order_by(schema.ReviewDecision.id.desc()).limit(1)).first()


def _who_last(session: Session, item_id: int) -> tuple[str | None, datetime | None]:
    last = _last_decision(session, item_id)
    return (last.reviewer, last.created_at) if last else (None, None)


def _state(item: schema.ReviewItem) -> dict:
    """What the item said before the decision: enough to show and to undo it."""
    return {"status": item.status, "category": item.category, "evidence": item.evidence}
