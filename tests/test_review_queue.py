"""Claims with a lease and versioned decisions, on SQLite and PostgreSQL."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pipelines.review.queue import NotYours, ReviewConflict, claim_next, decide, hold, undo_last
from storage.repository import trail
from storage import repository, schema
from storage.database import session_scope

NOW = datetime(2026, 12, 1, 9, 0)
LEASE_S = 900


def seed(url: str, items: int) -> list[int]:
    """A batch of one document with `items` review items, priorities descending with their order."""
    with session_scope(url) as session:
        [document_id] = repository.create_batch(session, "rq", [Path("/contracts/a.pdf")], {})
        repository.replace_review_items(session, document_id, [
            {"category": f"Category {i}", "reason": "unsure", "priority": 1.0 - i / 1000,
             "evidence": {"text": f"quote {i}", "start": 10 * i, "end": 10 * i + 5, "page": 1}}
            for i in range(items)])
    with session_scope(url, write=False) as session:
        return [i.id for i in session.query(schema.ReviewItem).order_by(schema.ReviewItem.priority.desc())]


def test_concurrent_claimers_never_share_an_item(database_url: str) -> None:
    ids = seed(database_url, 30)
    claimed: list[int | None] = []
    barrier = threading.Barrier(20)

    def claim(n: int) -> None:
        barrier.wait()
        with session_scope(database_url) as session:
            item = claim_next(session, f"reviewer{n}", NOW, LEASE_S)
            claimed.append(item.id if item else None)

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert None not in claimed and len(set(claimed)) == 20
    assert sorted(claimed) == sorted(ids[:20])  # the 20 most urgent


def test_a_lease_that_ran_out_returns_the_item(database_url: str) -> None:
    first = seed(database_url, 2)[0]
    with session_scope(database_url) as session:
        assert claim_next(session, "ann", NOW, LEASE_S).id == first
        assert claim_next(session, "ann", NOW + timedelta(seconds=60), LEASE_S).id == first  # a reload: the same one
        hold(session, first, "ann", NOW + timedelta(seconds=600), LEASE_S)  # the item page renews it
    with session_scope(database_url) as session:
        assert claim_next(session, "bob", NOW + timedelta(seconds=1200), LEASE_S).id != first  # renewed: still ann's
        assert claim_next(session, "cy", NOW + timedelta(seconds=1600), LEASE_S).id == first  # ran out
        with pytest.raises(NotYours):
            hold(session, first, "ann", NOW + timedelta(seconds=1601), LEASE_S)


def test_a_stale_decision_is_refused_with_who_decided_first(database_url: str) -> None:
    item = seed(database_url, 1)[0]
    with session_scope(database_url) as session:
        claim_next(session, "ann", NOW, LEASE_S)
        decision = decide(session, item, "ann", "accept", 1, NOW, comment="clear cap")
        assert decision.version == 2
    with session_scope(database_url) as session, pytest.raises(ReviewConflict, match="ann decided it at 2026-12-01 09:00"):
        decide(session, item, "bob", "reject", 1, NOW, reason="not_a_clause")


def test_someone_elses_claim_and_bad_decisions_are_refused(database_url: str) -> None:
    item = seed(database_url, 1)[0]
    with session_scope(database_url) as session:
        claim_next(session, "ann", NOW, LEASE_S)
    with session_scope(database_url) as session:
        with pytest.raises(NotYours, match="claimed by ann"):
            decide(session, item, "bob", "accept", 1, NOW)
        with pytest.raises(ValueError, match="needs a reason"):
            decide(session, item, "ann", "reject", 1, NOW)
        with pytest.raises(ValueError, match="corrected values"):
            decide(session, item, "ann", "correct", 1, NOW)


def test_the_trail_is_appended_and_undo_reopens_the_item(database_url: str) -> None:
    item = seed(database_url, 1)[0]
    with session_scope(database_url) as session:
        claim_next(session, "ann", NOW, LEASE_S)
        decide(session, item, "ann", "correct", 1, NOW, new={"category": "Cap On Liability"}, comment="a cap")
    with session_scope(database_url) as session:
        assert undo_last(session, "ann", NOW + timedelta(seconds=5), LEASE_S).version == 3
        assert session.get(schema.ReviewItem, item).status == "open"
        decide(session, item, "ann", "reject", 3, NOW + timedelta(seconds=9), reason="wrong_span")
    with session_scope(database_url, write=False) as session:
        rows = [(d.reviewer, d.action, d.item_version, d.new, d.reason) for d in trail(session, item)]
    assert rows[0] == ("ann", "correct", 1, {"category": "Cap On Liability"}, None)
    assert rows[1][:3] == ("ann", "undo", 2) and rows[1][3]["category"] == "Category 0"
    assert rows[2] == ("ann", "reject", 3, {}, "wrong_span")


def test_rerunning_the_audit_keeps_decided_items_and_does_not_queue_them_again(database_url: str) -> None:
    item = seed(database_url, 2)[0]
    with session_scope(database_url) as session:
        decide(session, item, "ann", "accept", 1, NOW)
        document_id = session.get(schema.ReviewItem, item).document_id
        again = [{"category": f"Category {i}", "reason": "unsure", "priority": 0.5,
                  "evidence": {"text": f"quote {i}", "start": 10 * i, "end": 10 * i + 5, "page": 1}} for i in range(2)]
        repository.replace_review_items(session, document_id, again)
    with session_scope(database_url, write=False) as session:
        rows = session.query(schema.ReviewItem).order_by(schema.ReviewItem.id).all()
        assert [(r.category, r.status) for r in rows] == [("Category 0", "decided"), ("Category 1", "open")]
        assert len(trail(session, item)) == 1
