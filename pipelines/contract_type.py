"""What kind of contract a document is, read from its title and the roles its first pages define.

A reviewer triages by contract type before reading a clause, so the type must be cheap and must
say why: every decision carries the words that decided it and where they are.  The title
decides when it names a known kind of agreement ("EXCLUSIVE DISTRIBUTOR AGREEMENT"); titles that
join several kinds ("Software License and Maintenance Agreement") are named after the last one,
which is the one the contract is about more often than not.  An amendment is an amendment
whatever it amends, because what a reviewer checks in it is the change.  With no telling title
the roles the parties are given ("Licensee", "Distributor", "Franchisee") vote; a short contract
about little but "Confidential Information" is an NDA.  Nothing telling means `other`, unsure.

Confidences: titles and amendments measured over 0.9 precise on the CUAD training split
(ops/benchmarks/contract_types.py; every contract taken for an amendment there is one, though
CUAD often files it under the type it amends); headings, roles and the NDA test decided too few
training contracts to measure and carry cautious priors.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from pipelines.rules.title import TITLE_CASE_RE, UPPER_TITLE_RE, find_document_name


class ContractType(StrEnum):
    LICENCE = "licence"
    SUPPLY_OR_MANUFACTURING = "supply_or_manufacturing"
    DISTRIBUTION_OR_RESELLER = "distribution_or_reseller"
    FRANCHISE = "franchise"
    SERVICES_OR_OUTSOURCING = "services_or_outsourcing"
    JOINT_VENTURE_OR_COLLABORATION = "joint_venture_or_collaboration"
    EMPLOYMENT_OR_CONSULTING = "employment_or_consulting"
    NDA = "nda"
    AMENDMENT = "amendment"
    FILING_EXHIBIT = "filing_exhibit"  # guarantees, joint filing agreements, powers of attorney
    OTHER = "other"


@dataclass(frozen=True)
class TypeDecision:
    """The type, how sure, and the words that decided it (`span` locates them in the text)."""

    type: ContractType
    confidence: float
    evidence: str
    span: tuple[int, int] | None = None


T = ContractType
HEAD_CHARS = 3000  # the title and preamble sit on the first page
VOCABULARY_CHARS = 20000  # roles are defined and used heavily in the first pages
NDA_MAX_CHARS = 40000  # confidentiality terms dominate every long contract's boilerplate too
MIN_ROLE_MENTIONS = 3  # fewer is a passing reference ("the Licensor's marks"), not a role

CONFIDENCE_AMENDMENT = 0.9
CONFIDENCE_TITLE = 0.9
CONFIDENCE_HEADING = 0.7
CONFIDENCE_ROLES = 0.6
CONFIDENCE_NOTHING = 0.3

# An amendment's (or addendum's) title; an "Amendment and Restatement" is a whole agreement.
AMENDMENT_RE = re.compile(r"\b(?:amendment|addendum)\b(?!\s+and\s+restate)", re.IGNORECASE)
# The preamble of an untitled amendment: `(this "Amendment")` or "hereby amends the Agreement";
# `(the "First Amendment")` is how recitals name an earlier amendment, so "the" takes no prefix.
AMENDMENT_PREAMBLE_RE = re.compile(
    r"\(\s*(?:this\s+[\"“]\s*(?:\w+\s+)?|the\s+[\"“]\s*)Amendment\s*[\"”]\s*\)?|"
    r"\b(?:hereby\s+)?amends\s+(?:the|that\s+certain)\s+(?:[A-Z][\w\-]*\s+){0,6}Agreement\b",
)

# Filing exhibits whose title has no contract noun for find_document_name to end on: the title
# is a line of its own at the top ("GUARANTY", "LIMITED POWER OF ATTORNEY").
LEAD_LINES_CHARS = 400
STANDALONE_TITLE_RE = re.compile(
    r"^[ \t]*((?:[A-Z][A-Za-z\-]*[ \t]+){0,3}(?:guarant(?:y|ee)|power[ \t]+of[ \t]+attorney))[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)

# Contract kinds that titles name, each with its type.  Where several match one title the one
# ending last wins, and of those the longest ("Joint Development" over "Development").
TITLE_KINDS: tuple[tuple[re.Pattern[str], ContractType], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), kind) for pattern, kind in (
        (r"\blicen[cs](?:e|ing)\b|\bintellectual\s+property\b|\btrademark\b|\bpatent\b", T.LICENCE),
        (r"\bsupply\b|\bmanufactur(?:e|ing)\b|\bOEM\b|\btoll\s+processing\b", T.SUPPLY_OR_MANUFACTURING),
        ((r"\bdistribut(?:or|ion|orship)\b|\bre-?sell(?:er|ing)\b|\bresale\b|\bdealer(?:ship)?\b|"
          r"\bsales\s+represent\w*"), T.DISTRIBUTION_OR_RESELLER),
        (r"\bfranchis(?:e|ing)\b|\barea\s+development\b", T.FRANCHISE),
        ((r"\bservic(?:e|es|ing)\b|\bmaintenance\b|\bhosting\b|\boutsourcing\b|\btransportation\b|"
          r"\bdevelopment\b|\bmanagement\b|\bagency\b|\boperations?\b|\badministration\b"),
         T.SERVICES_OR_OUTSOURCING),
        ((r"\bjoint\s+(?:venture|development)\b|\bcollaborat(?:ion|ive)\b|\bco-?operation\b|"
          r"\balliance\b|\bpartnership\b"), T.JOINT_VENTURE_OR_COLLABORATION),
        (r"\bemployment\b|\bconsult(?:ing|ancy|ant)\b|\bseparation\b|\bseverance\b",
         T.EMPLOYMENT_OR_CONSULTING),
        (r"\bnon-?disclosure\b|\bconfidentiality\b|\bsecrecy\b", T.NDA),
        (r"\bjoint\s+filing\b|\bpower\s+of\s+attorney\b|\bguarant(?:y|ee)\b", T.FILING_EXHIBIT),
        # Marketing and promotion deals, restrictive covenants, escrows and financial support
        # ("capital maintenance" is a parent's keep-well, not upkeep) have no type of their own;
        # nor have deals and financings, named here so that their recitals' mentions of
        # licences or guarantors are not read as their type.
        ((r"\bsponsorship\b|\bendorsement\b|\bco-?branding\b|\b(?:co-?)?promotion\b|\bmarketing\b|"
          r"\baffiliate\b|\bnon-?competition\b|\bnon-?solicitation\b|\bescrow\b|"
          r"\b(?:capital|yield|income)\s+maintenance\b|\bmerger\b|"
          r"\b(?:stock|asset|share|securities|unit|interest)\s+purchase\b|\bpurchase\s+and\s+sale\b|"
          r"\bcredit\b|\bloan\b|\blease\b|\bunderwriting\b|\bsubscription\b|\bregistration\s+rights\b|"
          r"\bvoting\b|\bsettlement\b|\bindenture\b"), T.OTHER),
    )
)

# Roles and subject matter that the first pages keep naming, with the type each votes for.
# Capitalised because defined terms are; each mention is one vote.
ROLE_TERMS: tuple[tuple[re.Pattern[str], ContractType], ...] = tuple(
    (re.compile(pattern), kind) for pattern, kind in (
        (r"\bLicen[cs](?:or|ee)s?\b|\bLicensed\s+(?:Product|Patent|Technology|Mark|Content|Material)s?\b",
         T.LICENCE),
        (r"\bSupplier\b|\bManufacturer\b", T.SUPPLY_OR_MANUFACTURING),
        (r"\bDistributors?\b|\bResellers?\b|(?<!Broker-)\bDealers?\b", T.DISTRIBUTION_OR_RESELLER),
        (r"\bFranchis(?:ee|or)s?\b", T.FRANCHISE),
        ((r"\bService\s+Provider\b|\bContractor\b|\bTransporter\b|\bShipper\b|\bStatement\s+of\s+Work\b|"
          r"\bService\s+Level\b"), T.SERVICES_OR_OUTSOURCING),
        (r"\bJoint\s+Venture\b|\bCollaboration\b|\bJoint\s+Steering\s+Committee\b|\bJV\b",
         T.JOINT_VENTURE_OR_COLLABORATION),
        # "Chief Executive Officer" is a signatory, not the other party.
        (r"\bEmployee\b|\bEmployer\b|\bConsultant\b|(?<!Chief )\bExecutive\b(?! Officer)",
         T.EMPLOYMENT_OR_CONSULTING),
        (r"\bGuarantor\b|\bJoint\s+Filing\b|\battorney-in-fact\b", T.FILING_EXHIBIT),
        (r"\bSponsor\b|\bEndorser\b|\bCo-?Branded\b|\bPromot(?:ion|er)\b", T.OTHER),
    )
)
# An NDA's own vocabulary, counted over the whole of a short contract: every contract has a
# confidentiality clause, so only where these outnumber every role is the contract about them.
NDA_TERMS_RE = re.compile(
    r"\bConfidential\s+Information\b|\b(?:Disclosing|Receiving)\s+Party\b|\bRecipient\b|"
    r"\bEvaluation\s+Material\b|\bProprietary\s+Information\b"  # a letter NDA's own words
)
NDA_MIN_MENTIONS = 8
WHITESPACE_RE = re.compile(r"\s+")


def classify_contract(text: str, document_name: str | None = None) -> TypeDecision:
    """The contract's type, from its name (given or read from the text), else its vocabulary.

    `document_name` is the contract's name when the caller already has it (the Document Name
    key term); otherwise the title candidates at the head of the text are read.
    """
    titles = _title_candidates(text, document_name)
    return (_amendment_preamble(text) or _titled(titles) or _headed(text) or _by_vocabulary(text)
            or TypeDecision(T.OTHER, CONFIDENCE_NOTHING, "no title or role names a contract type"))


def _title_candidates(text: str, document_name: str | None) -> list[tuple[str, tuple[int, int] | None]]:
    """Names the document goes by, best first, each with its span in `text` where known."""
    found: list[tuple[str, tuple[int, int] | None]] = []
    if document_name:
        at = text.find(document_name)
        found.append((document_name, (at, at + len(document_name)) if at >= 0 else None))
    standalone = STANDALONE_TITLE_RE.search(text, 0, min(len(text), LEAD_LINES_CHARS))
    if standalone:
        found.append((standalone.group(1), standalone.span(1)))
    found.extend((ev.value or text[ev.start:ev.end], (ev.start, ev.end)) for ev in find_document_name(text))
    return found


def _amendment_preamble(text: str) -> TypeDecision | None:
    """An amendment that defines itself as "the Amendment", or says it amends an agreement, up front."""
    m = AMENDMENT_PREAMBLE_RE.search(text, 0, HEAD_CHARS)
    if m:
        return TypeDecision(T.AMENDMENT, CONFIDENCE_AMENDMENT, f"preamble: {_tidy(m.group())}", m.span())
    return None


def _title_kind(title: str) -> ContractType | None:
    """The kind the title names last (the longest such phrase on a tie), if any."""
    matches = [(m.end(), m.end() - m.start(), kind)
               for pattern, kind in TITLE_KINDS for m in pattern.finditer(title)]
    return max(matches, key=lambda match: match[:2])[2] if matches else None


def _titled(titles: list[tuple[str, tuple[int, int] | None]]) -> TypeDecision | None:
    """The first title that names an amendment or a kind of contract decides.

    Amendment outranks the kind it amends ("AMENDMENT NO. 3 TO DISTRIBUTOR AGREEMENT").
    """
    for title, span in titles:
        evidence = f'title "{_tidy(title)}"'
        if AMENDMENT_RE.search(title):
            return TypeDecision(T.AMENDMENT, CONFIDENCE_AMENDMENT, evidence, span)
        kind = _title_kind(title)
        if kind is not None:
            return TypeDecision(kind, CONFIDENCE_TITLE, evidence, span)
    return None


def _headed(text: str) -> TypeDecision | None:
    """The first title-shaped phrase on the first page that names a kind of contract.

    Reached when the title proper names none: a cover line ("RATE FT-A AGREEMENT") or a
    letterhead came first and the contract's kind is named on a later line.
    """
    head_end = min(len(text), HEAD_CHARS)
    phrases = (m for regex in (UPPER_TITLE_RE, TITLE_CASE_RE) for m in regex.finditer(text, 0, head_end))
    for m in sorted(phrases, key=lambda m: m.start()):
        kind = _title_kind(m.group())
        if kind is not None:
            return TypeDecision(kind, CONFIDENCE_HEADING, f'heading "{_tidy(m.group())}"', m.span())
    return None


def _by_vocabulary(text: str) -> TypeDecision | None:
    """The type whose roles the first pages name most often, or NDA where a short contract's
    confidentiality terms outnumber every role; None where nothing is named often enough."""
    votes, first = _role_votes(text[:VOCABULARY_CHARS])
    top_kind, top_count = votes.most_common(1)[0] if votes else (T.OTHER, 0)
    if len(text) <= NDA_MAX_CHARS:
        mentions = list(NDA_TERMS_RE.finditer(text))
        if len(mentions) >= NDA_MIN_MENTIONS and len(mentions) > top_count:
            m = mentions[0]
            return TypeDecision(T.NDA, CONFIDENCE_ROLES, f'confidentiality terms ("{m.group()}" first) '
                                f"{len(mentions)} times in a short contract", m.span())
    if top_count < MIN_ROLE_MENTIONS:
        return None
    m = first[top_kind]
    evidence = f'role "{m.group()}" and kin named {top_count} times'
    return TypeDecision(top_kind, CONFIDENCE_ROLES, evidence, m.span())


def _role_votes(head: str) -> tuple[Counter[ContractType], dict[ContractType, re.Match[str]]]:
    """Mentions of each type's roles, and each type's first mention."""
    votes: Counter[ContractType] = Counter()
    first: dict[ContractType, re.Match[str]] = {}
    for pattern, kind in ROLE_TERMS:
        for m in pattern.finditer(head):
            votes[kind] += 1
            first.setdefault(kind, m)
    return votes, first


def _tidy(phrase: str) -> str:
    return WHITESPACE_RE.sub(" ", phrase).strip()
