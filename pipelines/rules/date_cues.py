"""Where a date in a contract is the contract's own: strict preamble cues, the blank a template
left for the date, the date printed under the title, and the dates of the signature blocks.

Both the key-term candidates (contract_dates.py, scored as spans) and the key-term values
(pipelines/terms/dates.py, scored as values) read these places, so they live here once.
"""
from __future__ import annotations

import re

from pipelines.rules.dates import DateMention, find_written_dates

SIGNATURE_BLOCK_CHARS = 400
TITLE_CONTEXT_CHARS = 120  # a centred date sits under its title behind a run of spaces

# A preamble cue strict enough to trust deeper into the document, past a table of contents.
# "Effective" only with its preposition: "shall be effective until February 28, 2004" gives an end.
STRICT_PREAMBLE_CUE_RE = re.compile(
    r"(?:\b(?:dated|made|entered\s+into|executed)\b[^.]{0,40}?\b(?:as\s+of|on|this|effective)?|"
    r"\beffective\s+(?:as\s+of|on|from))\s*(?:the\s+)?$",
    re.IGNORECASE,
)
# A date left blank for the signing: "[●], 2019", "____________, 2015", "[DATE]", "the [ ] day of [ ], 2020".
_BLANK_DATE_RE = re.compile(
    r"(?:(?:_{2,}|\[[^\]\n]{0,12}\])\s*(?:day\s+of\s*)?)?"
    r"(?:_{2,}|\[[^\]\n]{0,12}\])(?:\s*\d{1,2})?(?:\s*,?\s*(?:19|20)(?:\d\d|\[[^\]\n]{0,3}\]|_+))?"
)
# The same blank where the text layer dropped the underscores: "made as of  , 2013", and under
# a title "AGENCY AGREEMENT\n\n, 2006".  Only ever read right after a cue or a title.
_BARE_BLANK_RE = re.compile(r",[ \t]*(?:19|20)\d\d\b")
# Where a blank counts as the contract's date rather than a form field: "dated as of ____".
BLANK_CUE_RE = re.compile(
    r"\b(?:dated|as\s+of|made|entered\s+into|effective|executed|day\s+of|this)\s+(?:on\s+|as\s+of\s+)?(?:the\s+)?$",
    re.IGNORECASE,
)
# A date printed under the title: "AGENCY AGREEMENT\n____________, 1996".
TITLE_BEFORE_RE = re.compile(r"\b(?:AGREEMENT|CONTRACT)\b[^a-z\n]{0,10}\n?\s*$")
# The date of some other instrument: "pursuant to a Subscription Agreement dated as of", recitals.
# A definitions list dates other instruments: "“Master Services Agreement” means the agreement
# executed between the Parties on ...", "the Development Agreement between BKC and X dated ...".
OTHER_INSTRUMENT_RE = re.compile(
    r"\b(?:WHEREAS|that\s+certain|previously|pursuant\s+to|depositors?|holders?)\b[^.]{0,100}$|"
    r"\b(?i:a|an|the)\s+(?:[\w/-]+\s+){0,7}?(?:Agreement|Contract|Plan|Document|Schedule\s+13[DG](?:/A)?)\s*"
    r"(?:\([^)]{0,40}\)\s*)?,?\s*"
    r"(?:(?:by\s+and\s+)?(?:between|among)\s+[^.;()]{3,100}?)?"
    r"(?:(?:with\s+respect\s+to|of)\s+(?:[^.;]|\.(?=\S)){3,120}?)?"
    r"(?:dated|effective|entered\s+into)\b[^.]{0,20}$|"
    r"[“\"](?!(?:Effective|Commencement|Execution)\s+Date)[^”\"]{1,60}[”\"]\s+(?:means|shall\s+mean|the\s+agreement)\b[^.;]{0,160}$")
# "Date: March 3, 2021" or "Dated: 3/3/21" at the start of a line: a signature block's date.
_SIGNATURE_DATE_RE = re.compile(r"\bDated?\b[ \t]*:?[ \t]*(?=\S)", re.IGNORECASE)
# What comes before it on its line: nothing, a column gap ("By: ...      Date: ..."), or the
# block's other fields run together on one line ("Name: Jane Roe Title: CEO Date: ...").
_LINE_START_RE = re.compile(r"(?:^|\n)[ \t]*$|\S[ \t]{2,}$|\b(?:By|Name|Title|Its)[ \t]*:[^\n:]{0,80}[ \t]$")
# "Hamburg, November 19, 2012" or "Rome/Houston, 2 April 2020" on its own line over the signatures.
_PLACE_DATE_RE = re.compile(r"(?:^|\n)[ \t]*[A-Z][\w.'/-]*(?:[ \t]+[A-Z][\w.'/-]*){0,2},[ \t]*(?=\S)")
_SIGNATURE_BLOCK_RE = re.compile(r"\b(?:By|Name|Title|Signature)\s*:|/s/", re.IGNORECASE)
# Forms that print each label under its field: "4/24/2018      04/25/2018\nDate      Date", or
# "Jane Roe     1/9/02\n-----------\nName (type or print)     Date". A row of labels only.
_LABEL_ROW_RE = re.compile(r"^[ \t]*(?:[A-Za-z()/,]+[ \t]+)*Date(?:[ \t]+[A-Za-z()/,]+)*[ \t]*$", re.MULTILINE)
_RULE_LINE_RE = re.compile(r"[ \t_\-=]*")
LABEL_ROW_LINES = 2  # the field's line sits right above its label, or above a rule line
# "THUS DONE AND SIGNED at Pretoria on this 31st day of March 2001": the signing formula of
# South African and other contracts, its place between "signed" and the date.
_SIGNED_AT_RE = re.compile(r"\bsigned\s+at\s+[^.\d]{1,80}?\bon\s+(?:this\s+)?(?:the\s+)?", re.IGNORECASE)
# Signature blocks set in columns put the second party's date after the first's:
# "Date: October 16, 1996      Date: November 5, 1996", "Date: 3/3/21  3/9/21".
_NEXT_COLUMN_RE = re.compile(r"[ \t]*(?:Dated?[ \t]*:?[ \t]*)?")
NEXT_COLUMN_CHARS = 40


def blank_dates(text: str, end: int) -> list[DateMention]:
    """Blanks a template left for the contract's date in text[:end], as mentions with no value:
    after a cue ("dated as of ____, 2019") or right under the title."""
    blanks = []
    for pattern in (_BLANK_DATE_RE, _BARE_BLANK_RE):
        for m in pattern.finditer(text, 0, end):
            if BLANK_CUE_RE.search(text, max(0, m.start() - 40), m.start()) or \
                    TITLE_BEFORE_RE.search(text, max(0, m.start() - TITLE_CONTEXT_CHARS), m.start()):
                blanks.append(DateMention(m.start(), m.end(), m.group(), None))
    return sorted(blanks, key=lambda m: m.start)


def signature_dates(text: str) -> list[DateMention]:
    """Dates written in signature blocks ("Date: March 3, 2021" under "By:"), in order, each
    block's date and the one a second column puts beside it.

    They are when each party signed: an effective date "of the last signature" is the latest.
    """
    found: list[DateMention] = []
    for m in _SIGNATURE_DATE_RE.finditer(text):
        if found and m.start() < found[-1].end:
            continue
        if not _LINE_START_RE.search(text, max(0, m.start() - 80), m.start()):
            continue
        dated = _block_date(text, m.start(), m.end())
        if dated is not None:
            found.append(dated)
            found += _next_column(text, dated)
    for m in _PLACE_DATE_RE.finditer(text):
        dated = _block_date(text, m.start(), m.end())
        if dated is not None and dated.end - m.start() < 60 and not text[dated.end:dated.end + 1].strip():
            found.append(dated)
    for m in _SIGNED_AT_RE.finditer(text):
        dated = _block_date(text, m.start(), m.end())
        if dated is not None:
            found.append(dated)
    found += _labelled_below(text)
    return sorted({m.start: m for m in found}.values(), key=lambda m: m.start)


def _labelled_below(text: str) -> list[DateMention]:
    """The dates of a field row whose labels sit under it ("Date" in the row below), in a block."""
    found = []
    for label in _LABEL_ROW_RE.finditer(text):
        lines_end = label.start()
        for _ in range(LABEL_ROW_LINES):
            line_start = text.rfind("\n", 0, max(0, lines_end - 1)) + 1
            line = text[line_start:lines_end]
            if _RULE_LINE_RE.fullmatch(line.rstrip("\n")):
                lines_end = line_start
                continue
            if _SIGNATURE_BLOCK_RE.search(text, max(0, line_start - SIGNATURE_BLOCK_CHARS),
                                          label.end() + SIGNATURE_BLOCK_CHARS):
                found += [d for d in find_written_dates(text, line_start, lines_end) if is_full(d)]
            break
    return found


def latest_signature(signed: list[DateMention]) -> DateMention:
    """The last party's signature: what "the date of the last signature" means."""
    return max(signed, key=lambda m: m.iso or "")


def last_signing(text: str, signed: list[DateMention]) -> DateMention:
    """The date a contract dated only by its signatures was made: the last party's signature
    completes it.  A "Date:" line above every signature block is the contract's own date
    instead ("AGREEMENT\n\nDate: March 1, 1998\n\nBetween")."""
    first = signed[0]
    if not _SIGNATURE_BLOCK_RE.search(text, 0, first.start):
        return first
    return latest_signature(signed)


def _block_date(text: str, start: int, end: int) -> DateMention | None:
    """The full date written right at `end`, if a signature block is around it."""
    around = text[max(0, start - SIGNATURE_BLOCK_CHARS):end + SIGNATURE_BLOCK_CHARS]
    if not _SIGNATURE_BLOCK_RE.search(around):
        return None
    dated = find_written_dates(text, end, min(len(text), end + 40))
    if dated and dated[0].start - end < 3 and is_full(dated[0]):
        return dated[0]
    return None


def _next_column(text: str, mention: DateMention) -> list[DateMention]:
    """The date a second signature column writes on the same line, right after `mention`."""
    gap = _NEXT_COLUMN_RE.match(text, mention.end)
    if gap is None or "\n" in text[mention.end:gap.end()] or gap.end() - mention.end > NEXT_COLUMN_CHARS:
        return []
    dated = find_written_dates(text, gap.end(), min(len(text), gap.end() + 40))
    if dated and dated[0].start == gap.end() and is_full(dated[0]) and gap.end() > mention.end:
        return [dated[0]]
    return []


def is_full(mention: DateMention) -> bool:
    """Whether a mention is a whole calendar date (not a template's blank or a bare month)."""
    return mention.iso is not None and len(mention.iso) == 10
