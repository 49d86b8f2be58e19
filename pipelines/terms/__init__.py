"""Key-term values: what a contract's parties, dates, term, renewal, notice and law *are*.

`read_terms` reads them from the whole document text once per document (in the rules
analyser), each as a TermValue with the quotes it rests on.  It is deterministic text reading,
measured against CUAD's normalized answers by ops/benchmarks/keyterm_values.py.
"""
from __future__ import annotations

from dataclasses import replace

from pipelines.contract_type import classify_contract
from pipelines.datamodel import Segment
from pipelines.terms.dates import read_dates
from pipelines.terms.display import parse_iso_date
from pipelines.terms.law import read_governing_law
from pipelines.terms.parties import read_parties
from pipelines.terms.term import EXPIRATION, read_term
from pipelines.terms.value import NOT_STATED, VALUE_NOTE, Quote, TermValue

__all__ = ["CONTRACT_TYPE", "FIELDS", "INITIAL_TERM", "NOT_STATED", "VALUE_NOTE", "Quote", "TermValue", "read_terms"]
INITIAL_TERM = "Initial Term"
CONTRACT_TYPE = "Contract Type"
FIELDS: tuple[str, ...] = (
    CONTRACT_TYPE, "Parties", "Agreement Date", "Effective Date", INITIAL_TERM, "Expiration Date", "Renewal Term",
    "Notice Period To Terminate Renewal", "Governing Law",
)
"""The valued key terms, in the order reports show them.  All but Contract Type and Initial
Term are CUAD categories; CUAD has no category for the kind of contract or the term's length,
which lawyers read first."""


def read_terms(text: str, segments: list[Segment]) -> dict[str, TermValue]:
    """Every valued key term of one document, by field; a field the contract does not address
    is absent, one it leaves open is NOT_STATED."""
    values: list[TermValue] = [_contract_type(text)]
    parties = read_parties(text)
    if parties is not None:
        values.append(parties)
    dates = {v.field: v for v in read_dates(text, segments)}
    values += dates.values()
    values += [_with_start_named(v, dates)
               for v in read_term(text, segments, _term_start(dates), _calendar_date(dates.get("Agreement Date")))]
    law = read_governing_law(text, segments)
    if law is not None:
        values.append(law)
    return {v.field: v for v in values}


def _term_start(dates: dict[str, TermValue]) -> TermValue | None:
    """The date a term counts from when its clause names none: the effective date, else the
    agreement date, whichever is a calendar date.  An effective date the contract ties to an
    undated event ("effective as of the date the Site becomes operational", "the Closing Date")
    leaves the start open: the agreement date is not when such a term begins."""
    effective = dates.get("Effective Date")
    if effective is not None:
        return _calendar_date(effective)
    return _calendar_date(dates.get("Agreement Date"))


def _with_start_named(value: TermValue, dates: dict[str, TermValue]) -> TermValue:
    """An expiration computed from a start that was not a calendar date names the key term that
    start is (the effective date, else the agreement date, as `_term_start` chooses), so a
    reviewer who gives that date gets the expiration computed (pipelines.terms.derived).  A
    term counted from an event ("after the Launch Date") names none: no key term dates it."""
    computed = value.detail.get("computed_from")
    if value.field != EXPIRATION or not computed or computed.get("start") is not None or "start_from" in value.detail \
            or value.detail.get("counted_from") or value.detail.get("later_of_event"):
        return value
    start_from = "Effective Date" if "Effective Date" in dates else "Agreement Date"
    return replace(value, detail={**value.detail, "start_from": start_from})


def _calendar_date(value: TermValue | None) -> TermValue | None:
    return value if value is not None and parse_iso_date(value.value) is not None else None


def _contract_type(text: str) -> TermValue:
    decision = classify_contract(text)
    evidence = (Quote(*decision.span, "title"),) if decision.span else ()
    return TermValue(CONTRACT_TYPE, decision.type.value, decision.confidence, evidence,
                     {"reason": decision.evidence})
