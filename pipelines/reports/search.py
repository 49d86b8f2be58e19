"""Which contracts a portfolio search finds: words and quoted phrases over what a contract's
row and page say, a clause it contains, and a deadline within so many days.

"Uncapped Liability" "New York" finds contracts whose clauses, values or issues say both;
`clause=Uncapped Liability` only those with that clause found (present, or raising an issue);
`within=30` only those whose next deadline falls in the next 30 days (the triage shows
deadlines up to 90 days ahead: pipelines.deadlines.HORIZONS), also said in the search itself:
`renews automatically within 90 days`.  Words match without regard to case; every one given
must match.  The web app runs these over the contract summaries (web/routes/contracts.py).
"""
from __future__ import annotations

import re
import shlex

from pipelines.deadlines import TermInForce
from pipelines.reports.html_report import ContractView
from pipelines.terms.display import key_term_text


WITHIN = re.compile(r"\bwithin\s+(\d{1,4})\s+days?\b", re.IGNORECASE)
RENEWAL_WORDS = {"automatic": "renews automatically", "option": "renewal option", "conditional": "conditional extension"}
"""How a running term renews, in the words a search for it uses."""


def search_terms(q: str | None) -> tuple[list[str], int | None]:
    """The words and "quoted phrases" of a search, lower-cased (an unbalanced quote is a word),
    and the deadline window it names in words ("within 90 days"), or None."""
    if not q or not q.strip():
        return [], None
    said = WITHIN.search(q)
    if said:
        q = WITHIN.sub(" ", q)
    try:
        parts = shlex.split(q)
    except ValueError:
        parts = q.split()
    return [p.lower().strip() for p in parts if p.strip()], int(said.group(1)) if said else None


def term_words(term: TermInForce) -> str:
    """What a search reads of the term in force: its few words, and how a running term renews."""
    how = RENEWAL_WORDS.get(term.kind or "") if term.status == "running" else None
    return " ".join(p for p in (term.shown(), how) if p)


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
