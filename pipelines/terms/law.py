"""The governing law as a place ("New York", "Ontario, Canada"), with the forum kept apart.

A governing-law clause is found by what it says ("governed by", "construed in accordance
with", a "Governing Law" heading), and the place is read from a window around it rather than
from one sentence: the heading and the clause are often split ("7.2 Governing Law. This
Agreement ... shall be governed by ... the laws of the State of Israel").  The same words
describe where a party is organized ("a company organized under the laws of Singapore"), so
those windows do not count.  Courts and arbitration seats are the forum, a different question
from the law, and reports show both.
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment
from pipelines.rules.jurisdictions import (
    LAWS_OF, LAWS_OF_X_GOVERN, SHALL_GOVERN, SPELLINGS, US_STATES, chosen_jurisdiction, normalise_jurisdiction,
)
from pipelines.rules.keyterms import SegmentIndex
from pipelines.terms.value import Quote, TermValue

FIELD = "Governing Law"
WINDOW_CHARS = 600
HEADING_CHARS = 60
FIRM = 0.9  # cues at least this strong say the clause chooses the law
LOOK_BEHIND_CHARS = 120

# What a governing-law clause says, strongest first.
_CUES: tuple[tuple[re.Pattern[str], float], ...] = (
    # A heading: "Governing Law.", "12.3 Applicable Law:", "CHOICE OF LAW" on its own line.
    (re.compile(r"\bgoverning\s+laws?\b|(?:^|\n|\d\s|\.\s)\s*(?:applicable|choice\s+of|controlling)\s+laws?\s*(?:[.:;\n]|and\b)",
                re.IGNORECASE), 0.9),
    (re.compile(r"\bgoverned\b[^.;]{0,80}?\b(?:by|in\s+accordance\s+with|under|pursuant\s+to)\s+(?:the\s+)?"
                r"(?:\w+\s+){0,2}?laws?\b", re.IGNORECASE), 0.95),
    (re.compile(r"\b(?:construed|interpreted|enforced|controlled|applied)\b[^.;]{0,80}?"
                r"\b(?:in\s+accordance\s+with|under|by|pursuant\s+to)\b[^.;]{0,40}?\blaws?\b", re.IGNORECASE), 0.9),
    # "the laws of X shall govern", and in the present tense "the laws of X govern this Agreement"
    (re.compile(LAWS_OF_X_GOVERN, re.IGNORECASE), 0.9),
    (re.compile(r"\bsubject\s+to\s+(?:and\s+governed\s+by\s+)?the\s+(?:\w+\s+)?laws?\s+of\b", re.IGNORECASE), 0.75),
    # a place's law as the subject: "New York law shall govern this Agreement"
    (re.compile(r"\b(?:[A-Z][a-z]+\s+){1,3}laws?\s+(?:shall\s+|will\s+)?(?:govern|governs|appl(?:y|ies))\b"), 0.9),
)
# "a company organized and existing under the laws of Singapore": where a party is organized.
_ORGANISED_RE = re.compile(
    r"\b(?:organi[sz]ed|incorporated|existing|formed|established|registered|chartered|constituted)\b"
    r"[^.;]{0,40}?\b(?:under|in\s+accordance\s+with|pursuant\s+to)\s+the\s+laws?\s+(?:of\s+)?$", re.IGNORECASE)
# A law named by its adjective: "English law", "Colombian private law".
_ADJECTIVES = {
    "English": "England", "Scottish": "Scotland", "Scots": "Scotland", "Irish": "Ireland", "German": "Germany",
    "French": "France", "Swiss": "Switzerland", "Italian": "Italy", "Spanish": "Spain",
    "Dutch": "Netherlands", "Israeli": "Israel", "Chinese": "China", "Japanese": "Japan",
    "Korean": "South Korea", "Indian": "India", "Brazilian": "Brazil", "Colombian": "Colombia",
    "Mexican": "Mexico", "Canadian": "Canada", "Australian": "Australia", "Singaporean": "Singapore",
    "Swedish": "Sweden", "Danish": "Denmark", "Norwegian": "Norway", "Finnish": "Finland",
    "Belgian": "Belgium", "Austrian": "Austria", "Taiwanese": "Taiwan", "Polish": "Poland",
    "Luxembourg": "Luxembourg", "Portuguese": "Portugal", "Greek": "Greece", "Turkish": "Turkey",
    "Russian": "Russia", "Argentine": "Argentina", "Chilean": "Chile", "Peruvian": "Peru",
    "Thai": "Thailand", "Malaysian": "Malaysia", "Indonesian": "Indonesia", "Philippine": "Philippines",
    "Vietnamese": "Vietnam", "Saudi": "Saudi Arabia", "Emirati": "United Arab Emirates",
    "Cypriot": "Cyprus", "Maltese": "Malta", "Czech": "Czech Republic", "Hungarian": "Hungary",
}
_ADJECTIVE_RE = re.compile(
    r"\b(?P<adjective>" + "|".join(_ADJECTIVES) + r")\s+(?:\w+\s+){0,2}?laws?\b")
_PARTY_DESCRIPTION_RE = re.compile(
    r"\b(?:a|an)\s+[A-Z][\w ]{2,30}\s+(?:corporation|company|limited|partnership)\b|principal\s+place\s+of\s+business")
# A full stop that ends a sentence, not one in "U.S.", "Inc." or "Sec. 5".
_LEADING_PUNCTUATION_RE = re.compile(r"[\W_]*")
_SENTENCE_END_RE = re.compile(r"(?<!\b[A-Z])(?<!\bInc)(?<!\bNo)(?<!\bSec)(?<!\bCo)\.\s+(?=[A-Z(\d])|\n\s*\n")
_SUBJECT_MATTER_RE = re.compile(
    r"\b(?:patent|copyright|trademark|securities|tax|export|import|bankruptcy|antitrust|competition|labou?r|"
    r"employment|environmental|privacy|anti-corruption|immigration|customs|federal|banking)\s+$",
    re.IGNORECASE)
_STATE_RE = re.compile(r"\b(?:State|Commonwealth)\s+of\s+(?:[A-Z][a-z]+\s?){1,3}", re.IGNORECASE)
_GOVERNS_AFTER_RE = re.compile(rf"[^.;]{{2,80}}?\s+{SHALL_GOVERN}", re.IGNORECASE)
_LAWS_OF_RE = re.compile(LAWS_OF, re.IGNORECASE)
# The forum: "the courts of the State of New York", "exclusive jurisdiction of the courts
# located in Santa Clara County", "arbitration ... in London", "venue shall be in ...".
_FORUM_RE = re.compile(
    r"\b(?:courts?|tribunals?)\s+(?:of|located\s+in|sitting\s+in|situated\s+in|in|at|for)\s+(?:the\s+)?"
    r"(?P<court>[^.;()]{3,90}?)(?=\s*(?:[,.;(]|\band\b(?!\s+Wales\b)|\b(?:shall|will|may|have|has|are|is)\b|\bfor\b|"
    r"\bhaving\b|\bwith\b|$))"
    r"|\b(?:venue|seat|place)\s+of\s+(?:the\s+)?(?:arbitration|jurisdiction|any\s+(?:suit|action|proceeding))?[^.;]{0,40}?"
    r"\b(?:(?:shall|will)\s+be|is)\s+(?:in\s+)?(?P<seat>[^.;()]{3,80}?)(?=\s*[,.;(]|$)"
    # "the exclusive jurisdiction of the English courts"
    r"|\bthe\s+(?P<adjective>" + "|".join(_ADJECTIVES) + r")\s+courts\b"
    r"|\barbitration\b[^.;]{0,120}?\b(?:held|conducted|seated|take\s+place)\s+in\s+(?P<arbitration>[^.;()]{3,80}?)"
    r"(?=\s*(?:[,.;(]|\band\b|\bunder\b|\bin\s+accordance\b|$))",
    re.IGNORECASE,
)
# A line that runs on into the next: it ends in a lower-case word or a comma.
_RUNS_ON_RE = re.compile(r"[a-z,]\s*\n$")
_FORUM_CUE_RE = re.compile(r"\b(?:jurisdiction|venue|courts?|arbitration|forum)\b", re.IGNORECASE)


def read_governing_law(text: str, segments: list[Segment]) -> TermValue | None:
    """The law the contract chooses: the earliest clause that says so firmly and names a place.

    The first clause is the contract's own; later ones often govern an attached note, a
    state addendum or an escrow agreement.  A weak cue ("subject to the laws of") only counts
    when no firm one names a place.
    """
    index = SegmentIndex(segments)
    found = []
    for pattern, strength in _CUES:
        for m in pattern.finditer(text):
            if m.group().startswith("\n") and _RUNS_ON_RE.search(text, max(0, m.start() - 40), m.start() + 1):
                continue  # "the requirements of\nApplicable Laws and Regulations": a line break, not a heading
            place = _place_after(text, index, m.start())
            if place is not None:
                found.append((strength < FIRM, m.start(), strength, place, m.end()))
    if not found:
        return None
    _, cue, strength, place, end = min(found)
    start, end = _sentence(text, index, cue, end)
    if end - cue < HEADING_CHARS < cue - start:  # a heading at the tail of the clause before it
        start = text.rfind("\n", start, cue) + 1 or cue
    names_a_law = _LAWS_OF_RE.search(text, start, end) or _ADJECTIVE_RE.search(text, start, end)
    if end - start < HEADING_CHARS or not names_a_law:
        # the cue is a heading of its own ("Article 9 Applicable Law; Modifications; ..."):
        # quote the clause under it
        under = _clause_end(text, cue)
        segment = index.at(under - 1)
        end = max(end, min(segment.end, segment.start + 1200) if segment is not None else under)
    detail: dict = {"place": place}
    forum = _forum(text, start)
    if forum is not None:
        detail.update(forum=forum[0], forum_text=forum[1])
    return TermValue(FIELD, place, strength, (Quote(start, end, "governing-law clause"),), detail)


def _place_after(text: str, index: SegmentIndex, start: int) -> str | None:
    """The jurisdiction the clause at `start` chooses, looking a window ahead (and a little behind,
    for "the laws of X shall govern"); None when the window names none or only describes where a
    party is organized."""
    offset = max(0, start - LOOK_BEHIND_CHARS)
    window = text[offset:_clause_end(text, start)]
    cue = start - offset
    places = []
    for m in _LAWS_OF_RE.finditer(window):
        if _ORGANISED_RE.search(window[max(0, m.start() - 100):m.end()]):
            continue
        if _SUBJECT_MATTER_RE.search(window, max(0, m.start() - 30), m.start()):
            continue  # "the patent laws of the United States": a body of law, not the contract's
        if m.start() < cue and not _GOVERNS_AFTER_RE.match(window, m.end()):
            continue  # "laws of" before the cue belongs to an earlier sentence
        place = chosen_jurisdiction(" ".join(window[m.start():m.start() + 120].split()))
        if place is not None:
            places.append(place)
    adjective = _ADJECTIVE_RE.search(window, cue)
    if adjective is not None:
        places.append(_ADJECTIVES[adjective.group("adjective")])
    if not places:
        return _place_in_sentence(text, index, start)
    return _state_over_country(places[0], window[cue:])


def _state_over_country(place: str, clause: str) -> str:
    """The state where the clause names the country and a state ("the laws of the United
    States of America and of the State of Texas"): a US contract's law is a state's."""
    if place != "United States":
        return place
    named = (normalise_jurisdiction(m.group()) for m in _STATE_RE.finditer(" ".join(clause.split())))
    return next((p for p in named if p in US_STATES), place)


def _clause_end(text: str, start: int) -> int:
    """Where the clause that starts at `start` ends: its sentence, or the next one when the cue
    is a heading ("Governing Law. This Agreement shall be ...")."""
    # a heading's cue starts at its number's "." ("9.05.  Applicable Law."), which ends no sentence
    start = _LEADING_PUNCTUATION_RE.match(text, start).end()
    limit = min(len(text), start + WINDOW_CHARS)
    first = _SENTENCE_END_RE.search(text, start, limit)
    if first is None:
        return limit
    if first.start() - start < HEADING_CHARS:
        second = _SENTENCE_END_RE.search(text, first.end(), limit)
        return second.start() + 1 if second else limit
    return first.start() + 1


def _place_in_sentence(text: str, index: SegmentIndex, start: int) -> str | None:
    """A place the cue's own sentence names, for clauses that point back to it ("accepted in
    the State of Nevada and governed by the laws thereof"), unless it only describes a party."""
    left, right = _sentence(text, index, start, start + 1)
    if right - start < HEADING_CHARS:
        # a heading glued to the end of the paragraph before it ("... State of Texas.
        # Governing Law." / "New York law governs this Agreement."): the clause is what follows
        after = len(text) - len(text[right:].lstrip())
        following = index.at(after)
        left, right = start, (following.end if following is not None else right)
    sentence = text[left:right]
    if _PARTY_DESCRIPTION_RE.search(sentence):
        return None
    place = chosen_jurisdiction(" ".join(sentence.split()))
    return _state_over_country(place, sentence) if place is not None else None


def _sentence(text: str, index: SegmentIndex, start: int, end: int) -> tuple[int, int]:
    """The clause's bounds: the segment holding the cue, or a sentence-sized window."""
    segment = index.at(start)
    if segment is not None:
        return segment.start, min(segment.end, segment.start + 1200)
    stop = text.find(". ", start)
    return start, (stop + 1 if 0 <= stop < end + 300 else end)


def _forum(text: str, start: int) -> tuple[str, str] | None:
    """Where disputes are heard, when the clause or the one after it names a court or a seat."""
    window = text[start:start + 1500]
    for m in _FORUM_RE.finditer(window):
        if m.group("adjective"):
            return _ADJECTIVES[m.group("adjective")], _forum_quote(window, m)
        raw = next(g for g in (m.group("court"), m.group("seat"), m.group("arbitration")) if g)
        place = " ".join(raw.split()).rstrip(" ,")
        if not place or not _FORUM_CUE_RE.search(window[max(0, m.start() - 200):m.end()]):
            continue
        normalized = chosen_jurisdiction("laws of " + place)
        if normalized is None and place.casefold() not in SPELLINGS and not re.search(r"[A-Z]", place):
            continue  # "courts of competent jurisdiction": no place named
        if re.match(r"(?i)competent|any\b|such\b|appropriate|the\s+parties", place):
            continue
        return place, _forum_quote(window, m)
    return None


def _forum_quote(window: str, m: re.Match[str]) -> str:
    """The words that name the forum, with up to 60 characters before them, from a word's start:
    a lawyer reads "the laws of England and Wales and the courts of England", not "eement is ..."."""
    start = max(0, m.start() - 60)
    if start and not window[start - 1].isspace():
        start = next((i + 1 for i in range(start, m.start()) if window[i].isspace()), m.start())
    return " ".join(window[start:m.end()].split())
