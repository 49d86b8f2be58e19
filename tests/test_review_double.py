"""Double review (pipelines/review/double_review.py, agreement.py): the sampled share, two
decisions by different reviewers on SQLite and PostgreSQL, undo, what reports take, re-runs,
Cohen's kappa on textbook tables, and `audit --double-review` through `review agreement`."""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import typer
from sqlalchemy import func, select

from conftest import TEXT_SAMPLES, run_cli, some_samples, sqlite_url
from pipelines.cli.batches import batch_options
from pipelines.review.agreement import ALL, Pair, agreement, agreement_by_category, cohen_kappa, confusion, review_pairs
from pipelines.review.decisions import question_of, standing
from pipelines.review.double_review import in_double_review_sample, mark_double_review, reviews_needed
from pipelines.review.queue import NeedsAnotherReviewer, ReviewConflict, claim_next, decide, hold, undo_last
from storage import repository, schema
from storage.repository import trail
from storage.database import session_scope

NOW = datetime(2026, 12, 1, 9, 0)
LEASE_S = 900


def later(seconds: int) -> datetime:
    return NOW + timedelta(seconds=seconds)


# --- Cohen's kappa ---------------------------------------------------------------------------

def test_kappa_of_textbook_tables() -> None:
    # Two readers of 50 grant proposals, yes / no (Wikipedia, "Cohen's kappa"): p_o 0.7, p_e 0.5.
    assert cohen_kappa([[20, 5], [10, 15]]) == pytest.approx(0.4)
    # The same 60% agreement, different marginals, different kappas (ibid.).
    assert cohen_kappa([[45, 15], [25, 15]]) == pytest.approx(0.1304, abs=1e-4)
    assert cohen_kappa([[25, 35], [5, 35]]) == pytest.approx(0.2593, abs=1e-4)
    # Three diagnoses by two psychiatrists (Fleiss, Statistical Methods for Rates and
    # Proportions): p_o 0.89, p_e 0.66, kappa 0.68.
    fleiss = [[75, 1, 4], [5, 4, 1], [0, 0, 10]]
    assert cohen_kappa(fleiss) == pytest.approx(0.23 / 0.34)
    assert round(cohen_kappa(fleiss), 2) == 0.68


def test_kappa_is_undefined_without_pairs_or_when_chance_agrees_always() -> None:
    assert cohen_kappa([[0, 0], [0, 0]]) is None
    assert cohen_kappa(confusion([("accept", "accept")] * 4)) is None
    assert cohen_kappa(confusion([("accept", "reject"), ("reject", "accept")])) == pytest.approx(-1.0)


def test_agreement_per_category_and_over_all() -> None:
    pairs = [Pair(1, "Cap On Liability", "accept", "accept"), Pair(2, "Cap On Liability", "reject", "reject"),
             Pair(3, "Cap On Liability", "accept", "reject"), Pair(4, "Governing Law", "accept", "accept")]
    rows = {a.category: a for a in agreement_by_category(pairs)}
    assert list(rows) == ["Cap On Liability", "Governing Law", ALL]
    cap = rows["Cap On Liability"]
    assert (cap.pairs, cap.agreed) == (3, 2)
    assert cap.kappa == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9))  # p_o 2/3; p_e (2·1 + 1·2) / 9
    assert (rows["Governing Law"].pairs, rows["Governing Law"].kappa) == (1, None)  # n/a: one label only
    assert (rows[ALL].pairs, rows[ALL].agreed) == (4, 3)


# --- the sampled share -----------------------------------------------------------------------

def test_the_share_is_drawn_by_hash_so_a_rerun_draws_the_same() -> None:
    keys = [(f"{n:064x}", "Cap On Liability", 10 * n, 10 * n + 40) for n in range(4000)]
    drawn = [k for k in keys if in_double_review_sample(*k, 0.25)]
    assert 0.22 < len(drawn) / len(keys) < 0.28
    assert drawn == [k for k in keys if in_double_review_sample(*k, 0.25)]
    assert not any(in_double_review_sample(*k, 0.0) for k in keys[:100])
    assert all(in_double_review_sample(*k, 1.0) for k in keys[:100])
    items = [{"category": "Cap On Liability", "reason": "unsure", "priority": 0.3,
              "evidence": {"start": 10 * n, "end": 10 * n + 40, "text": "x"}} for n in range(200)]
    marked = mark_double_review(items, 0.25, "a" * 64)
    assert marked == mark_double_review(items, 0.25, "a" * 64)
    assert 20 < sum(reviews_needed(i["evidence"]) == 2 for i in marked) < 80
    assert [reviews_needed(i["evidence"]) for i in mark_double_review(items, 0.25, "b" * 64)] != \
        [reviews_needed(i["evidence"]) for i in marked]  # another document draws its own items


def test_the_share_is_a_batch_option_between_0_and_1() -> None:
    assert batch_options(None, "full", double_review=0.1)["double_review"] == 0.1
    assert "double_review" not in batch_options(None, "full")
    with pytest.raises(typer.BadParameter, match="between 0 and 1"):
        batch_options(None, "full", double_review=1.5)


# --- two decisions on PostgreSQL and SQLite ----------------------------------------------------

def seed(url: str, double: list[bool]) -> list[int]:
    """One document with an item per entry, most urgent first; True: it needs two reviews."""
    with session_scope(url) as session:
        [document_id] = repository.create_batch(session, "dr", [Path("/contracts/a.pdf")], {})
        repository.replace_review_items(session, document_id, [
            {"category": "Cap On Liability", "reason": "unsure", "priority": 1.0 - i / 100,
             "evidence": {"text": f"quote {i}", "start": 10 * i, "end": 10 * i + 5, "page": 1,
                          **({"reviews_needed": 2} if twice else {})}}
            for i, twice in enumerate(double)])
    with session_scope(url, write=False) as session:
        return list(session.scalars(select(schema.ReviewItem.id).order_by(schema.ReviewItem.priority.desc())))


def status(url: str, item_id: int) -> tuple[str, int, str | None]:
    with session_scope(url, write=False) as session:
        item = session.get(schema.ReviewItem, item_id)
        return item.status, item.version, item.claimed_by


def test_the_first_decision_leaves_the_item_open_for_another_reviewer(database_url: str) -> None:
    [item] = seed(database_url, [True])
    with session_scope(database_url) as session:
        assert claim_next(session, "ann", NOW, LEASE_S).id == item
        first = decide(session, item, "ann", "accept", 1, later(10))
    assert (first.status, first.version) == ("open", 2)
    assert status(database_url, item) == ("open", 2, None)
    with session_scope(database_url) as session:
        assert claim_next(session, "ann", later(20), LEASE_S) is None  # never handed back to ann
        with pytest.raises(NeedsAnotherReviewer, match="ann's is on record"):
            hold(session, item, "ann", later(20), LEASE_S)
        with pytest.raises(NeedsAnotherReviewer):
            decide(session, item, "ann", "reject", 2, later(20), reason="not_a_clause")
    with session_scope(database_url) as session:
        assert claim_next(session, "bob", later(30), LEASE_S).id == item
        second = decide(session, item, "bob", "reject", 2, later(40), reason="wrong_span")
    assert (second.status, second.version) == ("decided", 3)
    with session_scope(database_url, write=False) as session:
        assert [(d.reviewer, d.action, d.item_version) for d in trail(session, item)] == [
            ("ann", "accept", 1), ("bob", "reject", 2)]
        assert claim_next(session, "cy", later(50), LEASE_S) is None


def test_a_single_review_item_closes_on_its_first_decision(database_url: str) -> None:
    single, double = seed(database_url, [False, True])
    with session_scope(database_url) as session:
        assert decide(session, single, "ann", "accept", 1, NOW).status == "decided"
        assert claim_next(session, "ann", NOW, LEASE_S).id == double


def test_undo_of_the_second_decision_reopens_it_for_the_second_reviewer_only(database_url: str) -> None:
    [item] = seed(database_url, [True])
    with session_scope(database_url) as session:
        decide(session, item, "ann", "accept", 1, NOW)
        decide(session, item, "bob", "correct", 2, later(5), new={"category": "Uncapped Liability"})
    with session_scope(database_url) as session, pytest.raises(ReviewConflict, match="bob decided it"):
        undo_last(session, "ann", later(10), LEASE_S)  # ann's was not the item's last decision
    with session_scope(database_url) as session:
        undone = undo_last(session, "bob", later(10), LEASE_S)
    assert (undone.status, undone.version) == ("open", 4)
    assert status(database_url, item) == ("open", 4, "bob")
    with session_scope(database_url) as session:
        assert claim_next(session, "ann", later(20), LEASE_S) is None  # ann's decision still stands
        assert decide(session, item, "bob", "accept", 4, later(30)).status == "decided"


def test_undo_of_the_first_decision_lets_its_reviewer_decide_again(database_url: str) -> None:
    [item] = seed(database_url, [True])
    with session_scope(database_url) as session:
        decide(session, item, "ann", "reject", 1, NOW, reason="duplicate")
    with session_scope(database_url) as session:
        assert undo_last(session, "ann", later(5), LEASE_S).status == "open"
    assert status(database_url, item) == ("open", 3, "ann")
    with session_scope(database_url) as session:
        assert claim_next(session, "ann", later(6), LEASE_S).id == item
        assert decide(session, item, "ann", "accept", 3, later(7)).status == "open"  # the first decision again
    with session_scope(database_url) as session:
        assert decide(session, item, "bob", "accept", 4, later(8)).status == "decided"


def test_an_undo_leaves_the_item_with_the_reviewer_who_holds_it(database_url: str) -> None:
    [item] = seed(database_url, [True])
    with session_scope(database_url) as session:
        decide(session, item, "ann", "accept", 1, NOW)
    with session_scope(database_url) as session:
        assert claim_next(session, "bob", later(5), LEASE_S).id == item
    with session_scope(database_url) as session:
        undo_last(session, "ann", later(10), LEASE_S)
    assert status(database_url, item) == ("open", 3, "bob")
    with session_scope(database_url) as session, pytest.raises(ReviewConflict):
        decide(session, item, "bob", "accept", 2, later(15))  # his page showed version 2: reload first


def test_a_rerun_keeps_an_item_waiting_for_its_second_decision(database_url: str) -> None:
    waiting, _ = seed(database_url, [True, True])
    with session_scope(database_url) as session:
        decide(session, waiting, "ann", "accept", 1, NOW)
        document_id = session.get(schema.ReviewItem, waiting).document_id
        again = [{"category": "Cap On Liability", "reason": "unsure again", "priority": 0.5,
                  "evidence": {"text": f"quote {i}", "start": 10 * i, "end": 10 * i + 5, "page": 1, "reviews_needed": 2}}
                 for i in range(2)]
        repository.replace_review_items(session, document_id, again)
    with session_scope(database_url, write=False) as session:
        rows = session.scalars(select(schema.ReviewItem).order_by(schema.ReviewItem.id)).all()
        assert [(r.id == waiting, r.reason, r.version) for r in rows] == [(True, "unsure", 2), (False, "unsure again", 1)]
        assert [d.reviewer for d in trail(session, waiting)] == ["ann"]


def test_reports_take_the_second_decision_and_ignore_a_lone_first_one() -> None:
    evidence = {"start": 100, "end": 160, "page": 2, "text": "liability is unlimited", "reviews_needed": 2}

    def row(item_id: int, action: str, reviewer: str) -> dict:
        return {"item_id": item_id, "action": action, "reviewer": reviewer, "new": {},
                "previous": {"category": "Uncapped Liability", "evidence": evidence}}

    assert standing([row(1, "accept", "ann")]) == []
    [final] = standing([row(1, "accept", "ann"), row(1, "reject", "bob")])
    assert (final.action, final.reviewer) == ("reject", "bob")
    assert standing([row(1, "accept", "ann"), row(1, "reject", "bob"), row(1, "undo", "bob")]) == []


def test_agreement_pairs_the_standing_decisions_of_a_batch(database_url: str) -> None:
    items = seed(database_url, [True, True, True, True, False])
    decisions = [("accept", "accept"), ("reject", "reject"), ("accept", "correct")]
    with session_scope(database_url) as session:
        for n, (item, (first, second)) in enumerate(zip(items, decisions)):
            new = {"category": "Uncapped Liability"}
            decide(session, item, "ann", first, 1, later(n), new=new if first == "correct" else None,  # type: ignore[arg-type]
                   reason="duplicate" if first == "reject" else None)
            decide(session, item, "bob", second, 2, later(n), new=new if second == "correct" else None,  # type: ignore[arg-type]
                   reason="duplicate" if second == "reject" else None)
        decide(session, items[3], "ann", "accept", 1, later(9))  # waits for its second decision
        decide(session, items[4], "ann", "accept", 1, later(9))  # a single review: no pair
    with session_scope(database_url, write=False) as session:
        report = agreement(session, "dr")
        assert agreement(session, "no-such-batch").rows[-1].pairs == 0
    [cap, total] = report.rows
    assert (cap.category, cap.pairs, cap.agreed, report.waiting) == ("Cap On Liability", 3, 2, 1)
    assert cap.kappa == pytest.approx(0.5)  # p_o 2/3; p_e (accept 2·1 + reject 1·1) / 9 = 1/3
    assert (total.category, total.pairs) == (ALL, 3)
    pairs, waiting = review_pairs([])
    assert (pairs, waiting) == ([], 0)


# --- through the CLI ----------------------------------------------------------------------------

def test_audit_with_double_review_marks_its_share_and_the_cli_reports_agreement(
        sample_dir: Path, embedded_env: dict[str, str], tmp_path: Path) -> None:
    folder = some_samples(sample_dir, tmp_path / "in", TEXT_SAMPLES)
    audited = run_cli(["audit", str(folder), "--out", str(Path(embedded_env["CLAUSEMILL_DATA_DIR"]) / "report"),
                       "--batch-id", "dbl", "--double-review", "0.5"], embedded_env)
    assert audited.returncode == 0, audited.stdout + audited.stderr
    url = sqlite_url(embedded_env)
    with session_scope(url, write=False) as session:
        rows = session.execute(select(schema.ReviewItem, schema.Document.sha256).join(schema.Document)).all()
        assert session.get(schema.Batch, "dbl").options["double_review"] == 0.5
        marked = {item.id for item, _ in rows if reviews_needed(item.evidence) == 2}
        values = {item.id for item, _ in rows if question_of(item.evidence) == "value"}  # answered, not rejected
        expected = {item.id for item, sha256 in rows if in_double_review_sample(
            sha256, item.category, item.evidence["start"], item.evidence["end"], 0.5)}
    assert marked == expected and 0 < len(marked) < len(rows)
    with session_scope(url) as session:
        for n, item_id in enumerate(sorted(marked)):
            decide(session, item_id, "ann", "accept", 1, later(n))
            if n % 2:
                decide(session, item_id, "bob", "accept", 2, later(n))
            elif item_id in values:
                decide(session, item_id, "bob", "correct", 2, later(n), new={"value": "not stated"})
            else:
                decide(session, item_id, "bob", "reject", 2, later(n), reason="not_a_clause")
    result = run_cli(["review", "agreement", "--batch", "dbl"], embedded_env, timeout=60)
    assert result.returncode == 0, result.stderr
    [total] = [line for line in result.stdout.splitlines() if ALL in line]
    assert re.search(rf"{ALL}\s*│\s*{len(marked)}\s*│\s*{len(marked) // 2} \(\d+%\)\s*│\s*(n/a|-?\d\.\d\d)", total), total
    assert "0 double-reviewed item(s) wait for their second decision" in result.stdout
    added = run_cli(["users", "add", "cy"], embedded_env, timeout=60, input="pw-cy-correct-horse-battery\n")
    assert added.returncode == 0, added.stderr
    with session_scope(url, write=False) as session:
        open_items = session.scalar(select(func.count()).select_from(schema.ReviewItem)
                                    .where(schema.ReviewItem.status == "open"))
    assigned = run_cli(["review", "assign", "--to", "cy", "--batch", "dbl"], embedded_env, timeout=60)
    assert assigned.returncode == 0, assigned.stderr
    assert f"Assigned {open_items} open item(s) to cy." in assigned.stdout
    refused = run_cli(["review", "assign", "--to", "nobody"], embedded_env, timeout=60)
    assert refused.returncode == 2 and "no user named 'nobody'" in refused.stderr
    both = run_cli(["review", "assign", "--to", "cy", "--unassign"], embedded_env, timeout=60)
    assert both.returncode == 2
    unassigned = run_cli(["review", "assign", "--unassign", "--batch", "dbl", "--severity", "critical"], embedded_env,
                         timeout=60)
    assert unassigned.returncode == 0 and "Unassigned" in unassigned.stdout, unassigned.stderr
