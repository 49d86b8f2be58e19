"""Finding the governing-law clause and the jurisdiction it chooses.

CUAD annotates the whole sentence ("This Agreement shall be governed by ... the laws of the
State of New York, without regard to ..."), and reports want the jurisdiction as a name, so
each clause is reported as its sentence with the normalized jurisdiction as value.
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment
from pipelines.rules.evidence import Evidence
from pipelines.rules.jurisdictions import LAWS_OF_X_GOVERN, chosen_jurisdiction
from pipelines.rules.spans import sentence_around

CATEGORY = "Governing Law"
_CLAUSE_RE = re.compile(
    r"\bgoverned\s+(?:by|in\s+accordance\s+with|under)|\bgoverning\s+law\b|"
    r"\bgovern(?:ed|s)\b[^.;]{0,150}?\blaws?\s+of\b|\bapplication\s+of\s+the\s+laws?\s+of\b|"
    r"\bconstrued\s+(?:and\s+\w+\s+)?(?:in\s+accordance\s+with|under)|\binterpreted\s+(?:in\s+accordance\s+with|under)|"
    rf"{LAWS_OF_X_GOVERN}|"
    r"\bsubject\s+to\s+the\s+laws?\s+of",
    re.IGNORECASE,
)


def find_governing_law(text: str, segments: list[Segment]) -> list[Evidence]:
    """Governing-law sentences with the jurisdiction they choose.

    The first clause naming a jurisdiction is the contract's own; later ones often govern an
    attached document (a note, a bill of sale), and a clause naming no jurisdiction is mostly a
    heading or a cross-reference, so each is a weaker evidence kind.
    """
    found = []
    for segment in segments:
        m = _CLAUSE_RE.search(segment.text)
        if not m:
            continue
        start, end = sentence_around(text, segment, segment.start + m.start(), segment.start + m.end())
        jurisdiction = chosen_jurisdiction(text[start:end])
        if jurisdiction is None:
            kind = "governing-law/clause-without-jurisdiction"
        elif any(e.value for e in found):
            kind = "governing-law/additional-clause"
        else:
            kind = "governing-law/clause"
        found.append(Evidence(CATEGORY, start, end, kind, jurisdiction))
    return found
