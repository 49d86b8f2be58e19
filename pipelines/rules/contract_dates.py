"""Which date is the agreement date, which the effective date, and when the term expires.

The agreement date is the date the preamble gives ("dated as of March 3, 2021"), else the one
under the title, a strictly cued one past a table of contents, the witness clause's or the
first signature block's; the other places a contract dates itself (the witness clause, "This
Agreement is dated ...", the signature blocks) are weaker candidates of their own kinds, as
CUAD annotates them too.  The effective date is a date the contract calls
effective, a definition, sentence or reference that says when it takes effect, the last
signature's date where that is on signing, or, when no date is called effective, the
agreement date as a weaker candidate.  The expiration date comes
from the term clause: an explicit end date, a duration counted from the effective date
("five (5) years from the Effective Date", computed here), or "perpetual".
"""
from __future__ import annotations

import re

from pipelines.datamodel import Segment
from pipelines.rules.date_cues import (
    OTHER_INSTRUMENT_RE, STRICT_PREAMBLE_CUE_RE, TITLE_BEFORE_RE, TITLE_CONTEXT_CHARS, blank_dates, is_full,
    last_signing, latest_signature, signature_dates,
)
from pipelines.rules.dates import (
    DateMention, add_duration, find_dates, find_dates_of_year, find_durations, find_written_dates,
    find_yearless_dates,
)
from pipelines.rules.evidence import Evidence
from pipelines.rules.spans import sentence_around

HEAD_CHARS = 3000  # the preamble is on the first page ...
LATE_PREAMBLE_CHARS = 12000  # ... unless a cover page or a table of contents comes first
EFFECTIVE_HEAD_CHARS = 6000  # later dates called effective belong to other agreements
PREAMBLE_CONTEXT_CHARS = 80
EFFECTIVE_CONTEXT_CHARS = 60  # '(hereinafter referred to as "Effective Date")' after a date
REFERENCE_CHARS = 160

PREAMBLE_CUE_RE = re.compile(
    r"\b(?:dated|as\s+of|made|entered|effective|executed|signed|concluded|this|date[d:]?|"
    r"day\s+of|on)\b[^.]{0,60}$",
    re.IGNORECASE,
)
WITNESS_RE = re.compile(r"IN\s+WITNESS\s+WHEREOF[^.]{0,300}", re.IGNORECASE)
EFFECTIVE_BEFORE_RE = re.compile(
    r"\beffective\s+(?:for\s+all\s+purposes\s+(?:and\s+in\s+all\s+respects\s+)?)?"  # "effective for all purposes as of"
    r"(?:as\s+(?:of|from)\s+|on\s+|from\s+|date\s*:?\s*)?(?:the\s+|this\s+)?$|"
    r"\bwith\s+(?:retroactive\s+)?effect\s+(?:as\s+(?:of|from)|from|on)\s+(?:the\s+)?$",  # "with effect from 1 June 2010"
    re.IGNORECASE,
)
# '(the "Effective Date")', '(hereinafter referred to as "Effective Date")', ', hereinafter
# called the Effective Date'; not a table's "Trade Date: 27 April 2006 Effective Date 01 April 2006",
# where the label is the next date's.
EFFECTIVE_AFTER_RE = re.compile(
    r"^[^()\n]{0,15}?\(\s*(?:(?:the|this|hereinafter|herein|referred|to|as|called)\s+)*[\"“”']?\s*(?:\w+\s+)?"
    r"Effective\s*Date|"  # the text layer may glue the words: "(“EffectiveDate”)"
    r"^[\s,]*(?:(?:hereinafter|herein)\s+(?:called|referred\s+to\s+as)\s+(?:the\s+)?)?[\"“”']?Effective\s*Date"
    r"(?!\s*:?\s*(?:\d|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d))",  # not a label of the next date
    re.IGNORECASE,
)
# A schedule's "Contract start: 04-01-06", an effective date by another name (terms/dates.py reads it too).
CONTRACT_START = r"\b(?:contract|agreement)\s+start(?:\s+date)?\s*:"
# '"Effective Date" means ...', '"Effective Date" shall have the meaning set forth in the preamble',
# "The commencement date for this contract will be 16th June 2004".
_EFFECTIVE_DEFINITION_RE = re.compile(
    r"[\"“”']?\b(?:Effective|Commencement)\s+Dates?[\"“”']?\s*(?:(?:of|for)\s+(?:this|the)\s+(?:\w+\s+){0,2}?)?"
    r"(?:shall\s+mean|means|(?:shall|will)\s+be|is|:|(?:shall\s+have|has)\s+the\s+meaning|"
    rf"(?=\s+(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))|{CONTRACT_START}",
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
# "This Agreement shall become effective on ...", 'The "Term" shall commence on ...', "This
# Amendment shall enter into force on ...", "The Joint Venture shall commence on ...".
_EFFECTIVE_CLAUSE_RE = re.compile(
    r"\b(?:this|the)\s+(?:\w+\s+){0,3}?[\"“]?(?:agreement|contract|term|amendment|(?:joint\s+)?venture|appointment)\b"
    r"[\"”]?(?:\s+\([^)]{0,40}\))?[^.;]{0,60}?"
    r"\b(?:(?:shall|will)\s+(?:\w+\s+)?(?:become|be)\s+effective|(?:shall|will)\s+(?:take|come\s+into)\s+effect|"
    r"(?:shall|will)\s+(?:\w+\s+)?(?:enter|come)\s+into\s+(?:full\s+)?force|"
    r"is\s+effective|(?:shall|will)\s+(?:\w+\s+)?(?:commence|begin|start)|commences|begins|takes\s+effect)"
    r"(?:\s+(?:on|upon|as\s+of|from|with\s+effect\s+from))?\s+",
    re.IGNORECASE,
)
# "This contract shall be for a term of one year commencing on the date first above written",
# "The Joint Venture is a fixed term Joint Venture beginning November 27, 2018": a term that
# starts on a date or on the contract's own date (not "commencing on termination").
_TERM_COMMENCING_RE = re.compile(
    r"\b(?:this|the)\s+(?:\w+\s+){0,3}?[\"“]?(?:agreement|contract|term|(?:joint\s+)?venture|appointment)\b[\"”]?"
    r"[^.;]{0,80}?\b(?:commencing|beginning)(?:\s+(?:on|upon|as\s+of|from|with))?\s+"
    r"(?=(?:the\s+)?(?:\d|date\b|(?:first|[0-3]?\d\w*)\s+(?:day\s+)?of\b|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))",
    re.IGNORECASE,
)
# Where the first conjunct of a takes-effect sentence ends: "... as of the date hereof| and shall
# remain in full force", "... on March 1, 2003|, and shall be effective until".
_CONJUNCT_END_RE = re.compile(
    r",?\s+and\s+(?:shall|will|may|to|remain|continue|expire|terminate|end)\b|;|,\s+(?:unless|subject\s+to|provided)\b",
    re.IGNORECASE,
)
# "effective as of the date of the last signature below", "entered into as of the later of the
# two signature dates below (the "Effective Date")": an effective date given by reference.  How
# "effective" ties to the reference and the word it ends on are read by the key-term value too
# (terms/dates.py), which keeps to references it can resolve ("the last date", "such time").
TAKES_EFFECT_ON = r"(?:as\s+of|on|upon|from)\s+"
REFERENCE_NOUN = r"(?:date|day|closing|time)"
_EFFECTIVE_REFERENCE_RE = re.compile(
    rf"\b(?P<effective>effective\s+)?{TAKES_EFFECT_ON}(?:the|such)\s+(?:[\w-]+\s+){{0,5}}?{REFERENCE_NOUN}s?\b",
    re.IGNORECASE,
)
_REFERENCE_STOP_RE = re.compile(r"[;.](?:\s|$)|\n\s*\n|\(|,|\bby\s+and\s+between\b|\bbetween\b|\bby\s+and\s+among\b",
                                re.IGNORECASE)
_DEFINED_AS_EFFECTIVE_RE = re.compile(r"\s*\(\s*(?:the\s+)?[\"“”']?Effective\s+Date[\"“”']?\s*\)", re.IGNORECASE)
# A takes-effect clause or reference that counts from signing: "on the date of signature by both
# parties", "upon its execution", "the later of the two signature dates below"; not "no
# amendment shall be effective unless signed", which is about something else.
_TAKES_EFFECT_ON_SIGNING_RE = re.compile(
    r"\b(?:effective|effect|force|commenc\w*|begin\w*)\b(?:(?!\bunless\b|\bamendment|\bmodification|\bwaiver)[^.;]){0,100}?"
    r"\b(?:sign(?:ed|ing|ature|atures)?|execut(?:ed|ion))\b",
    re.IGNORECASE,
)
# "This Agreement is dated April 29, 2010", "This Affiliate Agreement is executed as of the 14th day
# of December, 1997", wherever the contract says it.
SELF_DATED_RE = re.compile(
    r"(?<![a-z])this\s+(?:[A-Z][\w-]*\s+){0,3}?(?:agreement|contract)\s+(?:is|was|shall\s+be)\s+"
    r"(?:dated|made|signed|executed)\s+"
    r"(?:on\s+|as\s+of\s+)?(?:the\s+)?", re.IGNORECASE)
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
# The words before a term's end date: "expire on", "until", "through" (terms/term.py's end cue reads
# these and more).
END_WORDS = r"expire|expiring|terminate|terminating|end|ending|until|through|to"
_END_CUE_RE = re.compile(rf"\b(?:{END_WORDS})\s+(?:on\s+)?$", re.IGNORECASE)
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
# A term without end: "perpetual", "in perpetuity", "indefinitely" (the key-term value, terms/term.py,
# reads these words too).  The expiry here is "perpetual" for "until terminated" as well, where the
# value tells an open-ended term ("until terminated") apart.
WITHOUT_END = r"perpetual|perpetuity|indefinite(?:ly)?"
_PERPETUAL_RE = re.compile(
    rf"\b(?:{WITHOUT_END}|until\s+terminated|unless\s+and\s+until\s+terminated)\b",
    re.IGNORECASE,
)


def on_filing_legend(text: str, offset: int) -> bool:
    """Whether `offset` is on a "Source: ACME CORP, 10-K, 3/3/2021" line EDGAR adds to pages."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.startswith("Source:", line_start) or "Source:" in text[max(line_start, offset - 80):offset]


def _own_date_candidates(text: str, mentions: list[DateMention], signed: list[DateMention]) -> list[DateMention]:
    """Dates and template blanks that may be the contract's own date, in order: not a filing
    legend's, not a signature block's, not another instrument's ("pursuant to the Supply
    Agreement dated ...")."""
    signature_starts = {m.start for m in signed}
    dates = [m for m in mentions if not on_filing_legend(text, m.start) and m.start not in signature_starts]
    blanks = [b for b in blank_dates(text, min(len(text), LATE_PREAMBLE_CHARS))
              if not any(m.start < b.end and b.start < m.end for m in dates)]
    return [m for m in sorted(dates + blanks, key=lambda m: m.start)
            if not OTHER_INSTRUMENT_RE.search(text, max(0, m.start - 160), m.start) and not _in_recitals(text, m.start)
            and not _NOT_THE_CONTRACTS_RE.search(text, max(0, m.start - 80), m.start)]


# Dates of something other than the contract, right before the date: a filing ("Filed with the
# Securities and Exchange Commission on"), a party's formation ("a Delaware corporation formed on"),
# prices or rates "in effect on", an end ("until").  A form's "Last Updated: April 6, 2007" stays:
# CUAD takes it for the form's date.
_NOT_THE_CONTRACTS_RE = re.compile(
    r"(?i:\bfiled\s+with\s+the\s+(?:securities\s+and\s+exchange\s+commission|sec|commission)\b[^.\n]{0,30}?|"
    r"\b(?:formed|incorporated|organi[sz]ed|established|founded|born|registered)\s+(?:on|in)\s+|"
    r"\bin\s+effect\s+(?:on|as\s+of)\s+|\b(?:until|through|expir\w*\s+on|terminat\w*\s+on|end(?:s|ing)?\s+on)\s+)"
    r"(?:the\s+)?$")


# The recitals run from a "WHEREAS" to the operative words ("NOW, THEREFORE", "agree as follows").
_RECITAL_RE = re.compile(r"\bWHEREAS\b|\bWhereas\b")
_OPERATIVE_RE = re.compile(r"\bNOW,?\s+THEREFORE\b|\bagree\s+as\s+follows\b|\bIN\s+WITNESS\b", re.IGNORECASE)
RECITAL_REACH_CHARS = 3000


def _in_recitals(text: str, at: int) -> bool:
    """Whether `at` falls in the recitals, whose dates are other instruments' ("WHEREAS, ... a
    Demand Note, dated December 5, 1995"), never the contract's own."""
    recitals = [m.end() for m in _RECITAL_RE.finditer(text, max(0, at - RECITAL_REACH_CHARS), at)]
    return bool(recitals) and not _OPERATIVE_RE.search(text, recitals[-1], at)


def agreement_date_mention(text: str, mentions: list[DateMention],
                           signed: list[DateMention]) -> tuple[DateMention, str] | None:
    """The contract's own date and where it was read: "preamble" (a cued date or blank on the
    first page, or one under the title), "late-preamble" (a strictly cued one past a cover page
    or a table of contents), "first-date" (the first page's first date), "dated-clause" ("This
    Agreement is dated ..."), "witness-clause", "signature" (the last signature's, when the blocks alone date it).

    `mentions` are the written dates of the first LATE_PREAMBLE_CHARS, `signed` the signature
    blocks' dates.  The key-term values (pipelines/terms/dates.py) read the same choice."""
    candidates = _own_date_candidates(text, mentions, signed)
    for mention in candidates:
        before = text[max(0, mention.start - PREAMBLE_CONTEXT_CHARS):mention.start]
        if mention.start < HEAD_CHARS and (PREAMBLE_CUE_RE.search(before) or _under_title(text, mention)):
            return _made_after_its_start(text, mention, candidates) or mention, "preamble"
    for mention in candidates:
        if STRICT_PREAMBLE_CUE_RE.search(text[max(0, mention.start - PREAMBLE_CONTEXT_CHARS):mention.start]):
            return mention, "late-preamble"
    # A clause that dates the contract in so many words outranks the first page's first date,
    # which may be another instrument's: "This Agreement is dated April 29, 2010", "IN WITNESS
    # WHEREOF, the parties have executed this Agreement as of this 4th day of April, 2003".
    for _, dated in _self_dated(text):
        return dated, "dated-clause"
    witness = _witness_date(text)
    if witness is not None:
        return witness, "witness-clause"
    head = [m for m in candidates if m.start < HEAD_CHARS and m.iso]
    if head:
        return head[0], "first-date"
    if signed:
        return last_signing(text, signed), "signature"
    return None


# Where one sentence ends and the next starts: a full stop or a semicolon before a capital, or a
# blank line (terms/dates.py reads sentences with it too).  The full stop of a short capitalised
# word is an abbreviation's: "Inc.", "Co.", "Ltd.", "Dr.", "N.A.", "Corp.".
SENTENCE_BREAK_RE = re.compile(
    r"(?:(?<!\b[A-Z])(?<!\b[A-Z][a-zA-Z])(?<!\b[A-Z][a-zA-Z]{2})(?<!\bCorp)(?<!\bCORP)\.|;)\s+(?=[A-Z])|\n\s*\n")
MADE_AFTER_START_CHARS = 200


def _made_after_its_start(text: str, start: DateMention, candidates: list[DateMention]) -> DateMention | None:
    """The date a preamble says the contract is made on, where the preamble first gives the
    date it takes effect: "This Agreement shall be effective as of May 1, 2020 (the
    "Commencement Date") and is made and entered into this 10th day of January, 2020".  A
    start date is the agreement date only when no date of making follows it in the same
    sentence: the contract is dated when it is made, and may start months later."""
    if not called_effective(text, start):
        return None
    for later in candidates:
        if start.end <= later.start <= start.end + MADE_AFTER_START_CHARS and \
                not SENTENCE_BREAK_RE.search(text, start.end, later.start) and \
                STRICT_PREAMBLE_CUE_RE.search(text, max(0, later.start - PREAMBLE_CONTEXT_CHARS), later.start) and \
                not called_effective(text, later):
            return later
    return None


def _under_title(text: str, mention: DateMention) -> bool:
    """'AGENCY AGREEMENT\n\n      May 14, 2014': the date printed under the title."""
    return bool(TITLE_BEFORE_RE.search(text, max(0, mention.start - TITLE_CONTEXT_CHARS), mention.start))


def _self_dated(text: str) -> list[tuple[int, DateMention]]:
    """'This Agreement is dated April 29, 2010': where each such phrase starts, and its date."""
    found = []
    for m in SELF_DATED_RE.finditer(text):
        dated = find_written_dates(text, m.end(), min(len(text), m.end() + 40))
        if dated and dated[0].start == m.end():
            found.append((m.start(), dated[0]))
    return found


def _witness_date(text: str) -> DateMention | None:
    for m in WITNESS_RE.finditer(text):
        found = find_written_dates(text, m.start(), m.end())
        if found:
            return found[0]
    return None


def _same_date_elsewhere(text: str, first: DateMention, category: str, kind: str) -> list[Evidence]:
    """Other spellings of the same full date: CUAD annotates each distinct one."""
    if first.iso is None or len(first.iso) != 10:
        return []
    seen = {first.text.lower()}
    found = []
    for mention in find_dates_of_year(text, int(first.iso[:4])):
        if mention.iso == first.iso and mention.text.lower() not in seen and not on_filing_legend(text, mention.start):
            seen.add(mention.text.lower())
            found.append(Evidence(category, mention.start, mention.end, kind, mention.iso))
    return found


def _yearless_preamble_date(text: str) -> DateMention | None:
    """'made this 30th day of April (the "Effective Date")': a first-page day and month with
    no year, after a strict preamble cue, when nothing else dates the contract."""
    for mention in find_yearless_dates(text, 0, min(len(text), HEAD_CHARS)):
        if STRICT_PREAMBLE_CUE_RE.search(text[max(0, mention.start - PREAMBLE_CONTEXT_CHARS):mention.start]):
            return mention
    return None


def _other_agreement_dates(text: str, chosen: DateMention, signed: list[DateMention]) -> list[Evidence]:
    """Where else the contract dates itself, beside the chosen date: in the witness clause, in
    "This Agreement is dated ..." (the date and the phrase, which CUAD sometimes takes whole)
    and in the signature blocks (CUAD often annotates a signing date as the agreement date
    too).  Each is its own evidence kind, calibrated on its own."""
    category = "Agreement Date"
    found: list[Evidence] = []
    witness = _witness_date(text)
    if witness is not None:
        found.append(Evidence(category, witness.start, witness.end, "agreement-date/witness-clause", witness.iso))
    for phrase_start, dated in _self_dated(text):
        found.append(Evidence(category, dated.start, dated.end, "agreement-date/dated-clause", dated.iso))
        found.append(Evidence(category, phrase_start, dated.end, "agreement-date/dated-phrase", dated.iso))
    for mention in signed:
        found.append(Evidence(category, mention.start, mention.end, "agreement-date/signature", mention.iso))
    return [e for e in found if (e.start, e.end) != (chosen.start, chosen.end)]


def agreement_date(text: str, mentions: list[DateMention], signed: list[DateMention]) -> list[Evidence]:
    """The contract's own date (its kind says where it was read; a blank a template left is a
    placeholder), then its other spellings and the other places the contract dates itself.
    `mentions` and `signed` as for agreement_date_mention."""
    category = "Agreement Date"
    chosen = agreement_date_mention(text, mentions, signed)
    if chosen is None:
        yearless = _yearless_preamble_date(text)
        if yearless is None:
            return []
        return [Evidence(category, yearless.start, yearless.end, "agreement-date/yearless")]
    first, how = chosen
    kind = f"agreement-date/{how}" if first.iso else "agreement-date/placeholder"
    found = [Evidence(category, first.start, first.end, kind, first.iso)]
    found += _same_date_elsewhere(text, first, category, "agreement-date/same-date")
    return found + _other_agreement_dates(text, first, signed)


def _segment_of(segments: list[Segment], offset: int) -> Segment | None:
    for segment in segments:
        if segment.start <= offset < segment.end:
            return segment
    return None


def _clause(text: str, segments: list[Segment], start: int, end: int) -> tuple[int, int]:
    segment = _segment_of(segments, start)
    return sentence_around(text, segment, start, end) if segment else (start, end)


def _effective_head(text: str, mentions: list[DateMention]) -> list[DateMention]:
    """The dates and template blanks of the first EFFECTIVE_HEAD_CHARS, in order."""
    end = min(len(text), EFFECTIVE_HEAD_CHARS)
    dates = [m for m in mentions if m.start < end and not on_filing_legend(text, m.start)]
    blanks = [b for b in blank_dates(text, end) if not any(m.start < b.end and b.start < m.end for m in dates)]
    return sorted(dates + blanks, key=lambda m: m.start)


def called_effective(text: str, mention: DateMention) -> bool:
    """'effective as of March 3, 2021', 'March 3, 2021 (the "Effective Date")'."""
    before = text[max(0, mention.start - EFFECTIVE_CONTEXT_CHARS):mention.start]
    after = text[mention.end:mention.end + EFFECTIVE_CONTEXT_CHARS]
    return bool(EFFECTIVE_BEFORE_RE.search(before) or EFFECTIVE_AFTER_RE.search(after))


# A word that makes a defined start date another one than the contract's: "Construction
# Commencement Date", "Maintenance Commencement Date", "Promotion Commencement Date" (not an
# amendment's or an addendum's own "Amendment Effective Date", which CUAD takes for theirs).
_OTHER_START_RE = re.compile(
    r"\b(?:Construction|Renovation|Maintenance|Promotion|Rate|Royalty|Launch|Production|Delivery|Payment|"
    r"Conversion|Closing|Completion|Warranty|Opening|Operations?)[\"“”']?[ \t]$", re.IGNORECASE)


def _clause_head(text: str, subject: int, verb_end: int, end: int) -> tuple[int, int]:
    """The takes-effect clause from its subject ("This Agreement ...") to the end of its first
    conjunct: CUAD often annotates "This Agreement is effective as of the date hereof" without
    the "and shall remain in force ..." that the sentence goes on with, or a section heading."""
    cut = _CONJUNCT_END_RE.search(text, verb_end, end)
    return subject, len(text[:cut.start() if cut else end].rstrip(" ,.\n"))


def _effective_clauses(text: str, segments: list[Segment]) -> list[Evidence]:
    """Sentences that say when the contract takes effect, their first conjunct, and the date
    they give ("The Term shall commence on March 1, 2003")."""
    category = "Effective Date"
    found: list[Evidence] = []
    for segment in segments:
        m = _EFFECTIVE_CLAUSE_RE.search(segment.text) or _TERM_COMMENCING_RE.search(segment.text)
        if not m or _REFERS_TO_EFFECTIVE_DATE_RE.match(segment.text, m.end()):
            continue
        subject, verb_end = segment.start + m.start(), segment.start + m.end()
        start, end = sentence_around(text, segment, subject, verb_end)
        dated = find_written_dates(text, start, end)
        value = dated[0].iso if dated else None
        found.append(Evidence(category, start, end, "effective-date/clause", value))
        given = [d for d in dated if d.start == verb_end and is_full(d)]
        head_start, head_end = _clause_head(text, max(start, subject), verb_end, end)
        if given:  # "This Agreement shall commence on 5th March 2019": the head ends with its date
            head_end = min(head_end, given[0].end)
            found.append(Evidence(category, given[0].start, given[0].end, "effective-date/clause-date", given[0].iso))
        if (head_start, head_end) != (start, end) and head_end > verb_end:
            found.append(Evidence(category, head_start, head_end, "effective-date/clause-head", value))
    return found


def _effective_references(text: str, segments: list[Segment]) -> list[Evidence]:
    """'effective as of the date of the last signature below ("Effective Date")': an effective
    date given by reference, as the phrase CUAD annotates (with the definition that follows),
    and as the sentence holding it, which CUAD takes when it is short ("IN WITNESS WHEREOF,
    ... executed and effective as of the date set forth below.")."""
    found = []
    for m in _EFFECTIVE_REFERENCE_RE.finditer(text, 0, min(len(text), EFFECTIVE_HEAD_CHARS)):
        window = text[m.end():m.end() + REFERENCE_CHARS]
        cut = _REFERENCE_STOP_RE.search(window)
        end = m.end() + (cut.start() if cut else len(window))
        definition = _DEFINED_AS_EFFECTIVE_RE.match(text, end)
        end = definition.end() if definition else end
        end = len(text[:end].rstrip(" ,\n"))
        if not m.group("effective") and not definition:
            continue  # "as of the date of ..." without calling it effective: some other date
        found.append(Evidence("Effective Date", m.start(), end, "effective-date/reference"))
        start, stop = _clause(text, segments, m.start(), end)
        if (start, stop) != (m.start(), end):
            found.append(Evidence("Effective Date", start, stop, "effective-date/reference-clause"))
    return found


def _refers_to_signing(evidence: list[Evidence], text: str) -> bool:
    """Whether the contract takes effect when it is signed ("on the date of signature by both
    parties", "effective as of the later of the two signature dates below")."""
    return any(_TAKES_EFFECT_ON_SIGNING_RE.search(text, e.start, e.end) for e in evidence
               if e.kind in ("effective-date/clause", "effective-date/definition-clause", "effective-date/reference"))


def effective_date(text: str, segments: list[Segment], agreement: list[Evidence],
                   mentions: list[DateMention], signed: list[DateMention]) -> list[Evidence]:
    """Dates called effective, effective-date definitions, clauses and references, the last
    signature's date where the contract takes effect on signing, and the agreement date.

    The agreement date is offered as a weak candidate when no date is called effective: many
    contracts take effect on the date they are made.  It is likelier to be the effective date
    when the contract speaks of one somewhere, so how strongly it does is the evidence kind.
    """
    category = "Effective Date"
    found: list[Evidence] = []
    for mention in _effective_head(text, mentions):
        if called_effective(text, mention):
            found.append(Evidence(category, mention.start, mention.end, "effective-date/called-effective", mention.iso))
    for m in _EFFECTIVE_DEFINITION_RE.finditer(text):
        dated = find_written_dates(text, m.end(), min(len(text), m.end() + 60))
        if _OTHER_START_RE.search(text, max(0, m.start() - 40), m.start()) or (
                m.group().rstrip("\"“”' ").endswith(("Date", "DATE", "Dates", "DATES"))
                and not (dated and dated[0].start - m.end() < 3)):
            continue  # "Construction Commencement Date" means; a contents list's "1.3 Effective Date 2"
        start, end = _clause(text, segments, m.start(), m.end())
        if dated:
            found.append(Evidence(category, dated[0].start, dated[0].end, "effective-date/definition", dated[0].iso))
        found.append(Evidence(category, start, end, "effective-date/definition-clause", dated[0].iso if dated else None))
    found += _effective_clauses(text, segments)
    found += _effective_references(text, segments)
    if signed and _refers_to_signing(found, text):
        latest = latest_signature(signed)
        found.append(Evidence(category, latest.start, latest.end, "effective-date/last-signature", latest.iso))
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
    mentions = find_written_dates(text, 0, min(len(text), LATE_PREAMBLE_CHARS))
    signed = signature_dates(text)
    agreement = agreement_date(text, mentions, signed)
    effective = effective_date(text, segments, agreement, mentions, signed)
    effective_iso = _effective_iso(effective, agreement[0].value if agreement else None)
    return agreement + effective + expiration_date(text, segments, effective_iso)
