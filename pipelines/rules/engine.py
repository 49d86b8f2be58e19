"""Applying a compiled rule pack to a document's segments.

Each segment is one clause or sentence, the unit CUAD annotates, so a rule that fires on a
segment yields that segment as the evidence span.  When several rules of one category fire on
the same segment only the most confident one is kept, and its id is recorded in `note` so a
reviewer (and the calibration script) can see which rule spoke.  A rule marked `presence: true`
speaks for the whole contract as well: its best finding carries the measured rate at which
contracts where it fires have the category (RulePack.carry_presence).
"""
from __future__ import annotations

from collections import defaultdict

from pipelines.datamodel import Finding, Segment
from pipelines.rules.pack import Rule, RulePack
from pipelines.rules.screen import SegmentNeedles, folded


def _finding(pack: RulePack, rule: Rule, segment: Segment) -> Finding:
    return Finding(
        category=rule.category,
        text=segment.text,
        start=segment.start,
        end=segment.end,
        page=segment.page,
        confidence=pack.confidence(rule.id, rule.confidence),
        source="rules",
        version=pack.version,
        box=segment.box,
        severity=rule.severity,
        note=rule.id,
    )


def apply_rules(pack: RulePack, segments: list[Segment]) -> list[Finding]:
    """One finding per (segment, category) that some rule of the pack evidences."""
    lowered = [folded(segment.text) for segment in segments]
    needles = SegmentNeedles(lowered)
    applying: dict[int, list[Rule]] = defaultdict(list)  # segment -> its rules, in pack order
    for rule in pack.rules:
        for i in needles.candidates(rule.match):
            if rule.applies_to(segments[i].text, lowered[i]):
                applying[i].append(rule)
    findings: list[Finding] = []
    for i in sorted(applying):
        best: dict[str, Finding] = {}
        for rule in applying[i]:
            candidate = _finding(pack, rule, segments[i])
            kept = best.get(rule.category)
            if kept is None or candidate.confidence > kept.confidence:
                best[rule.category] = candidate
        findings.extend(best.values())
    return pack.carry_presence(findings)
