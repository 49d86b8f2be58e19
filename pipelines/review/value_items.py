"""Which key-term values a person should give: review items that ask for a value.

A presence item asks "is this clause here?"; a value item asks "what is the effective date?"
and is answered by confirming the value read or typing the right one
(pipelines.review.value_edits).  A value earns an item, within the contract's review budget
(pipelines.review.budget), when a person's answer can change what the team acts on:

  - the playbook requires the term, or checks its value, and the contract was read as not
    stating it;
  - a deadline depends on it (the expiration, the renewal, the notice, or the start an
    expiration was computed from, while the term runs) and it is not near certain
    (DEADLINE_REVIEW_BELOW): a wrong date there is a missed notice window, so its stakes are
    at least DEADLINE_STAKES and it grows urgent as the first deadline nears;
  - the term's end could not be computed because its start was not read as a date: the
    reviewer's date gives the contract its deadlines (pipelines.terms.derived);
  - two readings of a date disagree: the value read from the whole text, and a confident
    clause finding of the same key term whose quote states another date (a rule's span): at
    least one of them is wrong.  Only where the value read is no calendar date or is not near
    certain: the clause rules' dates are the weaker reading (a renewal's "one (1) year" added to
    the effective date is no expiration), and a sample contract's right expiration, read at
    0.97, was asked about for one;
  - its confidence is under the playbook's `review_below`, as for a clause;
  - the random audit sample, as for clauses, so recalibration also sees confident values.

A value a reviewer already decided is never asked again.  Priority is the presence items'
formula (stakes x chance the value is wrong), the chance being 1 - confidence, or 1 where
the value is missing.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import date

from pipelines.assessment import ReviewItem
from pipelines.datamodel import Finding, KeyTerm
from pipelines.deadlines import EXPIRATION, KIND_TITLES, NOTICE, RENEWAL, dated_events, term_in_force
from pipelines.playbook.schema import Playbook
from pipelines.playbook.severity import worst
from pipelines.review.budget import Budget, in_audit_sample, priority
from pipelines.review.value_edits import FIELD_KINDS
from pipelines.terms.derived import decided_by
from pipelines.terms.display import display_value, parse_iso_date
from pipelines.terms.durations import describe
from pipelines.terms.term import TERM_CLAUSE
from pipelines.terms.value import NOT_STATED

DEADLINE_REVIEW_BELOW = 0.9
"""A value a coming deadline depends on is asked about under this (calibrated) confidence:
when it is wrong more than one time in ten.  On CUAD's training contracts as of 2026-12-06
(ops/benchmarks/value_review.py), reviewers were asked 82 questions (0.24 a contract) for 5 of
the 7 wrong deadline values; at 0.85, 41 questions caught 4 (the renewal terms, read at 0.86,
were asked 37 times and never wrong, but an effective date at 0.89 was).  A missed notice
window costs more than a question."""
DEADLINE_STAKES = "medium"
"""The least stakes of a value a deadline depends on, whatever the playbook weighs the clause."""
QUESTION = "value"


def value_items(key_terms: Mapping[str, KeyTerm], spans: Iterable[Finding], playbook: Playbook,
                budget: Budget) -> list[ReviewItem]:
    """One item per key-term value worth a person's answer (module docstring), unranked;
    `spans` are the document's clause findings, the other readings of its dates."""
    as_of = budget.as_of or date.today()
    other_dates = _other_dates(spans, playbook.thresholds.present)
    hinges, due = deadline_values(key_terms, as_of)
    missing_start = _undated_start(key_terms)
    cared = {c.category for c in playbook.value_checks} | {r.category for r in playbook.required}
    items = []
    for field, term in key_terms.items():
        f = term.finding
        if term.basis != "read" or f is None or field not in FIELD_KINDS or decided_by(f) is not None:
            continue
        shown = display_value(field, term.value, term.detail)
        stakes, chance, urgent_by = playbook.stakes(field), 1.0 - f.confidence, None
        if not term.stated and field in cared:
            reason, chance = (f"{field} is not stated (read as left blank in the contract), and the playbook "
                              "requires it or checks its value: give the agreed value, or confirm it is blank."), 1.0
        elif field == missing_start:
            term_length = (key_terms[EXPIRATION].detail.get("computed_from") or {}).get("term")
            reason = (f"The term runs {describe(term_length) if term_length else 'for a stated time'} from the "
                      f"{field}, which was read as “{shown}”, not a date: give the date, and the term's end and its "
                      "deadlines follow.")
            stakes, chance = worst([stakes, DEADLINE_STAKES]), 1.0
        elif other_dates.get(field, set()) - {term.value} and (parse_iso_date(term.value) is None
                                                             or f.confidence < DEADLINE_REVIEW_BELOW):
            others = sorted(other_dates[field] - {term.value})
            reason = (f"Two readings of the {field} disagree: “{shown}”, read from the whole contract, and "
                      + ", ".join(f"“{display_value(field, o)}”" for o in others)
                      + " in a clause found for it: give the right one.")
            chance = max(chance, 0.5)
            if field in hinges:
                stakes = worst([stakes, DEADLINE_STAKES])
        elif field in hinges and f.confidence < DEADLINE_REVIEW_BELOW and due is not None:
            reason = (f"The next deadline ({KIND_TITLES[due[0]].lower()}, {due[1].day} {due[1]:%B %Y}) depends on the {field}, "
                      f"read as “{shown}” at confidence {f.confidence:.2f}: confirm it or give the right value.")
            stakes, urgent_by = worst([stakes, DEADLINE_STAKES]), due[1]
        elif f.confidence < playbook.thresholds.review_below:
            reason = f"What is the {field}? The machine read “{shown}” but is unsure ({f.confidence:.2f})."
        elif in_audit_sample(f, budget.sample_rate):
            rank_, parts = priority(stakes, chance, budget)
            items.append(ReviewItem(f, f"Audit sample: a confident {field} value checked at random, so reviewers' "
                                    "answers also cover what the machine is sure of.", rank_,
                                    {**parts, "question": QUESTION, "sample": 1.0, "sample_rate": budget.sample_rate}))
            continue
        else:
            continue
        rank_, parts = priority(stakes, chance, _sooner(budget, urgent_by))
        items.append(ReviewItem(f, reason, rank_, {**parts, "question": QUESTION}))
    return items


def _other_dates(spans: Iterable[Finding], present: float) -> dict[str, set[str]]:
    """Per date key term, the calendar dates confident clause findings of it state."""
    found: dict[str, set[str]] = {}
    for f in spans:
        if FIELD_KINDS.get(f.category) == "date" and f.confidence >= present and parse_iso_date(f.value) is not None:
            found.setdefault(f.category, set()).add(str(f.value))
    return found


def deadline_values(key_terms: Mapping[str, KeyTerm], as_of: date) -> tuple[set[str], tuple[str, date] | None]:
    """The key terms the term in force's coming events are computed from, and the first event
    (its kind and date); nothing while no event is ahead."""
    term = term_in_force(dict(key_terms), as_of)
    events = dated_events(dict(key_terms), term, as_of)
    if not events:
        return set(), None
    fields = {EXPIRATION} | {f for f in (RENEWAL, NOTICE) if f in key_terms}
    start_from = key_terms[EXPIRATION].detail.get("start_from")
    if (key_terms[EXPIRATION].detail.get("computed_from") or {}).get("start") and start_from not in (None, TERM_CLAUSE):
        fields.add(start_from)
    kind, day, _ = events[0]
    return fields, (kind, day)


def _undated_start(key_terms: Mapping[str, KeyTerm]) -> str | None:
    """The key term an expiration would be computed from but which is no date (a reference, an
    event, a blank), where that key term was read."""
    expiration = key_terms.get(EXPIRATION)
    if expiration is None or expiration.value != NOT_STATED:
        return None
    computed, start_from = expiration.detail.get("computed_from") or {}, expiration.detail.get("start_from")
    if not computed or computed.get("start") is not None or start_from in (None, TERM_CLAUSE):
        return None
    return start_from if start_from in key_terms else None


def _sooner(budget: Budget, day: date | None) -> Budget:
    """The budget with its due date brought forward to `day`, so the item ages toward it."""
    if day is None or (budget.due is not None and budget.due <= day):
        return budget
    return replace(budget, due=day)
