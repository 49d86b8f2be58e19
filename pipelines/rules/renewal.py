"""Finding how a contract renews and how much notice stops the renewal.

Renewal clauses say the term "shall automatically renew for successive one (1) year
periods"; the value reports want is CUAD's "successive 1 year".  The notice period to stop a
renewal is the duration written before "prior to the end of the then-current term" in a
clause about non-renewal or renewal.
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment
from pipelines.rules.dates import find_durations
from pipelines.rules.evidence import Evidence
from pipelines.rules.spans import sentence_around

# How a contract says it renews, in the words both readers take: this module's renewal evidence
# and the key-term values' renewal (terms/term.py), which reads more ways of saying it.
AUTOMATIC_RENEWAL = r"\bautomatic(?:ally)?\s+(?:be\s+)?(?:renew|extend|continue)|\brenew(?:ed|s)?\s+automatically"
SUCCESSIVE_PERIODS = r"\bsuccessive\s+(?:\w+\s+){0,4}?(?:periods?|terms?|years?|months?)"
RENEWAL_PERIOD = r"\brenewal\s+(?:term|period)s?\b"
EVERGREEN = r"\b(?-i:evergreen)\b"  # not "Evergreen Packaging"
AUTO_RENEW = r"\bauto-renew"
_RENEWAL_RE = re.compile(
    rf"{AUTOMATIC_RENEWAL}|{SUCCESSIVE_PERIODS}|{RENEWAL_PERIOD}|"
    r"\b(?:renew|extend)(?:ed|s)?\s+(?:\w+\s+){0,3}?for\s+(?:an?\s+)?(?:additional|further|successive|"
    rf"subsequent|like)\b|{EVERGREEN}|\bshall\s+be\s+renewed\b|{AUTO_RENEW}",
    re.IGNORECASE,
)
NOT_RENEWAL_RE = re.compile(
    r"\b(?:no|not)\s+(?:be\s+)?(?:automatic(?:ally)?\s+)?(?:renew|extend)|"  # "such rights do not automatically extend"
    # a period stretched by a delay, not the contract renewed: force majeure, an arbitration's days
    r"\bforce\s+majeure\b|\bextended\s+by\s+(?:the\s+)?number\s+of\s+days\b|\bfor\s+a\s+period\s+equal\s+to\b|"
    # insurance policies renewed; a calendar period defined as successive months
    r"\bpolic(?:y|ies)\b|[\"“](?:Calendar|Contract|Fiscal|Lease|Royalty)\s+(?:Quarter|Year|Month|Period)[\"”]",
    re.IGNORECASE)
NOTICE_WORD = r"\bnotice\b"
_NOTICE_RE = re.compile(NOTICE_WORD, re.IGNORECASE)
BEFORE_END_RE = re.compile(
    r"^\W*(?:\w+\W+){0,4}?(?:prior\s+to|prior\s+(?=the\s)|before|in\s+advance\s+of|preceding|of\s+the\s+expiration|"
    r"from\s+the\s+end)",
    re.IGNORECASE,
)
# What makes a sentence one about renewal: renewing, or the end of the term.  The key-term value's
# renewal context (terms/term.py) reads these words and more, but takes an expiration only where it is
# the term's ("the expiration of this Agreement"); this rule's notice evidence, calibrated as it reads
# now, takes any.
RENEWAL_WORD = r"renew\w*|non-?renew\w*"
END_OF_TERM = (r"end\s+of\s+(?:the\s+|any\s+|each\s+)?(?:then[\s-]+)?(?:current|initial|renewal|original)?\s*"
               r"(?:term|period|contract\s+year)")
_RENEWAL_CONTEXT_RE = re.compile(rf"\b(?:{RENEWAL_WORD}|expiration|expiry|{END_OF_TERM})\b", re.IGNORECASE)


def find_renewal_terms(text: str, segments: list[Segment]) -> list[Evidence]:
    """Renewal clauses; value "successive N unit" / "N unit" from the renewal's duration."""
    found = []
    for segment in segments:
        m = _RENEWAL_RE.search(segment.text)
        if not m or NOT_RENEWAL_RE.search(segment.text):
            continue
        start, end = sentence_around(text, segment, segment.start + m.start(), segment.start + m.end())
        after = [d for d in find_durations(text, start, end) if d.start >= segment.start + m.start() - 40]
        value = None
        if after:
            successive = re.search(r"\bsuccessive\b", text[start:end], re.IGNORECASE)
            value = ("successive " if successive else "") + after[0].describe()
        found.append(Evidence("Renewal Term", start, end, "renewal-term/clause", value))
    return found


def find_renewal_notice(text: str, segments: list[Segment]) -> list[Evidence]:
    """Clauses giving the notice needed to stop a renewal; value is the notice duration."""
    found = []
    for segment in segments:
        if not (_NOTICE_RE.search(segment.text) and _RENEWAL_CONTEXT_RE.search(segment.text)):
            continue
        for duration in find_durations(text, segment.start, segment.end):
            if BEFORE_END_RE.search(text[duration.end:min(segment.end, duration.end + 80)]):
                start, end = sentence_around(text, segment, duration.start, duration.end)
                found.append(Evidence("Notice Period To Terminate Renewal", start, end,
                                      "renewal-notice/clause", duration.describe()))
                break
    return found
