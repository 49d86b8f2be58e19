"""Narrowing a segment to the sentence that holds a match.

Segments are meant to be sentences, but a segmenter fed a run-on paragraph or a table can
return long ones; CUAD annotates single sentences, so key terms report the sentence around
the words that matched rather than the whole segment.
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment

LONG_SEGMENT_CHARS = 600
_SENTENCE_BREAK_RE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(\"“])|\n\s*\n")


def sentence_around(text: str, segment: Segment, start: int, end: int) -> tuple[int, int]:
    """Bounds of the sentence of `segment` containing text[start:end].

    Short segments are returned whole; long ones are cut at sentence breaks around the match.
    """
    if segment.end - segment.start <= LONG_SEGMENT_CHARS:
        return segment.start, segment.end
    left, right = segment.start, segment.end
    for m in _SENTENCE_BREAK_RE.finditer(text, segment.start, segment.end):
        if m.end() <= start:
            left = m.end()
        elif m.start() >= end:
            right = m.start()
            break
    return left, right
