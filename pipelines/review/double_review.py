"""Double review: a sampled share of a batch's items is decided by two reviewers, independently.

One reviewer's labels say nothing about how far labels can be trusted; two on the same item
do (pipelines/review/agreement.py measures how often they agree, beyond chance).  The share
is chosen per batch (`clausemill audit --double-review 0.1`) and drawn per item by a hash of
the document's bytes (sha256) and the finding's category and span, like the audit sample
(budget.in_audit_sample): an audit run again draws the same items, and two contracts cut from
one template are drawn independently.

The item says so in its evidence (`reviews_needed`: 2), which every decision copies into the
trail (`previous`), so the trail alone tells which decisions needed a second one: reports
(decisions.standing) and the agreement read it there, even after a re-run replaced the item.

Which decisions stand on an item follows from its trail in order: an undo takes back the
decision before it (undo_last only ever takes back an item's last decision).  The first
standing decision leaves the item open for someone else; a different reviewer's closes it.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import TypeVar

REVIEWS_NEEDED = "reviews_needed"
"""The evidence key; absent means one review."""
DOUBLE = 2

Row = TypeVar("Row", bound=Mapping)


def in_double_review_sample(sha256: str, category: str, start: int, end: int, share: float) -> bool:
    """Whether this item of this document is in the batch's double-review share.  Salted
    apart from the audit sample, so the two samples are drawn independently."""
    if share <= 0:
        return False
    key = f"double-review|{sha256}|{category}|{start}|{end}".encode()
    draw = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2**64
    return draw < share


def reviews_needed(evidence: Mapping | None) -> int:
    """How many independent decisions close an item with this evidence: 1, or 2 when sampled."""
    value = (evidence or {}).get(REVIEWS_NEEDED, 1)
    return value if isinstance(value, int) and value > 1 else 1


TAKE_BACK = ("undo", "reopen")
"""Trail rows that take back the decision before them: a reviewer's undo of their own last
decision, and anyone's re-opening of a decided item (pipelines/review/queue.py)."""


def standing_rows(rows: Iterable[Row]) -> list[Row]:
    """The decisions that stand on one item, oldest first, from its trail rows in order
    (mappings with an `action`): each undo or re-opening takes back the decision before it."""
    stack: list[Row] = []
    for row in rows:
        if row["action"] in TAKE_BACK:
            if stack:
                stack.pop()
        else:
            stack.append(row)
    return stack


def final_decision(rows: Iterable[Row]) -> Row | None:
    """The decision that stands on one item, from its trail rows in order: the last one not
    undone, once the item has as many as it needs (a double review's second); else None."""
    stack = standing_rows(rows)
    if not stack or len(stack) < reviews_needed(stack[0]["previous"].get("evidence")):
        return None
    return stack[-1]


def mark_double_review(items: list[dict], share: float, sha256: str) -> list[dict]:
    """Review items as aggregation stores them (dicts with a category and evidence), those
    drawn into the batch's share marked as needing two decisions."""
    return [{**item, "evidence": {**item["evidence"], REVIEWS_NEEDED: DOUBLE}}
            if in_double_review_sample(sha256, item["category"], int(item["evidence"].get("start") or 0),
                                       int(item["evidence"].get("end") or 0), share) else item
            for item in items]
