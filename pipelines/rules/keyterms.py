"""Key terms: the short, valued facts of a contract (name, parties, dates, law, renewal).

Each extractor returns Evidence spans; this module turns them into Findings with the pack's
calibrated confidence for the evidence kind, and the page and box of the segment holding the
span.  Offsets index the document text exactly (`text[f.start:f.end] == f.text`).
"""
from __future__ import annotations

import bisect

from pipelines.datamodel import Finding, Segment
from pipelines.rules.contract_dates import contract_dates
from pipelines.rules.evidence import Evidence
from pipelines.rules.governing_law import find_governing_law
from pipelines.rules.pack import RulePack, default_rule_pack
from pipelines.rules.parties import find_parties
from pipelines.rules.renewal import find_renewal_notice, find_renewal_terms
from pipelines.rules.title import find_document_name

SOURCE = "key-terms"


class SegmentIndex:
    """Finds the segment holding an offset (segments are sorted and disjoint)."""

    def __init__(self, segments: list[Segment]) -> None:
        self._segments = sorted(segments, key=lambda s: s.start)
        self._starts = [s.start for s in self._segments]

    def at(self, offset: int) -> Segment | None:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0 and offset < self._segments[i].end:
            return self._segments[i]
        return None


def _evidence(text: str, segments: list[Segment]) -> list[Evidence]:
    return [
        *find_document_name(text),
        *find_parties(text),
        *contract_dates(text, segments),
        *find_renewal_terms(text, segments),
        *find_renewal_notice(text, segments),
        *find_governing_law(text, segments),
    ]


def extract_key_terms(text: str, segments: list[Segment], pack: RulePack | None = None) -> list[Finding]:
    """Key-term findings for one document, one per distinct (category, span).

    `pack` supplies confidences and severities; the shipped pack when None.
    """
    pack = pack or default_rule_pack()
    index = SegmentIndex(segments)
    findings: list[Finding] = []
    seen: set[tuple[str, int, int]] = set()
    for ev in _evidence(text, segments):
        key = (ev.category, ev.start, ev.end)
        if key in seen or ev.start >= ev.end:
            continue
        seen.add(key)
        segment = index.at(ev.start)
        findings.append(
            Finding(
                category=ev.category,
                text=text[ev.start:ev.end],
                start=ev.start,
                end=ev.end,
                page=segment.page if segment else 1,
                confidence=pack.key_term_confidence(ev.kind),
                source=SOURCE,
                version=pack.version,
                box=segment.box if segment else None,
                severity=pack.severity(ev.category),
                value=ev.value,
                note=ev.kind,
            )
        )
    return pack.carry_presence(findings)
