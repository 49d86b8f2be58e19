"""Key-term values as a lawyer reads them: "March 3, 2021", "successive 1-year periods".

Values are stored normalized (ISO dates and durations) so they sort, compare and compute;
every report shows them through this one module so the spelling is the same everywhere.
"""
from __future__ import annotations

from datetime import date

from pipelines.datamodel import KeyTerm
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
            if detail.get("successive"):
                text = "successive " + describe(value, periods=True)
            if detail.get("automatic") is False:
                text += " (at a party's option)"
        return text
    if detail.get("event") and value == "until an event":
        return f"until {detail['event']}"  # a term that ends on an event the contract does not date
    return value


def key_term_text(term: KeyTerm | None) -> str:
    """A key term as one cell: its value (or quote), or every competing value when in conflict."""
    if term is None:
        return ""
    if term.conflict:
        return "CONFLICT: " + " | ".join(f"{c.value} (p. {c.page})" for c in term.candidates)
    if term.value:
        return display_value(term.category, term.value, term.detail)
    return " ".join(term.finding.text.split()) if term.finding else ""


def how_read(term: KeyTerm) -> str:
    """How a value was reached, in words: typed or confirmed by a reviewer, computed from which
    parts, or which evidence won."""
    detail = term.detail
    if detail.get("corrected_by"):
        was = detail.get("machine_value")
        read = f"; the machine read {display_value(term.category, was)}" if was else ""
        return f"given by {detail['corrected_by']} in review{read}"
    machine = _machine_reading(term)
    if detail.get("verified_by"):
        return f"{machine}; confirmed by {detail['verified_by']} in review"
    if detail.get("start_corrected_by"):
        return f"{machine}, the start as {detail['start_corrected_by']} gave it in review"
    return machine


def _machine_reading(term: KeyTerm) -> str:
    computed = term.detail.get("computed_from")
    if computed:
        known = [f"{k.replace('_', ' ')} {display_value(k, str(v))}" for k, v in computed.items() if v is not None]
        missing = [k.replace("_", " ") for k, v in computed.items() if v is None]
        text = "computed from " + " + ".join(known) if known else "not computed"
        if missing and term.detail.get("counted_from"):
            return f"{text}; the {' and '.join(missing)} is {term.detail['counted_from']}, which the contract does not date"
        if missing:
            return f"{text}; the {' and '.join(missing)} is not stated"
        return text
    if term.detail.get("reference"):
        return f"defined by reference: {term.detail['reference']}"
    if term.detail.get("event"):
        return f"the term runs until {term.detail['event']}"
    return "read from the contract" if term.basis == "read" else term.basis


def quotes(term: KeyTerm) -> list[dict]:
    """The quotes a key term rests on: a read value's evidence, else its finding's text."""
    if term.basis == "read":
        return term.detail.get("evidence", [])
    if term.finding is not None:
        return [{"role": "quote", "page": term.finding.page, "text": " ".join(term.finding.text.split())}]
    return [{"role": "candidate", "page": c.page, "text": " ".join(c.text.split())} for c in term.candidates]
