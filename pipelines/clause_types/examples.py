"""What a quote must be to teach a clause type, and how quotes are read from what a user gives.

Examples arrive as quotes typed on the command line, as a file of quotes, as a span of a
contract already audited, or as segments picked from a search of the portfolio.  Each is checked
here before it is stored: a quote too short to say anything, or the same quote twice, teaches
nothing, and a quote given both as an example and as a counter-example contradicts itself.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipelines.clause_types.names import ClauseTypeError
from pipelines.review.decisions import question_of
from pipelines.review.double_review import final_decision

MIN_QUOTE_CHARS = 20
MIN_QUOTE_WORDS = 3
MAX_QUOTE_CHARS = 20_000
"""A clause, not a contract: longer quotes are whole sections and teach where a clause is, not what."""
MIN_EXAMPLES = 5
"""Training refuses a type with fewer examples (issue 44: it says when it has too few)."""
TRUSTED_EXAMPLES = 25
"""Below this many examples a type is young: its figures are wide and the review queue asks about it."""
SOURCES = ("quote", "file", "span", "search", "decision", "shipped")
_JSON_KEYS = {"text", "path", "start", "end"}


@dataclass(frozen=True)
class Quote:
    """One example (or counter-example) as given, before it is stored."""

    text: str
    label: bool = True  # True: an example of the type; False: a counter-example
    source: str = "quote"
    path: str | None = None
    start: int | None = None
    end: int | None = None
    document_id: int | None = None


def clean_quote(text: str, where: str = "the quote") -> str:
    """The quote with its whitespace collapsed, or ClauseTypeError saying why it cannot teach."""
    cleaned = " ".join(text.split())
    if len(cleaned) < MIN_QUOTE_CHARS or len(cleaned.split()) < MIN_QUOTE_WORDS:
        raise ClauseTypeError(f"{where} is too short to teach anything ({len(cleaned)} characters): give the "
                              f"clause's words, at least {MIN_QUOTE_WORDS} words and {MIN_QUOTE_CHARS} characters")
    if len(cleaned) > MAX_QUOTE_CHARS:
        raise ClauseTypeError(f"{where} has {len(cleaned):,} characters; a clause has at most {MAX_QUOTE_CHARS:,}")
    return cleaned


def quote_key(text: str) -> str:
    """Two quotes with the same key are the same example (case and spacing aside): the SHA-256 of
    the quote's words, casefolded, one space apart."""
    return hashlib.sha256(" ".join(text.split()).casefold().encode()).hexdigest()


def read_quotes_file(content: str, origin: str, label: bool) -> list[Quote]:
    """The quotes in a file: one JSON object per line ({"text", and optionally "path", "start",
    "end"}, where the quote was found), or plain text with a blank line between quotes."""
    source = "file"
    content = content.replace("\r\n", "\n").replace("\r", "\n")  # a browser's form sends a textarea's lines with CRLF
    stripped = content.lstrip()
    if origin.endswith(".jsonl") or stripped.startswith("{"):
        quotes = []
        for number, line in enumerate(content.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{origin}, line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ClauseTypeError(f"{where}: not a JSON object ({error.msg})") from None
            if not isinstance(record, dict) or not isinstance(record.get("text"), str):
                raise ClauseTypeError(f"{where}: each line needs a \"text\" with the quote")
            if unknown := sorted(set(record) - _JSON_KEYS):
                raise ClauseTypeError(f"{where}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(_JSON_KEYS))})")
            start, end = record.get("start"), record.get("end")
            if (start is None) != (end is None) or any(
                    v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0) for v in (start, end)):
                raise ClauseTypeError(f"{where}: \"start\" and \"end\" go together, as character offsets")
            path = record.get("path")
            quotes.append(Quote(clean_quote(record["text"], where), label, source,
                                str(path) if path is not None else None, start, end))
        return quotes
    blocks = [b for b in re.split(r"\n[ \t]*\n", content) if b.strip()]
    return [Quote(clean_quote(block, f"{origin}, quote {i}"), label, source) for i, block in enumerate(blocks, 1)]


_SPAN_RE = re.compile(r"\s*(\d+)\s*:\s*(\d+)\s*-\s*(\d+)\s*")


def parse_span(spec: str) -> tuple[int, int, int]:
    """'12:1040-1502' -> (document 12, start 1040, end 1502): characters of an audited contract."""
    match = _SPAN_RE.fullmatch(spec)
    if match is None:
        raise ClauseTypeError(f"{spec!r} is not a span: write DOCUMENT:START-END, as 12:1040-1502")
    document_id, start, end = (int(g) for g in match.groups())
    if end <= start:
        raise ClauseTypeError(f"{spec!r}: the end must come after the start")
    return document_id, start, end


def parse_picks(spec: str, count: int) -> list[int]:
    """'1,4-6' -> [1, 4, 5, 6]: numbers of a search's hits, each between 1 and `count`."""
    picks: list[int] = []
    for part in (p.strip() for p in spec.split(",")):
        match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if match is None:
            raise ClauseTypeError(f"{part!r} is not a hit number: write them as 1,4,7 or 2-5")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if not 1 <= low <= high <= count:
            raise ClauseTypeError(f"{part!r}: the search found {count} hit(s), numbered 1 to {count}")
        picks += [n for n in range(low, high + 1) if n not in picks]
    return picks


FOLDED_REJECTS = ("not_a_clause", "wrong_category")
"""Rejections that say the quote is not the clause; the wrong span, a repeat or garbled text
say nothing about what the words are."""


def decision_quotes(name: str, trails: Iterable[list[Mapping]], paths: Mapping[int, str]) -> list[Quote]:
    """What reviewers' standing decisions on presence items teach type `name`: a span accepted
    as it, or corrected to it, is an example; one of its spans corrected to another category, or
    rejected as not a clause or the wrong category, is a counter-example.  `trails` are
    repository.item_trails' values; `paths` each document's path."""
    quotes: list[Quote] = []
    for trail in trails:
        row = final_decision(trail)
        if row is None:
            continue
        previous, new = row["previous"], row["new"] or {}
        evidence = previous.get("evidence") or {}
        if question_of(evidence) != "presence":
            continue
        category, action = previous.get("category"), row["action"]
        corrected_to = new.get("category", category) if action == "correct" else category
        span = (evidence.get("text") or "", evidence.get("start"), evidence.get("end"))
        if "text" in new:
            span = (new["text"], new.get("start"), new.get("end"))
        if category == name and action == "accept":
            label: bool | None = True
        elif category == name and action == "correct":
            label = corrected_to == name
            span = span if label else (evidence.get("text") or "", evidence.get("start"), evidence.get("end"))
        elif category == name and action == "reject":
            label = False if row.get("reason") in FOLDED_REJECTS else None
        elif corrected_to == name:
            label = True
        else:
            label = None
        text, start, end = span
        if label is None or len(" ".join(text.split())) < MIN_QUOTE_CHARS:
            continue
        document = row.get("document_id")
        quotes.append(Quote(text, label, "decision", paths.get(document) if document is not None else None,
                            start, end, document))
    return quotes
