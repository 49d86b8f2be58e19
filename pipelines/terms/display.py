"""Key-term values as a lawyer reads them: "March 3, 2021", "successive 1-year periods".

Values are stored normalized (ISO dates and durations) so they sort, compare and compute;
every report shows them through this one module so the spelling is the same everywhere.
"""
from __future__ import annotations

from datetime import date

from pipelines.terms.durations import describe, parse_iso_duration


def parse_iso_date(value: str | None) -> date | None:
    """'2021-03-03' as a date; None for anything else ("perpetual", a reference, a blank)."""
    try:
        return date.fromisoformat(value) if value and len(value) == 10 else None
    except ValueError:
        return None


def display_value(field: str, value: str | None, detail: dict | None = None) -> str:
    """The value in words; the structure in `detail` adds what the value alone does not say
    (a renewal's "successive", an option to renew, the reference an effective date is)."""
    if value is None:
        return ""
    detail = detail or {}
    if field == "Contract Type":
        return value.replace("_", " ")
    day = parse_iso_date(value)
    if day is not None:
        text = f"{day:%B} {day.day}, {day.year}"
        if detail.get("reference"):
            text += f" ({detail['reference']})"
        return text
    if parse_iso_duration(value) is not None:
        text = describe(value)
        if field == "Renewal Term":
            text = ("successive " if detail.get("successive") else "") + text
            if detail.get("automatic") is False:
                text += " (at a party's option)"
        return text
    return value
