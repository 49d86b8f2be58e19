"""What is decided about a document, as values: thresholds, issues, review items, sides, and the
assessment that holds them.

They sit below every stage so that reports, deadlines, nightly deltas, the web app and the
workers can read an assessment without importing the stage that makes it
(pipelines.aggregate), the playbook checks that raise its issues, or the review budget that
ranks its items.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pipelines.datamodel import DocumentResult, Finding, KeyTerm, MergedFinding


@dataclass(frozen=True)
class Thresholds:
    """Confidence cut-offs.

    `present`: a category counts as found from this confidence on (required/risky/value checks).
    `review_below`: findings under it go to human review; an issue sets the contract's level,
    and a risky clause's issue is stated in the report, only from it on (verified).  `floor`: candidates under it are
    noise; they only reach predictions.jsonl, where the CUAD metric sweeps every threshold.
    """

    present: float = 0.5
    review_below: float = 0.75
    floor: float = 0.2

    def to_dict(self) -> dict:
        return {"present": self.present, "review_below": self.review_below, "floor": self.floor}


IssueKind = Literal["missing", "risky", "value"]


@dataclass
class Issue:
    """A problem the playbook finds in a document, and what to ask for instead."""

    kind: IssueKind
    finding: Finding
    advice: str | None = None


@dataclass
class ReviewItem:
    """A finding a person must confirm, why, and how urgently (`parts` say how it was ranked)."""

    finding: Finding
    reason: str
    priority: float
    parts: dict[str, float | str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"finding": self.finding.to_dict(), "reason": self.reason, "priority": self.priority,
                "parts": self.parts}


@dataclass(frozen=True)
class Party:
    """A party as the contract names it: its legal name, its defined short names, its role."""

    name: str
    short_names: tuple[str, ...] = ()
    role: str | None = None

    def to_dict(self) -> dict:
        return {"name": self.name, "short_names": list(self.short_names), "role": self.role}

    @classmethod
    def from_dict(cls, data: dict) -> Party:
        return cls(data["name"], tuple(data.get("short_names") or ()), data.get("role"))


@dataclass(frozen=True)
class Sides:
    """The contract's parties and, when the team said who it is and it signs here, which is us."""

    parties: tuple[Party, ...] = ()
    us: int | None = None
    """Index into `parties`; None when no name was given or none of them is a party."""
    named: tuple[str, ...] = ()
    """The names the team gave for itself (empty: nobody said)."""

    @property
    def our_party(self) -> Party | None:
        return self.parties[self.us] if self.us is not None else None

    @property
    def our_role(self) -> str | None:
        return self.our_party.role if self.our_party is not None else None

    @property
    def counterparties(self) -> tuple[Party, ...]:
        """Everyone but us; every party when we are not known."""
        return tuple(p for i, p in enumerate(self.parties) if i != self.us)

    def to_dict(self) -> dict:
        return {"parties": [p.to_dict() for p in self.parties], "us": self.us, "named": list(self.named)}

    @classmethod
    def from_dict(cls, data: dict | None) -> Sides:
        if not data:
            return cls()
        return cls(tuple(Party.from_dict(p) for p in data["parties"]), data.get("us"), tuple(data.get("named") or ()))


@dataclass
class DocumentAssessment:
    """Everything decided about one document; stored as JSON and rendered by pipelines.reports."""

    playbook: str
    thresholds: Thresholds
    findings: list[MergedFinding]
    key_terms: dict[str, KeyTerm]
    issues: list[Issue]
    review: list[ReviewItem]
    risk_score: float
    risk_level: str
    sides: Sides = field(default_factory=Sides)
    calibration: int | None = None
    """The reviewer calibration (pipelines.review.recalibration) its confidences went through."""

    def shown(self) -> list[MergedFinding]:
        """Findings worth showing a person: those at or above the playbook's floor."""
        return [m for m in self.findings if m.finding.confidence >= self.thresholds.floor]

    def present(self) -> list[MergedFinding]:
        """Findings confident enough to count the clause as present."""
        return [m for m in self.findings if m.finding.confidence >= self.thresholds.present]

    def to_dict(self) -> dict:
        return {
            "playbook": self.playbook,
            "thresholds": self.thresholds.to_dict(),
            "findings": [{"finding": m.finding.to_dict(), "evidence": [e.to_dict() for e in m.evidence]}
                         for m in self.findings],
            "key_terms": {
                name: {"category": k.category, "value": k.value, "basis": k.basis,
                       "finding": k.finding.to_dict() if k.finding else None,
                       "candidates": [c.to_dict() for c in k.candidates]}
                for name, k in self.key_terms.items()
            },
            "issues": [{"kind": i.kind, "finding": i.finding.to_dict(), "advice": i.advice} for i in self.issues],
            "review": [r.to_dict() for r in self.review],
            "risk_score": self.risk_score,
            "risk_level": self.risk_level,
            "sides": self.sides.to_dict(),
            "calibration": self.calibration,
        }

    @classmethod
    def from_dict(cls, data: dict) -> DocumentAssessment:
        return cls(
            playbook=data["playbook"],
            thresholds=Thresholds(**data["thresholds"]),
            findings=[MergedFinding(Finding.from_dict(m["finding"]), [Finding.from_dict(e) for e in m["evidence"]])
                      for m in data["findings"]],
            key_terms={
                name: KeyTerm(k["category"], k["value"], Finding.from_dict(k["finding"]) if k["finding"] else None,
                              k["basis"], [Finding.from_dict(c) for c in k["candidates"]])
                for name, k in data["key_terms"].items()
            },
            issues=[Issue(i["kind"], Finding.from_dict(i["finding"]), i["advice"]) for i in data["issues"]],
            review=[ReviewItem(Finding.from_dict(r["finding"]), r["reason"], r["priority"], r.get("parts") or {})
                    for r in data["review"]],
            risk_score=data["risk_score"],
            risk_level=data["risk_level"],
            sides=Sides.from_dict(data.get("sides")),
            calibration=data.get("calibration"),
        )


Assessed = tuple[DocumentResult, DocumentAssessment | None]
"""A document with its assessment; None when it has none (failed, duplicate, pending)."""


