"""Reviewers' decisions, applied to a document's findings before it is assessed again.

A decision is about the finding its item quoted (category and span).  Applied to the raw
findings it becomes evidence like any other: an accepted finding gains a reviewer's finding
at confidence 1, so it is verified and counts in issues and levels; a rejected one loses
every raw finding of its category on that span, so it is neither shown nor counted; a
correction does both, the reviewer's finding carrying the corrected category, span or value.
A value item (what is the effective date?) is answered by confirming the value read, which
makes it certain, or by typing the right one (pipelines.review.value_edits), which replaces it
and keeps the quotes the machine read it from; an expiration computed from a start the
reviewer corrected is computed again (pipelines.terms.derived).
Risk and issues are then recomputed by aggregation as for any document.

A double-reviewed item (pipelines/review/double_review.py) counts once both of its reviewers
decided, and then with the second (final) decision; until then the machine's call stands.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from pipelines.datamodel import REVIEWER_SOURCE, Finding
from pipelines.review.budget import same_evidence
from pipelines.review.double_review import final_decision
from pipelines.terms.derived import CORRECTED_BY, VERIFIED_BY, follow_corrections
from pipelines.terms.value import VALUE_NOTE

SOURCE = REVIEWER_SOURCE


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
    question: str = "presence"
    """What the item asked: "presence" (is this the clause?) or "value" (what is the key term's value?)."""


def question_of(evidence: dict | None) -> str:
    """What an item asks: "value" (a key term's value) or "presence" (is this the clause?)."""
    return ((evidence or {}).get("priority_parts") or {}).get("question") or "presence"


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
                               dict(row["new"] or {}), row["reviewer"], question_of(evidence)))
    return out


def apply_decisions(findings: list[Finding], decided: Iterable[Decided]) -> list[Finding]:
    """The findings as the reviewers left them (see the module docstring)."""
    out = list(findings)
    for d in decided:
        if d.question == "value" and _read_value(out, d.category) is not None:
            out = _confirmed(out, d) if d.action == "accept" else _retyped(out, d, d.category, d.start, d.end, d.text)
            continue
        decided_span = Finding(d.category, d.text, d.start, d.end, d.page, 1.0, SOURCE, d.reviewer)
        if d.action in ("reject", "correct"):
            out = [f for f in out if not (f.category == d.category and same_evidence(f, decided_span))]
        if d.action == "accept":
            out.append(replace(decided_span, note=f"verified by {d.reviewer}"))
        elif d.action == "correct":
            out = _corrected(out, d, decided_span)
    return follow_corrections(out)


def _read_value(findings: list[Finding], category: str) -> Finding | None:
    return next((f for f in findings if f.category == category and f.note == VALUE_NOTE), None)


def _confirmed(findings: list[Finding], d: Decided) -> list[Finding]:
    """A value the reviewer confirmed as read: certain, and saying who confirmed it."""
    value = _read_value(findings, d.category)
    assert value is not None
    confirmed = replace(value, confidence=1.0, detail={**(value.detail or {}), VERIFIED_BY: d.reviewer})
    return [confirmed if f is value else f for f in findings]


def _corrected(findings: list[Finding], d: Decided, decided_span: Finding) -> list[Finding]:
    """A corrected category or span is a reviewer's clause finding; a corrected value (a date,
    a jurisdiction) replaces the key term's read value, so it is what reports show."""
    category = d.new.get("category", d.category)
    start, end = int(d.new.get("start", d.start)), int(d.new.get("end", d.end))
    text = d.new.get("text", d.text)
    if "value" not in d.new:
        return [*findings, replace(decided_span, category=category, start=start, end=end, text=text,
                                   note=f"corrected by {d.reviewer}")]
    return _retyped(findings, d, category, start, end, text)


def _retyped(findings: list[Finding], d: Decided, category: str, start: int, end: int, text: str) -> list[Finding]:
    """The key term's value as the reviewer typed it, in place of the one read; it keeps the
    quotes the machine read its value from, and that value, so reports show what was corrected."""
    read = _read_value(findings, category)
    machine = (read.detail or {}) if read is not None else {}
    quotes = machine.get("evidence") or [{"role": "quote", "start": start, "end": end, "text": text, "page": d.page}]
    detail = {**(d.new.get("detail") or {}), "evidence": quotes, CORRECTED_BY: d.reviewer,
              "machine_value": read.value if read is not None else None}
    base = read or Finding(category, text, start, end, d.page, 1.0, SOURCE, d.reviewer)
    kept = [f for f in findings if not (f.category == category and f.note == VALUE_NOTE)]
    return [*kept, replace(base, confidence=1.0, source=SOURCE, version=d.reviewer, value=d.new["value"],
                           note=VALUE_NOTE, detail=detail)]
