"""Segment: cut the document into clause/sentence units for the rules and the model.

The granularity is tuned to CUAD's metric, which credits a predicted text only when its
word-set Jaccard with an annotated clause is at least 0.5: segments should be about one
annotated clause long (ops/benchmarks/segment_coverage.py measures how often one segment,
or up to three neighbours, reaches that).

Cuts go at blank lines, before list and section headings that start a line (or follow ":",
";" or a wide gap inside one), and at sentence ends (not after abbreviations like "Inc." or
"U.S.", initials, or a heading's own number);
segments over MAX_SEGMENT_CHARS are split at ";" or ","; fragments under MIN_SEGMENT_CHARS
join a neighbour.  Segments never cross a page, and every non-whitespace char of the document
belongs to exactly one segment: text is cut, never dropped.

A document over the char cap (OCR text counts too) or the segment cap fails here, naming the
cap, so the analysers only get what they can finish within their time limit.
"""
from __future__ import annotations

import bisect
import re

from pipelines.dag import Stage
from pipelines.datamodel import Box, DocumentFailed, PageText, Segment, Word, document_text
from pipelines.parsers.limits import ReadLimits, check_chars, check_segments, current_limits

STAGE = Stage.SEGMENT
MAX_SEGMENT_CHARS = 800
MIN_SEGMENT_CHARS = 20

_BLANK_LINE = re.compile(r"\n[ \t\f\v]*\n\s*")
_HEADING = r"""(?:
        (?:section|article|clause|schedule|exhibit|appendix|annex)\s+[0-9]+[0-9.]*[A-Za-z]?\b
      | (?:section|article)\s+[IVXLC]+\b
      | \(?[0-9]{1,3}[.)](?=\s)
      | [0-9]{1,3}(?:\.[0-9]{1,3})+\.?(?=\s)
      | \([A-Za-z]{1,4}\)
      | [A-Za-z][.)](?=\s)
      | [•·▪◦\-–*](?=\s)
    )"""
_HEADING_MARKER = re.compile(_HEADING, re.IGNORECASE | re.VERBOSE)
_HEADING_LINE = re.compile(r"^[ \t]*" + _HEADING, re.IGNORECASE | re.MULTILINE | re.VERBOSE)
_OPEN_LINE_END = re.compile(r"(?:[.:;,!?]['\"”’)\]]*|\band|\bor)[ \t]*$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?]['\"”’)\]]*\s+(?=['\"“‘(\[]*[A-Z0-9]|\([a-z]{1,4}\)\s)")
_INLINE_HEADING = re.compile(r"(?:[ \t]{3,}|(?<=[:;])[ \t]+)(?=" + _HEADING + r")", re.IGNORECASE | re.VERBOSE)
_ABBREVIATIONS = frozenset(
    """inc corp co ltd llc plc no nos sec secs art arts para paras cl mr mrs ms dr st jr sr vs v
    e.g i.e cf viz approx dept est fig ref ave blvd rd ste fl esq ph.d jan feb mar apr jun jul aug
    sep sept oct nov dec ex exh sch pp p pg u.s u.k n.a s.a n.v b.v l.p l.l.c p.c s.p.a a.g""".split()
)
_EXHIBIT_WORDS = frozenset({"exhibit", "schedule", "appendix", "annex", "attachment", "article", "section"})
_LAST_TOKEN = re.compile(r"\S*$")
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")
_ENUMERATOR = re.compile(r"^\(?(?:[0-9]{1,3}(?:\.[0-9]{1,3})*|[A-Za-z]|[ivxlc]{1,5}|[IVXLC]{1,5})\)?$")
_SOFT_CUTS = (re.compile(r";\s+"), re.compile(r",\s+"), re.compile(r"\s+"))


def segment_document(pages: list[PageText], limits: ReadLimits | None = None) -> list[Segment]:
    """The document's segments in reading order, with offsets into `document_text(pages)`.

    Raises `DocumentFailed` when no page has any text, the first point where a document
    with every page blank (even after OCR) is known to be unusable, and when the document is
    over the char or segment cap of `limits` (default: this process's settings).
    """
    limits = limits or current_limits()
    text, starts = document_text(pages)
    if not any(page.text.strip() for page in pages):
        after_ocr = " after OCR" if any(page.source == "ocr" for page in pages) else ""
        raise DocumentFailed(STAGE, f"no text found: every page is blank{after_ocr}")
    check_chars(STAGE, len(text), limits)
    segments: list[Segment] = []
    for page, page_start in zip(pages, starts):
        boxes = _WordBoxes(page.words)
        for start, end in split_page(page.text):
            segments.append(
                Segment(
                    index=len(segments),
                    text=page.text[start:end],
                    start=page_start + start,
                    end=page_start + end,
                    page=page.number,
                    box=boxes.union(start, end),
                )
            )
        check_segments(STAGE, len(segments), limits)
    return segments


def split_page(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the segments of one page's text, whitespace trimmed."""
    cuts = {0, len(text)}
    cuts |= _blank_line_cuts(text) | _heading_cuts(text) | _inline_heading_cuts(text) | _sentence_cuts(text)
    ordered = sorted(cuts)
    spans = [span for a, b in zip(ordered, ordered[1:]) if (span := _trim(text, a, b))]
    spans = [piece for span in spans for piece in _split_long(text, *span)]
    return _merge_tiny(text, spans)


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _blank_line_cuts(text: str) -> set[int]:
    return {match.end() for match in _BLANK_LINE.finditer(text)}


def _heading_cuts(text: str) -> set[int]:
    """Line starts that open a list item or section, unless the line before is mid-sentence.

    A wrapped PDF line can begin with "(a)" or "4.2" that merely continues a reference
    ("...pursuant to Section\\n4.2 hereof"), so a heading only counts after a line that ends
    in punctuation, "and" or "or".
    """
    cuts = set()
    for match in _HEADING_LINE.finditer(text):
        line_start = match.start()
        if line_start == 0:
            continue
        previous_line = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1]
        if not previous_line.strip() or _OPEN_LINE_END.search(previous_line):
            cuts.add(line_start)
    return cuts


def _inline_heading_cuts(text: str) -> set[int]:
    """Headings inside a line: after ":" or ";" ("as follows: (a) ..."), or after a wide gap
    ("3.1 Term   (a) This Agreement"), where flattened layouts keep a list's items apart."""
    return {match.end() for match in _INLINE_HEADING.finditer(text)}


def _sentence_cuts(text: str) -> set[int]:
    """Starts of sentences after ".", "!" or "?", skipping abbreviations and enumerators."""
    return {match.end() for match in _SENTENCE_END.finditer(text) if not _is_false_stop(text, match.start())}


def _is_false_stop(text: str, stop: int) -> bool:
    """Whether the char at `stop` ends a token that is not a sentence's end.

    "Inc.", "U.S.", initials ("John F. Smith") and a heading's own number ("1. Definitions",
    "A. Term") keep their period; "Exhibit A." still ends a sentence.
    """
    if text[stop] != ".":
        return False
    token_start = stop - len(_LAST_TOKEN.search(text, max(0, stop - 64), stop).group())
    token = text[token_start:stop]
    bare = token.lstrip("([\'\"“‘").lower()
    if bare in _ABBREVIATIONS or _DOTTED.match(bare):
        return True
    if _ENUMERATOR.match(token) and _opens_unit(text, token_start):
        return True
    if len(bare) == 1 and bare.isalpha():
        return _previous_word(text, token_start).lower() not in _EXHIBIT_WORDS
    return False


def _opens_unit(text: str, position: int) -> bool:
    """Whether `position` starts a line or follows a sentence end or ":"/";" (heading place)."""
    before = text[max(0, position - 8) : position].rstrip(" \t")
    return not before or before[-1] in "\n.:;"


def _previous_word(text: str, position: int) -> str:
    words = text[max(0, position - 32) : position].split()
    return words[-1] if words else ""


def _split_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut a span over MAX_SEGMENT_CHARS at its last "; " that fits, else ", ", else a space."""
    pieces = []
    while end - start > MAX_SEGMENT_CHARS:
        cut = _soft_cut(text, start, start + MAX_SEGMENT_CHARS)
        if cut is None:
            break
        if span := _trim(text, start, cut):
            pieces.append(span)
        start = cut
    if span := _trim(text, start, end):
        pieces.append(span)
    return pieces


def _soft_cut(text: str, start: int, limit: int) -> int | None:
    """The latest cut after a ";" (else "," else whitespace) in the second half of the window."""
    floor = start + (limit - start) // 2
    for pattern in _SOFT_CUTS:
        cut = None
        for match in pattern.finditer(text, floor, limit):
            cut = match.end()
        if cut is not None:
            return cut
    return None


def _merge_tiny(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join fragments under MIN_SEGMENT_CHARS to a neighbour.

    A heading ("1. DEFINITIONS.", "(b)") joins the text it introduces; any other fragment
    joins the segment before it, whose sentence it most likely finishes.
    """
    merged: list[tuple[int, int]] = []
    carry: int | None = None  # start of a heading waiting for the segment it introduces
    for start, end in spans:
        if carry is not None:
            start, carry = carry, None
        if end - start >= MIN_SEGMENT_CHARS:
            merged.append((start, end))
        elif _HEADING_MARKER.match(text, start) or text[start:end].isupper():
            carry = start
        elif merged:
            merged[-1] = (merged[-1][0], end)
        else:
            carry = start
    if carry is not None:
        if merged:
            merged[-1] = (merged[-1][0], spans[-1][1])
        else:
            merged.append((carry, spans[-1][1]))
    return merged


class _WordBoxes:
    """Union of the boxes of a page's words that overlap a char range."""

    def __init__(self, words: list[Word]) -> None:
        self._words = sorted(words, key=lambda word: word.start)
        self._starts = [word.start for word in self._words]
        self._ends = [word.end for word in self._words]

    def union(self, start: int, end: int) -> Box | None:
        covered = self._words[bisect.bisect_right(self._ends, start) : bisect.bisect_left(self._starts, end)]
        if not covered:
            return None
        boxes = [word.box for word in covered]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
