"""The definitions of the defined terms a segment uses: context its own words leave out.

"Licensee shall not sell any Competing Product in the Territory" restrains only if a
"Competing Product" is one that competes; the definitions section says so, pages away.  ConReader
gave base-size models the definitions of the terms a clause refers to as extra input.  Here the
router's lexical term reads their word pieces beside the section heading's (models/headings.py).

A definition is '"Term" means ...' (or "shall mean", "has the meaning", "refers to") up to the
end of its sentence, or a phrase followed by '(the "Term")', whose last words are what the term
stands for.  A term used all over the document ("Agreement", "Party") says nothing about one
segment, so those and terms found in more than a fifth of the segments are left out.
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment

_TERM = r"[“\"]\s*(?P<term>[A-Z][\w&'’./-]*(?:\s+[\w&'’./-]+){0,5}?)\s*[”\"]"
_MEANS_RE = re.compile(
    _TERM + r"\s*(?:,\s*)?(?:shall\s+mean|means|shall\s+have\s+the\s+meaning|has\s+the\s+meaning|refers\s+to|"
    r"shall\s+refer\s+to|includes|shall\s+include)\s+(?P<definition>[^.;]{3,400})")
_NAMED_RE = re.compile(
    r"\(\s*(?:the\s+|each\s+(?:a|an)\s+|collectively\s*,?\s*(?:the\s+)?|"
    r"hereinafter\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?)?" + _TERM + r"\s*\)")
_NAMED_STARTS_RE = re.compile(r".*(?:[();]|\.\s)", re.DOTALL)  # what is before the phrase a term names
DEFINITION_WORDS = 24
"""Words of each definition kept: a definition's head says what the term is."""
TERMS_PER_SEGMENT = 3
COMMON_SHARE = 0.2
PREAMBLE_CHARS = 2500
"""Where the parties are named: a '(the "Term")' this early is a party's short name."""
_GENERIC = frozenset({"agreement", "this agreement", "party", "parties", "effective date", "term"})


def find_definitions(segments: list[Segment]) -> dict[str, str]:
    """Each defined term's definition, the first one given, in words.  The parties' own short
    names ("Acme", "Licensee") are left out: their definitions are names and addresses."""
    found: dict[str, str] = {}
    for segment in segments:
        for m in _MEANS_RE.finditer(segment.text):
            found.setdefault(m.group("term"), _head(m.group("definition")))
        for m in _NAMED_RE.finditer(segment.text):
            if segment.start + m.start() < PREAMBLE_CHARS:
                found.setdefault(m.group("term"), "")
                continue
            before = segment.text[max(0, m.start() - 300):m.start()]
            phrase = before[cut.end():] if (cut := _NAMED_STARTS_RE.match(before)) else before
            found.setdefault(m.group("term"), " ".join(phrase.split()[-DEFINITION_WORDS:]))
    return {term: definition for term, definition in found.items()
            if definition and term.casefold() not in _GENERIC}


def definition_contexts(segments: list[Segment], definitions: dict[str, str] | None = None) -> list[str]:
    """For each segment, the definitions of the defined terms it uses (at most three, in the
    order they appear), or "" when it uses none.  `definitions` are the whole document's when
    `segments` are only a part of it."""
    definitions = find_definitions(segments) if definitions is None else definitions
    if not definitions:
        return [""] * len(segments)
    terms = sorted(definitions, key=len, reverse=True)
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(t) for t in terms) + r")(?!\w)")
    uses = [list(dict.fromkeys(m.group() for m in pattern.finditer(s.text))) for s in segments]
    counts: dict[str, int] = {}
    for found in uses:
        for term in found:
            counts[term] = counts.get(term, 0) + 1
    limit = max(2, COMMON_SHARE * len(segments))
    contexts = []
    for segment, found in zip(segments, uses):
        words = " ".join(segment.text.split())
        chosen = [t for t in found if counts[t] <= limit and definitions[t] not in words]
        contexts.append(" ".join(definitions[t] for t in chosen[:TERMS_PER_SEGMENT]))
    return contexts


def _head(definition: str) -> str:
    return " ".join(definition.split()[:DEFINITION_WORDS])
