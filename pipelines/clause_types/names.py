"""What a taught clause type may be called.

The name is what reports, the xlsx, the playbook and the review queue show, and it is stored in
the same columns as CUAD's category names, so it must fit them and never be mistaken for one.
"""
from __future__ import annotations

import re

from pipelines.categories import CUAD_CATEGORIES, KEY_TERMS

MAX_NAME = 56
"""Findings' category column holds 64 characters; recalibration keys add a suffix to a name."""
MAX_SLUG = 32
_RESERVED_MARKS = (" (value)", " @ ")  # recalibration keys: a key term's value, a taught type's version


class ClauseTypeError(ValueError):
    """A request about clause types that cannot be honoured; the message says why, for people."""


def check_name(name: str, existing: list[str]) -> str:
    """The name as it will be stored (spaces collapsed), or ClauseTypeError saying what is wrong:
    empty, too long, a CUAD category or key term, or a type that already exists (case aside)."""
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ClauseTypeError("a clause type needs a name")
    if len(cleaned) > MAX_NAME:
        raise ClauseTypeError(f"the name is {len(cleaned)} characters; at most {MAX_NAME}")
    if not re.search(r"[A-Za-z]", cleaned) or re.search(r"[\x00-\x1f\x7f]", cleaned):
        raise ClauseTypeError(f"{cleaned!r} is not a name: use letters, digits, spaces and punctuation")
    if any(mark in cleaned for mark in _RESERVED_MARKS):
        raise ClauseTypeError(f"a name may not contain {' or '.join(repr(m.strip()) for m in _RESERVED_MARKS)}")
    folded = cleaned.casefold()
    for builtin in (*CUAD_CATEGORIES, *KEY_TERMS):
        if builtin.casefold() == folded:
            raise ClauseTypeError(f"{builtin!r} is one of CUAD's categories or key terms, which clausemill already finds")
    for other in existing:
        if other.casefold() == folded:
            raise ClauseTypeError(f"a clause type named {other!r} already exists")
    return cleaned


def slug_of(name: str, taken: set[str]) -> str:
    """A short lower-case form for file names and versions ("Force Majeure" -> "force-majeure"),
    made unique among `taken` with a number."""
    base = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")[:MAX_SLUG].strip("-") or "type"
    slug, n = base, 1
    while slug in taken:
        n += 1
        suffix = f"-{n}"
        slug = base[:MAX_SLUG - len(suffix)].strip("-") + suffix
    return slug
