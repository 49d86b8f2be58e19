"""Durations as ISO 8601 ("P1Y", "P90D"), the form reports sort by and calendars add.

Contracts write "one (1) year" or "ninety (90) days"; `pipelines.rules.dates` finds them and
this module writes them in the one notation every consumer reads.
"""
from __future__ import annotations

import re

from dateutil.relativedelta import relativedelta

from pipelines.rules.dates import Duration

_LETTER = {"years": "Y", "months": "M", "weeks": "W", "days": "D"}
_ISO_RE = re.compile(r"^P(?P<amount>\d+)(?P<unit>[YMWD])$")
_UNIT_WORDS = {"Y": "year", "M": "month", "W": "week", "D": "day"}


def iso_duration(duration: Duration) -> str:
    """'five (5) years' -> 'P5Y'."""
    return f"P{duration.amount}{_LETTER[duration.unit]}"


def parse_iso_duration(value: str | None) -> tuple[int, str] | None:
    """'P5Y' -> (5, 'Y'); None for anything else ("perpetual", "not stated")."""
    m = _ISO_RE.match(value or "")
    return (int(m.group("amount")), m.group("unit")) if m else None


def as_relativedelta(value: str | None) -> relativedelta | None:
    """An ISO duration as the calendar counts it: P1Y adds a year, not 365 days."""
    parsed = parse_iso_duration(value)
    if parsed is None or parsed[0] <= 0:
        return None
    amount, unit = parsed
    return {"Y": relativedelta(years=amount), "M": relativedelta(months=amount),
            "W": relativedelta(weeks=amount), "D": relativedelta(days=amount)}[unit]


_DAYS_PER_UNIT = {"Y": 365.25, "M": 365.25 / 12, "W": 7, "D": 1}


def approximate_days(value: str | None) -> int | None:
    """'P1Y' -> 365, 'P3M' -> 91: one number a spreadsheet sorts and filters mixed units by
    ("notice of at least 60 days" is a filter on days, whatever unit the contract wrote)."""
    parsed = parse_iso_duration(value)
    if parsed is None:
        return None
    amount, unit = parsed
    return round(amount * _DAYS_PER_UNIT[unit])


def describe(value: str, periods: bool = False) -> str:
    """'P5Y' -> '5 years', 'P1M' -> '1 month'; with `periods`, 'P1Y' -> '1-year periods' (what a
    renewal for successive periods runs in); other values unchanged."""
    parsed = parse_iso_duration(value)
    if parsed is None:
        return value
    amount, unit = parsed
    word = _UNIT_WORDS[unit]
    if periods:
        return f"{amount}-{word} periods"
    return f"{amount} {word}" if amount == 1 else f"{amount} {word}s"
