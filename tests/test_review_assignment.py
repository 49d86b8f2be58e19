"""Admins assign open items (pipelines/review/assignment.py), on SQLite and PostgreSQL: by id
and by the queue's filters, to an active user only, releasing other people's claims, and what
claim_next and hold then hand to whom."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from pipelines.review.assignment import AssignmentError, assign
from pipelines.review.listing import Selection
from pipelines.review.queue import NotYours, claim_next, decide, hold
from storage import schema
from storage.database import session_scope
from test_web_queue import ITEMS, seed
from pipelines.review.users import create_user, disable_user

NOW = datetime(2026, 12, 1, 9, 0)
LEASE_S = 900


def users(url: str) -> None:
    with session_scope(url) as session:
        for name in ("ann", "bob", "zed"):
            create_user(session, name, "reviewer", f"pw-{name}-correct-horse-battery", min_password_length=15)
        disable_user(session, "zed")


def items_of(url: str, batch: str) -> dict[tuple[str, str], schema.ReviewItem]:
    """(contract, category) -> the item, detached for reading."""
    with session_scope(url, write=False) as session:
        rows = session.execute(select(schema.ReviewItem, schema.Document.filename).join(schema.Document)
                               .where(schema.Document.batch_id == batch)).all()
        session.expunge_all()
    return {(filename, item.category): item for item, filename in rows}


def assigned(url: str, selection: Selection, to: str | None, by: str = "ada") -> int:
    with session_scope(url) as session:
        return assign(session, selection, to, by, NOW)


def test_assigning_by_ids_gives_the_items_to_that_reviewer_only(database_url: str) -> None:
    users(database_url)
    batch = seed(database_url)
    items = items_of(database_url, batch)
    top = items[("lease.pdf", "Cap On Liability")].id
    second = items[("nda.pdf", "Cap On Liability")].id
    decided = items[("supply.pdf", "Non-Compete")].id
    assert assigned(database_url, Selection(ids=[top, second, decided]), "ann") == 2  # the decided one stays
    after = items_of(database_url, batch)
    assert [after[k].assignee for k in (("lease.pdf", "Cap On Liability"), ("nda.pdf", "Cap On Liability"),
                                        ("supply.pdf", "Non-Compete"))] == ["ann", "ann", None]
    with session_scope(database_url) as session:
        bobs = claim_next(session, "bob", NOW, LEASE_S, batch_id=batch)
        assert bobs is not None and bobs.id not in (top, second)
        with pytest.raises(NotYours, match="assigned to ann"):
            hold(session, top, "bob", NOW, LEASE_S)
    with session_scope(database_url) as session:
        assert claim_next(session, "ann", NOW, LEASE_S, batch_id=batch).id == top  # the most urgent, hers
    assert assigned(database_url, Selection(ids=[]), "ann") == 0


def test_bulk_assignment_by_filter_touches_only_matching_open_items(database_url: str) -> None:
    users(database_url)
    batch, other = seed(database_url), seed(database_url)
    assert assigned(database_url, Selection(batch=batch, category="Cap On Liability"), "bob") == 3
    assert assigned(database_url, Selection(batch=batch, contract="supply.pdf"), "ann") == 2  # Non-Compete is decided
    assert assigned(database_url, Selection(batch=batch, severity="low"), "ann") == 1
    items = items_of(database_url, batch)
    assert {k: i.assignee for k, i in items.items()} == {
        ("lease.pdf", "Cap On Liability"): "bob", ("lease.pdf", "Governing Law"): "ann",
        ("supply.pdf", "Cap On Liability"): "ann", ("supply.pdf", "Anti-Assignment"): "ann",
        ("supply.pdf", "Non-Compete"): None, ("nda.pdf", "Cap On Liability"): "bob",
        ("nda.pdf", "Termination For Convenience"): None}
    assert {i.assignee for i in items_of(database_url, other).values()} == {None, "erin"}  # the seed's own
    # Move one reviewer's work to another, then give it back to everyone.
    assert assigned(database_url, Selection(batch=batch, assignee="bob"), "ann") == 2
    assert assigned(database_url, Selection(batch=batch), None) == 6
    assert {i.assignee for i in items_of(database_url, batch).values()} == {None}


def test_unknown_and_disabled_users_are_refused_and_nothing_moves(database_url: str) -> None:
    users(database_url)
    batch = seed(database_url)
    with pytest.raises(AssignmentError, match="no user named 'nobody'"):
        assigned(database_url, Selection(batch=batch), "nobody")
    with pytest.raises(AssignmentError, match="zed is disabled"):
        assigned(database_url, Selection(batch=batch), "zed")
    assert {i.assignee for i in items_of(database_url, batch).values()} == {None, "erin"}


def test_reassigning_releases_someone_elses_claim_but_not_the_assignees(database_url: str) -> None:
    users(database_url)
    batch = seed(database_url, ITEMS[:2])
    items = items_of(database_url, batch)
    first, second = items[("lease.pdf", "Cap On Liability")].id, items[("lease.pdf", "Governing Law")].id
    with session_scope(database_url) as session:
        hold(session, first, "bob", NOW, LEASE_S)
        hold(session, second, "ann", NOW, LEASE_S)
    assert assigned(database_url, Selection(ids=[first, second]), "ann") == 2
    after = items_of(database_url, batch)
    assert (after[("lease.pdf", "Cap On Liability")].claimed_by, after[("lease.pdf", "Cap On Liability")].lease_until) \
        == (None, None)
    assert after[("lease.pdf", "Governing Law")].claimed_by == "ann"
    with session_scope(database_url) as session, pytest.raises(NotYours):  # bob's page can no longer take it back
        hold(session, first, "bob", NOW + timedelta(seconds=5), LEASE_S)
    assert assigned(database_url, Selection(ids=[second]), None) == 1
    assert items_of(database_url, batch)[("lease.pdf", "Governing Law")].claimed_by == "ann"  # unassigning keeps it


def test_a_double_reviewed_item_is_not_assigned_to_its_first_reviewer(database_url: str) -> None:
    users(database_url)
    batch = seed(database_url, ITEMS[:2])
    items = items_of(database_url, batch)
    double = items[("lease.pdf", "Cap On Liability")].id
    with session_scope(database_url) as session:
        item = session.get(schema.ReviewItem, double)
        item.evidence = {**item.evidence, "reviews_needed": 2}
    with session_scope(database_url) as session:
        assert decide(session, double, "ann", "accept", 1, NOW).status == "open"
    assert assigned(database_url, Selection(batch=batch), "ann") == 1  # only the other item
    assert assigned(database_url, Selection(batch=batch), "bob") == 2
    assert items_of(database_url, batch)[("lease.pdf", "Cap On Liability")].assignee == "bob"
