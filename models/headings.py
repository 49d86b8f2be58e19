"""The section heading each segment sits under: context a clause's own words often lack.

"Neither party shall, during the Term and for two years thereafter, ..." says nothing of what
it restrains; the "Non-Solicitation" heading three segments up does.  The router's lexical
term reads the heading's word pieces as features of their own (models/lexical.py), beside the
segment's.  A heading is a numbered or lettered title at the start of a segment ("6.4 Titles
and Headings.", "ARTICLE 7 CONFIDENTIALITY") or a short line in capitals; it holds until the
next one.
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment

_NUMBERED = re.compile(
    r"^\s*(?:(?:ARTICLE|Article|SECTION|Section)\s+)?(?:\d{1,2}(?:\.\d{1,2}){0,3}|[IVXL]{1,5}|[A-Z])[.)]?\s+"
    r"(?P<title>[A-Z][A-Za-z0-9,;&/'’\- ]{2,70}?)\s*(?:[.:]|\n|$|(?=\s{2,}))")
_CAPITALS = re.compile(r"^\s*(?P<title>[A-Z][A-Z0-9,;&/'’\- ]{3,60})\s*(?:\n|$)")
_MAX_WORDS = 8


def heading_of(text: str) -> str | None:
    """The heading a segment opens with, if any."""
    match = _NUMBERED.match(text) or _CAPITALS.match(text)
    if match is None:
        return None
    title = match.group("title").strip()
    return title if len(title.split()) <= _MAX_WORDS else None


def section_headings(segments: list[Segment], current: str = "") -> list[str]:
    """For each segment, the last heading at or before it (`current` before the first: the
    heading in force where a part of a document starts)."""
    out = []
    for segment in segments:
        current = heading_of(segment.text) or current
        out.append(current)
    return out
