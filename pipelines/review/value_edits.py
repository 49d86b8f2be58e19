"""What a reviewer types for a key term's value, checked and written as the readers write it.

A value item asks for a key term's value, not whether a span is a clause.  The reviewer types
it in the form its kind takes: a date, a duration, a renewal (its length, how it renews and
how often), a list of parties, a place or a contract type.  It is stored exactly as
pipelines.terms stores a value it read (ISO dates and durations, the Parties form, a place),
with the structure behind it in `detail`, so reports, deadlines and the calendar compute with
a reviewer's value as with a read one.  A value that cannot be read back is refused with the
form it should take, never stored as typed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from pipelines.contract_type import ContractType
from pipelines.rules.dates import find_durations, find_written_dates
from pipelines.terms.durations import iso_duration, parse_iso_duration
from pipelines.terms.parties import format_parties
from pipelines.terms.party_names import name_key
from pipelines.terms.renewal import KINDS
from pipelines.terms.value import NOT_STATED

ValueKind = Literal["date", "duration", "renewal", "parties", "place", "contract type"]
FIELD_KINDS: dict[str, ValueKind] = {
    "Contract Type": "contract type", "Parties": "parties", "Agreement Date": "date", "Effective Date": "date",
    "Initial Term": "duration", "Expiration Date": "date", "Renewal Term": "renewal",
    "Notice Period To Terminate Renewal": "duration", "Governing Law": "place",
}
"""The key terms whose value a reviewer can give, and the form each takes."""
NO_RENEWAL = "none"
"""A renewal term that says the contract does not renew (pipelines.playbook.values.says_no)."""
OPEN_ENDED: dict[str, tuple[str, ...]] = {
    "Expiration Date": ("perpetual", "until terminated"),
    "Initial Term": ("perpetual", "until terminated"),
    "Renewal Term": ("perpetual", NO_RENEWAL),
}
"""Words a field takes besides a date or a duration (and "not stated", which every field takes)."""
RENEWAL_KIND_WORDS: dict[str, str] = {
    "automatic": "renews by itself unless a party gives notice",
    "option": "a party may elect to renew, or the parties may agree to",
    "conditional": "renews only if a stated condition is met",
}
PLACE_CHARS = 200
_PARTY_RE = re.compile(r"^(?P<name>.+?)\s*\((?P<shorts>[^()]*)\)\s*$")


@dataclass(frozen=True)
class ValueEdit:
    """A reviewer's value, normalized, and its structure."""

    value: str
    detail: dict


def choices(field: str) -> tuple[str, ...]:
    """The words a field's value may be instead of a date or a duration, "not stated" first."""
    return (NOT_STATED, *OPEN_ENDED.get(field, ()))


def edited_value(field: str, typed: str, renewal_kind: str | None = None, renewal_limit: str | int | None = None,
                 was: dict | None = None) -> ValueEdit:
    """The value the reviewer typed for `field`, normalized; ValueError, saying the form it
    takes, when it cannot be read.  `was` is the machine's detail (a party keeps the role the
    machine read for it)."""
    kind = FIELD_KINDS.get(field)
    if kind is None:
        raise ValueError(f"{field} has no value to type: it is a clause, not a key term's value")
    if kind == "parties" and (typed or "").strip().lower() != NOT_STATED:
        return _parties(typed, (was or {}).get("parties") or [])
    typed = " ".join((typed or "").split())
    if not typed:
        raise ValueError(f"type the {field}, or choose “{NOT_STATED}”")
    if typed.lower() in choices(field):
        word = typed.lower()
        return ValueEdit(word, {"kind": renewal_kind} if field == "Renewal Term" and renewal_kind in KINDS
                         and word == "perpetual" else {})
    if kind == "date":
        return ValueEdit(_date(field, typed).isoformat(), {"text": typed})
    if kind == "duration":
        return ValueEdit(_duration(field, typed), {"text": typed})
    if kind == "renewal":
        return _renewal(typed, renewal_kind, renewal_limit)
    if kind == "contract type":
        return ValueEdit(_contract_type(typed), {})
    if len(typed) > PLACE_CHARS or not re.search(r"[^\W\d_]", typed):
        raise ValueError(f"{field} is a place (“New York”, “England and Wales”), in at most {PLACE_CHARS} characters")
    return ValueEdit(typed, {})


def _date(field: str, typed: str) -> date:
    """'2021-03-01', 'March 1, 2021', '1 March 2021': one whole calendar date."""
    try:
        return date.fromisoformat(typed)
    except ValueError:
        pass
    found = [d for d in find_written_dates(typed) if d.iso and len(d.iso) == 10]
    if len(found) == 1 and len(found[0].text) >= len(typed.strip(" .,")) - 2:
        return date.fromisoformat(found[0].iso)  # type: ignore[arg-type]
    words = " or ".join(f"“{c}”" for c in choices(field))
    raise ValueError(f"{field} is a date with its day, month and year (2021-03-01 or March 1, 2021), "
                     f"not “{typed}”; or choose {words}")


def _duration(field: str, typed: str) -> str:
    """'90 days', 'three (3) years', 'P1Y': one length of time, as an ISO duration."""
    if parse_iso_duration(typed.upper()) is not None:
        return typed.upper()
    found = find_durations(typed)
    if len(found) != 1:
        raise ValueError(f"{field} is a length of time (“90 days”, “2 years”), not “{typed}”")
    return iso_duration(found[0])


def _renewal(typed: str, kind: str | None, limit: str | int | None) -> ValueEdit:
    """A renewal's length with how it renews and how many times (blank: as often as it comes round)."""
    if kind not in KINDS:
        raise ValueError("say how the contract renews: " + "; ".join(f"{k} ({w})" for k, w in RENEWAL_KIND_WORDS.items()))
    times = _limit(limit)
    detail = {"kind": kind, "automatic": kind == "automatic", "limit": times, "successive": times != 1,
              "text": typed}
    return ValueEdit(_duration("Renewal Term", typed), detail)


def _limit(raw: str | int | None) -> int | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    try:
        times = int(raw)
    except ValueError:
        raise ValueError(f"how many renewals is a whole number (blank for no limit), not “{raw}”") from None
    if not 1 <= times <= 99:
        raise ValueError("how many renewals is between 1 and 99 (blank for no limit)")
    return times


def _parties(typed: str, machine: list[dict]) -> ValueEdit:
    """One party per line (or separated by “;”), each with its short names in brackets:
    'Acme Corp. ("Acme")'.  A party the machine read keeps the role it read."""
    roles = {name_key(p["name"]): p for p in machine if p.get("name")}
    parties = []
    for line in re.split(r"[\n;]", typed or ""):
        line = " ".join(line.split())
        if not line:
            continue
        m = _PARTY_RE.match(line)
        name = m.group("name") if m else line
        shorts = [s.strip(" \"“”'‘’") for s in m.group("shorts").split(",")] if m else []
        known = roles.get(name_key(name)) or {}
        parties.append({"name": name.strip(), "trade_name": None, "short_names": [s for s in shorts if s],
                        "role": known.get("role"), "jurisdiction": known.get("jurisdiction"),
                        "kind": known.get("kind") or "organisation"})
    if not parties:
        raise ValueError('Parties are one per line, each with its short names in brackets: Acme Corp. ("Acme")')
    return ValueEdit(format_parties(parties), {"parties": parties})


def _contract_type(typed: str) -> str:
    wanted = typed.lower().replace(" ", "_")
    for t in ContractType:
        if t.value == wanted:
            return t.value
    raise ValueError("a contract type is one of: " + ", ".join(t.value.replace("_", " ") for t in ContractType))
