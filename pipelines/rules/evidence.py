"""What a key-term extractor reports before it becomes a Finding.

Extractors only know where a span is and which kind of evidence found it; turning that into a
Finding (confidence from the pack's calibration, page and box from the segment holding the
span) is done once, in keyterms.py, so each extractor stays a small text function.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Evidence:
    """A span of the document text that evidences a key term.

    `kind` names the extractor path that found it ("parties/preamble-name"); the rule pack
    gives each kind a confidence and calibration measures its precision.
    """

    category: str
    start: int
    end: int
    kind: str
    value: str | None = None
