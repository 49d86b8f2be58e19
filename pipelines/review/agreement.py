"""How far two reviewers of the same item agree, per category: Cohen's kappa over the
double-reviewed items (double_review.py).

Raw agreement flatters: when nine items in ten are accepted, two reviewers who accept
everything agree 90% of the time while telling nothing apart.  Kappa counts only agreement
beyond what the two reviewers' own label frequencies give by chance: 1 is perfect, 0 no better
than chance, below 0 worse.  The labels are the decision's action (accept, correct, reject);
the two raters are an item's first and second reviewer.  Kappa is undefined (n/a) without a
pair, or when chance alone already agrees always (both reviewers used one and the same label).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from pipelines.review.double_review import REVIEWS_NEEDED, reviews_needed, standing_rows
from storage.schema import Document, ReviewDecision, ReviewItem

LABELS: tuple[str, ...] = ("accept", "correct", "reject")
ALL = "all categories"


def cohen_kappa(matrix: Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa of a square confusion matrix (rows: the first rater's label, columns:
    the second's); None when undefined (no ratings, or chance agreement is already 1)."""
    n = sum(sum(row) for row in matrix)
    if n == 0:
        return None
    observed = sum(matrix[k][k] for k in range(len(matrix))) / n
    chance = sum(sum(matrix[k]) * sum(row[k] for row in matrix) for k in range(len(matrix))) / n**2
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


def confusion(pairs: Iterable[tuple[str, str]], labels: Sequence[str] = LABELS) -> list[list[int]]:
    """The confusion matrix of (first label, second label) pairs, in `labels` order."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for first, second in pairs:
        matrix[index[first]][index[second]] += 1
    return matrix


@dataclass(frozen=True)
class Pair:
    """The two standing decisions on one double-reviewed item."""

    item_id: int
    category: str
    first: str
    second: str


@dataclass(frozen=True)
class Agreement:
    category: str
    pairs: int
    agreed: int
    kappa: float | None

    @property
    def share_agreed(self) -> float | None:
        return self.agreed / self.pairs if self.pairs else None


@dataclass(frozen=True)
class AgreementReport:
    rows: list[Agreement]
    """Per category, alphabetically, then ALL over every pair."""
    waiting: int
    """Double-reviewed items with one decision, waiting for their second."""


def review_pairs(trail: Iterable[dict]) -> tuple[list[Pair], int]:
    """The pairs of decisions on double-reviewed items, from trail rows in order (dicts with
    item_id, action, reviewer, previous), and how many such items wait for a second decision.
    The category is the item's as both reviewers saw it (a correction changes only the finding)."""
    by_item: dict[int, list[dict]] = {}
    for row in trail:
        if row["item_id"] is not None:  # an item replaced by a re-run: its trail no longer pairs up
            by_item.setdefault(row["item_id"], []).append(row)
    pairs, waiting = [], 0
    for item_id, rows in by_item.items():
        stack = standing_rows(rows)
        if not stack or reviews_needed(stack[0]["previous"].get("evidence")) < 2:
            continue
        if len(stack) == 1:
            waiting += 1
            continue
        first, second = stack[0], stack[1]
        pairs.append(Pair(item_id, str(first["previous"].get("category")), first["action"], second["action"]))
    return pairs, waiting


def agreement_by_category(pairs: Sequence[Pair]) -> list[Agreement]:
    """Kappa and raw agreement per category, then over all pairs."""
    groups: dict[str, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(pair.category, []).append(pair)
    return [_agreement(category, groups[category]) for category in sorted(groups)] + [_agreement(ALL, pairs)]


def _agreement(category: str, pairs: Sequence[Pair]) -> Agreement:
    return Agreement(category, len(pairs), sum(p.first == p.second for p in pairs),
                     cohen_kappa(confusion((p.first, p.second) for p in pairs)))


def agreement(session: Session, batch_id: str | None = None) -> AgreementReport:
    """The reviewers' agreement on the double-reviewed items of one batch, or of all."""
    double = select(ReviewItem.id).where(ReviewItem.evidence[REVIEWS_NEEDED].as_integer() > 1)
    query = (select(ReviewDecision.item_id, ReviewDecision.action, ReviewDecision.reviewer, ReviewDecision.previous)
             .where(ReviewDecision.item_id.in_(double)).order_by(ReviewDecision.id))
    if batch_id is not None:
        query = query.join(Document, Document.id == ReviewDecision.document_id).where(Document.batch_id == batch_id)
    rows = ({"item_id": i, "action": a, "reviewer": r, "previous": dict(p or {})} for i, a, r, p in session.execute(query))
    pairs, waiting = review_pairs(rows)
    return AgreementReport(agreement_by_category(pairs), waiting)
