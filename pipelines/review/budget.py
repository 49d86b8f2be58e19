"""The review budget: only items worth a person's time, a few per contract.

A queue of every doubtful span (26 per contract on CUAD) is a queue nobody works.  An item
earns its place when a person's answer can change an outcome: the best candidate of a
category near the presence decision (is the clause there?) decides whether a clause is
reported, a required clause is missing or a risky clause raises an issue; a weaker candidate
of the same category changes nothing while the best one stands.  Items quoting the same text
are one item, unless they ask for different values (a renewal term and its notice, read from
one sentence).  Each contract keeps its `per_contract` most urgent items, and a small random
share of the confident findings goes to review as well, so reviewers' labels also cover what
the machine is sure of (recalibration needs both).

Priority is the expected cost of leaving the item unreviewed: the weight of the playbook's
stakes in the category times the probability that the machine's call is wrong, which for a
calibrated confidence c is 1 - c when it says "present" (c >= present) and c when it says
"absent".  When the batch has a due date (`clausemill audit --due`), an urgency factor
1 + 7 / (7 + days left) weighs it in: 2 on the day (and after), 1.5 a week before, 1.07 three
months before, so items age as the date nears (`rerank` recomputes it each day).  A contract's
business stakes weigh in too, when the batch says them (`--tier`, or a contract register with
a tier and a value per file): the tier's weight (`review_tiers`: standard 1, important 2,
critical 4 by default) times 1 + log10(value / `review_value_reference`) for a value above the
reference, so a contract worth ten times the reference counts double and a small one is not
pushed below the rest.  Every part stays on the item.
"""
from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from pipelines.assessment import ReviewItem
from pipelines.datamodel import Finding
from pipelines.playbook.severity import WEIGHTS


URGENCY_DAYS = 7


@dataclass(frozen=True)
class ContractStakes:
    """What a contract is worth to the business, as far as the batch says: its tier and value,
    and the weight they give its items' priority."""

    tier: str | None = None
    value: float | None = None
    weight: float = 1.0

    def parts(self) -> dict[str, float | str]:
        parts: dict[str, float | str] = {}
        if self.tier is not None:
            parts["tier"] = self.tier
        if self.value is not None:
            parts["value"] = self.value
        if parts:
            parts["contract_weight"] = self.weight
        return parts


def contract_stakes(tier: str | None, value: float | None, tiers: Mapping[str, float],
                    value_reference: float) -> ContractStakes:
    """The weight of a contract's tier (`tiers`) times that of its value (module docstring)."""
    weight = 1.0
    if tier is not None:
        if tier not in tiers:
            raise ValueError(f"unknown tier {tier!r}: choose one of {', '.join(tiers)}")
        weight *= tiers[tier]
    if value is not None and value_reference > 0 and value > value_reference:
        weight *= 1.0 + math.log10(value / value_reference)
    return ContractStakes(tier, value, round(weight, 4))


@dataclass(frozen=True)
class Budget:
    per_contract: int = 5
    sample_rate: float = 0.02
    due: date | None = None
    """When the batch's review must be done, if it has a date."""
    as_of: date | None = None
    """The day urgency is counted from (today when None)."""
    contract: ContractStakes = ContractStakes()
    """The contract's business stakes, when the batch gives them."""
    learning: tuple[tuple[str, str], ...] = ()
    """Young taught clause types (name, version) whose own budget of learning questions is not
    used up (LEARNING_OPEN, LEARNING_PER_VERSION): each may ask one question per contract."""

    def urgency(self) -> float:
        return urgency(self.due, self.as_of or date.today())


def urgency(due: date | None, today: date) -> float:
    """How much a due date raises priority: 1 without one, 2 on the day or after it."""
    if due is None:
        return 1.0
    return round(1.0 + URGENCY_DAYS / (URGENCY_DAYS + max((due - today).days, 0)), 4)


def priority(stakes: str, p_wrong: float, budget: Budget | None = None) -> tuple[float, dict[str, float | str]]:
    """The expected cost of not reviewing: the stakes' weight times the chance the call is
    wrong, times the contract's business weight and the urgency of the batch's due date when
    the batch gives them."""
    parts: dict[str, float | str] = {"stakes": stakes, "weight": WEIGHTS[stakes], "p_wrong": round(p_wrong, 4)}
    if budget is None:
        return round(WEIGHTS[stakes] * p_wrong, 4), parts
    parts.update(budget.contract.parts())
    factor = 1.0
    if budget.due is not None:
        factor = budget.urgency()
        parts.update(due=budget.due.isoformat(), urgency=factor)
    return round(WEIGHTS[stakes] * p_wrong * budget.contract.weight * factor, 4), parts


def reranked(parts: dict, today: date) -> tuple[float, dict] | None:
    """An item's priority as of `today`, from its parts; None when it has no due date (it does not age)."""
    if not parts.get("due"):
        return None
    factor = urgency(date.fromisoformat(str(parts["due"])), today)
    weight = float(parts["weight"]) * float(parts["p_wrong"]) * float(parts.get("contract_weight", 1.0))
    return round(weight * factor, 4), {**parts, "urgency": factor}


def p_wrong(confidence: float, present: float) -> float:
    """How likely the machine's presence call on this finding is wrong, if `confidence` is calibrated."""
    return 1.0 - confidence if confidence >= present else confidence


def best_per_category(findings: Iterable[Finding]) -> list[Finding]:
    """The most confident finding of each category: the one the presence decision rests on."""
    best: dict[str, Finding] = {}
    for f in findings:
        if f.category not in best or f.confidence > best[f.category].confidence:
            best[f.category] = f
    return list(best.values())


def in_audit_sample(finding: Finding, rate: float) -> bool:
    """Whether a confident finding is in the random audit sample: a hash of where it is, so an
    audit run again samples the same findings and the queue does not churn."""
    key = f"{finding.category}|{finding.start}|{finding.end}|{finding.text[:80]}".encode()
    draw = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2**64
    return draw < rate


LEARNING_OPEN = 20
"""Learning questions of one taught clause type's version open at once."""
LEARNING_PER_VERSION = 50
"""Learning questions one version asks in all; then its answers wait for `clausemill clauses retrain`."""


def within_budget(items: list[ReviewItem], budget: Budget) -> list[ReviewItem]:
    """One item per quoted text and question (the most urgent; the others' categories named in its reason),
    then the `per_contract` most urgent.  Audit-sample items (parts["sample"]) and a young
    taught type's learning questions (parts["learning"]) come on top of the cap: they are there
    because they were not chosen by urgency, and have budgets of their own."""
    merged: list[ReviewItem] = []
    for item in sorted(items, key=lambda r: (-r.priority, r.finding.start)):
        same = next((m for m in merged if same_evidence(m.finding, item.finding) and _asks_alike(m, item)), None)
        if same is None:
            merged.append(item)
        elif item.finding.category != same.finding.category:
            same.reason += f" The same text was also read as {item.finding.category}."
    on_top = [m for m in merged if m.parts.get("sample") or m.parts.get("learning")]
    ranked = [m for m in merged if not (m.parts.get("sample") or m.parts.get("learning"))][: budget.per_contract]
    return ranked + on_top


def _asks_alike(a: ReviewItem, b: ReviewItem) -> bool:
    """Whether one answer settles both items: two clauses read on the same words are one
    question (which is it?), but two values read from one sentence (a renewal term and its
    notice) are two, and neither is answered by saying whether a clause is there."""
    question_a, question_b = a.parts.get("question") or "presence", b.parts.get("question") or "presence"
    return question_a == question_b and (question_a != "value" or a.finding.category == b.finding.category)


def same_evidence(a: Finding, b: Finding) -> bool:
    """Two findings quote the same text: their spans overlap by most of the shorter one."""
    if a.end <= a.start or b.end <= b.start:
        return False
    overlap = min(a.end, b.end) - max(a.start, b.start)
    return overlap > 0.5 * min(a.end - a.start, b.end - b.start)
