"""Key-term values as findings, so they are stored, merged and reported with the rest.

A value finding quotes its value's first piece of evidence; `detail` carries the value's
structure and every quote with its page, so the report and the review app can show how the
value was reached without the document text.  Its confidence is how often such a reading was
right on CUAD's training contracts (pipelines/terms/calibration.py); `detail["read_confidence"]`
keeps the reader's own constant, which says which reading path gave the value.
"""
from __future__ import annotations

from pipelines.datamodel import Finding, Segment
from pipelines.rules.keyterms import SegmentIndex
from pipelines.rules.pack import RulePack, default_rule_pack
from pipelines.terms import read_terms
from pipelines.terms.calibration import calibrated
from pipelines.terms.value import VALUE_NOTE, TermValue

SOURCE = "key-term values"


def value_findings(text: str, segments: list[Segment], pack: RulePack | None = None) -> list[Finding]:
    """One finding per key term read_terms reads, marked with VALUE_NOTE."""
    pack = pack or default_rule_pack()
    index = SegmentIndex(segments)
    return [_value_finding(value, text, index, pack) for value in read_terms(text, segments).values()]


def _value_finding(value: TermValue, text: str, index: SegmentIndex, pack: RulePack) -> Finding:
    quotes = [
        {"role": q.role, "start": q.start, "end": q.end, "text": " ".join(text[q.start:q.end].split()),
         "page": segment.page if (segment := index.at(q.start)) else 1}
        for q in value.evidence
    ]
    first = value.evidence[0] if value.evidence else None
    segment = index.at(first.start) if first else None
    return Finding(
        category=value.field,
        text=text[first.start:first.end] if first else "",
        start=first.start if first else 0,
        end=first.end if first else 0,
        page=segment.page if segment else 1,
        confidence=calibrated(value.field, value.confidence),
        source=SOURCE,  # not "key-terms": a value is not a second copy of its evidence's span
        version=pack.version,
        box=segment.box if segment else None,
        severity=pack.severity(value.field),
        value=value.value,
        note=VALUE_NOTE,
        detail={**value.detail, "evidence": quotes, "read_confidence": value.confidence},
    )
