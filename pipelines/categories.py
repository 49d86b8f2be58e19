"""The 41 CUAD clause categories, and which of them are key terms.

Names are spelled exactly as in the header of CUAD's master_clauses.csv, because reports and
predictions.jsonl are matched against CUAD by these names.
"""
from __future__ import annotations

from collections.abc import Iterable

CUAD_CATEGORIES: tuple[str, ...] = (
    "Document Name", "Parties", "Agreement Date", "Effective Date", "Expiration Date",
    "Renewal Term", "Notice Period To Terminate Renewal", "Governing Law", "Most Favored Nation",
    "Competitive Restriction Exception", "Non-Compete", "Exclusivity", "No-Solicit Of Customers",
    "No-Solicit Of Employees", "Non-Disparagement", "Termination For Convenience", "Rofr/Rofo/Rofn",
    "Change Of Control", "Anti-Assignment", "Revenue/Profit Sharing", "Price Restrictions",
    "Minimum Commitment", "Volume Restriction", "Ip Ownership Assignment", "Joint Ip Ownership",
    "License Grant", "Non-Transferable License", "Affiliate License-Licensor",
    "Affiliate License-Licensee", "Unlimited/All-You-Can-Eat-License",
    "Irrevocable Or Perpetual License", "Source Code Escrow", "Post-Termination Services",
    "Audit Rights", "Uncapped Liability", "Cap On Liability", "Liquidated Damages",
    "Warranty Duration", "Insurance", "Covenant Not To Sue", "Third Party Beneficiary",
)

KEY_TERMS: tuple[str, ...] = (
    "Document Name", "Contract Type", "Parties", "Agreement Date", "Effective Date", "Initial Term",
    "Expiration Date", "Renewal Term", "Notice Period To Terminate Renewal", "Governing Law",
)
"""Terms whose value a lawyer reads first, in the order reports show them.  All but Contract
Type and Initial Term are CUAD categories; CUAD has none for either."""

MULTI_VALUED: frozenset[str] = frozenset({"Parties"})
"""Key terms that legitimately have several values; every other key term has one, so two
different values for it are a conflict to arbitrate."""

_BY_FOLDED = {c.casefold(): c for c in CUAD_CATEGORIES}


def canonical_category(name: str, taught: Iterable[str] = ()) -> str | None:
    """The CUAD spelling of `name`, or of one of the `taught` clause types (a team's own, issue
    44), matched case-insensitively as CUAD's scorer does; None if unknown."""
    folded = " ".join(name.split()).casefold()
    return _BY_FOLDED.get(folded) or next((t for t in taught if t.casefold() == folded), None)


TAUGHT_PREFIX = "ct-"
"""How the version of a taught clause type's add-on begins (models/addons.addon_version), so
any finding tells whether a taught type found it."""


def is_taught_version(version: str | None) -> bool:
    return bool(version) and version.startswith(TAUGHT_PREFIX)  # type: ignore[union-attr]
