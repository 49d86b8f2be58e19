"""The contract's initial term, its expiration, how it renews and the notice that stops renewal."""
from __future__ import annotations

from pipelines.datamodel import Segment
from pipelines.rules.contract_dates import expiration_date
from pipelines.rules.renewal import find_renewal_notice, find_renewal_terms
from pipelines.terms.value import Quote, TermValue


def read_term(text: str, segments: list[Segment], effective: TermValue | None) -> list[TermValue]:
    found = []
    start = effective.value if effective is not None and effective.stated else None
    for e in expiration_date(text, segments, start):
        if e.value:
            found.append(TermValue("Expiration Date", e.value, 0.6, (Quote(e.start, e.end, "term clause"),)))
            break
    for e in find_renewal_terms(text, segments):
        if e.value:
            found.append(TermValue("Renewal Term", e.value, 0.6, (Quote(e.start, e.end, "renewal clause"),)))
            break
    for e in find_renewal_notice(text, segments):
        if e.value:
            found.append(TermValue("Notice Period To Terminate Renewal", e.value, 0.6,
                                   (Quote(e.start, e.end, "notice clause"),)))
            break
    return found
