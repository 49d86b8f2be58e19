"""Admins hand open items to a reviewer (or back to everyone): `assign`.

An assigned item is claimed and shown only by its assignee (queue.claim_next, queue.hold)
and admins, so work can be split by batch, contract, category or severity, or one item sent
to the person who knows it.  Items are chosen by id or by the queue's filters, always among
the open ones: a decided item keeps the name of whoever decided it in the trail, and moving
it would change nothing.

A claim held by anyone but the new assignee is released, or that person would go on working
an item that is no longer theirs.  A double-reviewed item whose first decision is the new
assignee's own is left as it is: assigned to them it could never get its second decision.
Two UPDATEs, never a loop over rows, so a filter matching 100,000 items is one statement.
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import Session

from pipelines import logs
from pipelines.review.listing import Selection, filter_conditions
from pipelines.review.queue import OPEN, decided_by
from storage.schema import Document, ReviewItem, User


class AssignmentError(ValueError):
    """An assignment that cannot be made; the message says why, for people."""


def assign(session: Session, selection: Selection, to: str | None, by: str, now: datetime) -> int:
    """Assign the selected open items to `to` (None: to nobody, so anyone may take them) and
    return how many were assigned.  AssignmentError for a user who does not exist or is
    disabled.  `by` and `now` go to the log line that records who moved which work."""
    if to is not None:
        _check_assignable(session, to)
    if selection.ids is not None and not selection.ids:
        return 0
    chosen = _conditions(selection)
    if to is not None:
        chosen.append(~decided_by(to))
        session.execute(update(ReviewItem).where(*chosen, ReviewItem.claimed_by.is_not(None),
                                                 ReviewItem.claimed_by != to)
                        .values(claimed_by=None, lease_until=None).execution_options(synchronize_session=False))
    count = session.execute(update(ReviewItem).where(*chosen).values(assignee=to)
                            .execution_options(synchronize_session=False)).rowcount
    logs.log("review items assigned", stage="review", batch_id=selection.batch, assigned_to=to, assigned_by=by,
             items=count, at=now.isoformat(timespec="seconds"),
             selection={k: v for k, v in vars(selection).items() if v is not None and k != "ids"},
             ids=len(selection.ids) if selection.ids is not None else None)
    return count


def _check_assignable(session: Session, name: str) -> None:
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise AssignmentError(f"no user named {name!r}: add them first (clausemill users add)")
    if user.disabled:
        raise AssignmentError(f"{name} is disabled and cannot be assigned work")


def _conditions(selection: Selection) -> list[ColumnElement[bool]]:
    """The WHERE clauses of the selection, documents reached by a subquery (an UPDATE has no join)."""
    items, documents = filter_conditions(selection)
    conditions = [ReviewItem.status == OPEN, *items]
    if documents:
        conditions.append(ReviewItem.document_id.in_(select(Document.id).where(*documents)))
    return conditions
