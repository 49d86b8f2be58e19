"""Screening rule patterns by the words every match contains (pipelines/rules/screen.py)."""
from __future__ import annotations

import re
import sys

from pipelines.rules import default_rule_pack
from pipelines.rules.engine import _finding, apply_rules
from pipelines.rules.screen import ASCII_TWINS, SegmentNeedles, folded, screened
from pipelines.samples.contracts import generate_contract
from pipelines.datamodel import Finding, PageText
from pipelines.stages.segment import segment_document


def _needles(source: str) -> set[str]:
    return set(screened(re.compile(source, re.IGNORECASE)).needles)


def test_needles_are_what_every_match_must_contain() -> None:
    assert _needles(r"\bliabilit(?:y|ies)\b[^.;]{0,200}?\b(?:shall|will)\s+not") == {"liabilit"}
    assert _needles(r"\b(?:most\s+favou?red|best\s+price)\b") == {"most", "price"}  # one from each branch
    assert _needles(r"(?:sub)?licen[sc]e") == {"licen"}  # optional parts and wide classes give none
    assert _needles(r"[Ss]ource\s+code") == {"source"}  # a class of one letter in both cases is that letter
    assert _needles(r"(?=.*escrow)\w+") == set()  # lookarounds are not counted: always searched


def test_a_pattern_without_needles_is_always_searched() -> None:
    pattern = screened(re.compile(r"\d+\s*\w+", re.IGNORECASE))
    assert pattern.needles == () and pattern.found_in("within 30 days", folded("within 30 days"))


def test_the_characters_ignorecase_equates_with_ascii_letters_are_all_mapped() -> None:
    """Python's IGNORECASE matches these four with ASCII letters; a text that spells a needle
    with them must still be searched."""
    letters = re.compile("[a-z]", re.IGNORECASE)
    twins = {code for code in range(128, sys.maxunicode + 1) if letters.fullmatch(chr(code))}
    assert twins == set(ASCII_TWINS)
    pattern = screened(re.compile(r"\bliability\b", re.IGNORECASE))
    for text in ("LIABILITY", "L\u0131ABILITY", "l\u0130ability"):
        assert pattern.found_in(text, folded(text)) is (pattern.regex.search(text) is not None) is True


def test_the_screened_pack_finds_what_the_plain_regexes_find() -> None:
    patterns = [p for rule in default_rule_pack().rules for p in (*rule.match, *rule.require, *rule.unless)]
    assert all(p.needles for p in patterns)  # every pattern of the shipped pack has a screen
    checked = 0
    for seed in range(6):
        for segment in segment_document([PageText(number=1, text=generate_contract(seed).text, source="plain")]):
            lowered = folded(segment.text)
            for pattern in patterns:
                assert pattern.found_in(segment.text, lowered) is (pattern.regex.search(segment.text) is not None)
                checked += 1
    assert checked > 10_000


def test_segments_are_screened_by_one_scan_per_needle() -> None:
    """apply_rules searches a rule only in the segments SegmentNeedles finds its needles in;
    its findings are those of every rule tried on every segment."""
    pack = default_rule_pack()
    segments = [s for seed in range(4)
                for s in segment_document([PageText(number=1, text=generate_contract(seed).text, source="plain")])]
    lowered = [folded(s.text) for s in segments]
    needles = SegmentNeedles(lowered)
    assert needles.containing("shall") == {i for i, text in enumerate(lowered) if "shall" in text}
    assert needles.containing("no such needle") == frozenset()
    everywhere = []
    for segment, text in zip(segments, lowered):
        best: dict[str, Finding] = {}
        for rule in pack.rules:
            if rule.applies_to(segment.text, text):
                candidate = _finding(pack, rule, segment)
                if rule.category not in best or candidate.confidence > best[rule.category].confidence:
                    best[rule.category] = candidate
        everywhere += best.values()
    assert len(everywhere) > 50 and apply_rules(pack, segments) == everywhere
