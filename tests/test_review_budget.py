"""The review budget: only what can change an outcome, one item per quoted text, a cap per contract."""
from __future__ import annotations

from pipelines.aggregate import aggregate_document
from pipelines.datamodel import Finding
from pipelines.playbook import load_playbook
from pipelines.review.budget import Budget, in_audit_sample

NO_SAMPLE = Budget(per_contract=5, sample_rate=0.0)


def f(category: str, start: int, confidence: float, end: int | None = None) -> Finding:
    end = end if end is not None else start + 80
    return Finding(category, f"{category} text at {start}", start, end, 1, confidence, "model", "m1")


def test_only_the_best_candidate_of_a_category_is_reviewed() -> None:
    findings = [f("Non-Compete", 100, 0.6), f("Non-Compete", 900, 0.4), f("Non-Compete", 1500, 0.3)]
    review = aggregate_document(findings, load_playbook(None), budget=NO_SAMPLE).review
    # The weaker candidates change nothing while the best one stands.
    assert [(r.finding.category, r.finding.start) for r in review] == [("Non-Compete", 100)]


def test_items_quoting_the_same_text_are_one_item() -> None:
    findings = [f("Non-Compete", 100, 0.6, 300), f("Exclusivity", 120, 0.55, 310)]
    review = aggregate_document(findings, load_playbook(None), budget=NO_SAMPLE).review
    assert len(review) == 1
    assert review[0].finding.category == "Non-Compete"  # the more urgent reading
    assert "also read as Exclusivity" in review[0].reason


def test_each_contract_keeps_its_most_urgent_items() -> None:
    categories = ["Non-Compete", "Exclusivity", "Cap On Liability", "Audit Rights", "Insurance", "Warranty Duration",
                  "Most Favored Nation", "Change Of Control"]
    findings = [f(c, 1000 * i, 0.55) for i, c in enumerate(categories)]
    everything = aggregate_document(findings, load_playbook(None), budget=Budget(100, 0.0)).review
    capped = aggregate_document(findings, load_playbook(None), budget=Budget(3, 0.0)).review
    assert len(everything) == len(categories)
    assert capped == everything[:3]
    assert [r.priority for r in everything] == sorted((r.priority for r in everything), reverse=True)


def test_a_random_share_of_confident_findings_is_sampled_the_same_way_each_time() -> None:
    confident = [f("Insurance", 200 * i, 0.95) for i in range(2000)]
    sampled = [x for x in confident if in_audit_sample(x, 0.02)]
    assert 20 <= len(sampled) <= 60  # about 2% of 2,000
    assert sampled == [x for x in confident if in_audit_sample(x, 0.02)]
    one = next(x for x in confident if in_audit_sample(x, 0.02))
    review = aggregate_document([one], load_playbook(None), budget=Budget(0, 0.02)).review
    assert [r.parts.get("sample") for r in review] == [1.0]  # on top of a cap of 0
    assert review[0].reason.startswith("Audit sample")


def test_a_due_date_raises_priority_and_items_age_as_it_nears() -> None:
    from datetime import date

    from pipelines.review.budget import reranked, urgency

    assert urgency(None, date(2026, 12, 1)) == 1.0
    assert urgency(date(2026, 12, 8), date(2026, 12, 1)) == 1.5
    assert urgency(date(2026, 12, 1), date(2026, 12, 1)) == urgency(date(2026, 11, 20), date(2026, 12, 1)) == 2.0
    finding = [f("Non-Compete", 100, 0.6)]
    plain = aggregate_document(finding, load_playbook(None), budget=NO_SAMPLE).review[0]
    due = Budget(5, 0.0, due=date(2026, 12, 8), as_of=date(2026, 12, 1))
    urgent = aggregate_document(finding, load_playbook(None), budget=due).review[0]
    assert urgent.priority == round(plain.priority * 1.5, 4)
    assert urgent.parts["due"] == "2026-12-08" and urgent.parts["urgency"] == 1.5
    later, parts = reranked(urgent.parts, date(2026, 12, 8))
    assert later == round(plain.priority * 2.0, 4) and parts["urgency"] == 2.0
    assert reranked(plain.parts, date(2026, 12, 8)) is None


def test_rerank_ages_open_items_with_a_due_date(database_url: str) -> None:
    from datetime import date
    from pathlib import Path

    from storage import repository, schema
    from storage.database import session_scope

    due = Budget(5, 0.0, due=date(2026, 12, 31), as_of=date(2026, 12, 1))
    review = aggregate_document([f("Non-Compete", 100, 0.6), f("Exclusivity", 900, 0.55)], load_playbook(None),
                                budget=due).review
    with session_scope(database_url) as session:
        [document_id] = repository.create_batch(session, "due", [Path("/contracts/a.pdf")], {"due": "2026-12-31"})
        repository.replace_review_items(session, document_id, [
            {"category": r.finding.category, "reason": r.reason, "priority": r.priority,
             "evidence": {"start": r.finding.start, "end": r.finding.end, "priority_parts": r.parts}} for r in review])
    with session_scope(database_url) as session:
        before = {i.category: i.priority for i in session.query(schema.ReviewItem)}
        assert repository.rerank_review_items(session, date(2026, 12, 31)) == 2
        assert repository.rerank_review_items(session, date(2026, 12, 31)) == 0  # once a day is enough
    with session_scope(database_url, write=False) as session:
        after = {i.category: (i.priority, i.evidence["priority_parts"]["urgency"]) for i in session.query(schema.ReviewItem)}
    assert all(after[c][0] > before[c] and after[c][1] == 2.0 for c in before)


def test_the_due_option_travels_with_the_batch() -> None:
    import typer

    from pipelines.cli.batches import batch_options

    assert batch_options(None, "full", due="2026-12-31")["due"] == "2026-12-31"
    assert "due" not in batch_options(None, "full")
    try:
        batch_options(None, "full", due="next friday")
    except typer.BadParameter as error:
        assert "not a date" in str(error)
    else:
        raise AssertionError("a date that is not one must be refused")
