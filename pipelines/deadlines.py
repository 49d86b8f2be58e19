"""Upcoming contract deadlines, from the key terms an audit read, and their iCalendar export.

A legal team loses money on dates, not clauses: the last day to stop an automatic renewal,
the day a term ends.  Both follow from three key terms: the expiration date, the renewal term
(with how it renews: pipelines.terms.renewal) and the notice period to terminate a renewal.

  - The term in force on a date is the initial one, rolled forward by the renewal term only
    where the contract renews by itself, and never more often than it allows.  An option or a
    conditional extension renews only if someone acts or something happens, so it ends the
    term on the calendar; rolling it forward would invent a term.
  - With a notice period, the deadline is the end of the term in force minus the notice.
    Where that day has just passed, the deadline is the renewal itself, saying the notice
    window closed, and when the next one closes.
  - An option whose exercise needs notice gives the last day to exercise it; otherwise an
    option, like a term without renewal, gives the day the term ends.

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
from pipelines.terms.renewal import RenewalKind, kind_of

HORIZONS: tuple[int, ...] = (30, 60, 90)
EXPIRATION, RENEWAL, NOTICE = "Expiration Date", "Renewal Term", "Notice Period To Terminate Renewal"
REMINDER = timedelta(days=7)
"""Calendar events remind this long before the deadline."""

Kind = Literal["renewal-notice", "renewal", "option-deadline", "term-end"]
KIND_TITLES: dict[str, str] = {"renewal-notice": "Last day for notice of non-renewal", "renewal": "Contract renews",
                               "option-deadline": "Last day to exercise the renewal option",
                               "term-end": "Contract term ends"}
Status = Literal["running", "expired", "perpetual", "until terminated", "not stated"]

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
class TermInForce:
    """Where a contract stands on a date: running (until `end`), expired (on `end`), perpetual,
    until terminated, or not stated (no expiration could be read)."""

    status: Status
    end: date | None = None
    initial_end: date | None = None
    renewals: int = 0
    """Automatic renewals rolled forward to reach `end`."""
    kind: RenewalKind | None = None
    """How the contract renews; None where it states no renewal."""
    limit: int | None = None
    """How many renewals it allows; None where it does not say (successive periods)."""
    next_end: date | None = None
    """Where the next automatic renewal would end the term; None where none follows `end`."""
    open_after: bool = False
    """The contract runs on until terminated once `end` has passed ("and thereafter until terminated")."""

    def to_dict(self) -> dict:
        """JSON-ready: dates as ISO strings, and the status in words."""
        data = {k: v.isoformat() if isinstance(v, date) else v for k, v in asdict(self).items()}
        return {**data, "shown": self.shown()}

    def shown(self) -> str:
        """In a few words, for a table cell: "until 23 Dec 2026 · renews", "expired 1 Feb 2021"."""
        if self.status == "expired" and self.end is not None:
            return f"expired {self.end:%d %b %Y}"
        if self.status != "running" or self.end is None:
            return self.status
        how = {"option": "renewal option", "conditional": "conditional extension"}.get(self.kind or "")
        if self.open_after:
            how = "then until terminated"
        elif self.next_end is not None:
            how = "renews"
        elif self.kind == "automatic":
            how = "last renewal" if self.renewals else "does not renew again"
        return f"until {self.end:%d %b %Y}" + (f" · {how}" if how else "")


def term_in_force(terms: dict[str, KeyTerm], as_of: date) -> TermInForce:
    """The term in force on `as_of`, from the expiration date and how the contract renews."""
    expiration = _value(terms.get(EXPIRATION))
    if expiration in ("perpetual", "until terminated"):
        return TermInForce(expiration)
    expiry = parse_iso_date(expiration)
    if expiry is None:
        return TermInForce("not stated")
    renewal = terms.get(RENEWAL)
    renewal_value = _value(renewal)
    kind = kind_of(renewal.detail) if renewal is not None and renewal_value and not says_no(renewal_value) else None
    limit = renewal.detail.get("limit") if renewal is not None and kind is not None else None
    if kind == "automatic" and renewal_value == "perpetual":
        if expiry >= as_of:
            return TermInForce("running", expiry, expiry, 0, kind, limit, open_after=True)
        return TermInForce("until terminated", None, expiry, 0, kind, limit)
    period = calendar_period(renewal_value) if kind == "automatic" else None
    renewals = 0
    if period is not None and expiry < as_of:  # the smallest count of renewals that reaches today, within the limit
        renewals = _renewals_to_reach(expiry, period, as_of)
        if limit is not None:
            renewals = min(renewals, limit)
    end = expiry + period * renewals if period is not None else expiry
    follows = period is not None and (limit is None or renewals < limit)
    next_end = expiry + period * (renewals + 1) if follows and period is not None else None
    return TermInForce("running" if end >= as_of else "expired", end, expiry, renewals, kind, limit, next_end)


def _renewals_to_reach(expiry: date, period: relativedelta, as_of: date) -> int:
    """How many periods after `expiry` the term first ends on or after `as_of`, counted from the
    expiry each time (so a term ending on 31 January ends on the last day of each month)."""
    renewals = 0
    while expiry + period * renewals < as_of and renewals < _ROLL_LIMIT:
        renewals += 1
    return renewals


@dataclass(frozen=True)
class CalendarEvent:
    """A deadline as a calendar holds it: what ics_bytes writes, from a Deadline or from the
    portfolio's stored events (storage.schema.ContractEvent)."""

    uid: str
    date: date
    kind: str
    title: str
    description: str


@dataclass(frozen=True)
class Deadline:
    filename: str
    path: str
    contract: str  # the agreement's name as the contract gives it, else the file name
    parties: str | None
    kind: Kind
    date: date
    days: int  # from the run's date
    horizon: int | None  # the first of HORIZONS the deadline falls within; None beyond the last
    term_end: date
    renewal: str | None
    computed: str  # how the term end was reached, for the event's description
    evidence: tuple[Evidence, ...]
    confidence: float
    """The least confidence of the key terms the date was computed from."""
    notice: str | None = None  # the notice period as the contract states it
    closed: date | None = None
    """For a renewal whose notice window has passed, the last day notice could be given."""
    next_notice: date | None = None
    """For such a renewal, the last day for notice before the term after it ends."""

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
        renewal = self.renewal or "renewal term unknown"
        if self.kind == "renewal-notice":
            return (f"The term ends on {self.term_end:%d %B %Y} and renews ({renewal}) "
                    f"unless notice of non-renewal is given {self.notice} before it.")
        if self.kind == "renewal" and self.closed is not None:
            following = f"; the next window closes on {self.next_notice:%d %B %Y}" if self.next_notice else ""
            return (f"The notice window closed on {self.closed:%d %B %Y}; the contract renews on "
                    f"{self.term_end:%d %B %Y} ({renewal}){following}.")
        if self.kind == "renewal" and self.notice:
            return (f"The contract renews on {self.term_end:%d %B %Y} ({renewal}) unless notice of non-renewal is "
                    f"given {self.notice} before it.")
        if self.kind == "renewal":
            return f"The term ends on {self.term_end:%d %B %Y} and renews by itself ({renewal}); no notice period is stated."
        if self.kind == "option-deadline":
            return (f"The term ends on {self.term_end:%d %B %Y}; a party may renew it ({renewal}) "
                    f"by notice given {self.notice} before it.")
        return f"The term ends on {self.term_end:%d %B %Y}."

    def description(self) -> str:
        lines = [self.explanation(), self.computed, "", f"Contract: {self.contract}", f"File: {self.path}"]
        if self.parties:
            lines.append(f"Parties: {self.parties}")
        lines += ["", "Evidence:"]
        lines += [f"- {e.category} (page {e.page}): \"{e.text}\"" for e in self.evidence]
        return "\n".join(lines)

    def calendar_event(self) -> CalendarEvent:
        return CalendarEvent(self.uid, self.date, self.kind, self.title, self.description())

    def to_dict(self) -> dict:
        """JSON-ready: dates as ISO strings, with the title, the explanation and the evidence pages."""
        data = {k: v.isoformat() if isinstance(v, date) else v for k, v in asdict(self).items()}
        data.update(title=self.title, explanation=self.explanation(), uid=self.uid,
                    pages=sorted({e.page for e in self.evidence}))
        return data


def upcoming_deadlines(assessed: Iterable[Assessed], as_of: date) -> list[Deadline]:
    """Every contract's next deadline within the last horizon, soonest first."""
    found = [deadline for doc, assessment in assessed if assessment is not None
             if (deadline := deadline_for(doc, assessment, as_of)) is not None]
    return sorted(found, key=lambda d: (d.date, d.contract, d.path))


def deadline_for(doc: DocumentResult, assessment: DocumentAssessment, as_of: date) -> Deadline | None:
    """The contract's next deadline within the last horizon: the last day for notice, a renewal
    whose notice window has just closed, the last day to exercise an option, or the end of the
    term; None for a contract that has ended, runs until terminated, or states no date."""
    return next_deadline(deadlines_of(doc, assessment.key_terms, as_of))


def next_deadline(deadlines: Iterable[Deadline]) -> Deadline | None:
    """Of a contract's dated events (deadlines_of, soonest first), the first within the last horizon."""
    return next((d for d in deadlines if d.horizon is not None), None)


def deadlines_of(doc: DocumentResult, terms: dict[str, KeyTerm], as_of: date) -> list[Deadline]:
    """Every dated event of the term in force on `as_of`, soonest first: the last day for notice
    of non-renewal or to exercise an option while it is still ahead, then the day the term
    renews or ends.  Empty for a contract that has ended, runs until terminated, or states no
    date."""
    term = term_in_force(terms, as_of)
    events = dated_events(terms, term, as_of)
    if not events:
        return []
    used = [(c, t) for c in (EXPIRATION, RENEWAL, NOTICE) if (t := terms.get(c)) is not None and t.finding is not None]
    common = {
        "filename": doc.filename, "path": doc.path, "contract": _value(terms.get("Document Name")) or doc.filename,
        "parties": _value(terms.get("Parties")), "term_end": term.end,
        "renewal": _shown(RENEWAL, terms) if term.kind is not None else None,
        "computed": _computation(terms[EXPIRATION], term),
        "evidence": tuple(Evidence(category, _shown(category, terms), quote["text"], quote["page"])
                          for category, read in used for quote in quotes(read)),
        "confidence": min((read.finding.confidence for _, read in used if read.finding is not None), default=0.0),
    }
    found = []
    for kind, due, fields in events:
        days = (due - as_of).days
        found.append(Deadline(kind=kind, date=due, days=days, horizon=next((h for h in HORIZONS if days <= h), None),
                              **common, **fields))  # type: ignore[arg-type]
    return found


def dated_events(terms: dict[str, KeyTerm], term: TermInForce, as_of: date) -> list[tuple[Kind, date, dict]]:
    """The term in force's events as (kind, date, what the Deadline says besides), soonest first
    (module docstring); what deadlines_of lists, and what a value's review item is urgent by."""
    if term.status != "running" or term.end is None:
        return []
    notice = calendar_period(_value(terms.get(NOTICE))) if term.next_end is not None else None
    exercise = _exercise_notice(terms) if term.kind == "option" else None
    if notice is not None and term.end - notice >= as_of:
        stated = {"notice": _shown(NOTICE, terms)}
        return [("renewal-notice", term.end - notice, stated), ("renewal", term.end, stated)]
    if notice is not None:
        return [("renewal", term.end, {"notice": _shown(NOTICE, terms), "closed": term.end - notice,
                                       "next_notice": term.next_end - notice if term.next_end is not None else None})]
    if term.next_end is not None or term.open_after:
        return [("renewal", term.end, {})]
    found: list[tuple[Kind, date, dict]] = []
    if exercise is not None and term.end - exercise >= as_of:
        found.append(("option-deadline", term.end - exercise,
                      {"notice": terms[RENEWAL].detail.get("exercise_notice_text")}))
    return [*found, ("term-end", term.end, {})]


def _exercise_notice(terms: dict[str, KeyTerm]) -> relativedelta | None:
    """The notice an option to renew must be exercised with, where the contract states one."""
    renewal = terms.get(RENEWAL)
    return as_relativedelta(renewal.detail.get("exercise_notice") or "") if renewal is not None else None


def _computation(expiration: KeyTerm, term: TermInForce) -> str:
    """How the term end was reached, in a sentence: where the expiry came from, and how many
    renewals were rolled forward to pass today, or why none were."""
    text = f"Initial term ends {term.initial_end:%d %B %Y} ({how_read(expiration)})."
    limit = f" (at most {term.limit})" if term.limit is not None else ""
    if term.renewals:
        text += f" Renewed {term.renewals} time{'s' if term.renewals > 1 else ''}{limit} since, as the contract renews by itself."
    elif term.kind == "automatic" and term.next_end is not None:
        text += " The contract renews by itself after that."
    if term.kind == "automatic" and term.next_end is None and term.limit is not None:
        text += " No further renewal: the contract allows no more."
    elif term.kind == "option":
        text += " A party may renew it; the calendar does not assume it will."
    elif term.kind == "conditional":
        text += " It extends only if a condition is met; the calendar does not assume it is."
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
    """deadlines.ics (ics_bytes) written to `path`."""
    path.write_bytes(ics_bytes([d.calendar_event() for d in deadlines], generated_at))
    return path


def ics_bytes(deadlines: Iterable[CalendarEvent], generated_at: datetime) -> bytes:
    """An iCalendar file: one all-day event per deadline, with a reminder a week before; the
    reports' deadlines.ics and the review app's subscription URL."""
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
        event.add("description", deadline.description)
        event.add("categories", [KIND_TITLES[deadline.kind]])
        event.add("transp", "TRANSPARENT")
        reminder = Alarm()
        reminder.add("action", "DISPLAY")
        reminder.add("trigger", -REMINDER)
        reminder.add("description", deadline.title)
        event.add_component(reminder)
        calendar.add_component(event)
    return calendar.to_ical()


def _value(term: KeyTerm | None) -> str | None:
    return term.value if term is not None and term.stated else None


def _shown(category: str, terms: dict[str, KeyTerm]) -> str | None:
    term = terms.get(category)
    return key_term_text(term) if term is not None else None
