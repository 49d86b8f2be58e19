"""Which party is us, and whom a clause binds.

A restraint reads very differently from each side: an exclusivity that binds the licensor is
what a licensee negotiated for.  `find_sides` matches the names a team gave (`--party`, the
playbook's `we:`, CLAUSEMILL_OUR_PARTY) against the parties read from the contract;
`bound_parties` reads, from a clause's wording, which of them it restrains.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pipelines.assessment import Party, Sides
from pipelines.terms.party_names import name_key


def find_sides(parties: Iterable[dict], we: Sequence[str]) -> Sides:
    """The sides of a contract from the Parties key term's structured value (`detail["parties"]`).

    A name we gave matches a party when its words are among the legal name's or are a short
    name's, ignoring case, punctuation and corporate suffixes: "Northwind" matches
    "Northwind Trading Ltd." and "ACME, Inc." ("Acme").
    """
    read = tuple(Party(p["name"], tuple(p.get("short_names") or ()), p.get("role")) for p in parties)
    wanted = [key for key in map(name_key, we) if key]
    us = next((i for i, p in enumerate(read) if any(_names_us(key, p) for key in wanted)), None)
    return Sides(read, us, tuple(we))


def _names_us(key: frozenset[str], party: Party) -> bool:
    return key <= name_key(party.name) or any(key == name_key(short) for short in party.short_names)


# Both sides at once: "neither party shall", "each of the parties agrees not to".
_BOTH_RE = re.compile(r"(?i)\b(?:neither|each|both|either)\s+(?:of\s+the\s+)?part(?:y|ies)\b|\bthe\s+parties\s+(?:shall|will|agree|may)")
_BINDING_VERBS = (r"(?:shall|will|must|may\s+not|agrees?|covenants?|undertakes?|grants?|appoints?|assigns?"
                  r"|(?:is|are)\s+(?:not\s+)?(?:permitted|entitled|obligated|required))")
_RIGHT_VERBS = r"(?:may|can|(?:shall|will)\s+have\s+the\s+right|has\s+the\s+right|(?:is|are)\s+entitled)"

RESTRAINTS = frozenset({"Non-Compete", "Exclusivity", "Most Favored Nation", "No-Solicit Of Customers",
                        "No-Solicit Of Employees", "Non-Disparagement", "Rofr/Rofo/Rofn", "Minimum Commitment",
                        "Volume Restriction", "Covenant Not To Sue", "Ip Ownership Assignment", "Liquidated Damages"})
"""Clauses that cost the party they bind: risky for us only when they bind us."""
RIGHTS = frozenset({"Termination For Convenience"})
"""Clauses that favour the party holding them: risky for us unless the right is ours alone."""


def bound_parties(text: str, sides: Sides) -> set[int] | None:
    """Indexes of the parties `text` restrains, or None when its wording does not say.

    The subject of the restraint is the party named right before the obligation ("Distributor
    shall not sell..."); a grant, appointment or assignment binds the grantor, who gives up
    the right to grant it again ("Licensor hereby grants Licensee an exclusive licence").
    """
    return _subjects(text, sides, _BINDING_VERBS)


def right_holders(text: str, sides: Sides) -> set[int] | None:
    """Indexes of the parties `text` gives a right to ("Company may terminate..."), or None."""
    return _subjects(text, sides, _RIGHT_VERBS)


def _subjects(text: str, sides: Sides, verbs: str) -> set[int] | None:
    if not sides.parties:
        return None
    if _BOTH_RE.search(text):
        return set(range(len(sides.parties)))
    found: set[int] = set()
    for index, party in enumerate(sides.parties):
        names = sorted({n for n in (party.name, *party.short_names) if n.strip()}, key=len, reverse=True)
        pattern = "|".join(re.escape(n) for n in names)
        if re.search(rf"(?i)(?<!\w)(?:{pattern})(?!\w)[,\s]+(?:(?:hereby|expressly|further|also)\s+)?{verbs}(?!\w)", text):
            found.add(index)
    return found or None


def judged_from_our_side(category: str, text: str, sides: Sides) -> str | None:
    """Why a clause that would be risky is not, from our side ("binds only Northwind Ltd", "the
    right is ours alone"), or None when it is risky for us or nothing tells (we are not named,
    or the wording does not say whom it binds)."""
    if sides.us is None:
        return None
    if category in RESTRAINTS:
        bound = bound_parties(text, sides)
        if bound and sides.us not in bound:
            return f"binds only {' and '.join(sides.parties[i].name for i in sorted(bound))}, not us"
    elif category in RIGHTS and right_holders(text, sides) == {sides.us}:
        return "the right is ours alone"
    return None
