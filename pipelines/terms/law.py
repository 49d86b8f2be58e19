"""The governing law as a place, with the forum kept apart when a clause names one."""
from __future__ import annotations

from pipelines.datamodel import Segment
from pipelines.rules.governing_law import find_governing_law
from pipelines.terms.value import Quote, TermValue

FIELD = "Governing Law"


def read_governing_law(text: str, segments: list[Segment]) -> TermValue | None:
    for e in find_governing_law(text, segments):
        if e.value:
            return TermValue(FIELD, e.value, 0.9, (Quote(e.start, e.end, "governing-law clause"),))
    return None
