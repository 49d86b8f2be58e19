"""Reading key-term values the way a playbook check needs them.

Values come from rules, a model or CUAD-style annotations, so they are free text: "90 days",
"ninety (90) days", "(6) months", "60 days; 180 days", "State of New York".  These functions
read them leniently and say "unknown" (None) rather than guess.
"""
from __future__ import annotations

import re

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
    "forty": 40, "forty-five": 45, "fifty": 50, "sixty": 60, "seventy": 70, "seventy-five": 75,
    "eighty": 80, "ninety": 90, "hundred": 100, "one hundred twenty": 120,
    "one hundred eighty": 180, "a": 1, "an": 1,
}
_UNIT_DAYS = {"business day": 7 / 5, "working day": 7 / 5, "day": 1, "week": 7, "month": 30, "year": 365}

_NUMBER = r"(?P<num>\d+(?:\.\d+)?|" + "|".join(
    re.escape(w) for w in sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>business days?|working days?|calendar days?|days?|weeks?|months?|years?)"
_DURATION = re.compile(r"\b" + _NUMBER + r"\)?\s*(?:\(\s*\d+\s*\)\s*)?" + _UNIT + r"\b", re.IGNORECASE)
_BARE_NUMBER = re.compile(r"^\s*\(?(\d+)\)?\s*$")
_ISO_DURATION = re.compile(r"^P(\d+)([YMWD])$")
_ISO_UNITS = {"Y": "year", "M": "month", "W": "week", "D": "day"}

_NEGATIVE = re.compile(r"^\s*(?:no|none|n/?a|not applicable|no renewal|\[\])\s*$", re.IGNORECASE)


def parse_days(value: str) -> int | None:
    """The shortest duration named in `value`, in calendar days; a bare number counts as days.

    The shortest wins because a playbook's minimum notice period is breached by the shortest
    notice the contract allows.  Business days count 7/5 calendar days; months 30; years 365.
    """
    bare = _BARE_NUMBER.match(value)
    if bare:
        return int(bare.group(1))
    iso = _ISO_DURATION.match(value)
    if iso:  # "P90D", as pipelines.terms writes durations
        return round(int(iso.group(1)) * _UNIT_DAYS[_ISO_UNITS[iso.group(2)]])
    days = []
    for m in _DURATION.finditer(value):
        raw = m.group("num").lower()
        number = float(raw) if raw[0].isdigit() else _NUMBER_WORDS[raw]
        unit = m.group("unit").lower().removeprefix("calendar ").rstrip("s")
        days.append(round(number * _UNIT_DAYS[unit]))
    return min(days) if days else None


def normalize(value: str) -> str:
    """`value` folded for comparison: lower case, punctuation gone, "the State of" dropped."""
    text = re.sub(r"[^\w]+", " ", value.casefold()).strip()
    text = re.sub(r"^(?:the )?(?:laws? of )?(?:the )?(?:state|commonwealth|province|republic) of ", "", text)
    return " ".join(text.split())


def matches_any(value: str, allowed: tuple[str, ...]) -> bool:
    """Whether an allowed entry appears, as whole words, in `value` ("New York" in "State of New York")."""
    padded = f" {normalize(value)} "
    return any(f" {normalize(a)} " in padded for a in allowed)


def says_no(value: str | None) -> bool:
    """Whether a value states the term is absent ("No", "None", "N/A")."""
    return value is not None and bool(_NEGATIVE.match(value))
