"""Upcoming contract deadlines, from the key terms an audit read, and their iCalendar export.

A legal team loses money on dates, not clauses: the last day to stop an automatic renewal,
the day a term ends.  Both follow from three key terms: the expiration date, the renewal term
and the notice period to terminate a renewal.

  - With a notice period, the contract renews unless notice is given: the deadline is the
    end of the current term minus the notice period.  The current term is the initial one,
    extended by the renewal term for as long as its notice date has already passed.
  - Without one, the deadline is the end of the current term: the initial one, rolled
    forward by the renewal term when the contract renews by itself.

Deadlines within the next 90 days are listed in three horizons (30, 60, 90 days) and exported
to deadlines.ics, one all-day event per deadline with the contract and the quotes the dates
were read from, so the team sees them in its calendar.  Unread or conflicting terms give no
deadline rather than a guessed one.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Literal

from dateutil.relativedelta import relativedelta

from pipelines.assessment import Assessed, DocumentAssessment
from pipelines.datamodel import DocumentResult, KeyTerm
from pipelines.playbook.values import parse_days, says_no
from pipelines.terms.display import how_read, key_term_text, parse_iso_date, quotes
from pipelines.terms.durations import as_relativedelta

HORIZONS: tuple[int, ...] = (30, 60, 90)
EXPIRATION, RENEWAL, NOTICE = "Expiration Date", "Renewal Term", "Notice Period To Terminate Renewal"
REMINDER = timedelta(days=7)
"""Calendar events remind this long before the deadline."""

Kind = Literal["renewal-notice", "term-end"]
KIND_TITLES: dict[str, str] = {"renewal-notice": "Last day for notice of non-renewal", "term-end": "Contract term ends"}

_UNIT = re.compile(r"\b(year|month)s?\b", re.IGNORECASE)
_ROLL_LIMIT = 10_000


@dataclass(frozen=True)
class Evidence:
    """A quote a deadline was computed from."""

    category: str
    value: str | None
    text: str
    page: int


@dataclass(frozen=True)
class Deadline:
    filename: str
    path: str
    contract: str  # the agreement's name as the contract gives it, else the file name
    parties: str | None
    kind: Kind
    date: date
    days: int  # from the run's date
    horizon: int  # the first of HORIZONS the deadline falls within
    term_end: date
    notice: str | None  # the notice period as the contract states it
    renewal: str | None
    computed: str  # how the term end was reached, for the event's description
    evidence: tuple[Evidence, ...]

    @property
    def title(self) -> str:
        return f"{KIND_TITLES[self.kind]}: {self.contract}"

    @property
    def uid(self) -> str:
        """Stable across nights (contract path, kind, term), so a re-imported calendar updates
        its event instead of adding a copy."""
        key = f"{self.path}|{self.kind}|{self.term_end.isoformat()}"
        return hashlib.sha256(key.encode()).hexdigest()[:24] + "@clausemill"

    def explanation(self) -> str:
        if self.kind == "renewal-notice":
            return (f"The term ends on {self.term_end:%d %B %Y} and renews ({self.renewal or 'renewal term unknown'}) "
                    f"unless notice of non-renewal is given {self.notice} before it.")
        return f"The term ends on {self.term_end:%d %B %Y}."

    def description(self) -> str:
        lines = [self.explanation(), self.computed, "", f"Contract: {self.contract}", f"File: {self.path}"]
        if self.parties:
            lines.append(f"Parties: {self.parties}")
        lines += ["", "Evidence:"]
        lines += [f"- {e.category} (page {e.page}): \"{e.text}\"" for e in self.evidence]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        data = asdict(self)
        data.update(date=self.date.isoformat(), term_end=self.term_end.isoformat(), title=self.title,
                    explanation=self.explanation(), uid=self.uid)
        return data


def upcoming_deadlines(assessed: Iterable[Assessed], as_of: date) -> list[Deadline]:
    """Every contract's next deadline within the last horizon, soonest first."""
    found = [deadline for doc, assessment in assessed if assessment is not None
             if (deadline := deadline_for(doc, assessment, as_of)) is not None]
    return sorted(found, key=lambda d: (d.date, d.contract, d.path))


def deadline_for(doc: DocumentResult, assessment: DocumentAssessment, as_of: date) -> Deadline | None:
    terms = assessment.key_terms
    expiry = parse_iso_date(_value(terms.get(EXPIRATION)))
    if expiry is None:
        return None  # perpetual, not stated, unread or in conflict: no date to keep
    notice_text, renewal_text = _value(terms.get(NOTICE)), _value(terms.get(RENEWAL))
    notice, renewal = calendar_period(notice_text), calendar_period(renewal_text)
    if renewal is not None and terms[RENEWAL].detail.get("automatic") is False:
        renewal = None  # an option to renew: the term ends unless someone acts
    term_end, rolled = expiry, 0
    lead = notice if notice is not None else relativedelta()
    for rolled in range(_ROLL_LIMIT):
        if term_end - lead >= as_of:
            break
        if renewal is None:
            return None  # its date passed and it does not renew by itself
        term_end += renewal
    else:
        return None
    kind: Kind = "renewal-notice" if notice is not None else "term-end"
    due = term_end - lead
    days = (due - as_of).days
    horizon = next((h for h in HORIZONS if days <= h), None)
    if horizon is None:
        return None
    used = [(c, t) for c in (EXPIRATION, RENEWAL, NOTICE) if (t := terms.get(c)) is not None and t.finding is not None]
    name = _value(terms.get("Document Name"))
    return Deadline(
        filename=doc.filename, path=doc.path, contract=name or doc.filename, parties=_value(terms.get("Parties")),
        kind=kind, date=due, days=days, horizon=horizon, term_end=term_end,
        notice=_shown(NOTICE, terms) if notice is not None else None,
        renewal=_shown(RENEWAL, terms) if renewal is not None else None,
        computed=_computation(terms[EXPIRATION], expiry, rolled, renewal is not None),
        evidence=tuple(Evidence(category, _shown(category, terms), quote["text"], quote["page"])
                       for category, term in used for quote in quotes(term)),
    )


def _computation(expiration: KeyTerm, expiry: date, rolled: int, renews: bool) -> str:
    """How the term end was reached, in a sentence: where the expiry came from, and how many
    renewals were rolled forward to pass today."""
    how = how_read(expiration)
    text = f"Initial term ends {expiry:%d %B %Y} ({how})."
    if rolled:
        text += f" Renewed {rolled} time{'s' if rolled > 1 else ''} since, as the contract renews by itself."
    elif renews:
        text += " The contract renews by itself after that."
    return text


def by_horizon(deadlines: Iterable[Deadline]) -> dict[int, list[Deadline]]:
    grouped: dict[int, list[Deadline]] = {h: [] for h in HORIZONS}
    for deadline in deadlines:
        grouped[deadline.horizon].append(deadline)
    return grouped


def calendar_period(value: str | None) -> relativedelta | None:
    """A duration as the calendar counts it: "P1Y" or "1 year" adds a year (not 365 days),
    "6 months" six months, anything else its days (playbook.values.parse_days)."""
    if not value or says_no(value):
        return None
    iso = as_relativedelta(value)
    if iso is not None:
        return iso
    days = parse_days(value)
    if days is None or days <= 0:
        return None
    unit = _UNIT.search(value)
    if unit and unit.group(1).lower() == "year":
        return relativedelta(years=max(1, round(days / 365)))
    if unit:
        return relativedelta(months=max(1, round(days / 30)))
    return relativedelta(days=days)


def write_ics(deadlines: Iterable[Deadline], path: Path, generated_at: datetime) -> Path:
    """deadlines.ics: one all-day event per deadline, with a reminder a week before."""
    from icalendar import Alarm, Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//clausemill//contract deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", "Contract deadlines (clausemill)")
    for deadline in deadlines:
        event = Event()
        event.add("uid", deadline.uid)
        event.add("dtstamp", generated_at)
        event.add("dtstart", deadline.date)
        event.add("dtend", deadline.date + timedelta(days=1))
        event.add("summary", deadline.title)
        event.add("description", deadline.description())
        event.add("categories", [KIND_TITLES[deadline.kind]])
        event.add("transp", "TRANSPARENT")
        reminder = Alarm()
        reminder.add("action", "DISPLAY")
        reminder.add("trigger", -REMINDER)
        reminder.add("description", deadline.title)
        event.add_component(reminder)
        calendar.add_component(event)
    path.write_bytes(calendar.to_ical())
    return path


def _value(term: KeyTerm | None) -> str | None:
    return term.value if term is not None and term.stated else None


def _shown(category: str, terms: dict[str, KeyTerm]) -> str | None:
    term = terms.get(category)
    return key_term_text(term) if term is not None else None
