"""The agreement date and the effective date, as a lawyer would state them.

A date the contract leaves blank ("the ____ day of ________, 2000", "dated as of [●], 2019")
is "not stated": the year printed on a template says nothing about when it was signed.  An
effective date defined by reference ("the date of the last signature below", "the Closing
Date") keeps that reference in `detail["reference"]`; its value is the date it resolves to
when the document itself gives one (the signature blocks' dates), else the reference itself.

CUAD leaves the effective date empty for contracts that never speak of one, so the agreement
date stands in for it only when the contract does (a defined "Effective Date", or "effective
as of" in the preamble).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pipelines.datamodel import Segment
from pipelines.rules.contract_dates import (
    CONTRACT_START, EFFECTIVE_AFTER_RE, EFFECTIVE_BEFORE_RE, EFFECTIVE_CONTEXT_CHARS, EFFECTIVE_HEAD_CHARS,
    LATE_PREAMBLE_CHARS, REFERENCE_NOUN, SENTENCE_BREAK_RE, TAKES_EFFECT_ON, agreement_date_mention, called_effective,
    on_filing_legend,
)
from pipelines.rules.date_cues import blank_dates, is_full, latest_signature, signature_dates
from pipelines.rules.dates import DateMention, find_written_dates
from pipelines.terms.display import parse_iso_date
from pipelines.terms.value import NOT_STATED, Quote, TermValue

AGREEMENT, EFFECTIVE = "Agreement Date", "Effective Date"

# ""Effective Date" means ...", ""EFFECTIVE DATE" of this Agreement shall mean ...", ""EFFECTIVE
# DATE" - January 21, 2002", "The Effective Date of
# this Agreement shall be ...", and the unquoted entries of a definitions list: "(f) Effective
# Date means May 3, 2006", "EFFECTIVE DATE means 18 May 2000", "Commencement Date means the date
# of this Agreement", "The commencement date for this contract will be 16th June 2004", and a
# schedule's "Contract start: 04-01-06" (rules/contract_dates.py's CONTRACT_START).  Unlike the rule's
# definition evidence, which marks any definition clause CUAD might annotate, this stops where the
# meaning starts, and takes the term in the case a definition writes it.
_EFFECTIVE_TERM = r"(?:Effective|EFFECTIVE|Commencement|COMMENCEMENT)\s+(?:Date|DATE)"
_EFFECTIVE_DEFINITION_RE = re.compile(
    rf"[\"“”']\s*{_EFFECTIVE_TERM}\s*[\"“”']\s*(?i:of\s+this\s+(?:[\w-]+\s+){{0,2}}?(?=shall\s+mean|means))?"
    r"(?i:shall\s+mean|means|:|[-–—]|is|shall\s+be)\s+|"
    rf"(?:^|[.:;]\s+|\(\w{{1,4}}\)\s*|\b\d+(?:\.\d+)*\.?\s+){_EFFECTIVE_TERM}\s+(?i:shall\s+mean|means)\s+|"
    rf"(?:^|[.:]\s+)(?i:the)\s+(?:{_EFFECTIVE_TERM}|(?i:effective|commencement)\s+date(?=\s+(?:of|for)\s+this))\s+"
    r"(?i:(?:(?:of|for)\s+this\s+\w+(?:\s+\w+)?\s+)?(?:shall\s+(?:mean|be)|will\s+be|means|is))\s*:?\s+|"
    rf"(?i:{CONTRACT_START}\s*)",
    re.MULTILINE,
)
# The preamble's "effective as of the date of the last signature", "the last date of signature below",
# "effective upon the Closing".  The rule's reference evidence (rules/contract_dates.py) marks any
# reference CUAD might annotate ("as of the Closing Date"); a value is read only from one whose head
# says which date it is, so that it can be resolved.
_EFFECTIVE_REFERENCE_RE = re.compile(
    rf"\beffective\s+{TAKES_EFFECT_ON}(?P<reference>(?:the|such)\s+(?:(?:last|latest|later|final)\s+)?"
    rf"{REFERENCE_NOUN}\b[^;.()\"“”]{{0,140}})",
    re.IGNORECASE,
)
# "effective as of the later of the two signature dates below", "effective on the later of the
# dates of signature": the last signature, whatever the reference's other words.
_EFFECTIVE_LATER_SIGNATURE_RE = re.compile(
    rf"\beffective\s+{TAKES_EFFECT_ON}(?P<reference>the\s+(?:later|last|latest)\s+of\s+the\s+(?:\w+\s+){{0,2}}?"
    r"(?:signature\s+dates|dates\s+of\s+(?:signature|execution)|dates\s+(?:\w+\s+){0,3}?(?:signatures|signed|executed))\b)",
    re.IGNORECASE,
)
# A reference that means the agreement date itself.
_MEANS_AGREEMENT_DATE_RE = re.compile(
    r"^(?:the\s+)?date\s+(?:hereof|of\s+this\s+(?:agreement|contract)|"
    r"(?:first\s+)?(?:above\s+)?(?:written|set\s+forth|listed|stated|indicated)\s+above|first\s+(?:above\s+)?(?:written|set\s+forth))",
    re.IGNORECASE,
)
# A reference the signature blocks answer: "the date of the last signature", "the date of execution".
_MEANS_SIGNING_RE = re.compile(r"\b(?:sign\w*|signature|execut\w*|below)\b", re.IGNORECASE)
# What a reference must look like: "the date ...", "the Closing Date", "such time as ...".
# "the later of the dates shown by the signatures below" too.
_REFERENCE_START_RE = re.compile(r"^(?:the|such|that)\s+(?:[\w-]+\s+){0,3}?(?:dates?|days?|time|closing)\b", re.IGNORECASE)
_REFERENCE_END_RE = re.compile(r"\s*(?:,|\band\b|\bby\s+and\b|\bbetween\b|\(|$)", re.IGNORECASE)
# A reference the contract restates as a date: "the Date of Installation of the System, i.e. December 10,
# 1993", "the Closing Date (that is, 1 March 2001)".
_RESTATED_RE = re.compile(r"[\s,(]*(?:i\.\s?e\.|that\s+is|namely)\s*,?\s*", re.IGNORECASE)
RESTATED_REACH_CHARS = 60
# "This Agreement shall become effective on ...", "The Term shall commence on ...", "commencing on".
# The effective-date rule's clause (rules/contract_dates.py's _EFFECTIVE_CLAUSE_RE) marks the sentence
# CUAD annotates, subject and all, and is calibrated as it reads; this reads up to the date, in more words.
_TAKES_EFFECT_RE = re.compile(
    r"\b(?:agreement|contract|amendment|term|venture)\b[^.;]{0,60}?\b(?:(?:shall|will)\s+(?:\w+\s+)?(?:become|be)\s+effective|"
    r"(?:shall|will)\s+(?:take|come\s+into)\s+(?:effect|force)|is\s+effective|(?:shall|will)\s+(?:commence|begin|start)|"
    r"(?:shall|will)\s+enter\s+into\s+force|commences|begins|takes\s+effect|commencing|beginning)\s+"
    r"(?:(?:retroactive(?:ly)?|nunc\s+pro\s+tunc)\s+(?:to\s+)?)?"  # "shall be effective retroactively as of"
    r"(?:(?:on|upon|as\s+of|from|with\s+effect\s+from)\s+)?(?:the\s+)?",
    re.IGNORECASE,
)
# What a contract that "commences on the date hereof" or "takes effect upon execution" starts
# from: its own date, so its effective date is the agreement date.
_FROM_ITS_OWN_DATE_RE = re.compile(
    r"(?:date\s+(?:hereof|of\s+(?:this|the)\s+(?:agreement|contract))|"
    r"(?:date|day(?:\s+and\s+year)?)\s+(?:first\s+)?(?:above\s+)?(?:written|set\s+forth|stated)(?:\s+above)?|"
    r"(?:date\s+of\s+)?(?:its\s+|the\s+)?(?:execution|signatures?|signing)\b|"
    r"date\s+(?:on\s+which|when|that)\s+(?:it|this\s+(?:agreement|contract))\s+is\s+(?:signed|executed))",
    re.IGNORECASE,
)
# Signs that the contract defines an effective date of its own (CUAD then reads the agreement date
# as it): a defined term (""Effective Date"", "(Effective Date)"), a heading "Effective Date and
# Term".  A mere use of "the Effective Date" does not count: an amendment's "effective on the
# Effective Date" is the amended agreement's, which the amendment does not date.
_DEFINES_EFFECTIVE_DATE_RE = re.compile(
    r"[\"“”(]\s*(?:the\s+)?(?:Effective|EFFECTIVE)\s+(?:Date|DATE)\s*[\"“”),]|"
    r"\b(?:Effective|EFFECTIVE)\s+(?:Date|DATE)\s+(?:and|AND|&)\s+(?:Term|TERM)\b")
# A preamble dated by its own definition: "is entered into as of the Effective Date (as defined below)".
_AS_OF_EFFECTIVE_DATE_RE = re.compile(
    r"\b(?:entered\s+into|made|dated|executed)(?:\s+and\s+\w+)?\s+(?:as\s+of|on)\s+the\s+Effective\s+Date\b", re.IGNORECASE)
# The preamble's "made effective" / "made and effective": the contract takes effect when made.
_MADE_EFFECTIVE_RE = re.compile(r"\bmade\s+(?:and\s+)?effective\b", re.IGNORECASE)


@dataclass(frozen=True)
class _Found:
    """A date reading before it becomes a TermValue: the value, where, and how it was read."""

    value: str
    start: int
    end: int
    how: str
    written: str
    reference: str | None = None


def read_dates(text: str, segments: list[Segment]) -> list[TermValue]:
    """The agreement date and the effective date, each only where the contract addresses it."""
    mentions = find_written_dates(text, 0, min(len(text), LATE_PREAMBLE_CHARS))
    signed = signature_dates(text)
    agreement = _agreement_date(text, mentions, signed)
    effective = _effective_date(text, mentions, agreement, signed)
    if agreement is None and effective is not None and parse_iso_date(effective.value) is not None and \
            _AS_OF_EFFECTIVE_DATE_RE.search(text, 0, min(len(text), EFFECTIVE_HEAD_CHARS)):
        agreement = replace(effective, how="effective-date")
    found = []
    if agreement is not None:
        found.append(_term_value(AGREEMENT, agreement))
    if effective is not None:
        found.append(_term_value(EFFECTIVE, effective))
    return found


def _term_value(field: str, found: _Found) -> TermValue:
    detail: dict = {"text": found.written, "how": found.how}
    if found.reference:
        detail["reference"] = found.reference
    confidence = {"preamble": 0.9, "called-effective": 0.9, "definition": 0.85}.get(found.how, 0.7)
    return TermValue(field, found.value, confidence, (Quote(found.start, found.end, "date"),), detail)


def _from_mention(mention: DateMention, how: str) -> _Found:
    value = mention.iso if is_full(mention) else NOT_STATED
    return _Found(value, mention.start, mention.end, how, mention.text)


def _agreement_date(text: str, mentions: list[DateMention], signed: list[DateMention]) -> _Found | None:
    """The preamble's date, or its blank; else the witness clause's; else the last signature's
    (the choice the key-term candidates make, pipelines/rules/contract_dates.py)."""
    chosen = agreement_date_mention(text, mentions, signed)
    if chosen is None:
        return None
    mention, how = chosen
    return _from_mention(mention, "preamble" if how == "late-preamble" else how)


def _effective_date(text: str, mentions: list[DateMention], agreement: _Found | None,
                    signed: list[DateMention]) -> _Found | None:
    """A date called effective, an effective date by reference, or the agreement date when the
    contract speaks of an effective date without giving another."""
    called = _called_effective(text, mentions)
    event = _defined_by_event(text)
    if called is not None:
        # A date called effective after the preamble tied the Effective Date to an event belongs to
        # something else: "entered into as of the date on which the Registration Statement is
        # declared effective (the "Effective Date") ... a Selling Agreement, effective as of December 1, 2002".
        return event if event is not None and event.start < called.start else called
    referred = _effective_by_reference(text, agreement, signed)
    if referred is not None:
        return referred
    if event is not None:
        return event
    commencement = _takes_effect(text, agreement, signed)
    if commencement is not None:
        return commencement
    if agreement is not None and _defines_its_effective_date(text):
        return _Found(agreement.value, agreement.start, agreement.end, "agreement-date", agreement.written)
    return None


def _defines_its_effective_date(text: str) -> bool:
    """Whether the contract gives itself an effective date, without a date of its own."""
    return bool(_DEFINES_EFFECTIVE_DATE_RE.search(text) or _EFFECTIVE_DEFINITION_RE.search(text)
                or _MADE_EFFECTIVE_RE.search(text, 0, EFFECTIVE_HEAD_CHARS))


def _called_effective(text: str, mentions: list[DateMention]) -> _Found | None:
    """'effective as of March 3, 2021' or 'March 3, 2021 (the "Effective Date")', blanks included."""
    candidates = sorted(mentions + blank_dates(text, EFFECTIVE_HEAD_CHARS), key=lambda m: m.start)
    for mention in candidates:
        if mention.start >= EFFECTIVE_HEAD_CHARS or on_filing_legend(text, mention.start):
            continue
        if called_effective(text, mention) and not _effective_for_something_else(text, mention):
            return _from_mention(mention, "called-effective")
    return None


# What follows the date of a sentence that opens "Effective on <date>,": a subject other than the
# contract, and its verb ("..., the Debt Securities will convert", "(the "Commencement Date"), the
# Company is undertaking an offering").
_OTHER_SUBJECT_AFTER_RE = re.compile(
    r"\s*(?:\([^()]{0,80}\)\s*)?,\s*(?!(?i:this|the)\s+(?:[\w-]+\s+){0,3}?(?i:agreement|contract|amendment)\b)"
    r"(?:[\w“”\"'’().,-]+\s+){1,8}?(?:will|shall|is|are|has|have|hereby|agrees?|may)\b")


def _effective_for_something_else(text: str, mention: DateMention) -> bool:
    """Whether a date called effective is another clause's: an "effective" that a comma ties to
    that clause's subject ("the Stated Maturity of the Securities will, effective October 8,
    2014, automatically be adjusted", see _said_of_the_contract), or a sentence that opens with
    "Effective on <date>," and says what happens then to something other than the contract.
    Neither dates the contract, whose own "(the "Effective Date")" after the date outranks both."""
    window_start = max(0, mention.start - EFFECTIVE_CONTEXT_CHARS)
    effective = EFFECTIVE_BEFORE_RE.search(text, window_start, mention.start)
    if effective is None or EFFECTIVE_AFTER_RE.search(text[mention.end:mention.end + EFFECTIVE_CONTEXT_CHARS]):
        return False
    at = effective.start()
    if at == 0 or any(m.end() == at for m in SENTENCE_BREAK_RE.finditer(text, max(0, at - 10), at + 1)):
        return bool(_OTHER_SUBJECT_AFTER_RE.match(text, mention.end))
    return bool(_PUNCTUATION_BEFORE_RE.search(text, max(0, at - 60), at)) and not _said_of_the_contract(text, at)


def _takes_effect(text: str, agreement: _Found | None, signed: list[DateMention]) -> _Found | None:
    """The date a clause says the agreement or its term starts: "shall commence on March 1, 2003",
    or the agreement date where it starts from the contract's own date or signing ("shall
    commence on the date hereof", "takes effect upon execution"), or the last signature's date
    where it starts once every party has signed ("on the date of its signature by both Parties")."""
    for m in _TAKES_EFFECT_RE.finditer(text):
        dated = find_written_dates(text, m.end(), min(len(text), m.end() + 40))
        if dated and dated[0].start == m.end() and is_full(dated[0]):
            return _from_mention(dated[0], "takes-effect")
        if agreement is not None and _FROM_ITS_OWN_DATE_RE.match(text, m.end()) and _speaks_of_itself(text, m):
            phrase = _reference_phrase(text, m.end())
            last = _last_signature(signed, phrase) if signed and _SIGNED_BY_ALL_RE.search(phrase) else None
            # a last signature dated before the contract's own date is a typo in a block, not a later start
            if last is not None and last.value != NOT_STATED and last.value > agreement.value:
                return last
            return _Found(agreement.value, agreement.start, agreement.end, "agreement-date", agreement.written, phrase)
    return None


# Signing that is complete only when the last party signs: "by both Parties", "by all parties",
# "the last", "the later", "fully executed".
_SIGNED_BY_ALL_RE = re.compile(r"\b(?:both|all|each|every|last|later|latest|fully|mutual(?:ly)?)\b", re.IGNORECASE)


# An effective date defined by an event: "the later of (i) the date hereof or (ii) the date the
# records are converted (the "Effective Date")", "effective as of that date (the "Effective
# Date") the Site becomes operational", ""Effective Date" has the meaning of the "Closing Date"
# set forth in the Investment Agreement".
_EFFECTIVE_PARENTHETICAL_RE = re.compile(
    r"\(\s*(?:the\s+)?[\"“”]Effective\s+Date[\"“”]\s*\)|[\"“”]Effective\s+Date[\"“”]\s+has\s+the\s+meaning\b")
_EVENT_RE = re.compile(
    r"\b(?:later|earlier)\s+(?:to\s+occur\s+)?of\b|\b(?:that|such)\s+date\s*$|\bdate\s+(?:on\s+which|that|when|upon\s+which)\b|"
    r"\bdate\s+\w+\s+(?:has|have|is|are)\s+\w+ed\b|has\s+the\s+meaning\b", re.IGNORECASE)
EVENT_CHARS = 200


def _defined_by_event(text: str) -> _Found | None:
    """'Not stated' where the contract defines its effective date by an event the document
    does not date (a conversion, a launch, another agreement's closing): the agreement date
    would be a guess, so the definition is kept as the reference instead."""
    event = None
    for m in _EFFECTIVE_PARENTHETICAL_RE.finditer(text):
        if m.group().startswith("("):
            before = text[max(0, m.start() - EVENT_CHARS):m.start()]
            before = re.split(r"\.\s+(?=[A-Z])", before)[-1]
            if find_written_dates(before, 0, len(before)):
                return None  # dated after all: "This Agreement is effective June 11, 2015 (the "Effective Date")"
            if not _EVENT_RE.search(before):
                continue
            phrase = " ".join(before.split())
        else:
            phrase = " ".join(text[m.start():m.end() + 120].split()).split(". ")[0]
        event = event or _Found(NOT_STATED, m.start(), m.end(), "event", phrase, phrase)
    return event


# "This Agreement", "The term of this Agreement", "The initial term": the contract itself.
# "9.1This Agreement", "this Sponsorship Agreement", 'The "Term"', "the initial term"; not "the
# Operating Agreement", which is another instrument.
_ITSELF_BEFORE_RE = re.compile(
    r"(?i)(?<![a-z])(?:this\s+(?:[\w-]+\s+){0,2}|the\s+(?:(?:initial|original|joint)\s+)?)[\"“]?$")
_DEFINES_OTHER_RE = re.compile(r"[\"“”]\s*(?:shall\s+mean|means)\b", re.IGNORECASE)


def _speaks_of_itself(text: str, m: re.Match[str]) -> bool:
    """Whether a "takes effect" clause is about this contract or its term: "This Agreement is
    effective as of the date hereof", not "each of the Operating Agreement and the Warrant is
    effective as of the date hereof" nor a defined "Standstill Period" "commencing on the date
    of this Agreement"."""
    return bool(_ITSELF_BEFORE_RE.search(text, max(0, m.start() - 40), m.start())) and \
        not _DEFINES_OTHER_RE.search(m.group())


def _effective_by_reference(text: str, agreement: _Found | None, signed: list[DateMention]) -> _Found | None:
    """An effective date defined by what it refers to, resolved where the document allows."""
    definition = _EFFECTIVE_DEFINITION_RE.search(text)
    if definition is not None:
        dated = find_written_dates(text, definition.end(), min(len(text), definition.end() + 40))
        if dated and dated[0].start - definition.end() < 12:
            return _from_mention(dated[0], "definition")
        resolved = _resolve_reference(text, definition.end(), agreement, signed)
        if resolved is None:
            return _defined_as_event(text, definition)
        return resolved
    later = _EFFECTIVE_LATER_SIGNATURE_RE.search(text, 0, min(len(text), EFFECTIVE_HEAD_CHARS))
    if later is not None and signed and _said_of_the_contract(text, later.start()):
        return _last_signature(signed, " ".join(later.group("reference").split()))
    for reference in _EFFECTIVE_REFERENCE_RE.finditer(text, 0, min(len(text), EFFECTIVE_HEAD_CHARS)):
        if _said_of_the_contract(text, reference.start()):
            return _resolve_reference(text, reference.start("reference"), agreement, signed)
    return None


# What "effective as of ..." follows when the contract is what takes effect: a verb ("This
# Agreement shall be effective", "executed and effective", "entered into effective"), the
# contract's own name ("this Supply Agreement effective as of", "(the "Agreement") effective"), a
# comma after the preamble's parties.  Not an appointment or another instrument: "as the
# Servicer effective upon the date hereof", "terminate the Original Agreement effective as of".
_PREDICATED_BEFORE_RE = re.compile(
    r"(?i:\b(?:is|be|been|become|becomes|became|made|and|into|hereby)|"
    r"\bthis\s+(?:[\w-]+\s+){0,2}(?:agreement|contract)|\bthe\s+(?:agreement|contract))\s*$")
_PUNCTUATION_BEFORE_RE = re.compile(r"[\"“”),]\s*$")
SENTENCE_REACH_CHARS = 1500
# A sentence whose subject is the contract: "This Agreement ...", "SUPPLY AGREEMENT ("Supply
# Agreement") ...", "THIS SERVICES AGREEMENT is made ...", "Co-Branding Agreement, ...".
_CONTRACT_SUBJECT_RE = re.compile(
    r"\s*(?i:(?:this|the)\s+)?(?:[\w&,-]+\s+){0,5}?(?i:agreement|contract|amendment|addendum)\b")


def _said_of_the_contract(text: str, effective_at: int) -> bool:
    """Whether the "effective" at this offset says when the contract itself takes effect.

    After a verb or the contract's name it does.  After bare punctuation only when the
    sentence is about the contract (the preamble's "... and Beta Inc. ("Beta"), effective as of
    the last date of signature"): elsewhere the comma ties "effective" to the clause's own
    subject, as in a most-favoured-nation clause's "Provider shall offer the same terms to
    Customer, effective from the date they were first offered to the other customer", whose
    date is the terms', not the contract's."""
    window_start = max(0, effective_at - 60)
    if _PREDICATED_BEFORE_RE.search(text, window_start, effective_at):
        return True
    return bool(_PUNCTUATION_BEFORE_RE.search(text, window_start, effective_at)) and \
        _sentence_about_the_contract(text, effective_at)


def _sentence_about_the_contract(text: str, at: int) -> bool:
    """Whether the sentence holding `at` opens with the contract as its subject, on its first
    line or on a later one (a title or an exhibit label may run into the preamble when the text
    layer drops the blank line: "CONSULTING AGREEMENT\nThis Consulting Agreement ...")."""
    reach = max(0, at - SENTENCE_REACH_CHARS)
    starts = [m.end() for m in SENTENCE_BREAK_RE.finditer(text, reach, at)]
    start = starts[-1] if starts else reach
    line_starts = [start] + [start + m.end() for m in re.finditer(r"\n", text[start:at])]
    return any(_CONTRACT_SUBJECT_RE.match(text, line_start, at) for line_start in line_starts)


def _defined_as_event(text: str, definition: re.Match[str]) -> _Found | None:
    """'Not stated' for a definition that ties the effective date to an event ("means the
    effective date of this Contract, which shall be the date on which it has been approved by
    the Examination and Approval Authority"): the agreement date must not stand in for it."""
    meaning = " ".join(text[definition.end():definition.end() + EVENT_CHARS].split()).split(". ")[0]
    if not _EVENT_RE.search(meaning):
        return None
    phrase = " ".join(text[definition.start():definition.end()].split()) + " " + meaning
    return _Found(NOT_STATED, definition.start(), definition.end(), "event", phrase, phrase)


DATE_AFTER_REFERENCE_CHARS = 12  # "the day of " before the date


def _resolve_reference(text: str, start: int, agreement: _Found | None,
                       signed: list[DateMention]) -> _Found | None:
    """'the date of the last signature' -> the latest signature date; 'the date hereof' -> the
    agreement date; anything else stays the reference phrase."""
    phrase = _reference_phrase(text, start)
    if not _REFERENCE_START_RE.match(phrase) or "effective date" in phrase.lower():
        return None
    end = start + len(phrase)
    if _MEANS_AGREEMENT_DATE_RE.match(phrase):
        if agreement is None:
            return None
        return _Found(agreement.value, agreement.start, agreement.end, "agreement-date", agreement.written, phrase)
    if _MEANS_SIGNING_RE.search(phrase) and signed:
        return _last_signature(signed, phrase)
    if _MEANS_SIGNING_RE.search(phrase) and agreement is not None and agreement.how == "preamble":
        # No signature block dates it, so it was signed when the preamble says it was made.
        return _Found(agreement.value, agreement.start, agreement.end, "agreement-date", agreement.written, phrase)
    dated = find_written_dates(text, start, end + DATE_AFTER_REFERENCE_CHARS)
    if dated and dated[0].start - start <= DATE_AFTER_REFERENCE_CHARS and is_full(dated[0]):
        # "effective on the day of May 1, 2013": a date, not a reference
        return _from_mention(dated[0], "called-effective")
    if (restated := _restated_date(text, start, phrase)) is not None:
        return _Found(restated.iso or NOT_STATED, restated.start, restated.end, "restated", restated.text, phrase)
    return _Found(phrase, start, end, "reference", phrase, phrase)


def _restated_date(text: str, start: int, phrase: str) -> DateMention | None:
    """The full date a reference is restated as right after it ("..., i.e. December 10, 1993"),
    found after the phrase's last word in the raw text (the phrase's spaces are folded)."""
    last_word = phrase.split()[-1] if phrase.split() else ""
    at = text.find(last_word, start, start + len(phrase) + 40) if last_word else -1
    if at < 0:
        return None
    restated = _RESTATED_RE.match(text, at + len(last_word))
    if restated is None:
        return None
    dated = find_written_dates(text, restated.end(), restated.end() + RESTATED_REACH_CHARS)
    return dated[0] if dated and dated[0].start == restated.end() and is_full(dated[0]) else None


def _last_signature(signed: list[DateMention], phrase: str) -> _Found:
    """The latest signature block's date, for a start "on the date of the last signature"."""
    latest = latest_signature(signed)
    return _Found(latest.iso or NOT_STATED, latest.start, latest.end, "last-signature", latest.text, phrase)


def _reference_phrase(text: str, start: int) -> str:
    """The words of a reference up to the end of its clause: 'the Closing Date'."""
    window = text[start:start + 160]
    window = re.split(r"[;.](?:\s|$)|\n\s*\n|[\"“”]", window, maxsplit=1)[0]
    cut = _REFERENCE_END_RE.search(window, 8)
    phrase = window[:cut.start()] if cut else window
    return " ".join(phrase.split()).strip(" ,:")
