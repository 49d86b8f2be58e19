"""Which contracts a portfolio search finds: words and quoted phrases over what a contract's
row and page say, a clause it contains, and a deadline within so many days.

"Uncapped Liability" "New York" finds contracts whose clauses, values or issues say both;
`clause=Uncapped Liability` only those with that clause found (present, or raising an issue);
`within=30` only those whose next deadline falls in the next 30 days (the triage shows
deadlines up to 90 days ahead: pipelines.deadlines.HORIZONS).  Words match without
regard to case; every one given must match.
"""
from __future__ import annotations

import shlex
from datetime import date

from pipelines.reports.html_report import ContractView
from pipelines.terms.display import key_term_text


def search_terms(q: str | None) -> list[str]:
    """The words and "quoted phrases" of a search, lower-cased; an unbalanced quote is a word."""
    if not q or not q.strip():
        return []
    try:
        parts = shlex.split(q)
    except ValueError:
        parts = q.split()
    return [p.lower() for p in parts if p.strip()]


def searchable(c: ContractView) -> str:
    """Everything a search reads of one contract, lower-cased: its name, parties, type, term,
    key-term values, clauses found, issues and next deadline."""
    a = c.assessment
    parts = [c.doc.filename, c.counterparty, c.contract_type, c.our_role, c.term, *c.top_issues]
    if a is not None:
        parts += [f"{name} {key_term_text(term)}" for name, term in a.key_terms.items()]
        parts += [m.finding.category for m in a.present()]
        parts += [f"{v.category} {v.label}" for v in c.issues]
        parts.append(a.risk_level)
    if c.deadline is not None:
        parts.append(c.deadline.explanation())
    return " ".join(p for p in parts if p).lower()


def matches(c: ContractView, terms: list[str], clause: str | None, within: int | None, as_of: date) -> bool:
    """Whether the contract is one the search asks for (module docstring)."""
    if terms:
        text = searchable(c)
        if not all(term in text for term in terms):
            return False
    if clause:
        wanted = clause.strip().lower()
        a = c.assessment
        found = {m.finding.category.lower() for m in a.present()} if a is not None else set()
        if wanted not in found | {v.category.lower() for v in c.issues}:
            return False
    if within is not None:
        if c.deadline is None or not 0 <= (c.deadline.date - as_of).days <= within:
            return False
    return True
