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
