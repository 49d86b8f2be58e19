"""ISO durations: what calendars add and what spreadsheets sort by."""
from __future__ import annotations

from datetime import date

from pipelines.terms.durations import approximate_days, as_relativedelta, describe, parse_iso_duration


def test_durations_parse_describe_and_add_like_a_calendar():
    assert parse_iso_duration("P5Y") == (5, "Y") and parse_iso_duration("perpetual") is None
    assert describe("P1M") == "1 month" and describe("P90D") == "90 days" and describe("not stated") == "not stated"
    assert date(2020, 2, 29) + as_relativedelta("P1Y") == date(2021, 2, 28)  # a year, not 365 days
    assert as_relativedelta("P0D") is None


def test_mixed_units_sort_by_days():
    assert [approximate_days(v) for v in ("P1Y", "P12M", "P3M", "P2W", "P90D")] == [365, 365, 91, 14, 90]
    assert approximate_days("until terminated") is None and approximate_days(None) is None
