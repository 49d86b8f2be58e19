"""The audit trail written out for people and other tools: `clausemill review export`.

Every decision, oldest first, with what a reader needs without the database: who, when, the
action, the values before and after, the reason code, the comment, the item's version, and
the document and batch it was about (a decision outlives its item, so these come from the
decision's document, not the item).  CSV for spreadsheets, with the before and after values
as JSON text; JSON Lines for programs, with them as objects.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from storage.schema import Document, ReviewDecision

FORMATS = (".csv", ".jsonl")
COLUMNS = ("decision_id", "at", "reviewer", "action", "item_id", "item_version", "batch_id", "filename",
           "category", "previous", "new", "reason", "comment")


def trail_rows(session: Session, batch_id: str | None = None) -> Iterator[dict]:
    """The decisions (of one batch, or all), in the order they were made."""
    query = (select(ReviewDecision, Document.batch_id, Document.filename)
             .join(Document, Document.id == ReviewDecision.document_id).order_by(ReviewDecision.id))
    if batch_id is not None:
        query = query.where(Document.batch_id == batch_id)
    for d, batch, filename in session.execute(query):
        previous = dict(d.previous or {})
        yield {"decision_id": d.id, "at": d.created_at.isoformat(timespec="seconds"), "reviewer": d.reviewer,
               "action": d.action, "item_id": d.item_id, "item_version": d.item_version, "batch_id": batch,
               "filename": filename, "category": _category(d.action, previous, dict(d.new or {})),
               "previous": previous, "new": dict(d.new or {}), "reason": d.reason, "comment": d.comment}


def _category(action: str, previous: dict, new: dict) -> str | None:
    """The item's category when decided; an undo's `new` is the state it restored."""
    return (new if action == "undo" else previous).get("category")


def write_trail(rows: Iterator[dict], out: Path) -> int:
    """Write the rows to `out` in the format its suffix names; returns how many."""
    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"the export's file name ends in {' or '.join(FORMATS)}, not {out.name!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with out.open("w", newline="", encoding="utf-8") as stream:
        if suffix == ".jsonl":
            for count, row in enumerate(rows, 1):
                stream.write(json.dumps(row, ensure_ascii=False) + "\n")
            return count
        writer = csv.DictWriter(stream, fieldnames=COLUMNS)
        writer.writeheader()
        for count, row in enumerate(rows, 1):
            writer.writerow({**row, "previous": json.dumps(row["previous"], ensure_ascii=False),
                             "new": json.dumps(row["new"], ensure_ascii=False)})
    return count
