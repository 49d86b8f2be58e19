"""Synthetic commercial contracts, with the exact text of every clause they contain.

The demo, the pipeline tests and the rules-engine tests all need contracts whose right
answers are known without a human annotator, and the repository may not ship real ones.  So
a contract is assembled from the phrasings in `language`, and while its text is laid out the
offsets of every clause are recorded: `clause_spans[category]` indexes `text` exactly.

Everything is drawn from one `random.Random(seed)`, so a seed always yields the same contract.
"""
from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from typing import Literal, NamedTuple

from pipelines.samples import language as lang
from pipelines.samples.language import ContractType, counted, dollars, percent

BLOCK_SEPARATOR = "\n\n"
"""Joins blocks into `SyntheticContract.text`, as a plain-text contract separates paragraphs."""

KEY_TERMS = ("Document Name", "Parties", "Agreement Date", "Effective Date", "Expiration Date", "Governing Law")
"""Categories every synthetic contract has, as nearly every real one does."""

RENEWAL_CATEGORIES = ("Renewal Term", "Notice Period To Terminate Renewal")
OPTIONAL_CATEGORIES: tuple[str, ...] = tuple(sorted(set(lang.CLAUSES) - set(KEY_TERMS)))
CATEGORIES: tuple[str, ...] = KEY_TERMS + RENEWAL_CATEGORIES + OPTIONAL_CATEGORIES
"""Every category a synthetic contract can contain: all 41 of CUAD's."""

_LICENSE_FAMILY = frozenset({
    "License Grant", "Non-Transferable License", "Affiliate License-Licensor", "Affiliate License-Licensee",
    "Irrevocable Or Perpetual License", "Unlimited/All-You-Can-Eat-License", "Source Code Escrow",
})
_NEEDS_LICENSE_GRANT = _LICENSE_FAMILY - {"License Grant", "Source Code Escrow"}

Style = Literal["title", "heading", "body", "signature"]


@dataclass(frozen=True)
class Block:
    """One paragraph as renderers lay it out; `lead` is a run-in heading they set in bold."""

    style: Style
    text: str
    lead: str = ""

    @property
    def plain(self) -> str:
        return f"{self.lead} {self.text}" if self.lead else self.text


class Party(NamedTuple):
    name: str  # full legal name, "Northwind Analytics, Inc."
    short_name: str  # the defined name the contract uses, "Provider"


@dataclass(frozen=True)
class Renewal:
    """How the term renews: by itself unless a party objects, or once at the customer's option."""

    automatic: bool
    term_years: int


@dataclass(frozen=True)
class SyntheticContract:
    """A generated contract: its terms as values, its text, and where each clause is in it.

    `clauses` and `lookalikes` hold one span per category; the lookalikes are the hard
    negatives a clause finder must not report (see `language.LOOKALIKES`).
    """

    seed: int
    kind: str  # ContractType.slug, e.g. "msa"
    title: str
    parties: list[Party]  # provider side first
    agreement_date: date
    effective_date: date
    term_years: int
    renewal: Renewal | None
    notice_days: int | None  # notice needed to stop an automatic renewal
    governing_law: str  # normalised as pipelines.rules.jurisdictions names it
    blocks: list[Block]
    text: str  # the blocks' plain text joined by BLOCK_SEPARATOR
    clauses: dict[str, str]  # category -> its clause, exactly as in `text`
    clause_spans: dict[str, tuple[int, int]]  # category -> (start, end) of that clause in `text`
    lookalikes: dict[str, str]  # category -> a sentence that resembles it but must not be reported
    lookalike_spans: dict[str, tuple[int, int]]

    @property
    def expiration_date(self) -> date:
        """The end of the initial term, counted as the rules engine counts it (no day subtracted)."""
        return _add_years(self.effective_date, self.term_years)


class _Piece(NamedTuple):
    """A stretch of paragraph text and what it is evidence of, if anything."""

    text: str
    marks: tuple[str, ...] = ()  # categories this stretch is the clause of
    lookalike: str | None = None  # category this stretch only resembles


_Paragraph = tuple[str, list[_Piece]]  # (run-in heading, pieces)


def generate_contract(seed: int, *, short: bool = False, prefer: Collection[str] = ()) -> SyntheticContract:
    """The synthetic contract for `seed`.

    `short` contracts have fewer clauses and less boilerplate (two to three pages), so a demo
    can OCR a scan of one quickly.  Categories in `prefer` are included where the contract
    type allows them and they fit the contract's clause count; a sample set uses it to cover
    all 41 categories with a handful of contracts.
    """
    rng = random.Random(seed)
    ctype = rng.choice(lang.CONTRACT_TYPES)
    provider = _company(rng, ctype.provider, exclude="")
    customer = _company(rng, ctype.customer, exclude=provider.stem)
    agreement_date = date(rng.randint(2015, 2024), rng.randint(1, 12), rng.randint(1, 28))
    effective_date = agreement_date if rng.random() < 0.6 else _first_of_next_month(agreement_date)
    term_years = rng.choice((1, 2, 3, 5))
    renewal = _renewal(rng, prefer)
    notice_days = rng.choice((30, 60, 90)) if renewal and renewal.automatic else None
    jurisdiction = rng.choice(lang.JURISDICTIONS)
    categories = _choose_categories(rng, ctype, short, prefer)
    ctx = _context(rng, ctype, provider, customer, effective_date, term_years, renewal, notice_days, jurisdiction)

    layout = _Layout()
    layout.add("title", [_Piece(ctype.title, ("Document Name",))])
    layout.add("body", _preamble(rng, ctype, provider, customer, agreement_date, effective_date))
    layout.add("body", [_Piece(f"WHEREAS, {ctype.recital.format_map(ctx)[:-1]}; and")])
    layout.add("body", [_Piece(f"WHEREAS, the parties wish to set out the terms on which {ctype.provider} will "
                               f"provide {ctype.subject} to {ctype.customer};")])
    layout.add("body", [_Piece("NOW, THEREFORE, in consideration of the mutual covenants set out in this Agreement, "
                               "and for other good and valuable consideration, the receipt and sufficiency of which "
                               "are acknowledged, the parties agree as follows:")])
    writer = _SectionWriter(rng, ctx, categories, short)
    term = writer.term(agreement_date, effective_date, renewal)
    term_early = rng.random() < 0.4  # some contracts state the term early, most near the end
    sections = [writer.definitions(ctype), writer.core(ctype), *([term] if term_early else []),
                writer.fees(), writer.covenants(), writer.ip(), writer.confidentiality(), writer.warranties(),
                writer.indemnification(), writer.liability(), writer.insurance(), *([] if term_early else [term]),
                writer.general()]
    number = 0
    for heading, paragraphs in sections:
        if not paragraphs:
            continue
        number += 1
        layout.add("heading", [_Piece(f"{number}. {heading}")])
        for index, (lead, pieces) in enumerate(paragraphs, start=1):
            layout.add("body", pieces, lead=f"{number}.{index} {lead}".rstrip())
    layout.add("body", [_Piece("IN WITNESS WHEREOF, the parties have caused this Agreement to be executed by their "
                               "duly authorized representatives as of the date first written above.")])
    for company in (provider, customer):
        layout.add("signature", [_Piece(company.signature_lines(agreement_date))])

    text = BLOCK_SEPARATOR.join(block.plain for block in layout.blocks)
    return SyntheticContract(
        seed=seed, kind=ctype.slug, title=ctype.title,
        parties=[Party(provider.name, provider.short_name), Party(customer.name, customer.short_name)],
        agreement_date=agreement_date, effective_date=effective_date, term_years=term_years, renewal=renewal,
        notice_days=notice_days, governing_law=jurisdiction.name, blocks=layout.blocks, text=text,
        clauses={c: text[s:e] for c, (s, e) in layout.spans.items()}, clause_spans=layout.spans,
        lookalikes={c: text[s:e] for c, (s, e) in layout.lookalike_spans.items()},
        lookalike_spans=layout.lookalike_spans,
    )


# --- Who, when, which clauses -----------------------------------------------------------

@dataclass(frozen=True)
class _Company:
    stem: str
    name: str
    short_name: str
    description: str  # "a Delaware corporation"
    signer: str
    signer_title: str
    address: str

    def signature_lines(self, signed: date) -> str:
        return "\n".join([self.name.upper(), f"By: /s/ {self.signer}", f"Name: {self.signer}",
                          f"Title: {self.signer_title}", f"Date: {lang.long_date(signed)}"])


def _company(rng: random.Random, short_name: str, exclude: str) -> _Company:
    stem = rng.choice([s for s in lang.NAME_STEMS if s != exclude])
    form = rng.choice(lang.ENTITY_FORMS)
    street = f"{rng.randint(100, 9899)} {rng.choice(lang.STREETS)}"
    if form.place == "England and Wales":
        address = f"{street}, London, United Kingdom"
    else:
        city, state, zip_prefix = rng.choice(lang.CITIES)
        address = f"{street}, Suite {rng.randint(1, 9)}00, {city}, {state} {zip_prefix}{rng.randint(10, 99)}"
    return _Company(
        stem=stem, name=f"{stem} {rng.choice(lang.NAME_TRADES)}{form.suffix}", short_name=short_name,
        description=form.description.format(place=form.place),
        signer=f"{rng.choice(lang.FIRST_NAMES)} {rng.choice(lang.LAST_NAMES)}",
        signer_title=rng.choice(lang.OFFICER_TITLES), address=address,
    )


def _renewal(rng: random.Random, prefer: Collection[str]) -> Renewal | None:
    draw = rng.random()
    years = rng.choice((1, 2))
    if "Notice Period To Terminate Renewal" in prefer or draw < 0.5:
        return Renewal(automatic=True, term_years=years)
    if "Renewal Term" in prefer or draw < 0.75:
        return Renewal(automatic=False, term_years=years)
    return None


def _choose_categories(rng: random.Random, ctype: ContractType, short: bool, prefer: Collection[str]) -> set[str]:
    """The clauses a contract has: the key terms with clause text, and a random subset of the
    optional categories that makes sense together."""
    allowed = set(OPTIONAL_CATEGORIES)
    if not ctype.licenses:
        allowed -= _LICENSE_FAMILY
    if ctype.slug not in lang.ESCROWED_CODE:
        allowed.discard("Source Code Escrow")
    count = rng.randint(3, 5) if short else rng.randint(6, 13)
    preferred = sorted(allowed.intersection(prefer))  # sorted: set order varies between runs
    rng.shuffle(preferred)
    chosen = set(preferred[:count])
    rest = sorted(allowed - chosen)
    chosen.update(rng.sample(rest, max(0, count - len(chosen))))
    if chosen & _NEEDS_LICENSE_GRANT:
        chosen.add("License Grant")
    if "Competitive Restriction Exception" in chosen and not chosen & {"Non-Compete", "Exclusivity"}:
        chosen.add("Non-Compete")
    if "Unlimited/All-You-Can-Eat-License" in chosen:
        chosen.discard("Volume Restriction")  # an unlimited licence and a usage cap contradict each other
    return chosen | {"Expiration Date", "Governing Law"}


def _context(rng: random.Random, ctype: ContractType, provider: _Company, customer: _Company, effective: date,
             term_years: int, renewal: Renewal | None, notice_days: int | None,
             jurisdiction: lang.Jurisdiction) -> dict[str, str]:
    """The values clause templates are filled with, written out as contracts write them."""
    names = {"A": ctype.provider, "B": ctype.customer}
    ctx = {
        **names,
        "A_name": provider.name, "B_name": customer.name,
        "A_address": provider.address, "B_address": customer.address,
        "subject": ctype.subject, "same_kind": ctype.same_kind,
        "territory": rng.choice(lang.TERRITORIES),
        "product": f"{rng.choice(lang.PRODUCT_NAMES)} {rng.choice(lang.PRODUCT_KINDS)}",
        "licensed": lang.LICENSED_SUBJECT.get(ctype.slug, "").format_map(names),
        "license_purpose": lang.LICENSE_PURPOSE.get(ctype.slug, "").format_map(names),
        "escrowed_code": lang.ESCROWED_CODE.get(ctype.slug, ""),
        "volume_cap": f"{rng.choice((250, 500, 1_000, 5_000)):,} {ctype.volume_unit}",
        "min_amount": dollars(rng.choice((100_000, 250_000, 500_000, 1_200_000))),
        "share_pct": percent(rng.choice((5, 10, 15, 20, 25))),
        "increase_pct": percent(rng.choice((3, 4, 5))),
        "ld_amount": dollars(rng.choice((500, 1_000, 2_500))),
        "ld_cap_pct": percent(rng.choice((10, 15, 20))),
        "ld_months": counted(rng.choice((3, 6)), "month"),
        "audit_notice": counted(rng.choice((10, 15, 30)), "day"),
        "audit_pct": percent(rng.choice((3, 5))),
        "noncompete_period": counted(rng.choice((1, 2)), "year"),
        "nonsolicit_period": counted(rng.choice((6, 12, 24)), "month"),
        "rofr_period": counted(rng.choice((15, 30, 45)), "day"),
        "warranty_period": rng.choice((counted(90, "day"), counted(12, "month"), counted(1, "year"))),
        "cap_months": counted(rng.choice((6, 12, 24)), "month"),
        "cap_amount": dollars(rng.choice((500_000, 1_000_000, 2_000_000, 5_000_000))),
        "claim_period": counted(rng.choice((1, 2)), "year"),
        "insurance_amount": dollars(rng.choice((1_000_000, 2_000_000, 5_000_000))),
        "insurance_aggregate": dollars(rng.choice((5_000_000, 10_000_000))),
        "term_period": counted(term_years, "year"),
        "expiration_date": lang.long_date(_add_years(effective, term_years)),
        "tfc_period": counted(rng.choice((30, 60, 90)), "day"),
        "transition_period": counted(rng.choice((30, 90, 180)), "day"),
        "payment_period": counted(rng.choice((30, 45, 60)), "day"),
        "laws_of": jurisdiction.laws_of, "courts": jurisdiction.courts,
        "renewal_period": counted(renewal.term_years, "year") if renewal else "",
        "notice_period": counted(notice_days, "day") if notice_days else "",
    }
    return ctx | {f"{key}_caps": value.upper() for key, value in ctx.items()}


def _preamble(rng: random.Random, ctype: ContractType, provider: _Company, customer: _Company,
              agreement_date: date, effective_date: date) -> list[_Piece]:
    date_text = rng.choice((lang.long_date, lang.formal_date))(agreement_date)
    name = ctype.title.title()
    parties = _Piece(f"{provider.name}, {provider.description} (\"{provider.short_name}\"), and {customer.name}, "
                     f"{customer.description} (\"{customer.short_name}\")", ("Parties",))
    if agreement_date == effective_date:
        return [_Piece(f"This {name} (the \"Agreement\") is entered into as of "),
                _Piece(date_text, ("Agreement Date", "Effective Date")),
                _Piece(" (the \"Effective Date\") by and between "), parties, _Piece(".")]
    return [_Piece(f"This {name} (this \"Agreement\") is made and entered into on "),
            _Piece(date_text, ("Agreement Date",)), _Piece(" by and between "), parties, _Piece(".")]


# --- Sections ---------------------------------------------------------------------------

class _SectionWriter:
    """Writes each section's paragraphs: the chosen clauses amid boilerplate.

    Each method returns (heading, paragraphs); a section with no paragraphs is left out.
    """

    def __init__(self, rng: random.Random, ctx: dict[str, str], categories: set[str], short: bool) -> None:
        self.rng = rng
        self.ctx = ctx
        self.categories = categories
        self.short = short

    def clause(self, category: str) -> list[_Piece]:
        """The category's clause as one piece, or nothing when the contract lacks it."""
        if category not in self.categories:
            return []
        return [_Piece(self.rng.choice(lang.CLAUSES[category]).format_map(self.ctx), (category,))]

    def lookalike(self, category: str) -> list[_Piece]:
        return [_Piece(self.rng.choice(lang.LOOKALIKES[category]).format_map(self.ctx), lookalike=category)]

    def plain(self, text: str) -> list[_Piece]:
        return [_Piece(text.format_map(self.ctx))]

    def boilerplate(self, section: str, keep: int) -> list[_Paragraph]:
        """`keep` of the section's boilerplate paragraphs, in their usual order."""
        options = lang.BOILERPLATE[section]
        kept = sorted(self.rng.sample(range(len(options)), min(keep, len(options))))
        return [(options[i][0].format_map(self.ctx), self.plain(options[i][1])) for i in kept]

    def how_many(self, full: tuple[int, int], short: int) -> int:
        """How many boilerplate paragraphs to keep: fewer in short contracts."""
        return short if self.short else self.rng.randint(*full)

    def definitions(self, ctype: ContractType) -> tuple[str, list[_Paragraph]]:
        common = lang.COMMON_DEFINITIONS
        if self.short:
            common = tuple(self.rng.sample(common, 3))
        texts = sorted(t.format_map(self.ctx) for t in ctype.definitions + common)
        return "DEFINITIONS", [("", [_Piece(t)]) for t in texts]

    def core(self, ctype: ContractType) -> tuple[str, list[_Paragraph]]:
        paragraphs = [(lead, self.plain(text)) for lead, text in ctype.core[:self.how_many((2, 3), 1)]]
        paragraphs += _non_empty(
            ("License Grant.", self.clause("License Grant") + self.clause("Irrevocable Or Perpetual License")
             + self.clause("Unlimited/All-You-Can-Eat-License") + self.clause("Affiliate License-Licensor")),
            ("Scope of License.", self.clause("Non-Transferable License") + self.clause("Affiliate License-Licensee")),
            ("Usage Limits.", self.clause("Volume Restriction")),
        )
        return ctype.core_heading, paragraphs

    def fees(self) -> tuple[str, list[_Paragraph]]:
        paragraphs = self.boilerplate("fees", self.how_many((2, 4), 1))
        paragraphs += _non_empty(
            ("Minimum Commitment.", self.clause("Minimum Commitment")),
            ("Pricing.", self.clause("Price Restrictions") + self.clause("Most Favored Nation")),
            ("Revenue Sharing.", self.clause("Revenue/Profit Sharing")),
            ("Liquidated Damages.", self.clause("Liquidated Damages")),
        )
        if not self.short or "Audit Rights" in self.categories:
            paragraphs.append(("Records and Audit.", self.lookalike("Audit Rights") + self.clause("Audit Rights")))
        return self.rng.choice(("FEES AND PAYMENT", "PRICING AND PAYMENT", "COMPENSATION")), paragraphs

    def covenants(self) -> tuple[str, list[_Paragraph]]:
        exception = self.clause("Competitive Restriction Exception")
        non_compete = self.clause("Non-Compete")
        exclusivity = self.clause("Exclusivity")
        if non_compete:
            non_compete += exception
        else:
            exclusivity += exception
        paragraphs = _non_empty(
            ("Exclusivity.", exclusivity),
            ("Non-Competition.", non_compete),
            ("Preferential Rights.", self.clause("Rofr/Rofo/Rofn")),
            ("Non-Solicitation.", self.clause("No-Solicit Of Customers") + self.clause("No-Solicit Of Employees")),
            ("Non-Disparagement.", self.clause("Non-Disparagement")),
        )
        return "EXCLUSIVITY AND RESTRICTIVE COVENANTS", paragraphs

    def ip(self) -> tuple[str, list[_Paragraph]]:
        paragraphs = self.boilerplate("ip", self.how_many((1, 2), 1))
        paragraphs += _non_empty(
            ("Work Product.", self.clause("Ip Ownership Assignment")),
            ("Joint Developments.", self.clause("Joint Ip Ownership")),
            ("No Challenge.", self.clause("Covenant Not To Sue")),
            ("Source Code Escrow.", self.clause("Source Code Escrow")),
        )
        return "INTELLECTUAL PROPERTY", paragraphs

    def confidentiality(self) -> tuple[str, list[_Paragraph]]:
        return "CONFIDENTIALITY", self.boilerplate("confidentiality", self.how_many((3, 4), 1))

    def warranties(self) -> tuple[str, list[_Paragraph]]:
        mutual, compliance, disclaimer = self.boilerplate("warranties", 3)
        paragraphs = [mutual, *_non_empty(("Performance Warranty.", self.clause("Warranty Duration")))]
        if not self.short:
            paragraphs.append(compliance)
        return "REPRESENTATIONS AND WARRANTIES", [*paragraphs, disclaimer]

    def indemnification(self) -> tuple[str, list[_Paragraph]]:
        return "INDEMNIFICATION", [] if self.short else self.boilerplate("indemnification", 3)

    def liability(self) -> tuple[str, list[_Paragraph]]:
        paragraphs = [("Exclusion of Damages.", self.lookalike("Cap On Liability")), *_non_empty(
            ("Limits on Liability.", self.clause("Cap On Liability")),
            ("Exceptions.", self.clause("Uncapped Liability")),
        )]
        if not self.short:
            paragraphs.append(("Allocation of Risk.", self.plain(lang.LIABILITY_SURVIVAL)))
        return "LIMITATION OF LIABILITY", paragraphs

    def insurance(self) -> tuple[str, list[_Paragraph]]:
        paragraphs = _non_empty(("Required Coverage.", self.clause("Insurance")))
        if paragraphs and not self.short:
            paragraphs += self.boilerplate("insurance", 1)
        return "INSURANCE", paragraphs

    def term(self, agreement_date: date, effective_date: date, renewal: Renewal | None) -> tuple[str, list[_Paragraph]]:
        term: list[_Piece] = []
        if effective_date != agreement_date:
            date_text = self.rng.choice((lang.long_date, lang.formal_date))(effective_date)
            term += [_Piece("This Agreement shall become effective on "), _Piece(date_text, ("Effective Date",)),
                     _Piece(" (the \"Effective Date\").")]
        term += self.clause("Expiration Date")
        if renewal:
            phrasings = lang.RENEWAL_TERM_AUTOMATIC if renewal.automatic else lang.RENEWAL_TERM_OPTIONAL
            term.append(_Piece(self.rng.choice(phrasings).format_map(self.ctx), ("Renewal Term",)))
        if renewal and renewal.automatic:
            term.append(_Piece(self.rng.choice(lang.NOTICE_TO_TERMINATE_RENEWAL).format_map(self.ctx),
                               ("Notice Period To Terminate Renewal",)))
        paragraphs = _non_empty(
            ("Term.", term),
            ("Termination for Convenience.", self.clause("Termination For Convenience")),
            ("Termination for Cause.", self.lookalike("Termination For Convenience")),
        )
        boilerplate = self.boilerplate("termination", self.how_many((2, 3), 1))
        paragraphs += boilerplate[:1] + _non_empty(
            ("Transition Assistance.", self.clause("Post-Termination Services"))) + boilerplate[1:]
        return "TERM AND TERMINATION", paragraphs

    def general(self) -> tuple[str, list[_Paragraph]]:
        assignment = self.clause("Anti-Assignment") + self.clause("Change Of Control")
        if not assignment:
            assignment = self.lookalike("Anti-Assignment")
        paragraphs = _non_empty(
            ("Governing Law; Venue.", self.clause("Governing Law") + self.plain(lang.VENUE)),
            ("Assignment.", assignment + self.plain(lang.SUCCESSORS)),
            ("Third-Party Beneficiaries.", self.clause("Third Party Beneficiary")),
        )
        paragraphs += self.boilerplate("general", self.how_many((4, 7), 2))
        if "Exclusivity" not in self.categories:
            paragraphs.append(("No Exclusivity.", self.lookalike("Exclusivity")))
        return self.rng.choice(("GENERAL PROVISIONS", "MISCELLANEOUS")), paragraphs


def _non_empty(*paragraphs: tuple[str, list[_Piece]]) -> list[_Paragraph]:
    """The paragraphs that have any text, their sentences separated by spaces."""
    return [(lead, _sentences(pieces)) for lead, pieces in paragraphs if pieces]


def _sentences(pieces: list[_Piece]) -> list[_Piece]:
    """The pieces with a space after each one that ends a sentence (but the last)."""
    spaced: list[_Piece] = []
    for piece in pieces:
        if spaced and spaced[-1].text.endswith((".", ":", ";")):
            spaced.append(_Piece(" "))
        spaced.append(piece)
    return spaced


class _Layout:
    """Appends blocks and records where each marked piece lands in the joined text."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.spans: dict[str, tuple[int, int]] = {}
        self.lookalike_spans: dict[str, tuple[int, int]] = {}
        self._offset = 0

    def add(self, style: Style, pieces: list[_Piece], lead: str = "") -> None:
        position = self._offset + (len(lead) + 1 if lead else 0)
        for piece in pieces:
            span = (position, position + len(piece.text))
            for category in piece.marks:
                self.spans[category] = span
            if piece.lookalike:
                self.lookalike_spans[piece.lookalike] = span
            position = span[1]
        block = Block(style, "".join(p.text for p in pieces), lead)
        self.blocks.append(block)
        self._offset += len(block.plain) + len(BLOCK_SEPARATOR)


def _add_years(day: date, years: int) -> date:
    try:
        return day.replace(year=day.year + years)
    except ValueError:  # February 29th
        return day.replace(year=day.year + years, day=28)


def _first_of_next_month(day: date) -> date:
    return date(day.year + day.month // 12, day.month % 12 + 1, 1)
