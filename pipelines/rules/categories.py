"""The 41 CUAD clause categories, spelt as CUAD's master_clauses.csv spells them.

Findings carry these names so the CUAD scorer, the playbook and the reports agree on them;
names read from a rule pack are matched case-insensitively and rewritten to this spelling.
"""
from __future__ import annotations

CUAD_CATEGORIES: tuple[str, ...] = (
    "Document Name", "Parties", "Agreement Date", "Effective Date", "Expiration Date",
    "Renewal Term", "Notice Period To Terminate Renewal", "Governing Law",
    "Most Favored Nation", "Competitive Restriction Exception", "Non-Compete", "Exclusivity",
    "No-Solicit Of Customers", "No-Solicit Of Employees", "Non-Disparagement",
    "Termination For Convenience", "Rofr/Rofo/Rofn", "Change Of Control", "Anti-Assignment",
    "Revenue/Profit Sharing", "Price Restrictions", "Minimum Commitment", "Volume Restriction",
    "Ip Ownership Assignment", "Joint Ip Ownership", "License Grant",
    "Non-Transferable License", "Affiliate License-Licensor", "Affiliate License-Licensee",
    "Unlimited/All-You-Can-Eat-License", "Irrevocable Or Perpetual License",
    "Source Code Escrow", "Post-Termination Services", "Audit Rights", "Uncapped Liability",
    "Cap On Liability", "Liquidated Damages", "Warranty Duration", "Insurance",
    "Covenant Not To Sue", "Third Party Beneficiary",
)

_BY_KEY = {" ".join(c.lower().split()): c for c in CUAD_CATEGORIES}


def canonical_category(name: str) -> str | None:
    """CUAD's spelling of a category name written in any case, or None if it is not one."""
    return _BY_KEY.get(" ".join(name.lower().split()))
