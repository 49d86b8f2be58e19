"""The parties as structured values: each one's legal name, short names, role and jurisdiction.

The preamble says who the parties are and what they are called; the signature blocks say it
again.  Each party is read where the preamble defines it, spellings of one party found twice
(a cover page and the preamble, "ACME CORP." and "Acme Corp.") are merged, and a signature
block that names a preamble party corroborates it.  A document without a preamble party list
(an order form, a joinder) is read from its labelled blocks or its signature blocks alone.
"""
from __future__ import annotations

import re

from pipelines.rules.jurisdictions import normalise_jurisdiction
from pipelines.terms.party_mentions import (
    Mention,
    preamble_mentions,
    signature_mentions,
)
from pipelines.terms.party_names import (
    TRADE_NAME_MARK,
    clean_name,
    has_corporate_suffix,
    has_personal_marker,
    looks_like_person,
    name_key,
    role_of,
    same_party,
)
from pipelines.terms.value import Quote, TermValue

FIELD = "Parties"
# Roles only a person plays: an "Employee" without a corporate name is an individual.
PERSON_ROLES = frozenset({"Employee", "Executive", "Consultant", "Talent", "Celebrity", "Athlete",
                          "Endorser", "Professional"})
# A preamble that leaves some parties to the signature page ("the undersigned individual",
# "the company identified below").
_SIGNATURE_PAGE_RE = re.compile(
    r"(?i)signature\s+pages?\b|\bundersigned\b|\b(?:named|identified|listed|set\s+forth|indicated|designated)\s+below\b|"
    r"\bsign(?:s|ing|ed)?\s+below\b")
SOURCE_ROLES = {"preamble": "preamble", "label": "definition", "signature block": "signature block"}


def read_parties(text: str) -> TermValue | None:
    """The contract's parties, or None when no name can be found."""
    defined = _merge_spellings(preamble_mentions(text))
    signed = _merge_spellings(signature_mentions(text))
    unmatched = [s for s in signed if not any(_names_same_party(m, s) for m in defined)]
    unmatched = _fill_unnamed(text, defined, unmatched)
    parties = defined + _signers_to_add(text, defined, unmatched)
    if not parties:
        return None
    evidence = [Quote(m.start, m.clause_end or m.end, SOURCE_ROLES[m.source]) for m in parties]
    if defined:
        evidence += [Quote(s.start, s.end, "signature block") for s in signed if s not in unmatched]
    corroborated = sum(any(_names_same_party(m, s) for s in signed) for m in defined)
    suffixed = [has_corporate_suffix(m.name) for m in parties]
    values = [_party_value(m, any(suffixed[:i] + suffixed[i + 1:])) for i, m in enumerate(parties)]
    return TermValue(FIELD, format_parties(values), _confidence(defined, corroborated), tuple(evidence),
                     {"parties": values})


def _fill_unnamed(text: str, defined: list[Mention], unmatched: list[Mention]) -> list[Mention]:
    """A party the preamble leaves to the signature page ("the Agent named on the signature page
    hereof (the "Agent")", "the undersigned individual ("Recipient")") takes the name its
    signature block gives, when the preamble says so: an organisation's signature block, else
    the person named in the block headed by its role; the signers left over are returned."""
    unnamed = [m for m in defined if m.unnamed]
    if not unnamed or not _SIGNATURE_PAGE_RE.search(text, defined[0].start, defined[-1].clause_end + 300):
        return unmatched
    for mention, signer in zip(unnamed, list(unmatched)):
        mention.name, mention.unnamed = signer.name, False
        unmatched.remove(signer)
    for mention in (m for m in unnamed if m.unnamed):
        signer = _signed_under_role(text, mention.name, defined[-1].clause_end)
        if signer is not None:
            mention.name, mention.unnamed, mention.individual_hint = signer, False, True
    return unmatched


# The person named in a signature block headed by a party's role: "RECIPIENT\nSignature: ...\nName: Laura Chen".
_NAME_LINE_RE = re.compile(r"(?im)^[ \t]*(?:print(?:ed)?[ \t]+)?name[ \t]*:[ \t]*(?P<name>[^\n]{2,60})$")
ROLE_BLOCK_CHARS = 250


def _signed_under_role(text: str, role: str, after: int) -> str | None:
    """The individual who signs in the block headed by `role`, for an unnamed party ("the
    undersigned individual ("Recipient")"); None when no such block names a person."""
    heading = re.compile(rf"(?im)^[ \t]*(?:the[ \t]+)?{re.escape(role)}[ \t]*:?[ \t]*$")
    for block in heading.finditer(text, after):
        line = _NAME_LINE_RE.search(text, block.end(), block.end() + ROLE_BLOCK_CHARS)
        name = clean_name(line.group("name")) if line else None
        if name is not None and looks_like_person(name):
            return name
    return None


def _signers_to_add(text: str, defined: list[Mention], unmatched: list[Mention]) -> list[Mention]:
    """Signature-block names the preamble does not define that are parties all the same.

    Without a preamble they are all there is; a preamble that leaves parties to "the persons
    set forth on the signature page" wants them all; a preamble naming one party leaves the
    other side to the signatures.  Otherwise a signature block's extra names are guarantors,
    acknowledging affiliates or an exhibit's signatories, and stay out.
    """
    if not defined:
        return unmatched
    if _SIGNATURE_PAGE_RE.search(text, defined[0].start, defined[-1].clause_end + 300):
        return unmatched
    return unmatched[:1] if len(defined) == 1 else []


def _merge_spellings(mentions: list[Mention]) -> list[Mention]:
    """One mention per party: a later spelling of a party adds its short names to the first.

    A name with a corporate suffix and one without are kept apart: "Kathy Ireland, Inc." and
    "Kathy Ireland" are a company and the person it furnishes.
    """
    merged: list[Mention] = []
    for mention in mentions:
        same = next((m for m in merged if same_party(m.name, mention.name)
                     and has_corporate_suffix(m.name) == has_corporate_suffix(mention.name)), None)
        if same is None:
            merged.append(mention)
            continue
        same.short_names += [s for s in mention.short_names if s not in same.short_names]
        same.jurisdiction = same.jurisdiction or mention.jurisdiction
        if same.name.isupper() and not mention.name.isupper():
            same.name = mention.name  # the preamble's mixed case reads better than a cover's capitals
    return merged


def _names_same_party(defined: Mention, signed: Mention) -> bool:
    """A signature block names a party by its legal name or by its short name ("ACME")."""
    names = [defined.name, _without_place(defined.name), *defined.members]
    if any(same_party(name, signed.name) for name in names):
        return True
    signed_key = name_key(signed.name)
    return any(name_key(short) == signed_key for short in defined.short_names)


def _without_place(name: str) -> str:
    """'City of Fort Stockton, Texas' -> 'City of Fort Stockton': a signature block drops the state."""
    head, _, tail = name.rpartition(", ")
    return head if head and normalise_jurisdiction(tail) else name


def _party_value(mention: Mention, suffixed_peer: bool) -> dict:
    """The party as reports store it.

    A person-shaped name is an individual when something says so: "an individual", a role only
    people play, a title or initial, or a drafter who gave the other parties their suffixes
    ("Acme Inc. and John Smith") or set them out by label.
    """
    role = role_of(mention.short_names)
    evidence = (mention.individual_hint or role in PERSON_ROLES or has_personal_marker(mention.name)
                or suffixed_peer or mention.source == "label")
    individual = looks_like_person(mention.name) and evidence
    legal, trade = _legal_and_trade_name(mention.name)
    if mention.unnamed:  # a blank in a form: shown by its role, and said to be unnamed
        return {"name": legal, "trade_name": None, "short_names": list(mention.short_names), "role": role,
                "jurisdiction": None, "kind": "unnamed"}
    value = {
        "name": legal,
        "trade_name": trade,
        "short_names": list(mention.short_names),
        "role": role,
        "jurisdiction": mention.jurisdiction,
        "kind": "individual" if individual else "organisation",
    }
    if mention.members:  # one side made of several companies, each bound
        value["kind"], value["members"] = "group", list(mention.members)
    return value


# "d/b/a", "doing business as", "trading as": a trade name follows the legal name.
_TRADE_NAME_MARK_RE = re.compile(rf"(?i)\s*,?\s*(?<!\w){TRADE_NAME_MARK}(?!\w)\s*")


def _legal_and_trade_name(name: str) -> tuple[str, str | None]:
    """'Time Life, Inc. d/b/a Time Life Music' -> ('Time Life, Inc.', 'Time Life Music'): the
    legal name is who is bound; the trade name is what people call it, kept beside it."""
    m = _TRADE_NAME_MARK_RE.search(name)
    if m is None or m.start() == 0:
        return name, None
    return name[:m.start()].rstrip(" ,"), name[m.end():].strip() or None


def _confidence(defined: list[Mention], corroborated: int) -> float:
    """Preamble definitions are the strongest reading, signature blocks that agree make it surer,
    and a reading from signature blocks alone is a guess at who signed, not who is bound."""
    if not defined:
        return 0.5
    base = 0.6 if all(m.short_names for m in defined) else 0.5
    if defined[0].source == "label":
        base -= 0.05
    return round(min(0.95, base + 0.35 * corroborated / len(defined)), 2)


def format_parties(parties: list[dict]) -> str:
    """CUAD's answer form: 'Acme Corp. ("Acme"); Beta LLC ("Supplier")'."""
    out = []
    for p in parties:
        shorts = ", ".join(f'"{s}"' for s in p["short_names"])
        out.append(f'{p["name"]} ({shorts})' if shorts else p["name"])
    return "; ".join(out)
