"""The agreement date and the effective date, or "not stated" when the contract leaves them open."""
from __future__ import annotations

from pipelines.datamodel import Segment
from pipelines.rules.contract_dates import agreement_date, effective_date
from pipelines.terms.value import NOT_STATED, Quote, TermValue


def read_dates(text: str, segments: list[Segment]) -> list[TermValue]:
    found = []
    agreement = agreement_date(text)
    if agreement:
        first = agreement[0]
        value = first.value if first.value and len(first.value) == 10 else NOT_STATED
        found.append(TermValue("Agreement Date", value, 0.8, (Quote(first.start, first.end, "date"),)))
    effective = effective_date(text, segments, agreement)
    dated = [e for e in effective if e.value and len(e.value) == 10]
    if dated:
        best = next((e for e in dated if e.kind in ("effective-date/called-effective", "effective-date/definition")),
                    dated[0])
        found.append(TermValue("Effective Date", best.value or NOT_STATED, 0.7, (Quote(best.start, best.end, "date"),)))
    return found
