"""How a contract renews, as a calendar must know it: by itself, at a party's option, or only
if a condition is met; how many times; and the notice an option needs.

Only a renewal that happens by itself rolls the term forward on the calendar: an option
renews only if someone acts, and a conditional extension ("shall automatically extend for an
additional two (2) years ... provided WPT receives payments greater than $12,000,000") only
if something happens that the contract cannot tell us.  Rolling either forward invents a
term.  A renewal is also finite unless the contract says otherwise in successive periods:
"for an additional two years" renews once, "up to two additional one-year terms" twice.
"""
from __future__ import annotations

import re
from typing import Literal

from pipelines.datamodel import Segment
from pipelines.rules.dates import find_durations, words_to_number
from pipelines.rules.renewal import BEFORE_END_RE
from pipelines.terms.durations import iso_duration

RenewalKind = Literal["automatic", "option", "conditional"]
KINDS: tuple[RenewalKind, ...] = ("automatic", "option", "conditional")

_AUTOMATIC_RE = re.compile(
    r"\bautomatic(?:ally)?\b|\btacit(?:ly)?\b|\bauto-renew|\bevergreen\b|\bunless\s+(?:either|a|one)\s+party\b|"
    r"\bunless\s+(?:\w+\s+){0,6}?notice\b", re.IGNORECASE)
_OPTION_RE = re.compile(
    r"\boption\b|\bmay\s+(?:elect\s+to\s+|at\s+its\s+\w+\s+)?(?:renew|extend)|\bmay\s+be\s+(?:renewed|extended)\b|"
    r"\bsole\s+discretion\b|\bright\s+to\s+(?:renew|extend)|"
    r"\bmutual(?:ly)?\b|\bif\s+(?:both|the)\s+parties\s+agree|\bupon\s+(?:the\s+)?(?:written\s+)?agreement|\belect\b",
    re.IGNORECASE)
_EVERY_PERIOD = r"\b(?:successive|consecutive)\b|\beach\s+year\b|\byear[\s-]to[\s-]year\b"
_EVERY_PERIOD_RE = re.compile(_EVERY_PERIOD, re.IGNORECASE)
SUCCESSIVE_RE = re.compile(rf"{_EVERY_PERIOD}|\bthereafter\b", re.IGNORECASE)
"""A renewal that comes back: the words above, and "thereafter" ("from year to year thereafter")
for the value's "successive"; a limit reads past a lone "thereafter" ("for an additional term of
five (5) years thereafter" renews once)."""
# A condition the renewal waits on: "provided WPT receives payments greater than ...", "only if",
# "subject to the achievement of", "so long as Distributor meets the minimum".  "Provided" as a
# conjunction, not the verb ("as provided herein", "notice to be provided at least ninety days").
_CONDITION_RE = re.compile(
    r"(?<!\bas )(?<!\bbe )(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bbeen )(?<!\bbeing )\bprovided\b"
    r"(?!\s+(?:herein|hereunder|hereinafter|hereof|for|in|by|to|below|above|under|at|with|on|pursuant)\b)"
    r"(?:\s*,?\s*(?:however|further)\s*,?)?(?:\s+that)?|\bonly\s+if\b|\b(?:so|as)\s+long\s+as\b|"
    r"\b(?:conditioned|conditional|contingent)\s+(?:up)?on\b|\bon\s+(?:the\s+)?condition\b|"
    r"\bsubject\s+to\s+(?:the\s+)?(?:achievement|satisfaction|attainment|fulfil\w*|approval|meeting)\b|"
    r"\b(?:if|in\s+the\s+event(?:\s+that)?)\s+(?:\w+\s+){0,4}?(?:shall\s+)?"
    r"(?:achieves?|meets?|receives?|attains?|exceeds?|reaches?|purchases?|pays?)\b",
    re.IGNORECASE)
# What follows a proviso that is the notice stopping an automatic renewal, not a condition on it:
# "provided, however, that either party may terminate ... upon ninety (90) days' notice".
_NOTICE_PROVISO_RE = re.compile(
    r"[^.;]{0,120}?(?:\bnotice\b|\bnotif\w*|\bterminat\w*|\bnon-?renew\w*|\bnot\s+(?:to\s+)?(?:renew|extend)|"
    r"\b(?:either|neither|no)\s+party\b|\bearlier\b|\bsooner\b)", re.IGNORECASE)
_NUMBER = r"(?P<{}>one|two|three|four|five|six|seven|eight|nine|ten|\d{{1,2}})(?:\s*\(\d{{1,2}}\))?"
# How many renewals: "up to two (2) additional terms", "a maximum of three renewal periods",
# "two successive one-year terms", "may be renewed twice".
_COUNTED_RE = re.compile(
    rf"\b(?:up\s+to|a\s+maximum\s+of|maximum\s+of|not\s+(?:more\s+than|to\s+exceed)|no\s+more\s+than)\s+{_NUMBER.format('most')}\s+"
    r"(?=(?:[\w()-]+[\s-]+){0,4}?(?:terms|periods|renewals|extensions|times)\b)|"
    rf"\b{_NUMBER.format('counted')}\s+(?=(?:additional|further|successive|consecutive|subsequent)\s+(?:renewal\s+|extension\s+)?"
    r"(?:[\w()-]+[\s-]+){0,3}?(?:terms|periods|renewals|extensions)\b)|"
    rf"\b{_NUMBER.format('renewals')}\s+(?=(?:renewal|extension)\s+(?:terms|periods)\b)",
    re.IGNORECASE)
_TWICE_RE = re.compile(r"\b(?:renewed|extended)\s+(?:\w+\s+){0,3}?(?P<times>once|twice|(?:two|three|four|five)\s+times)\b",
                       re.IGNORECASE)
_SINGLE_RE = re.compile(r"\b(?:an?|one(?:\s*\(1\))?|a\s+single)\s+(?:additional|further|subsequent|renewal|extension)\b|"
                        r"\bone\s*(?:\(1\)\s*)?(?:additional|further|renewal|extension)\s+(?:term|period)\b",
                        re.IGNORECASE)
_TIMES = {"once": 1, "twice": 2}
# A renewal that comes back: "on each anniversary", "at the end of ... any renewal term thereof",
# notice before "the then-current term".
_REPEATED_RE = re.compile(
    r"\beach\s+anniversary\b|\bannual(?:ly)?\b|\b(?:any|each|every)\s+(?:renewal|subsequent|succeeding|extension|extended)\s+"
    r"(?:term|period)\b|\bthen[\s-]+(?:current|in[\s-]+effect|existing|applicable)\b", re.IGNORECASE)
_DAYS = {"days": 1, "weeks": 7, "months": 30, "years": 365}
# A sentence after an option's that says how it is exercised: "Bellicum may exercise each such renewal
# option by giving written notice ... not later than six (6) months prior to the expiration".
_EXERCISE_WORDS_RE = re.compile(r"\b(?:exercis\w*|option|elect\w*|extend|renew)\b", re.IGNORECASE)
EXERCISE_REACH_CHARS = 600


def renewal_kind(clause: str) -> RenewalKind:
    """How the renewal in `clause` (its sentence) happens: an option or an agreement makes it a
    party's choice, a condition makes it conditional, and otherwise it happens by itself where
    the clause says so ("automatically", "unless either party gives notice").
    A clause that says neither is read as an option, as it was before kinds were told apart:
    the calendar then waits for someone to act rather than inventing a term."""
    if _OPTION_RE.search(clause):
        return "option"  # also one with conditions ("the right to renew ... so long as you have satisfied")
    if any(not _NOTICE_PROVISO_RE.match(clause, m.end()) for m in _CONDITION_RE.finditer(clause)):
        return "conditional"
    return "automatic" if _AUTOMATIC_RE.search(clause) else "option"


def renewal_limit(clause: str) -> int | None:
    """How many times the contract may renew; None where it says successive periods without a
    count (it renews until someone stops it) or does not say."""
    counted = _COUNTED_RE.search(clause)
    if counted:
        count = next(c for c in counted.group("most", "counted", "renewals") if c)
        return int(count) if count.isdigit() else words_to_number(count)
    times = _TWICE_RE.search(clause)
    if times:
        word = times.group("times").lower()
        return _TIMES.get(word) or words_to_number(word.split()[0])
    if _EVERY_PERIOD_RE.search(clause) or _REPEATED_RE.search(clause):
        return None
    return 1 if _SINGLE_RE.search(clause) else None


def option_notice(text: str, start: int, end: int, segments: list[Segment]) -> tuple[str, str] | None:
    """The notice an option to renew is exercised with: in its own sentence (`start`..`end`),
    or in one of the sentences soon after it that speaks of exercising it (a page break or a
    definition may stand between)."""
    found = exercise_notice(text, start, end)
    following = (s for s in segments if end <= s.start <= end + EXERCISE_REACH_CHARS and _EXERCISE_WORDS_RE.search(s.text))
    return found or next((n for s in following if (n := exercise_notice(text, s.start, s.end)) is not None), None)


def exercise_notice(text: str, start: int, end: int) -> tuple[str, str] | None:
    """The notice a party must give at the latest to exercise an option to renew ("by giving
    written notice ... not later than six (6) months prior to the expiration"), as (ISO
    duration, words).  Of a window ("not less than six (6) months nor more than twelve (12)
    months prior", "between two (2) and six (6) months prior") the shorter notice is the last
    day to act."""
    durations = find_durations(text, start, end)
    for before in durations:
        if BEFORE_END_RE.search(text[before.end:min(end, before.end + 80)]):
            window = [d for d in durations if d is before or (
                d.end <= before.start and before.start - d.end <= 40 and not re.search(r"[.;]", text[d.end:before.start]))]
            last_day = min(window, key=lambda d: d.amount * _DAYS[d.unit])
            return iso_duration(last_day), text[last_day.start:last_day.end]
    return None


def kind_of(detail: dict) -> RenewalKind:
    """The kind a stored renewal value says; values read before kinds were told apart carry
    only whether the contract renews by itself."""
    kind = detail.get("kind")
    if kind in KINDS:
        return kind
    return "automatic" if detail.get("automatic") else "option"
