"""Finding a contract's name: the title at its head, or the name its preamble uses.

Titles are short capitalised phrases ending in a contract noun ("MASTER SERVICES AGREEMENT",
"Supply Contract", "AMENDMENT NO. 2") near the top.  Filings put exhibit labels, legends and
letterheads before them on the same line, so those are cut off; words spread with wide gaps
are layout, not one title.  When no title exists, "This Sponsorship Agreement (the
"Agreement")" in the preamble names the contract.
"""
from __future__ import annotations

import re

from pipelines.rules.evidence import Evidence

CATEGORY = "Document Name"
HEAD_CHARS = 3000  # titles sit on the first page

_NOUN = (
    r"(?:AGREEMENT|CONTRACT|ADDENDUM|AMENDMENT(?:\s+(?:NO\.?|NUMBER|#)\s*\d+)?|LICEN[CS]E|"
    r"LEASE|MEMORANDUM\s+OF\s+UNDERSTANDING|TERMS\s+AND\s+CONDITIONS|ORDER\s+FORM|"
    r"CERTIFICATE|DEED|INDENTURE|UNDERTAKING|PROTOCOL|ARRANGEMENT)"
)
_GAP = r"[ \t]{1,2}"  # a wider gap is page layout between separate things
_UPPER_WORD = r"(?!THIS\b)(?:[A-Z0-9][A-Z0-9&'’/\-.,]*|&)"
UPPER_TITLE_RE = re.compile(
    rf"(?<![\w.])(?:(?!THIS\b)[A-Z][A-Z0-9&'’/\-.,]*{_GAP}(?:{_UPPER_WORD}{_GAP}){{0,9}})?{_NOUN}\b"
)
_TITLE_WORD = r"(?!This\b)(?:[A-Z][A-Za-z0-9&'’/\-.,]*|and|of|for|to|the|on|in|&|#\d+)"
TITLE_CASE_RE = re.compile(
    rf"(?<![\w.])(?!This\b|The\b)[A-Z][A-Za-z0-9&'’/\-.,]*{_GAP}(?:{_TITLE_WORD}{_GAP}){{0,9}}"
    rf"(?i:{_NOUN})\b"
)
PREAMBLE_RE = re.compile(
    rf"\b(?i:this)\s+((?:[A-Z][\w&'’\-]*\s+(?:(?:and|of|for|to|&)\s+)?){{1,8}}?(?i:{_NOUN}))"
    r"\s*(?:\(|,?\s+(?:is\s+|are\s+)?(?:made|entered|dated))"
)
# Things that end up before a title on its line: an exhibit label, a version legend, the end
# of a confidentiality legend, a letterhead company name.
_CUT_AFTER_RE = re.compile(
    r"(?i:\b(?:exhibit|ex|annex|schedule|appendix|attachment)[ \t]+[\w.()\-']+[ \t]+)|"
    r"(?i:\b(?:execution|conformed|final)[ \t]+(?:version|copy)[ \t]+)|"
    r"\b[A-Za-z]{4,}\.[ \t]+|"
    r"\b(?:INC|CORP|CORPORATION|LLC|L\.L\.C|LTD|LIMITED|CO|COMPANY|PLC|L\.P|LP|N\.A|S\.A|AG|GMBH)\b\.?,?[ \t]+"
)
_NOT_TITLE_RE = re.compile(r"(?i:\b(?:securities|commission|confidential|omitted|redacted)\b)")


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Cut what precedes the title proper on its line."""
    for m in _CUT_AFTER_RE.finditer(text, start, end):
        if end - m.end() >= len("X AGREEMENT"):
            start = m.end()
    return start, end


def _acceptable(span: str) -> bool:
    return len(span.split()) >= 2 and not _NOT_TITLE_RE.search(span)


def _first_title(pattern: re.Pattern[str], text: str, head_end: int) -> tuple[int, int] | None:
    for m in pattern.finditer(text, 0, head_end):
        start, end = _trim(text, m.start(), m.end())
        if _acceptable(text[start:end]):
            return start, end
    return None


def find_document_name(text: str) -> list[Evidence]:
    """Title candidates, best first.

    The earliest title (upper-case or title-case) comes first; the other kind of title and the
    name the preamble gives follow as weaker alternatives.
    """
    head_end = min(len(text), HEAD_CHARS)
    titles = sorted({
        span for span in (_first_title(UPPER_TITLE_RE, text, head_end),
                          _first_title(TITLE_CASE_RE, text, head_end)) if span
    })
    found: list[Evidence] = []
    for rank, (start, end) in enumerate(titles):
        kind = "document-name/title" if rank == 0 else "document-name/later-title"
        found.append(Evidence(CATEGORY, start, end, kind, " ".join(text[start:end].split())))
    m = PREAMBLE_RE.search(text, 0, head_end)
    if m:
        start, end = _trim(text, m.start(1), m.end(1))
        kind = "document-name/preamble" if found else "document-name/preamble-only"
        found.append(Evidence(CATEGORY, start, end, kind, " ".join(text[start:end].split())))
    return found
