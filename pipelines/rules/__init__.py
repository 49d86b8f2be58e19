"""Rules and key terms: the deterministic half of clause finding.

`analyse_segments` is the stage entry point: it runs the shipped rule pack over a document's
segments and extracts its key terms (name, parties, dates, governing law, renewal), every
finding carrying the pack version and a calibrated confidence.
"""
from __future__ import annotations

from pipelines.datamodel import Finding, Segment
from pipelines.rules.engine import apply_rules
from pipelines.rules.keyterms import extract_key_terms
from pipelines.rules.pack import RulePack, RulePackError, default_rule_pack, load_rule_pack

__all__ = [
    "RulePack", "RulePackError", "analyse_segments", "apply_rules", "default_rule_pack",
    "extract_key_terms", "load_rule_pack",
]


def analyse_segments(text: str, segments: list[Segment]) -> list[Finding]:
    """Rule and key-term findings for one document, with the shipped pack."""
    pack = default_rule_pack()
    return apply_rules(pack, segments) + extract_key_terms(text, segments, pack)
