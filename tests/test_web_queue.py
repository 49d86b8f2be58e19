"""The review queue's listing (pipelines/review/listing.py) on SQLite and PostgreSQL: most urgent
first, filters, pagination, totals, and what a reviewer (not an admin) sees."""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select

from conftest import postgres_database
from pipelines.playbook.severity import WEIGHTS
from pipelines.review.listing import QueueFilters, list_queue
from storage import schema
from storage.database import session_scope

# (contract, category, stakes, p_wrong, status, assignee): priority = weight(stakes) × p_wrong.
ITEMS = [
    ("lease.pdf", "Cap On Liability", "critical", 0.5, "open", None),      # 0.40
    ("lease.pdf", "Governing Law", "low", 0.5, "open", None),              # 0.05
    ("supply.pdf", "Cap On Liability", "high", 0.5, "open", "erin"),       # 0.25
    ("supply.pdf", "Anti-Assignment", "medium", 0.4, "open", None),        # 0.10
    ("supply.pdf", "Non-Compete", "high", 0.6, "decided", None),           # 0.30
    ("nda.pdf", "Cap On Liability", "medium", 0.6, "open", None),          # 0.15
    ("nda.pdf", "Termination For Convenience", "info", 0.5, "open", None),  # 0.01
]


def seed(database_url: str, items: list[tuple] = ITEMS) -> str:
    """A new batch holding one document per contract name and the review items on them, the
    way aggregation writes them (evidence with the priority's parts); returns the batch id."""
    batch_id = f"queue-{uuid.uuid4().hex[:8]}"
    with session_scope(database_url) as session:
        session.add(schema.Batch(id=batch_id))
        documents: dict[str, schema.Document] = {}
        for contract, *_ in items:
            if contract not in documents:
                documents[contract] = schema.Document(batch_id=batch_id, path=f"/contracts/{contract}", filename=contract)
        session.add_all(documents.values())
        session.flush()
        for contract, category, stakes, p_wrong, status, assignee in items:
            parts = {"stakes": stakes, "weight": WEIGHTS[stakes], "p_wrong": p_wrong}
            session.add(schema.ReviewItem(
                document_id=documents[contract].id, category=category, reason=f"{category} is uncertain",
                priority=round(WEIGHTS[stakes] * p_wrong, 4), status=status, assignee=assignee, severity=stakes,
                evidence={"text": f"The {category} clause of {contract}.", "page": 2, "priority_parts": parts}))
    return batch_id


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('queue') / 'clausemill.sqlite'}"
        return
    with postgres_database() as url:
        yield url


def listed(database_url: str, visible_to: str | None = None, **filters: object) -> tuple[list[tuple[str, str]], int]:
    with session_scope(database_url, write=False) as session:
        page = list_queue(session, QueueFilters(**filters), visible_to=visible_to)
    return [(r.filename, r.category) for r in page.rows], page.total


def test_open_items_come_most_urgent_first_with_their_counts(database_url: str) -> None:
    batch = seed(database_url)
    with session_scope(database_url, write=False) as session:
        page = list_queue(session, QueueFilters(batch=batch))
    assert [r.priority for r in page.rows] == [0.4, 0.25, 0.15, 0.1, 0.05, 0.01]
    assert page.total == 6 and page.by_status == {"open": 6, "decided": 1} and page.pages == 1
    top = page.rows[0]
    assert (top.filename, top.batch_id, top.severity, top.evidence["page"]) == ("lease.pdf", batch, "critical", 2)
    assert top.priority_parts == {"stakes": "critical", "weight": 0.8, "p_wrong": 0.5}


def test_filters_narrow_the_queue_and_its_total(database_url: str) -> None:
    batch = seed(database_url)
    assert listed(database_url, batch=batch, category="Cap On Liability") == (
        [("lease.pdf", "Cap On Liability"), ("supply.pdf", "Cap On Liability"), ("nda.pdf", "Cap On Liability")], 3)
    assert listed(database_url, batch=batch, contract="supply.pdf") == (
        [("supply.pdf", "Cap On Liability"), ("supply.pdf", "Anti-Assignment")], 2)
    assert listed(database_url, batch=batch, severity="high", status="all") == (
        [("supply.pdf", "Non-Compete"), ("supply.pdf", "Cap On Liability")], 2)
    assert listed(database_url, batch=batch, assignee="erin") == ([("supply.pdf", "Cap On Liability")], 1)
    assert listed(database_url, batch=batch, status="decided") == ([("supply.pdf", "Non-Compete")], 1)
    assert listed(database_url, batch=f"{batch}-none") == ([], 0)
    blank = QueueFilters(batch=batch, contract="", category=" ", severity="", assignee="")
    assert (blank.contract, blank.category, blank.severity, blank.assignee) == (None, None, None, None)


def test_pages_split_the_same_order(database_url: str) -> None:
    batch = seed(database_url)
    assert listed(database_url, batch=batch, per_page=4, page=2) == (
        [("lease.pdf", "Governing Law"), ("nda.pdf", "Termination For Convenience")], 6)
    with session_scope(database_url, write=False) as session:
        page = list_queue(session, QueueFilters(batch=batch, per_page=4, page=3))
    assert (page.rows, page.total, page.pages) == ([], 6, 2)


def test_a_reviewer_sees_their_items_and_nobodys_but_not_a_colleagues(database_url: str) -> None:
    batch = seed(database_url)
    rows, total = listed(database_url, visible_to="bob", batch=batch)
    assert ("supply.pdf", "Cap On Liability") not in rows and total == 5
    assert listed(database_url, visible_to="erin", batch=batch)[1] == 6


def test_an_unknown_severity_is_refused() -> None:
    with pytest.raises(ValueError, match="severity is one of"):
        QueueFilters(severity="urgent")


def test_a_claim_shows_only_while_its_lease_runs(database_url: str) -> None:
    batch = seed(database_url, ITEMS[:2])
    with session_scope(database_url) as session:
        first, second = session.scalars(
            select(schema.ReviewItem).join(schema.Document).where(schema.Document.batch_id == batch)
            .order_by(schema.ReviewItem.priority.desc())).all()
        first.claimed_by, first.lease_until = "bob", schema.utcnow() + timedelta(minutes=15)
        second.claimed_by, second.lease_until = "erin", schema.utcnow() - timedelta(seconds=1)
    with session_scope(database_url, write=False) as session:
        rows = list_queue(session, QueueFilters(batch=batch)).rows
    assert [r.claimed_by for r in rows] == ["bob", None]
