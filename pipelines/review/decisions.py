"""Reviewers' decisions, applied to a document's findings before it is assessed again.

A decision is about the finding its item quoted (category and span).  Applied to the raw
findings it becomes evidence like any other: an accepted finding gains a reviewer's finding
at confidence 1, so it is verified and counts in issues and levels; a rejected one loses
every raw finding of its category on that span, so it is neither shown nor counted; a
correction does both, the reviewer's finding carrying the corrected category, span or value.
Risk and issues are then recomputed by aggregation as for any document.

A double-reviewed item (pipelines/review/double_review.py) counts once both of its reviewers
decided, and then with the second (final) decision; until then the machine's call stands.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from pipelines.datamodel import Finding
from pipelines.review.budget import same_evidence
from pipelines.review.double_review import final_decision
from pipelines.terms.value import VALUE_NOTE

SOURCE = "reviewer"


@dataclass(frozen=True)
class Decided:
    """The decision that stands on one finding: the last one not undone."""

    category: str
    start: int
    end: int
    page: int
    text: str
    action: str  # accept | correct | reject
    new: dict
    reviewer: str


def standing(trail: Iterable[dict]) -> list[Decided]:
    """Per item, its standing decision, from the trail in order (dicts with item_id, action,
    previous, new, reviewer): an undo cancels the decision before it, and an item that needs
    two reviews has one only when two stand (the last is the final one)."""
    rows: dict[int, list[dict]] = {}
    for row in trail:
        rows.setdefault(row["item_id"], []).append(row)
    out = []
    for item_rows in rows.values():
        if (row := final_decision(item_rows)) is not None:
            evidence = row["previous"].get("evidence") or {}
            out.append(Decided(row["previous"]["category"], int(evidence.get("start") or 0), int(evidence.get("end") or 0),
                               int(evidence.get("page") or 1), evidence.get("text") or "", row["action"],
                               dict(row["new"] or {}), row["reviewer"]))
    return out


def apply_decisions(findings: list[Finding], decided: Iterable[Decided]) -> list[Finding]:
    """The findings as the reviewers left them (see the module docstring)."""
    out = list(findings)
    for d in decided:
        decided_span = Finding(d.category, d.text, d.start, d.end, d.page, 1.0, SOURCE, d.reviewer)
        if d.action in ("reject", "correct"):
            out = [f for f in out if not (f.category == d.category and same_evidence(f, decided_span))]
        if d.action == "accept":
            out.append(replace(decided_span, note=f"verified by {d.reviewer}"))
        elif d.action == "correct":
            out = _corrected(out, d, decided_span)
    return out


def _corrected(findings: list[Finding], d: Decided, decided_span: Finding) -> list[Finding]:
    """A corrected category or span is a reviewer's clause finding; a corrected value (a date,
    a jurisdiction) replaces the key term's read value, so it is what reports show."""
    category = d.new.get("category", d.category)
    start, end = int(d.new.get("start", d.start)), int(d.new.get("end", d.end))
    text = d.new.get("text", d.text)
    if "value" not in d.new:
        return [*findings, replace(decided_span, category=category, start=start, end=end, text=text,
                                   note=f"corrected by {d.reviewer}")]
    quote = {"role": f"corrected by {d.reviewer}", "start": start, "end": end, "text": text, "page": d.page}
    kept = [f for f in findings if not (f.category == category and f.note == VALUE_NOTE)]
    return [*kept, replace(decided_span, category=category, start=start, end=end, text=text, value=d.new["value"],
                           note=VALUE_NOTE, detail={"evidence": [quote], "corrected_by": d.reviewer})]
