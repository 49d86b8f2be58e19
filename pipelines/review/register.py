"""A contract register: what each contract is worth to the business, from the team's own list.

Legal-ops teams keep a spreadsheet of their contracts with a tier or a value; exported as
CSV, it tells the review queue which contracts' doubts cost most (`clausemill audit
--register contracts.csv`).  Columns, by header: `file` (or `filename`: the contract's file
name, as audited), and either or both of `tier` and `value` (a number; currency signs,
spaces and thousands separators are ignored).  Other columns are left alone, so the register
can be exported as it is.
"""
from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from pathlib import Path

from charset_normalizer import from_bytes

_NUMBER = re.compile(r"[^\d.\-]")


class RegisterError(ValueError):
    """The register cannot be used; the message names the row and column."""


def read_register(path: Path, tiers: Mapping[str, float]) -> dict[str, dict]:
    """{file name: {"tier": ..., "value": ...}} for each row that gives a tier or a value."""
    raw = path.read_bytes()
    best = from_bytes(raw).best()
    text = str(best) if best is not None else raw.decode("utf-8", errors="replace")
    rows = csv.DictReader(text.splitlines())
    headers = {h.strip().lower(): h for h in rows.fieldnames or ()}
    name_column = headers.get("file") or headers.get("filename")
    if name_column is None:
        raise RegisterError(f"{path.name}: no `file` (or `filename`) column; the header is "
                            f"{', '.join(rows.fieldnames or ()) or 'empty'}")
    if "tier" not in headers and "value" not in headers:
        raise RegisterError(f"{path.name}: it needs a `tier` or a `value` column")
    register: dict[str, dict] = {}
    for number, row in enumerate(rows, start=2):
        name = (row.get(name_column) or "").strip()
        if not name:
            continue
        entry: dict = {}
        tier = (row.get(headers.get("tier", ""), "") or "").strip()
        if tier:
            if tier not in tiers:
                raise RegisterError(f"{path.name}, row {number}: tier {tier!r} is not one of {', '.join(tiers)} "
                                    "(set CLAUSEMILL_REVIEW_TIERS for your own)")
            entry["tier"] = tier
        value = (row.get(headers.get("value", ""), "") or "").strip()
        if value:
            try:
                entry["value"] = float(_NUMBER.sub("", value))
            except ValueError:
                raise RegisterError(f"{path.name}, row {number}: value {value!r} is not a number") from None
        if entry:
            register[Path(name).name] = entry
    return register
