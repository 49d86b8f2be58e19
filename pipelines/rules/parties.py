"""Finding the parties of a contract: each one's name and the short name it is defined as.

Nearly every contract introduces its parties in the preamble, each followed by the short name
it goes by: 'between Acme Corp., a Delaware corporation ("Acme"), and Beta LLC (the
"Supplier")'.  The quoted short names are the reliable anchors, so parsing walks from one
definition to the next and takes the name that runs up to each definition's clause.  Some
contracts label parties instead ("Party A: Acme Co., Ltd.") or set them out on a cover page
("BETWEEN / ACME CORP. / AND / BETA LTD."), and signature blocks ("ACME CORP.\\n\\nBy: ____")
name them again, often in capitals.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.rules.evidence import Evidence

CATEGORY = "Parties"
HEAD_CHARS = 6000  # the preamble starts on the first page, after legends and a contents list
PREAMBLE_CHARS = 2500

# How a preamble opens its party list: "by and between", "entered into by".  The key-term values'
# parties (terms/party_mentions.py) take these and more; this reader also starts at any "undersigned".
PARTY_LIST_INTRO = (r"by\s+and\s+(?:between|among(?:st)?)|between|among(?:st)?|entered\s+into\s+by|"
                    r"made\s+by(?!\s+and\b)|executed\s+by")
_INTRO_RE = re.compile(rf"\b(?:{PARTY_LIST_INTRO}|undersigned)\b\s*:?", re.IGNORECASE)
# What ends a preamble and opens the recitals (terms/party_mentions.py's preamble ends there too).
RECITALS_START = (r"WHEREAS|W\s?I\s?T\s?N\s?E\s?S\s?S\s?E\s?T\s?H|RECITALS?|BACKGROUND|NOW,?\s+THEREFORE|"
                  r"Recitals|Whereas|Background|In\s+consideration")
_PREAMBLE_END_RE = re.compile(
    rf"\b(?:{RECITALS_START})\b"
    # A sentence end: a full stop that does not close an abbreviation or an initial.
    r"|(?<![A-Z])(?<!Inc)(?<!Ltd)(?<!Co)(?<!Corp)(?<!No)(?<!Mr)(?<!Ms)(?<!Mrs)(?<!Dr)(?<!St)"
    r"(?<!Jr)(?<!Sr)(?<!Etc)(?<!ETC)(?<!Ave)(?<!Blvd)(?<!Rd)(?<!Ste)(?<!INC)(?<!LTD)(?<!CO)"
    r"(?<!CORP)(?<!Bros)(?<!BROS)\.\s+(?=[A-Z])(?!(?i:here(?:in)?after|hereafter)\b)"
)
# How a drafter gives a party its short name: "hereinafter referred to as", "hereafter called the"
# (terms/party_mentions.py reads the same words).
HEREINAFTER = r"(?:hereinafter|hereafter)"
CALLED_AS = r"(?:(?:referred\s+to|called|known|defined)\s+as\s+)?(?:the\s+)?"
# A parenthetical or "hereinafter" clause that defines a short name: ("Acme"), (the "Buyer"),
# (hereinafter referred to as "Seller"), hereinafter "Client".
_DEFINITION_RE = re.compile(
    r"\((?P<inner>[^()]{0,160}?[\"“”][^\"“”\n]{1,60}[\"“”][^()]{0,120}?)\)"
    rf"|{HEREINAFTER}\s+{CALLED_AS}"
    r"[\"“”]\s*(?P<short>[^\"“”\n]{1,60}?)\s*[\"“”]",
    re.IGNORECASE,
)
# A quotation mark, among them the "ʺ" some text layers hold, and what a quoted name is made of.
QUOTE = r"[\"“”ʺ]"
UNQUOTED = r"[^\"“”ʺ\n]"
_QUOTED_RE = re.compile(rf"{QUOTE}\s*({UNQUOTED}{{1,60}}?)\s*{QUOTE}")
# Short names that are not a party: the agreement itself, dates, the parties collectively.  The
# key-term values (terms/party_mentions.py) refuse these words too.
NOT_A_PARTY_WORDS = (r"agreement|amendment|addendum|date|term|territory|products?|services?|"
                     r"effective|closing|schedule|exhibit|act|plan|program|project|section|affiliates?")
_NOT_A_PARTY_RE = re.compile(rf"\b(?:{NOT_A_PARTY_WORDS}|part(?:y|ies))\b", re.IGNORECASE)
# A blank line or a wide gap: where a list laid out on the page breaks (the key-term values'
# party list, terms/party_mentions.py, breaks there too).
LIST_BREAK = r"\n\s*\n|[ \t]{3,}"
# Separators before a party's name; a bare "and" is weak, as names contain it too.
_STRONG_SEPARATOR_RE = re.compile(
    rf"(?:[,;)]\s*and\b|;|:\s|\bbetween\b|\bamong\b|{LIST_BREAK})\s*:?", re.IGNORECASE
)
# The weak one, a bare "and" (terms/party_mentions.py splits at it too); "&" is none: "Bruyette & Woods,
# Inc." is one name.
WEAK_SEPARATOR_RE = re.compile(r"\band\b", re.IGNORECASE)
_LEAD_RE = re.compile(
    r"[\s,;:.]*(?:(?:and|&)\b[\s,:]*)?(?:\(?(?:\d{1,2}|[a-zA-Z]|[ivx]{1,4})[.)]\s*)?"
    r"(?:(?:Party\s+[A-Z]|Between|And|Among)\s*:\s*)?(?:the\s+(?=[A-Z]))?",
    re.IGNORECASE,
)
# Where the name ends: its description ("a Delaware corporation", "with offices at"), an
# address, or the short-name parenthetical.
_NAME_END_RE = re.compile(
    r",?\s+(?:a|an)\s+(?=[A-Za-z])|\s*\((?=[^()]*[\"“”])|,\s+(?:with|having|whose|located|"
    r"organized|organised|incorporated|formed|existing|doing|acting|residing|on\s+behalf|"
    r"which|its|through)\b|\s+(?:with|having)\s+(?:its|an?|their)\s|"
    r"\s+(?:located|residing)\s+(?:at|in)\b|\s+(?:hereinafter|hereafter)\b|\s*\n\s*\n|,\s*$|"
    r"\s+whose\b|\s+acting\b|\s{2,}(?=\d)|,\s*(?=\d)",
    re.IGNORECASE,
)
# A name starts with a capital, a digit, a bracketed blank, or is a lower-case brand
# ("eGain", "iVillage", "ebix.com").
_NAME_START_RE = re.compile(r"[A-Z0-9\[]|[a-z]{1,4}[A-Z\-]|[a-z][\w\-]*\.com\b")
_NOT_A_NAME_RE = re.compile(r"(?i)\bagreement\b|^(?:a|an|this|each|both|such|said)\s")
_LABELLED_RE = re.compile(
    r"\b(?P<label>Party\s+[A-D])\s*[:：]\s*(?P<name>[^\n:]{2,120}?)\s*(?=\n|\(|,?\s+(?:Address|"
    r"Legal\s+representative|Registered|with|a\s|an\s)|$)",
)
# A cover page: "BETWEEN\n\nACME CORP.\n\nAND\n\nBETA LTD." or names set apart by wide gaps.
# The gaps around "AND" are atomic: what follows a gap never starts with white space, so giving
# some back cannot help, and on a cover page's long runs of spaces trying it was 15x the time.
_COVER_RE = re.compile(
    r"\b(?:BETWEEN|Between|between)\b\s*:?[ \t]*\n?\s*(?P<a>[^\n]{3,150}?)(?>(?:[ \t]{3,}|[ \t]*\n)\s*)"
    r"(?:-+\s*)?(?:AND|And|and)(?:\s*-+)?\s*:?(?>(?:[ \t]{3,}|[ \t]*\n)\s*)(?P<b>[^\n]{3,150}?)(?=[ \t]{3,}|[ \t]*\n|$)"
)
# A company name: capitalised words ending in a corporate suffix.
_COMPANY_RE = re.compile(
    r"\b(?:[A-Z][\w&'’.\-]*,?[ \t]+){1,6}?(?:Inc|INC|LLC|L\.L\.C|Ltd|LTD|Limited|LIMITED|Corp|CORP|"
    r"Corporation|CORPORATION|PLC|plc|LLP|L\.P|GmbH|AG|S\.A|B\.V|N\.V|S\.R\.L|Pte|PTE)\b\.?"
)
# A capitalised company name on the line above a "By:" signature line, or above a conformed
# signature with no "By:" ("HPS PARTNERS, LLC\n/s/ John Madden", as a joint filing is signed).
_SIGNATURE_RE = re.compile(
    r"^[ \t]*(?P<name>[A-Z][A-Z0-9&.,'’\-() ]{2,80}?(?:INC|CORP|CORPORATION|LLC|L\.L\.C|LTD|LIMITED|"
    r"COMPANY|CO|PLC|LLP|L\.P|LP|N\.A|S\.A|AG|GMBH|B\.V|N\.V|TRUST|BANK|ASSOCIATION)\.?)[ \t]*\n"
    r"(?:[ \t]*\n){0,3}[ \t]*(?:(?:By|BY)\s*:|/s/)",
    re.MULTILINE,
)
# "each a "Party" and together the "Parties"": the clause naming the parties collectively.
_COLLECTIVE_RE = re.compile(rf"{QUOTE}\s*Part(?:y|ies)\s*[,.]?\s*{QUOTE}")
_SENTENCE_START_RE = re.compile(r"(?:[.;:]\s+|\)\s*[.,]?\s+|\n\s*)(?=\S)")
_SENTENCE_END_RE = re.compile(r"\.[\"”ʺ]?(?=\s|$)|\n\s*\n")


@dataclass(frozen=True)
class ShortName:
    """A defined short name: the quoted name and the clause defining it ('(the "Buyer")')."""

    start: int
    end: int
    clause_start: int
    clause_end: int


@dataclass(frozen=True)
class Party:
    """One party as its preamble introduces it."""

    name_start: int
    name_end: int
    short_names: tuple[ShortName, ...]
    end: int  # end of the defining clause


def _preamble_bounds(text: str, from_top: bool = False) -> tuple[int, int]:
    """Where the preamble's party list is: after "between"/"among", or from the top."""
    head_end = min(len(text), HEAD_CHARS)
    intro = None if from_top else _INTRO_RE.search(text, 0, head_end)
    start = intro.end() if intro else 0
    limit = min(len(text), start + PREAMBLE_CHARS)
    stop = _PREAMBLE_END_RE.search(text, start, limit)
    return start, (stop.start() if stop else limit)


def _name_at(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The party name at the head of text[start:end], or None if it does not look like one."""
    lead = _LEAD_RE.match(text, start, end)
    start = lead.end() if lead else start
    stop = _NAME_END_RE.search(text, start, end)
    name = text[start:stop.start() if stop else end].rstrip(" ,;:\t\n")
    words = name.split()
    if (
        not words
        or len(words) > 14
        or not _NAME_START_RE.match(name)
        or _NOT_A_NAME_RE.search(name)
        or name.count("(") != name.count(")")
    ):
        return None
    return start, start + len(name)


def _name_before(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The name of the party whose short name is defined at `end`.

    The stretch since the previous definition may hold descriptions, addresses, or the end of
    the previous party's clause, so the name is the last one that starts right after a
    separator ("between", ", and", ";", a blank line) and runs up to the definition.  A bare
    "and" is only tried when no stronger separator gives a name.
    """
    for separators in (_STRONG_SEPARATOR_RE, WEAK_SEPARATOR_RE):
        starts = [start] + [m.end() for m in separators.finditer(text, start, end)]
        for candidate in reversed(starts):
            name = _name_at(text, candidate, end)
            if name is not None:
                return name
    return None


def _short_names(text: str, m: re.Match[str]) -> tuple[ShortName, ...]:
    if m.group("inner") is None:
        candidates = [(m.start("short"), m.end("short"))]
    else:
        candidates = [(q.start(1), q.end(1)) for q in _QUOTED_RE.finditer(text, m.start("inner"), m.end("inner"))]
    return tuple(
        ShortName(s, e, m.start(), m.end()) for s, e in candidates if not _NOT_A_PARTY_RE.search(text[s:e])
    )


def preamble_parties(text: str) -> list[Party]:
    """The parties the preamble defines with a short name, in order.

    A "between" that belongs to a later sentence (or a contents list) can hide a preamble
    that names the parties without one, so an empty result is retried from the top.
    """
    return _parties_in(text, *_preamble_bounds(text)) or _parties_in(text, *_preamble_bounds(text, from_top=True))


def _parties_in(text: str, start: int, end: int) -> list[Party]:
    parties: list[Party] = []
    cursor = start
    for m in _DEFINITION_RE.finditer(text, start, end):
        shorts = _short_names(text, m)
        if shorts:
            name = _name_before(text, cursor, m.start())
            if name is not None:
                parties.append(Party(name[0], name[1], shorts, m.end()))
            elif parties and m.start() - parties[-1].end < 80:
                # A second short name for the previous party: ("Roche US"; ... "Roche").
                last = parties[-1]
                parties[-1] = Party(last.name_start, last.name_end, last.short_names + shorts, m.end())
        cursor = m.end()
    return parties


def labelled_parties(text: str) -> list[Party]:
    """Parties introduced by a label ("Party A: Acme Co., Ltd."); the label is the short name."""
    parties = []
    for m in _LABELLED_RE.finditer(text, 0, min(len(text), HEAD_CHARS)):
        name = _name_at(text, m.start("name"), m.end("name"))
        if name is not None:
            label = ShortName(m.start("label"), m.end("label"), m.start("label"), m.end("label"))
            parties.append(Party(name[0], name[1], (label,), m.end()))
    return parties


def collective_definition(text: str) -> tuple[int, int] | None:
    """The clause naming the parties together ('each a "Party" and together the "Parties"').

    CUAD counts it among the Parties evidence; it is the parenthetical holding the quoted
    "Party", or else the sentence holding it.
    """
    start, end = _preamble_bounds(text)
    m = _COLLECTIVE_RE.search(text, start, min(len(text), end + PREAMBLE_CHARS // 2))
    if m is None:
        return None
    opening = text.rfind("(", max(0, m.start() - 200), m.start())
    closing = text.find(")", m.end(), m.end() + 200)
    if opening >= 0 and closing >= 0 and ")" not in text[opening:m.start()]:
        return opening, closing + 1
    sentence_start = max(
        (b.end() for b in _SENTENCE_START_RE.finditer(text, max(0, m.start() - 400), m.start())),
        default=max(0, m.start() - 400),
    )
    stop = _SENTENCE_END_RE.search(text, m.start(), m.start() + 400)
    return sentence_start, (stop.end() if stop else m.end())


def cover_names(text: str) -> list[tuple[int, int]]:
    """Party names set out on a cover page ("BETWEEN / ACME CORP. / AND / BETA LTD.")."""
    m = _COVER_RE.search(text, 0, min(len(text), HEAD_CHARS))
    if m is None:
        return []
    names = [_name_at(text, m.start(group), m.end(group)) for group in ("a", "b")]
    return [name for name in names if name is not None]


def head_company_names(text: str) -> list[tuple[int, int]]:
    """Company names (ending in Inc., LLC, Ltd., ...) on the first page, filing legends aside."""
    found = []
    for m in _COMPANY_RE.finditer(text, 0, min(len(text), HEAD_CHARS // 2)):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if not text.startswith("Source:", line_start):
            found.append((m.start(), m.end()))
    return found


def signature_names(text: str) -> list[tuple[int, int]]:
    """Company names written just above a "By:" line or a conformed signature."""
    return [(m.start("name"), m.end("name")) for m in _SIGNATURE_RE.finditer(text)]


def find_parties(text: str) -> list[Evidence]:
    """Each party's name and short-name definition, the parties' collective definition, then
    names from signature blocks; company names on the first page only when nothing else is
    found.  No span twice.  A short name's span is its defining clause
    ('(the "Buyer")') and its value the bare name ("Buyer")."""
    found: list[Evidence] = []
    seen: set[str] = set()

    def add(start: int, end: int, kind: str, value: str | None = None) -> None:
        span = " ".join(text[start:end].split())
        if span and span not in seen:
            seen.add(span)
            found.append(Evidence(CATEGORY, start, end, kind, " ".join((value or text[start:end]).split())))

    listed = preamble_parties(text)
    for source, parties in (("preamble", listed), ("label", labelled_parties(text))):
        for party in parties:
            add(party.name_start, party.name_end, f"parties/{source}-name")
            for short in party.short_names:
                add(short.clause_start, short.clause_end, f"parties/{source}-short-name",
                    text[short.start:short.end])
    if len(listed) > 1:
        add(listed[0].name_start, listed[-1].end, "parties/preamble-list")
    for s, e in cover_names(text):
        add(s, e, "parties/cover-name")
    collective = collective_definition(text)
    if collective is not None:
        add(*collective, "parties/collective-definition")
    for s, e in signature_names(text):
        add(s, e, "parties/signature-name")
    if not found:
        for s, e in head_company_names(text):
            add(s, e, "parties/head-company-name")
    return found
