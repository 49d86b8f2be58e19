"""Where a contract names its parties: the preamble's party list, labelled blocks, signature blocks.

The preamble is parsed from one short-name definition to the next ('between Acme Corp., a
Delaware corporation ("Acme"), and Beta LLC (the "Supplier")'): each definition closes a party,
and the stretch before it holds the name and its description.  A preamble without definitions
("between Acme Inc. and Beta LLC") is split at its separators instead.  Signature blocks name the
parties again ("ACME CORP.\\n\\nBy: ____", "For and on behalf of\\nBeta Ltd"), which both
corroborates the preamble and stands in for it when a document has none.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from pipelines.rules.parties import (
    CALLED_AS,
    HEREINAFTER,
    LIST_BREAK,
    NOT_A_PARTY_WORDS,
    PARTY_LIST_INTRO,
    QUOTE,
    RECITALS_START,
    UNQUOTED,
    WEAK_SEPARATOR_RE,
    labelled_parties,
)
from pipelines.terms.party_names import (
    ARTICLE_RE,
    CONTENTS_LEADER,
    ROLE_WORDS,
    clean_name,
    has_corporate_suffix,
    is_corporate_suffix,
    is_organisation,
    jurisdiction_in,
    looks_like_person,
    name_key,
    same_party,
    trade_name_in,
)

HEAD_CHARS = 8000  # the preamble starts on the first pages, after legends and a contents list (see _head_end)
PREAMBLE_CHARS = 2500
UNDEFINED_LIST_CHARS = 700  # a party list without definitions is short; past it lies the body
MAX_INTROS = 8
SIGNATURE_CHARS = 20000  # signature pages, not the exhibits' forms after them


@dataclass
class Mention:
    """One party as one place in the document names it."""

    name: str
    start: int
    end: int
    source: str  # "preamble", "label", "signature block"
    short_names: list[str] = field(default_factory=list)
    clause_end: int = 0  # end of the definition (or the name, without one)
    jurisdiction: str | None = None
    individual_hint: bool = False
    unnamed: bool = False  # a blank or described party, shown by its role
    members: list[str] = field(default_factory=list)  # the companies a joint party is made of


# The introductions of rules/parties.py's PARTY_LIST_INTRO and more: a dated "made ... by", a heading over
# the list, "B E T W E E N:", and "The undersigned:" only on a line of its own (the rule's parties reader,
# whose evidence is calibrated as it reads now, starts at any "undersigned").
_INTRO_RE = re.compile(
    rf"\b(?:{PARTY_LIST_INTRO}|"
    r"(?:made|entered\s+into)\s+(?:as\s+of|on|this)\s+[^.()\"“]{3,60}?\bby(?!\s+and\b)|"
    # "is made effective as of April 2, 2024 (the "Effective Date") by Verdant Foods Co."
    r"made\s+effective\s+(?:as\s+of|on)\s+[^.;]{3,80}?\bby(?!\s+and\b))\b\s*:?"
    # a "PARTIES", "Article 1 Parties to this Contract" or "PREAMBLE" heading over the list
    r"|(?P<heading>^[ \t]*(?:(?-i:CHAPTER|Chapter|ARTICLE|Article)[ \t]+\w+[ \t.:]+)?(?-i:PARTIES|Parties|PREAMBLE)"
    r"(?:[ \t]+(?-i:TO|to)[ \t]+(?-i:THIS|this|THE|the)[ \t]+[\w \t]{0,40}?)?[ \t]*:?[ \t]*$)"
    r"|(?-i:B\s?E\s?T\s?W\s?E\s?E\s?N)\s*:"  # "B E T W E E N:"
    r"|^[ \t]*the\s+undersigned\s*:",  # a Dutch or German form's list: "The undersigned:\n\n1. Tulipa B.V., ..."
    re.IGNORECASE | re.MULTILINE,
)
# Where the preamble ends: rules/parties.py's RECITALS_START, and the words the rule's parties reader
# (calibrated as it reads now) runs past: a "PREAMBLE" heading, "IT IS AGREED", "agree as follows".
# Full stops are only candidates here, each checked by _ends_sentence.
_PREAMBLE_END_RE = re.compile(
    rf"\b(?:{RECITALS_START}|PREAMBLE|IT\s+IS\s+(?:HEREBY\s+)?AGREED|agree\s+as\s+follows)\b"
    # a heading over the body's first words, or over recitals spelt out in spaced capitals
    r"|(?m:^[ \t]*(?:INTRODUCTION|Introduction|R[ \t]E[ \t]C[ \t]I[ \t]T[ \t]A[ \t]L[ \t]S)[ \t]*:?[ \t]*$)"
    r"|\.[\"”’]?\s+(?=[A-Z])"  # a candidate sentence end, checked by _ends_sentence
)
# The capacity a party acts in, naming whom it acts for: "as Administrator for", "as agent of",
# "on behalf of" a named principal ("on behalf of itself" names none).  The principal is named and
# defined, but the party is the one acting.
_CAPACITY_RE = re.compile(
    r"[\s,]*(?:as\s+(?:(?:the|an?|its)\s+)?(?:[\w\-]+\s+){0,2}?(?:administrator|agent|trustee|nominee|manager|"
    r"attorney-in-fact|custodian)\s+(?:for|of|to)\s+(?:and\s+on\s+behalf\s+of\s+)?(?=[A-Z])"
    r"|on\s+behalf\s+of\s+(?-i:(?=[A-Z])))", re.IGNORECASE)
# A reference to an earlier agreement, whose parties are named in passing.
_OTHER_AGREEMENT_RE = re.compile(r"(?i)\b(?:that\s+certain|(?:as\s+)?an?\s+amendment\s+(?:to|of))\b")
# Words a full stop after which does not end the sentence.
_ABBREVIATIONS = {
    "inc", "ltd", "co", "corp", "no", "mr", "ms", "mrs", "dr", "st", "jr", "sr", "ave", "blvd", "rd",
    "ste", "bros", "etc", "l.p", "n.a", "s.a", "b.v", "n.v", "u.s", "p.o", "pty", "pte", "plc", "llc",
    "ft", "mt", "fl", "bldg", "dept", "ltda", "prof", "avv", "messrs", "av",
}
_LAST_WORD_RE = re.compile(r"[\w.]+$")
_INITIALS_RE = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")  # "U.S.A", "N.V"
_PAREN_RE = re.compile(r"[()]")
# A quoted name as rules/parties.py reads one, which may also wrap once onto the next line.
_QUOTED_RE = re.compile(rf"{QUOTE}\s*({UNQUOTED}{{1,60}}?(?:\n{UNQUOTED}{{1,30}}?)?)\s*{QUOTE}")
_SINGLE_QUOTED_RE = re.compile(r"(?:‘‘|''|[‘'])\s*([^‘’'\"“”\n]{1,60}?)\s*(?:’’|''|[’'\"”])")
# A definition whose closing quote was dropped: ("Celebrity).
_UNCLOSED_QUOTE_RE = re.compile(r"^\s*(?:the\s+)?[\"“]\s*([A-Z][^\"“”\n]{0,40}?)\s*$")
# rules/parties.py's "hereinafter referred to as", with a colon ("hereinafter: "Client"") or single quotes,
# which the rule's definitions do not read.
_HEREINAFTER_RE = re.compile(
    rf"\b{HEREINAFTER}\s*:?\s+{CALLED_AS}"
    r"[\"“”‘]\s*([^\"“”’\n]{1,60}?)\s*[\"“”’]",
    re.IGNORECASE,
)
# A short name given without quotes: "(hereinafter referred to as Party A)".
_BARE_HEREINAFTER_RE = re.compile(
    rf"\(\s*{HEREINAFTER}\s+{CALLED_AS}"
    r"(?P<short>[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3})\s*\)", re.IGNORECASE)
# A parenthetical short name whose quotes the PDF lost: "Bioeq IP AG, ... (Bioeq) and", "(Developer ),".
_BARE_SHORT_RE = re.compile(
    r"\((?:the\s+)?([A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,2})[ \t]?\)(?=\s*(?:,|;|\.|and\b|\(|$)|[ \t]*\n)")
# Short names that are not a party: rules/parties.py's NOT_A_PARTY_WORDS, the parties collectively ("Party
# A" is one party, and so is an NDA's "Disclosing Party", though the rule's reader refuses any "Party"),
# and more that a value shown to a reader must not take for a party: shares, the SEC, a country.
_NOT_A_PARTY_RE = re.compile(
    rf"(?i)\b(?:{NOT_A_PARTY_WORDS}|contract|(?<!disclosing\s)(?<!receiving\s)part(?:y(?!\s+[A-H]\b)|ies)|shares?|"
    r"price|law|commission|sec|exchange|notes?|securities|offering|system|restaurants?|"
    r"transactions?|purpose|information|material|representatives?|discussions?|proposals?)\b"
    r"|^(?-i:U\.?S\.?(?:A\.?)?|PRC|U\.?K\.?|E\.?U\.?)$"  # a country: 'United States of America ("USA")'
)
# The last word of a role, which makes a short name a party's whatever words come before it.
_ROLE_NOUNS = frozenset(w.split()[-1] for w in ROLE_WORDS)


def _names_no_party(short: str) -> bool:
    """Whether a short name names no party: "Agreement", "Services", "the Parties".  A role
    made of such a word and a role noun is a party's: "Service Provider", "Service Recipient",
    "Exchange Agent" (though "Affiliate" alone is a defined term, not a party)."""
    refused = _NOT_A_PARTY_RE.search(short)
    if refused is None:
        return False
    words = short.split()
    role_noun = len(words) > 1 and words[-1].lower() in _ROLE_NOUNS
    return not (role_noun and refused.start() < len(short) - len(words[-1]))


# Inside a definition, what introduces a combined short name ("and together with Seller, "Arizona"").
_COMBINED_RE = re.compile(r"(?i)\b(?:together|collectively|jointly|each|both|individually)\b")
# A definition naming several parties together: "(collectively "WYZZ")", "(each and both of them".
_JOINT_DEFINITION_RE = re.compile(r"(?i)\(\s*(?:collectively|together|jointly|each\s+and\s+both)\b")
# A definition of each party by itself: "(individually the "Member" and collectively the "Members")",
# "(each a "Reporting Person")".
_EACH_DEFINITION_RE = re.compile(r"(?i)\(\s*(?:individually|each)\b(?!\s+and\s+both)")
# Between the parties such a definition follows: "..., and JVLS, LLC", "... Inc. and Beta LLC",
# "... LIMITED\nAND\nBETA LLC".
_EACH_SEPARATOR_RE = re.compile(r"(?:,\s*|\s+)(?i:and)\s+(?=[A-Z])")
# Between the items of a jointly defined run: "WYZZ, Inc. and WYZZ Licensee, Inc.".
_JOINT_SEPARATOR_RE = re.compile(r",?\s+and\s+|,\s+|\n\s*\n\s*", re.IGNORECASE)
# Where one party of a list ends and the next begins: a semicolon (U+037E, the Greek question mark, is
# the semicolon some PDFs hold), "AND:", a list number "(b)", a colon ending a line ("between the
# following parties:\n"), or rules/parties.py's LIST_BREAK.  The rule's parties reader, whose
# evidence is calibrated as it reads now, takes neither U+037E nor these marks, and splits at any
# colon and at "between".
_STRONG_SEPARATOR_RE = re.compile(
    rf"[,;\u037e)]\s*and\b|[;\u037e]|\bAND\s*:|\(\s*(?:\d{{1,2}}|[a-h]|[ivx]{{1,4}})\s*\)|:[ \t]*\n|{LIST_BREAK}",
    re.IGNORECASE)
_LAST_RESORT_RE = re.compile(r",|\bof\b")
# The capitalised words right before a definition: "to retain Gianluca Rotino ("Consultant")".
_CAPITALISED_RUN_RE = re.compile(r"(?:[A-Z][\w.&'’\-]*,?\s+(?:(?:of|the|de|&)\s+)?)*[A-Z][\w.&'’\-]*,?\s*\Z")
_LIST_SEPARATOR_RE = re.compile(
    r";|\n\s*\n|\bAND\s*:|\(\s*(?:\d{1,2}|[a-h])\s*\)|,?\s+and\s+|--\s*AND\s*--", re.IGNORECASE
)
# What comes between a party's definition and an unnamed next party: "and", then a blank or
# the role described ("the Agent named on the signature page", "the franchisee identified").
_UNNAMED_LIST_RE = re.compile(r"(?i)(?:^|[,;)]\s*|\s)and\s")
_UNNAMED_RE = re.compile(
    r"\s*(?:_{3,}|X{4,}|\[\s*[*●•_\s]*\]|(?:<<|«)[^<>«»\n]{0,60}(?:>>|»)|(?:the|such|each|any)\s+(?:[\w-]+\s+){0,4}?"
    r"(?:named|identified|listed|specified|set\s+forth|designated|indicated|signing|executing)\b|(?:the\s+)?undersigned\b)", re.IGNORECASE)
# A label before a listed party's name, naming its part: "Party A: Rise Co., Ltd.", "the
# Covenanter: Beta Inc." (not a cover's "Source:" or "Attention:" line).
_LIST_LABEL_RE = re.compile(
    r"[\s,;]*(?:(?i:and)[ \t]+)?(?:(?i:the)[ \t]+)?(?:Party[ \t]+[A-H]|(?:[A-Z][\w\-]*[ \t]+)?[A-Z][\w\-]*(?:er|or|ee|ant|ent))"
    r"[ \t]*:[ \t]*\n?[ \t]*(?=[A-Z\[])")
_INDIVIDUAL_RE = re.compile(r"(?i)\ban\s+individual\b|\bresiding\b|\bresident\s+of\b|\bin\s+(?:his|her)\s")


# --- the preamble ----------------------------------------------------------------------------

# A contents line: a heading run out to its page number by leaders ("Grant of Franchise ..... 7").
_CONTENTS_LINE_RE = re.compile(rf"(?m)^[^\n]*(?:{CONTENTS_LEADER})[^\n]*$")


def _head_end(text: str) -> int:
    """Where the preamble is sought up to: the head, lengthened by the contents lines in it,
    since a long contents list pushes the preamble pages on."""
    contents = sum(len(m.group()) + 1 for m in _CONTENTS_LINE_RE.finditer(text, 0, min(len(text), HEAD_CHARS)))
    return HEAD_CHARS + contents


# What a "between" follows in the body: a relationship, a conflict or a dealing between the parties.
_RELATION_BEFORE_RE = re.compile(
    r"(?i)\b(?:relationships?|partnership|joint\s+venture|agency|conflicts?|inconsistenc(?:y|ies)|discrepanc(?:y|ies)|"
    r"disputes?|differences?|disagreements?|communications?|negotiations?|dealings?|transactions?)\s*$")


def preamble_mentions(text: str) -> list[Mention]:
    """The parties of the best party list among the head's "between"s.

    A "between" can belong to a cover page, a contents list or a recital, so each of the first
    few is parsed: the first list defining two parties wins, else the list with the most
    parties (the earliest on a tie).  A "between" after a relationship or a conflict ("no
    partnership between SDBF and Padres L.P. (the "Padres")") is the body's, not a party list.
    """
    best: list[Mention] = []
    best_score = 0
    intros = [m for m in _INTRO_RE.finditer(text, 0, min(len(text), _head_end(text)))
              if not _RELATION_BEFORE_RE.search(text, max(0, m.start() - 40), m.start())]
    for intro in intros[:MAX_INTROS]:
        laid_out = intro.group().rstrip().endswith(":") or intro.group("heading") is not None
        mentions = _party_list(text, intro.end(), laid_out=laid_out)
        if sum(bool(m.short_names) for m in mentions) >= 2:
            return mentions
        score = sum(2 if m.short_names else 1 for m in mentions)
        if score > best_score:
            best, best_score = mentions, score
    return best or labelled_mentions(text) or _first_person(text) or _unintroduced_list(text) or _defined_roles(text)


# A role defined by the party's name in a definitions section, where the preamble names roles only
# ("between the Company and the Executive named below ... "Company" means Titan Logistics, Inc.").
_ROLE_DEFINED_RE = re.compile(
    r"[\"“](?:the\s+)?(?P<role>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)?)[\"”]\s+(?:means|shall\s+mean)\s+"
    r"(?P<name>(?:[^.;\n]|\.(?!\s+[A-Z0-9\"“(]|\s*$)){2,120})")


def _defined_roles(text: str) -> list[Mention]:
    """The parties a definitions section names by role, when nothing else named them."""
    mentions: list[Mention] = []
    for m in _ROLE_DEFINED_RE.finditer(text, 0, min(len(text), _head_end(text))):
        role = m.group("role")
        name = clean_name(m.group("name")) if role.lower() in ROLE_WORDS else None
        if name is None or not (has_corporate_suffix(name) or looks_like_person(name)) or \
                any(same_party(x.name, name) for x in mentions):
            continue
        n_start, n_end = _locate(text, m.start("name"), m.end("name"), name)
        mentions.append(Mention(name, n_start, n_end, "preamble", [role], clause_end=n_end,
                                jurisdiction=jurisdiction_in(text[n_end:m.end("name")]),
                                individual_hint=not has_corporate_suffix(name)))
    return mentions if len(mentions) >= 2 else []


# A first-person agreement, an employee's or a consultant's confidentiality undertaking: "In
# consideration of my employment by Redwood Robotics, Inc., a Delaware corporation (the
# "Company"), I, Michael Chen, agree as follows".  The writer is a party as much as the company.
_FIRST_PERSON_RE = re.compile(
    r"\bI,\s+(?:the\s+undersigned,?\s+)?(?P<name>[A-Z][\w.'’\-]*(?:\s+[A-Z][\w.'’\-]*){1,4}),\s+"
    r"(?:in\s+consideration\s+of\s+[^;]{0,200}?,\s+)?"  # "I, Jo Ellis, in consideration of my engagement ..., agree"
    r"(?:(?:do\s+)?hereby\s+)?(?:agree|acknowledge|understand|represent|covenant|certify|promise|undertake)")
_ENGAGED_BY_RE = re.compile(
    r"(?i)\bmy\s+(?:(?:continued|proposed)\s+)?(?:employment|engagement|services?|consulting\s+relationship)\s+"
    r"(?:as\s+(?:an?\s+)?[\w-]+(?:\s+[\w-]+)?\s+)?(?:by|with|for|to)\s+")  # "my engagement as a consultant by"


def _first_person(text: str) -> list[Mention]:
    """The company and the person of a first-person agreement, or nothing."""
    person = _FIRST_PERSON_RE.search(text, 0, min(len(text), PREAMBLE_CHARS))
    if person is None:
        return []
    engaged = _ENGAGED_BY_RE.search(text, 0, min(len(text), PREAMBLE_CHARS))
    company = [m for m in _party_list(text, engaged.end()) if m.short_names][:1] if engaged else []
    name = clean_name(person.group("name"))
    if name is None:
        return company
    return company + [Mention(name, person.start("name"), person.end("name"), "preamble",
                              clause_end=person.end("name"), individual_hint=True)]


# A letter's salutation on its own line: the letter's body, and its party list, start after it.
_SALUTATION_RE = re.compile(
    r"(?im)^[ \t]*(?:dear\s+[^\n:,]{1,60}|ladies\s+and\s+gentlemen|gentlemen|to\s+whom\s+it\s+may\s+concern)[ \t]*[:,][ \t]*$")


def _unintroduced_list(text: str) -> list[Mention]:
    """Parties defined without a "between": "Acme Inc. ("Acme") and Beta B.V. ("Beta") agree
    ...", or a letter's "In connection with ... a transaction with Vega Holdings Corp. (the
    "Company")".  A letter is read from its salutation on, so that its letterhead, date and
    addressee block are not taken for the first party's name."""
    first = next(iter(_definitions(text, 0, min(len(text), _head_end(text)))), None)
    salutations = [m.end() for m in _SALUTATION_RE.finditer(text, 0, first[0])] if first is not None else []
    return [m for m in _party_list(text, salutations[-1] if salutations else 0) if m.short_names]


def _party_list(text: str, start: int, laid_out: bool = False) -> list[Mention]:
    """The parties listed from `start` to the preamble's end, one per short-name definition.

    A definition with no name before it adds to the previous party ('("Roche US"; ...
    "Roche")'), unless it names parties together ("collectively, "Content Provider"").  A list
    laid out under "BETWEEN:" holds addresses whose full stops end no sentence.
    """
    end = _preamble_end(text, start, sentences=not laid_out)
    end = _before_other_agreement(text, start, end)
    definitions = _definitions(text, start, end)
    if not definitions:
        return _undefined_list(text, start, min(end, start + UNDEFINED_LIST_CHARS))
    mentions: list[Mention] = []
    cursor = start
    for d_start, d_end, shorts in definitions:
        restart = [m.end() for m in _INTRO_RE.finditer(text, cursor, d_start)]
        cursor = restart[-1] if restart else cursor  # a cover page's "Between" before the preamble's
        mention = _mention_before(text, cursor, d_start)
        role = _role_short(shorts)
        if mention is None and mentions and role and _unnamed_party(text, mentions[-1].clause_end, d_start, role):
            mention = Mention(role, d_start, d_end, "preamble", unnamed=True)
        elif mention is None and mentions and (reader := _addressed_party(text, mentions[-1].clause_end, d_start)):
            mention = Mention(reader, d_start, d_end, "preamble", unnamed=True)
        if mentions and set(shorts) <= set(mentions[-1].short_names):
            mentions[-1].clause_end = d_end  # the same party again: "... Toronto (the "Consultant")"
        elif mentions and _CAPACITY_RE.match(text, mentions[-1].clause_end, d_start):
            mentions[-1].clause_end = d_end  # "Fox, as Administrator for Beta Corp. ("Owner")"
        elif mention is not None and (joint := _jointly_defined(text, cursor, d_start)) is not None:
            joint.short_names, joint.clause_end = shorts, d_end
            mentions.append(joint)
        elif mention is not None and (each := _each_defined(text, cursor, d_start)) is not None:
            for one in each:
                one.short_names, one.clause_end = list(shorts), d_end
            mentions += each
        elif mention is not None:
            mention.short_names, mention.clause_end = shorts, d_end
            mentions.append(mention)
        elif mentions and d_start - mentions[-1].clause_end < 80 and not _COMBINED_RE.search(text, d_start, d_end):
            mentions[-1].short_names += [s for s in shorts if s not in mentions[-1].short_names]
            mentions[-1].clause_end = d_end
        cursor = d_end
    trailing = _mention_before(text, cursor, end, named_only=True, listed_only=True) \
        or _defined_before(text, start, cursor)
    if trailing is not None and mentions:
        mentions.append(trailing)
    return mentions


# The list's last item given by a short name alone: "... (the "Sponsor") and ACM."
_LISTED_SHORT_RE = re.compile(r"[\s,]*and\s+(?:the\s+)?(?P<short>[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,2})\b")


def _defined_before(text: str, start: int, cursor: int) -> Mention | None:
    """The party a list ends with by its short name, defined before the list began: "American
    Champion Media, Inc. ("ACM") ... is the producer of the event, and this Agreement is made
    between Shun Li Trading Ltd ("SLD") and ACM."  None when the list ends otherwise."""
    listed = _LISTED_SHORT_RE.match(text, cursor)
    if listed is None:
        return None
    previous_end = max(0, start - PREAMBLE_CHARS)
    for d_start, d_end, shorts in _definitions(text, previous_end, start):
        if listed.group("short") in shorts:
            mention = _mention_before(text, previous_end, d_start, named_only=True)
            if mention is not None:
                mention.short_names, mention.clause_end = shorts, d_end
            return mention
        previous_end = d_end
    return None


def _jointly_defined(text: str, start: int, d_start: int) -> Mention | None:
    """One party made of the companies a joint definition names together, or None.

    "American United Life Insurance Company, and OneAmerica Securities, Inc., a registered
    Broker Dealer (collectively referred to as "Servicing Agent")" makes the two companies one
    side, "Servicing Agent", so the party is named "American United Life Insurance Company and
    OneAmerica Securities, Inc." with each company kept as a member (as CUAD's answers write
    it).  The run is read backwards from the definition, one list item at a time, while each
    item opens with a suffixed company name; a description after a name ("a registered Broker
    Dealer") or a suffix after a comma ("WYZZ, Inc.") belongs to the item before it.
    """
    if not _JOINT_DEFINITION_RE.match(text, d_start):
        return None
    bounds = [start] + [m.end() for m in _JOINT_SEPARATOR_RE.finditer(text, start, d_start)]
    items: list[int] = []
    members: list[str] = []
    for bound in reversed(bounds):
        head = text[bound:d_start].lstrip()
        if not head or head[0].islower() or is_corporate_suffix(head.split(None, 1)[0].rstrip(",")):
            continue  # a description or a name's suffix: part of the item before
        name = clean_name(text[bound:items[0] if items else d_start])
        if name is None or not has_corporate_suffix(name):
            break
        items.insert(0, bound)
        members.insert(0, name)
    if len(items) < 2:
        return None
    first_start, _ = _locate(text, items[0], d_start, members[0])
    _, last_end = _locate(text, items[-1], d_start, members[-1])
    return Mention(" and ".join(members), first_start, last_end, "preamble", clause_end=last_end,
                   members=members)


def _each_defined(text: str, start: int, d_start: int) -> list[Mention] | None:
    """The parties one definition names each by itself, or None: "BorrowMoney.com, inc of 512
    Bayshore Dr, ..., and JVLS, LLC dba Vaccines 2Go of 4060 Johns Creek Parkway ... (individually
    the "Member" and collectively the "Members")" is two parties, each a Member, not one."""
    if not _EACH_DEFINITION_RE.match(text, d_start):
        return None
    bounds = [start] + [m.end() for m in _EACH_SEPARATOR_RE.finditer(text, start, d_start)] + [d_start]
    each = []
    for item_start, item_end in pairwise(bounds):
        name = clean_name(text[item_start:item_end])
        if name is None or not (has_corporate_suffix(name) or looks_like_person(name)):
            return None  # an item that names no party: not a list of parties
        n_start, n_end = _locate(text, item_start, item_end, name)
        each.append(Mention(name, n_start, n_end, "preamble", clause_end=n_end))
    return each if len(each) >= 2 else None


def _preamble_end(text: str, start: int, sentences: bool = True) -> int:
    limit = min(len(text), start + PREAMBLE_CHARS)
    for m in _PREAMBLE_END_RE.finditer(text, start, limit):
        if not m.group().startswith("."):
            return m.start()
        if sentences and _ends_sentence(text, start, m.start()):
            return m.start() + len(m.group().rstrip())  # past a closing quote: 'as "Shipper."'
    return limit


def _before_other_agreement(text: str, start: int, end: int) -> int:
    """The list's end before a reference to another agreement ("as an amendment to that certain
    Joint Venture Agreement dated ... by and among Autoliv ASP, Inc. ..."): that agreement's
    parties are history, not parties to this one.  A reference before the first definition is
    the list's own preamble ("to that certain Lease ... is made by"), so only a later one cuts."""
    first = _QUOTED_RE.search(text, start, end)
    if first is None:
        return end
    other = _OTHER_AGREEMENT_RE.search(text, first.end(), end)
    return other.start() if other else end


def _ends_sentence(text: str, start: int, dot: int) -> bool:
    """A full stop ends the sentence unless it closes an abbreviation or sits inside brackets."""
    word = _LAST_WORD_RE.search(text, max(start, dot - 12), dot)
    if word and (word.group().lower().rstrip(".") in _ABBREVIATIONS or len(word.group()) == 1
                 or _INITIALS_RE.fullmatch(word.group())):
        return False
    depth = sum(1 if p.group() == "(" else -1 for p in _PAREN_RE.finditer(text, start, dot))
    return depth <= 0


def _definitions(text: str, start: int, end: int) -> list[tuple[int, int, list[str]]]:
    """Each short-name definition between start and end: its span and the party's short names."""
    found = []
    for p_start, p_end in _top_level_parentheses(text, start, end):
        inner = text[p_start + 1:p_end - 1]
        shorts = _quoted_shorts(inner)
        if shorts is None:
            shorts = _unquoted_shorts(text, p_start, p_end)
        if shorts:
            found.append((p_start, p_end, shorts))
    for m in _HEREINAFTER_RE.finditer(text, start, end):
        if not any(s <= m.start() < e for s, e, _ in found) and not _names_no_party(m.group(1)):
            found.append((m.start(), m.end(), [m.group(1).strip(" ,.;")]))
    return sorted(found)


def _unquoted_shorts(text: str, p_start: int, p_end: int) -> list[str] | None:
    """A short name the drafter or the PDF left unquoted: "(hereinafter referred to as Party A)",
    "Bioeq IP AG (Bioeq) and", "Blue Gum Pty Ltd ACN 987 654 321 of 5 Collins Street (Recipient)" at
    a line's end, though not a subtitle alone on its line ("(DA-9801 Licensed Products)").  A
    bracketed suffix ("(LLC)") or organisation is part of a name, though "(the Company)" is a role."""
    hereinafter = _BARE_HEREINAFTER_RE.fullmatch(text, p_start, p_end)
    if hereinafter and not _names_no_party(hereinafter.group("short")):
        return [hereinafter.group("short").strip(" ,.;")]
    bare = _BARE_SHORT_RE.match(text, p_start, min(len(text), p_end + 6))
    if bare is None or not text[text.rfind("\n", 0, p_start) + 1:p_start].strip() \
            or is_organisation(bare.group(1)) \
            or (is_corporate_suffix(bare.group(1)) and bare.group(1).lower() not in ROLE_WORDS):
        return None
    return [bare.group(1)]


def _top_level_parentheses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, depth, opened = [], 0, start
    for p in _PAREN_RE.finditer(text, start, end):
        if p.group() == "(":
            if depth == 0:
                opened = p.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                spans.append((opened, p.end()))
    return spans


def _quoted_shorts(inner: str) -> list[str] | None:
    """The party's own short names in a definition; None when it defines none at all.

    A combined name defined in the same breath ('"Licensing" and together with Seller,
    "Arizona"') names several parties, and "Party"/"Agreement" name no party, so both are left
    out; a definition of only those returns [] (it is a definition, but of no party).
    """
    matches = (list(_QUOTED_RE.finditer(inner)) or list(_SINGLE_QUOTED_RE.finditer(inner))
               or list(_UNCLOSED_QUOTE_RE.finditer(inner)))
    if not matches:
        return None
    shorts = []
    for m in matches:
        short = " ".join(m.group(1).strip(" ,.;").split())
        if _COMBINED_RE.search(inner, 0, m.start()) and shorts:
            break
        if short and (short[0].isalpha() or short[0].isdigit() and any(c.isalpha() for c in short)) \
                and not _names_no_party(short) and short not in shorts:  # "1-800-Flowers" too
            shorts.append(short)
    return shorts


def _role_short(shorts: list[str]) -> str | None:
    """The first short name that is a role ("you", "Franchisee" -> "Franchisee"), article dropped."""
    roles = (ARTICLE_RE.sub("", s) for s in shorts)
    return next((r for r in roles if r.lower() in ROLE_WORDS), None)


def _unnamed_party(text: str, previous_end: int, d_start: int, role: str) -> bool:
    """A party the contract leaves unnamed: "and the Agent named on the signature page (the
    "Agent")", "and the person signing below ("Recipient")", "and _______________ (the
    "Professional")", "and the Franchisee ("you" or "Franchisee")", "and <<Company Name>> ("Supplier")".  The list goes on past the previous
    party ("and"), and what names this one is a blank, a template field, a description or the
    role itself, so it is shown by the role it is defined by rather than merged into its
    neighbour."""
    between = text[previous_end:d_start]
    listed = _UNNAMED_LIST_RE.search(between)
    if listed is None:
        return False
    rest = between[listed.end():]
    return bool(_UNNAMED_RE.match(rest)) or ARTICLE_RE.sub("", rest.strip()).lower() == role.lower()


# The reader as a party: "between Lakeside Bank, N.A. ("Lakeside") and you, the employee signing
# below ("you")".
_ADDRESSED_RE = re.compile(r"(?i)\band\s+you\b,?\s*(?:the\s+(?P<role>[a-z][\w-]*)\b)?")


def _addressed_party(text: str, previous_end: int, d_start: int) -> str | None:
    """The role an addressed party ("and you, the employee ...") is shown by until its
    signature block names it; None when the definition does not follow "and you"."""
    m = _ADDRESSED_RE.search(text, previous_end, d_start)
    if m is None:
        return None
    role = (m.group("role") or "").capitalize()
    return role if role.lower() in ROLE_WORDS else "You"


# A quoted name a party is also known by, between its name and its definition: 'Marcus Allen Johnson
# p/k/a "Big Mac" ("Athlete")'.
_QUOTED_ALIAS_RE = re.compile(
    r"\s*,?\s*(?:[pafPAF]/[kK]/[aA]|(?:professionally|also|formerly|otherwise)\s+known\s+as)\s+[\"“][^\"”\n]{1,40}[\"”]\s*,?\s*$")


def _mention_before(text: str, start: int, end: int, named_only: bool = False,
                    listed_only: bool = False) -> Mention | None:
    """The party whose definition starts at `end`, named in text[start:end].

    The stretch may open with the end of the previous party's description, so the name is
    sought first at the start, then after each strong separator or bare "and" (the nearest
    first), then after each comma or "of" ("professional golfer, TOM WATSON", "furnishing the
    services of Kathy Ireland").  With `named_only` (the stretch after the last definition) a
    name needs a corporate suffix or "an individual": anything else is the body's first words;
    with `listed_only` it must also start the list's next item ("and Beta LLC"), since a name
    after "a wholly owned subsidiary of" is the previous party's parent, not a party.
    """
    alias = _QUOTED_ALIAS_RE.search(text, start, end)
    end = alias.start() if alias else end  # 'Marcus Allen Johnson p/k/a "Big Mac"': the name is before it
    candidates = [] if listed_only else [start]
    for separators in (_STRONG_SEPARATOR_RE, WEAK_SEPARATOR_RE):
        candidates += reversed([m.end() for m in separators.finditer(text, start, end)])
    if not listed_only:  # a trailing name after "a subsidiary of" describes the party before it
        candidates += [m.end() for m in _LAST_RESORT_RE.finditer(text, start, end)]
        run = _CAPITALISED_RUN_RE.search(text, start, end)
        candidates += [run.start()] if run else []
    for candidate in candidates:
        label = _LIST_LABEL_RE.match(text, candidate, end)
        candidate = label.end() if label else candidate
        name = clean_name(text[candidate:end])
        if name is None:
            continue
        name_start, name_end = _locate(text, candidate, end, name)
        name, short = _split_short_prefix(name)  # "DCL DAIRY CREST LIMITED", laid out in columns
        shorts = [short] if short else []
        description = text[name_end:end]
        trade_name = trade_name_in(description)
        if trade_name and "d/b/a" not in name.lower():
            name = f"{name} d/b/a {trade_name}"
        individual = bool(_INDIVIDUAL_RE.search(description))
        if named_only and not (has_corporate_suffix(name) or individual):
            continue
        return Mention(name, name_start, name_end, "preamble", shorts, clause_end=name_end,
                       jurisdiction=jurisdiction_in(description), individual_hint=individual)
    return None


def _undefined_list(text: str, start: int, end: int) -> list[Mention]:
    """Parties named without short names ("between Acme Inc. and Beta LLC"): one per segment.

    A capitalised "AND" may join words of one name ("THE HENRY FILM AND ENTERTAINMENT
    CORPORATION"), so a segment on one line of capitals that names no party is read again with
    the next one.  A name needs a suffix or "an individual", except beside a single suffixed
    party, where the first organisation's name ("Pacificap Entertainment") is the other side.
    """
    separators = list(_LIST_SEPARATOR_RE.finditer(text, start, end))
    bounds = [start] + [m.end() for m in separators] + [end]
    joins = [m.group().strip() == "AND" and "\n" not in text[b:m.start()]
             for b, m in zip(bounds, separators)] + [False]
    mentions, maybes = [], []
    seg_start = start
    for i, (_, seg_end) in enumerate(pairwise(bounds)):
        mention = _mention_before(text, seg_start, seg_end)
        named = mention is not None and (has_corporate_suffix(mention.name) or mention.individual_hint)
        if not named and joins[i] and seg_end < end:
            continue  # read on along the line: "FILM AND ENTERTAINMENT CORPORATION"
        seg_start = seg_end
        if mention is None or any(name_key(mention.name) <= name_key(m.name) for m in mentions + maybes):
            continue  # the same name again, or its tail ("ENTERTAINMENT CORPORATION")
        (mentions if named else maybes).append(mention)
    if not any(has_corporate_suffix(m.name) for m in mentions):
        return []
    others = [m for m in maybes if is_organisation(m.name)]
    if len(mentions) == 1 and others:
        return sorted(mentions + others[:1], key=lambda m: m.start)
    return mentions


def _locate(text: str, start: int, end: int, name: str) -> tuple[int, int]:
    """Where the cleaned name lies in the raw text (its words, whatever whitespace between)."""
    pattern = r"\s+".join(re.escape(w) for w in name.split())
    m = re.search(pattern, text[start:end])
    return (start + m.start(), start + m.end()) if m else (start, end)


# --- labels and signature blocks -------------------------------------------------------------

_ROLE_LABEL = "|".join(sorted((re.escape(w) for w in ROLE_WORDS), key=len, reverse=True))
# "Company: Acme Inc." or "RECIPIENT:\nJohn Smith" at the start of a line, the role perhaps given a
# second name ("The Buyer/End-User: Acme Inc.").
_ROLE_LABEL_RE = re.compile(
    rf"(?im)^[ \t]*(?:the\s+)?(?P<label>{_ROLE_LABEL})(?:[ \t]*/[ \t]*[\w\-]+)?(?:[ \t]+name)?[ \t]*:[ \t]*\n?[ \t]*"
    r"(?P<name>[^\n]{2,100})$"
)
# "LICENSEE: Beta LLC" on a signature line.
_LABEL_PREFIX_RE = re.compile(rf"(?i)\s*(?:the\s+)?(?:{_ROLE_LABEL})\s*:\s*")
# "For and on behalf of\nBeta Ltd" (British signature blocks).
_ON_BEHALF_RE = re.compile(r"(?i)\b(?:for\s+and\s+)?on\s+behalf\s+of\s*:?[ \t]*\n?\s*(?P<name>[^\n]{2,100})")
# A name on the line above "By:" (blank or rule lines between), or over two lines when its legal
# form wraps ("MEZZANINE PARTNERS - OFFSHORE INVESTMENT MASTER FUND II,\nL.P.").
_ABOVE_BY_RE = re.compile(
    r"(?m)^[ \t]*(?P<name>(?:[^\n]{2,100},[ \t]*\n[ \t]*(?=(?i:l\.?l?\.?[cp]|inc|ltd|limited|corp)))?[^\n]{2,100}?)"
    r"[ \t]*\n(?:[ \t]*(?:[-_=]{3,})?[ \t]*\n){0,3}[ \t]*(?:By|BY|Per|PER)\b[ \t]*[:_.]"
)
# A name on the line above a conformed signature, with no "By:" ("HPS PARTNERS, LLC\n/s/ John Madden").
_ABOVE_CONFORMED_RE = re.compile(r"(?m)^[ \t]*(?!(?i:by|per)\b)(?P<name>[^\n]{2,100}?)[ \t]*\n[ \t]*/s/")
# A person signing for themselves: their name heads the block and their own signature follows,
# with no "By:" ("JOHN ROE\n/s/ John Roe"), as reporting persons sign a joint filing agreement.
_SELF_SIGNED_RE = re.compile(r"(?im)^[ \t]*(?P<name>[a-z][a-z.'’\- ]{3,40}?)[ \t]*\n[ \t]*/s/[ \t]*(?P=name)[ \t]*$")
# A conformed signature at a line's start: an executed filing's blocks begin no later than the first.
_CONFORMED_RE = re.compile(r"(?m)^[ \t]*/s/")
_WITNESS_WORDS = {"ATTEST", "WITNESS", "ACCEPTED", "AGREED", "APPROVED"}
_WITNESS_RE = re.compile(r"IN\s+WITNESS\s+WHEREOF|In\s+Witness\s+Whereof|EXECUTED\s+(?:as|by)|SIGNATURES?\b")


def labelled_mentions(text: str) -> list[Mention]:
    """Parties set out by label: "Party A: Acme Co., Ltd." (the rules' reading) or "Company: ...".

    The rules' reading stops a name at its first bracket, so the name is read again to the end
    of its line: "Party B: Harbour Lights (Hong Kong) Co., Ltd." keeps its place and suffix.  A
    label names one party, so a label seen again ("the platform operated by Party A: Lumen
    Marketplace" in the definitions) is that party again, not another.
    """
    mentions: list[Mention] = []
    for p in labelled_parties(text):
        line_end = text.find("\n", p.name_end)
        line_end = len(text) if line_end < 0 else line_end
        name = clean_name(text[p.name_start:line_end]) or clean_name(text[p.name_start:p.name_end])
        labels = [text[s.start:s.end] for s in p.short_names]
        if name is not None and not any(set(labels) & set(m.short_names) for m in mentions):
            start, end = _locate(text, p.name_start, line_end, name)
            mentions.append(Mention(name, start, end, "label", labels, p.end))
    if mentions:
        return mentions
    for m in _ROLE_LABEL_RE.finditer(text, 0, min(len(text), _head_end(text))):
        name = clean_name(m.group("name"))
        if name is not None and not any(x.name == name for x in mentions):
            start, end = _locate(text, m.start("name"), m.end("name"), name)
            mentions.append(Mention(name, start, end, "label", [m.group("label")], end))
    return mentions


def _split_short_prefix(line: str) -> tuple[str, str | None]:
    """A name line without the short name or role set before it, and that short name.

    Blocks are headed "DCL DAIRY CREST LIMITED", "SEV SEV GROUP LIMITED", "SHIPPER ECOPETROL
    S.A." or "ATTEST KIOSK CONCEPTS, INC.": a first word that is the next word again or the
    initials of the rest is the party's short name; a role or the witness's line is dropped
    without being one.
    """
    words = line.split()
    if len(words) < 3 or not line.isupper():
        return line, None
    initials = "".join(w[0] for w in words[1:] if w[0].isalpha())
    first = words[0].strip(":,")
    rest = " ".join(words[1:])
    if first.lower() in ROLE_WORDS or first in _WITNESS_WORDS:
        return rest, None
    if first == words[1] or initials.startswith(first):
        return rest, first
    return line, None


def signature_mentions(text: str) -> list[Mention]:
    """Organisations named in the signature blocks: after the last "IN WITNESS WHEREOF", or in
    the second half of a document without one (the first half's labels are not signatures), or
    from its first conformed signature ("/s/") when that comes earlier: a joint filing
    agreement's one paragraph is followed by a page of blocks, most of them in its first half."""
    witness = list(_WITNESS_RE.finditer(text))
    start = witness[-1].start() if witness else len(text) // 2
    end = min(len(text), start + SIGNATURE_CHARS)
    if not witness and (conformed := _CONFORMED_RE.search(text, 0, start)) is not None:
        start = text.rfind("\n", 0, max(0, text.rfind("\n", 0, conformed.start()))) + 1  # the name line above it
    found: list[Mention] = []
    for pattern in (_ON_BEHALF_RE, _ABOVE_BY_RE, _ABOVE_CONFORMED_RE, _ROLE_LABEL_RE):
        for m in pattern.finditer(text, start, end):
            raw = m.group("name")
            label = _LABEL_PREFIX_RE.match(raw)
            raw = raw[label.end():] if label else raw
            name = clean_name(_split_short_prefix(raw)[0])
            # "For and on behalf of" names a party; a line above "By:" may be a heading.
            if name is None or any(x.name == name for x in found) or (
                    pattern is not _ON_BEHALF_RE and not is_organisation(name)):
                continue
            n_start, n_end = _locate(text, m.start("name"), m.end("name"), name)
            found.append(Mention(name, n_start, n_end, "signature block", clause_end=n_end))
    for m in _SELF_SIGNED_RE.finditer(text, start, end):
        name = clean_name(m.group("name"))
        if name is not None and looks_like_person(name) and not any(same_party(x.name, name) for x in found):
            found.append(Mention(name, m.start("name"), m.end("name"), "signature block", clause_end=m.end("name"),
                                 individual_hint=True))
    return sorted(found, key=lambda x: x.start)
