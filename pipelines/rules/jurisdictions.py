"""Naming the jurisdiction a governing-law clause chooses, the way reports compare them.

A clause says "the laws of the Commonwealth of Massachusetts" or "the laws of the PRC"; the
playbook and the reports want "Massachusetts" and "China".  The table maps each spelling to
one normalized name.
"""
from __future__ import annotations

import re

US_STATES = [
    "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
    "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa",
    "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan",
    "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire",
    "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
    "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota",
    "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington", "West Virginia",
    "Wisconsin", "Wyoming", "District of Columbia", "Puerto Rico",
]
CANADIAN_PROVINCES = [
    "Ontario", "Quebec", "British Columbia", "Alberta", "Manitoba", "Saskatchewan",
    "Nova Scotia", "New Brunswick", "Newfoundland and Labrador", "Prince Edward Island",
]
COUNTRIES = [
    "Australia", "Austria", "Belgium", "Bermuda", "Brazil", "Canada", "Cayman Islands", "Chile",
    "Colombia", "Denmark", "Finland", "France", "Germany", "Greece", "Hong Kong", "India",
    "Indonesia", "Ireland", "Israel", "Italy", "Japan", "Kazakhstan", "Luxembourg", "Malaysia",
    "Mexico", "Netherlands", "New Zealand", "Norway", "Papua New Guinea", "Philippines",
    "Poland", "Portugal", "Scotland", "Singapore", "South Africa", "South Korea", "Spain",
    "Sweden", "Switzerland", "Taiwan", "Thailand", "Turkey", "United Arab Emirates",
    "United Kingdom", "Vietnam",
]
ALIASES = {
    "England and Wales": ["England and Wales", "England & Wales"],
    "England": ["England"],
    "China": ["People's Republic of China", "People’s Republic of China", "PRC", "P.R.C.",
              "P. R. China", "China"],
    "United Kingdom": ["United Kingdom", "U.K."],
    "United States": ["United States of America", "United States", "U.S.A."],
    "South Korea": ["Republic of Korea", "Korea"],
    "Germany": ["Federal Republic of Germany", "Germany"],
    "Netherlands": ["The Netherlands", "Netherlands", "Holland"],
    "New South Wales, Australia": ["New South Wales"],
    "Victoria, Australia": ["State of Victoria", "Victoria, Australia"],
}


def _build_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for name in US_STATES + COUNTRIES:
        table[name.lower()] = name
    for name in CANADIAN_PROVINCES:
        table[name.lower()] = f"{name}, Canada"
    for name, spellings in ALIASES.items():
        for spelling in spellings:
            table[spelling.lower()] = name
    table["washington, d.c."] = table["washington d.c."] = "District of Columbia"
    return table


SPELLINGS = _build_table()
# Longest first, so "New York" wins over "York" and "England and Wales" over "England".
_NAMES = "|".join(re.escape(s) for s in sorted(SPELLINGS, key=len, reverse=True))
_JURISDICTION_RE = re.compile(rf"(?<![\w.])(?:{_NAMES})(?![\w])", re.IGNORECASE)
# How "the laws of X" choose X in the present tense, after the place: "... govern this Agreement",
# "... apply to this Agreement" (the governing-law rule and the key-term reader both ask).
GOVERNS_THIS_AGREEMENT = (r"govern\s+(?:this|the)\s+(?:\w+\s+)?(?:agreement|contract)|"
                          r"appl(?:y|ies)\s+to\s+(?:this|the)\s+(?:\w+\s+)?(?:agreement|contract)")
# ... and in the future tense: "... shall govern", "... will apply".
SHALL_GOVERN = r"(?:shall|will)\s+(?:govern|apply)"
# "the laws of X shall govern", "... will be applicable", "the laws of X govern this Agreement": a clause
# that names the place before it says the law governs (a governing-law clause here, a cue in terms/law.py).
LAWS_OF_X_GOVERN = (rf"\blaws?\s+of\s+[^.;]{{2,80}}?\s+(?:{SHALL_GOVERN}|(?:shall|will)\s+be\s+applicable|"
                    rf"{GOVERNS_THIS_AGREEMENT})")
# "the laws of", "the laws in force in": a law named by its place (the key-term value asks too, in terms/law.py).
LAWS_OF = r"\blaws?\s+(?:in\s+force\s+)?(?:of|in)\b"
# What a governing-law clause puts before the jurisdiction it chooses.
_LAWS_OF_RE = re.compile(
    rf"{LAWS_OF}\s+(?:and\s+in\s+)?(?:the\s+)?"
    r"(?:(?:state|commonwealth|province|republic|kingdom|country|government|hong kong sar|"
    r"special administrative region)\s+of\s+(?:the\s+)?)?",
    re.IGNORECASE,
)


def normalise_jurisdiction(name: str) -> str | None:
    """'the Commonwealth of Massachusetts' -> 'Massachusetts'; None when unknown."""
    m = _JURISDICTION_RE.search(name)
    return SPELLINGS[m.group().lower()] if m else None


def chosen_jurisdiction(clause: str) -> str | None:
    """The jurisdiction whose laws a governing-law clause chooses, normalized, or None.

    The jurisdiction named right after "laws of" wins; a clause that names one only elsewhere
    ("...governed by New York law") falls back to the first jurisdiction it names.
    """
    for m in _LAWS_OF_RE.finditer(clause):
        found = _JURISDICTION_RE.match(clause, m.end())
        if found:
            return SPELLINGS[found.group().lower()]
    return normalise_jurisdiction(clause)
