"""Which date is the agreement date, which the effective date, and when the term expires.

The agreement date is the date the preamble gives ("dated as of March 3, 2021").  The
effective date is a date the contract calls effective, a definition or sentence that says
when it takes effect, or, when no date is called effective, the agreement date as a weaker
candidate.  The expiration date comes
from the term clause: an explicit end date, a duration counted from the effective date
("five (5) years from the Effective Date", computed here), or "perpetual".
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment
from pipelines.rules.dates import DateMention, add_duration, find_dates, find_durations
from pipelines.rules.evidence import Evidence
from pipelines.rules.spans import sentence_around

HEAD_CHARS = 3000  # the preamble is on the first page
EFFECTIVE_HEAD_CHARS = 6000  # later dates called effective belong to other agreements
PREAMBLE_CONTEXT_CHARS = 80

PREAMBLE_CUE_RE = re.compile(
    r"\b(?:dated|as\s+of|made|entered|effective|executed|signed|concluded|this|date[d:]?|"
    r"day\s+of|on)\b[^.]{0,60}$",
    re.IGNORECASE,
)
# A preamble whose date was left for the signing: "entered into as of [Date]", "dated ______".
_PLACEHOLDER_RE = re.compile(
    r"\b(?:dated|as\s+of|made\s+(?:on|this)|entered\s+into\s+(?:on|as\s+of))\s+(?:the\s+)?"
    r"(?P<blank>(?:\[[^\]\n]{0,10}\]|_{3,})(?:\s*,\s*(?:19|20)\d\d)?)",
    re.IGNORECASE,
)
WITNESS_RE = re.compile(r"IN\s+WITNESS\s+WHEREOF[^.]{0,300}", re.IGNORECASE)
EFFECTIVE_BEFORE_RE = re.compile(
    r"\beffective\s+(?:as\s+(?:of|from)\s+|on\s+|from\s+|date\s*:?\s*)?(?:the\s+|this\s+)?$", re.IGNORECASE
)
EFFECTIVE_AFTER_RE = re.compile(
    r"^[^()\n]{0,15}?\(\s*(?:the|this)?\s*[\"“”']?\s*(?:\w+\s+)?Effective\s+Date|^[\s,]*[\"“”']?Effective\s+Date",
    re.IGNORECASE,
)
_EFFECTIVE_DEFINITION_RE = re.compile(
    r"[\"“”']?\b(?:Effective|Commencement)\s+Dates?[\"“”']?\s*(?:of\s+(?:this|the)\s+(?:\w+\s+){0,2}?)?"
    r"(?:shall\s+mean|means|(?:shall|will)\s+be|is|:|(?=\s+(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))",
    re.IGNORECASE,
)
# Signs that the contract has an effective date of its own, wherever it is said: a defined
# term or a commencement is strong, a bare "effective as of" (often about notices) is weak.
_DEFINES_EFFECTIVE_RE = re.compile(
    r"\b(?:Effective|Commencement)\s+Date\b|\b(?i:commenc\w*\s+(?:on|upon|as\s+of)|take[sn]?\s+effect)\b"
)
_MENTIONS_EFFECTIVE_RE = re.compile(
    r"\beffective\s+(?:as\s+)?(?:of|on|from)\b|\b(?:become|be)\s+effective\b|\beffective\s+date\b",
    re.IGNORECASE,
)
# "This Agreement shall become effective on ...", "The Term shall commence on ...".
_EFFECTIVE_CLAUSE_RE = re.compile(
    r"\b(?:this|the)\s+(?:\w+\s+){0,3}?(?:agreement|contract|term)\b(?:\s+\([^)]{0,40}\))?[^.;]{0,60}?"
    r"\b(?:(?:shall|will)\s+(?:\w+\s+)?(?:become|be)\s+effective|(?:shall|will)\s+(?:take|come\s+into)\s+effect|"
    r"is\s+effective|(?:shall|will)\s+(?:\w+\s+)?(?:commence|begin|start)|commences|begins|takes\s+effect)"
    r"(?:\s+(?:on|upon|as\s+of|from|with\s+effect\s+from))?\s+",
    re.IGNORECASE,
)
# A clause that only refers back to an effective date defined elsewhere.
_REFERS_TO_EFFECTIVE_DATE_RE = re.compile(r"(?:the\s+)?(?:Effective|Commencement)\s+Date\b", re.IGNORECASE)
_TERM_CLAUSE_RE = re.compile(
    r"\b(?:term|agreement|contract)\b[^.;]{0,200}?\b(?:shall|will|is\s+to)\s+(?:\w+\s+){0,3}?"
    r"(?:continue|remain|expire|terminate|end|be\s+in\s+(?:full\s+)?(?:force|effect)|"
    r"be\s+(?:for|valid))\b|\b(?:initial\s+term|term\s+of\s+this\s+(?:agreement|contract))\b"
    r"[^.;]{0,120}?\b(?:is|shall\s+be|will\s+be|of)\b",
    re.IGNORECASE,
)
_TERM_END_WORDS_RE = re.compile(
    r"\b(?:until|expir\w*|terminat\w*|anniversary|years?|months?|period)\b", re.IGNORECASE
)
_END_CUE_RE = re.compile(r"\b(?:expire|expiring|terminate|terminating|end|ending|until|through|to)\s+(?:on\s+)?$",
                         re.IGNORECASE)
_FROM_START_RE = re.compile(
    r"^\s*(?:thereafter|(?:from|after|following|commencing\s+(?:on|with)|beginning\s+(?:on|with))\s+"
    r"(?:the\s+)?(?:Effective\s+Date|date\s+(?:hereof|of\s+this\s+agreement|first\s+(?:above\s+)?written)|"
    r"Commencement\s+Date|execution|signing|date\s+of\s+execution))",
    re.IGNORECASE,
)
_TERM_LENGTH_CUE_RE = re.compile(
    r"\b(?:for|of)\s+(?:a\s+|an\s+)?(?:(?:initial|fixed|original)\s+)?(?:(?:period|term)\s+of\s+)?$",
    re.IGNORECASE,
)
_PERPETUAL_RE = re.compile(
    r"\b(?:perpetual|perpetuity|indefinite(?:ly)?|until\s+terminated|unless\s+and\s+until\s+terminated)\b",
    re.IGNORECASE,
)


def on_filing_legend(text: str, offset: int) -> bool:
    """Whether `offset` is on a "Source: ACME CORP, 10-K, 3/3/2021" line EDGAR adds to pages."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.startswith("Source:", line_start) or "Source:" in text[max(line_start, offset - 80):offset]


def _preamble_date(text: str) -> DateMention | None:
    head = [m for m in find_dates(text, 0, min(len(text), HEAD_CHARS)) if not on_filing_legend(text, m.start)]
    for mention in head:
        if PREAMBLE_CUE_RE.search(text[max(0, mention.start - PREAMBLE_CONTEXT_CHARS):mention.start]):
            return mention
    return head[0] if head else None


def _witness_date(text: str) -> DateMention | None:
    for m in WITNESS_RE.finditer(text):
        found = find_dates(text, m.start(), m.end())
        if found:
            return found[0]
    return None


def _same_date_elsewhere(text: str, first: DateMention, category: str, kind: str) -> list[Evidence]:
    """Other spellings of the same full date: CUAD annotates each distinct one."""
    if first.iso is None or len(first.iso) != 10:
        return []
    seen = {first.text.lower()}
    found = []
    for mention in find_dates(text):
        if mention.iso == first.iso and mention.text.lower() not in seen and not on_filing_legend(text, mention.start):
            seen.add(mention.text.lower())
            found.append(Evidence(category, mention.start, mention.end, kind, mention.iso))
    return found


def agreement_date(text: str) -> list[Evidence]:
    """The preamble's date (or the signature clause's, or the blank a template left for it),
    then its other spellings."""
    category = "Agreement Date"
    first = _preamble_date(text)
    kind = "agreement-date/preamble"
    if first is None:
        first, kind = _witness_date(text), "agreement-date/witness-clause"
    if first is None:
        blank = _PLACEHOLDER_RE.search(text, 0, min(len(text), HEAD_CHARS))
        if blank is None:
            return []
        return [Evidence(category, blank.start("blank"), blank.end("blank"), "agreement-date/placeholder")]
    found = [Evidence(category, first.start, first.end, kind, first.iso)]
    return found + _same_date_elsewhere(text, first, category, "agreement-date/same-date")


def _segment_of(segments: list[Segment], offset: int) -> Segment | None:
    for segment in segments:
        if segment.start <= offset < segment.end:
            return segment
    return None


def _clause(text: str, segments: list[Segment], start: int, end: int) -> tuple[int, int]:
    segment = _segment_of(segments, start)
    return sentence_around(text, segment, start, end) if segment else (start, end)


def effective_date(text: str, segments: list[Segment], agreement: list[Evidence]) -> list[Evidence]:
    """Dates called effective, effective-date definitions and clauses, and the agreement date.

    The agreement date is offered as a weak candidate when no date is called effective: many
    contracts take effect on the date they are made.  It is likelier to be the effective date
    when the contract speaks of one somewhere, so how strongly it does is the evidence kind.
    """
    category = "Effective Date"
    found: list[Evidence] = []
    for mention in find_dates(text, 0, min(len(text), EFFECTIVE_HEAD_CHARS)):
        before = text[max(0, mention.start - 40):mention.start]
        after = text[mention.end:mention.end + 40]
        if EFFECTIVE_BEFORE_RE.search(before) or EFFECTIVE_AFTER_RE.search(after):
            found.append(Evidence(category, mention.start, mention.end, "effective-date/called-effective", mention.iso))
    for m in _PLACEHOLDER_RE.finditer(text, 0, min(len(text), HEAD_CHARS)):
        if EFFECTIVE_BEFORE_RE.search(text[max(0, m.start("blank") - 40):m.start("blank")]) or \
                EFFECTIVE_AFTER_RE.search(text[m.end("blank"):m.end("blank") + 40]):
            found.append(Evidence(category, m.start("blank"), m.end("blank"), "effective-date/called-effective"))
    for m in _EFFECTIVE_DEFINITION_RE.finditer(text):
        start, end = _clause(text, segments, m.start(), m.end())
        dated = find_dates(text, m.end(), min(len(text), m.end() + 60))
        if dated:
            found.append(Evidence(category, dated[0].start, dated[0].end, "effective-date/definition", dated[0].iso))
        found.append(Evidence(category, start, end, "effective-date/definition-clause", dated[0].iso if dated else None))
    for segment in segments:
        m = _EFFECTIVE_CLAUSE_RE.search(segment.text)
        if m and not _REFERS_TO_EFFECTIVE_DATE_RE.match(segment.text, m.end()):
            start, end = sentence_around(text, segment, segment.start + m.start(), segment.start + m.end())
            dated = find_dates(text, start, end)
            found.append(Evidence(category, start, end, "effective-date/clause", dated[0].iso if dated else None))
    if agreement and not any(e.kind == "effective-date/called-effective" for e in found):
        first = agreement[0]
        kind = "effective-date/agreement-date"
        if _DEFINES_EFFECTIVE_RE.search(text):
            kind = "effective-date/agreement-date-effective-defined"
        elif _MENTIONS_EFFECTIVE_RE.search(text):
            kind = "effective-date/agreement-date-effective-mentioned"
        found.append(Evidence(category, first.start, first.end, kind, first.value))
    return found


def _effective_iso(found: list[Evidence], agreement_iso: str | None) -> str | None:
    for evidence in found:
        if evidence.kind in ("effective-date/called-effective", "effective-date/definition") and evidence.value:
            return evidence.value
    return agreement_iso


def _expiry_value(text: str, start: int, end: int, effective_iso: str | None) -> tuple[str | None, str]:
    """The expiry a term clause gives, and how it was found (the evidence kind's suffix)."""
    dated = [m for m in find_dates(text, start, end) if m.iso and len(m.iso) == 10]
    for mention in dated:
        if _END_CUE_RE.search(text[max(start, mention.start - 25):mention.start]):
            return mention.iso, "explicit-date"
    for duration in find_durations(text, start, end):
        before = text[max(start, duration.start - 40):duration.start]
        after = text[duration.end:min(end, duration.end + 80)]
        if _TERM_LENGTH_CUE_RE.search(before) or _FROM_START_RE.search(after):
            commencement = dated[0].iso if dated else effective_iso
            if commencement and len(commencement) == 10:
                return add_duration(commencement, duration.amount, duration.unit), "duration"
            return None, "duration-unresolved"
    if _PERPETUAL_RE.search(text, start, end):
        return "perpetual", "perpetual"
    return None, "clause"


def expiration_date(text: str, segments: list[Segment], effective_iso: str | None) -> list[Evidence]:
    """Term clauses, each with the expiry date it gives or implies.

    A clause that gives no date, duration or "perpetual" is kept only if it at least speaks
    of an end ("until", "expire", a period), as CUAD annotates those too.
    """
    found = []
    for segment in segments:
        m = _TERM_CLAUSE_RE.search(segment.text)
        if not m:
            continue
        start, end = sentence_around(text, segment, segment.start + m.start(), segment.start + m.end())
        value, how = _expiry_value(text, start, end, effective_iso)
        if how == "clause" and not _TERM_END_WORDS_RE.search(text, start, end):
            continue  # says the agreement continues, but nothing about until when
        found.append(Evidence("Expiration Date", start, end, f"expiration-date/{how}", value))
    return found


def contract_dates(text: str, segments: list[Segment]) -> list[Evidence]:
    """Agreement, effective and expiration date evidence for one document.

    Durations in the term clause count from the date called effective, else from the
    agreement date.
    """
    agreement = agreement_date(text)
    effective = effective_date(text, segments, agreement)
    effective_iso = _effective_iso(effective, agreement[0].value if agreement else None)
    return agreement + effective + expiration_date(text, segments, effective_iso)
