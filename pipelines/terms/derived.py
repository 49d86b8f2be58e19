"""Values computed from other values, computed again when a reviewer corrects what they rest on.

An expiration the contract does not date is its start plus the initial term
(pipelines.terms.term), and names the key term its start is (`start_from`).  When a reviewer
gives or corrects that start (the effective date, say), the expiration follows, so the term in
force, its deadlines and the calendar move with the reviewer's date: a reviewer who types the
effective date of a contract whose start the machine could not date gets its deadlines.  A
value a reviewer decided is theirs and is never computed over.
"""
from __future__ import annotations

from dataclasses import replace

from pipelines.datamodel import Finding
from pipelines.terms.display import parse_iso_date
from pipelines.terms.durations import as_relativedelta
from pipelines.terms.term import END_OF_START_YEAR, EXPIRATION
from pipelines.terms.value import NOT_STATED, VALUE_NOTE

CORRECTED_BY, VERIFIED_BY = "corrected_by", "verified_by"
"""The `detail` keys that mark a value a reviewer typed, or confirmed as read."""


def decided_by(finding: Finding) -> str | None:
    """Who decided a value finding (typed or confirmed it); None for one as the machine read it."""
    detail = finding.detail or {}
    return detail.get(CORRECTED_BY) or detail.get(VERIFIED_BY)


def follow_corrections(findings: list[Finding]) -> list[Finding]:
    """The findings with the expiration computed again from a start a reviewer corrected."""
    values = {f.category: f for f in findings if f.note == VALUE_NOTE}
    expiration = values.get(EXPIRATION)
    if expiration is None or decided_by(expiration) is not None:
        return findings
    detail = expiration.detail or {}
    computed, start = detail.get("computed_from"), values.get(detail.get("start_from") or "")
    if not computed or start is None or not (start.detail or {}).get(CORRECTED_BY):
        return findings
    recomputed = _expiration_from(expiration, computed, start)
    return [recomputed if f is expiration else f for f in findings]


def _expiration_from(expiration: Finding, computed: dict, start: Finding) -> Finding:
    """The expiration as its start (the reviewer's) and its term give it; "not stated" when
    the reviewer said the start is."""
    day = parse_iso_date(start.value)
    period = as_relativedelta(computed.get("term"))
    if day is None:
        value = NOT_STATED
    elif computed.get("until") == END_OF_START_YEAR:
        value = f"{day.year}-12-31"
    elif period is not None:
        value = (day + period).isoformat()
    else:
        return expiration
    detail = {**(expiration.detail or {}), "computed_from": {**computed, "start": day.isoformat() if day else None},
              "start_corrected_by": start.detail[CORRECTED_BY]}
    return replace(expiration, value=value, detail=detail)
