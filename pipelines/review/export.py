"""The audit trail written out for people and other tools: `clausemill review export`.

Every decision, oldest first, with what a reader needs without the database: who, when, the
action, the values before and after, the reason code, the comment, the item's version, and
the document and batch it was about (a decision outlives its item, so these come from the
decision's document, not the item).  CSV for spreadsheets, with the before and after values
as JSON text and every cell made formula-safe (`reports.cells`: comments and file names are
anyone's text); JSON Lines for programs, with them as objects.

`--training` writes the decisions as labels instead, in the CUAD span format `clausemill
train --extra` reads: each decided document's text, and the spans its standing decisions
confirm or reject (`label`).
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from pipelines.datamodel import document_text
from pipelines.reports.cells import csv_cell
from pipelines.review.double_review import TAKE_BACK, final_decision
from pipelines.review.recalibration import SKIPPED_REJECTS
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
    """The item's category when decided; an undo's or re-opening's `new` is the state it restored."""
    return (new if action in TAKE_BACK else previous).get("category")


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
            cells = {**row, "previous": json.dumps(row["previous"], ensure_ascii=False),
                     "new": json.dumps(row["new"], ensure_ascii=False)}
            writer.writerow({column: csv_cell(value) for column, value in cells.items()})
    return count


def training_labels(action: str, reason: str | None, category: str, span: tuple[int, int],
                    new: dict) -> list[tuple[str, int, int, bool]]:
    """What one standing decision teaches the model, as (category, start, end, confirmed):
    an accepted finding, or one corrected only in its value, is a confirmed clause; a
    rejection is a span that is not its category, unless it was rejected as a duplicate or
    an OCR error, which says nothing about the clause; a correction of category or span is
    both: the new category on the new span, and not the old category on the old one."""
    start, end = span
    if action == "accept" or (action == "correct" and set(new) <= {"value", "text"}):
        return [(category, start, end, True)]
    if action == "reject":
        return [] if reason in SKIPPED_REJECTS else [(category, start, end, False)]
    if action == "correct":
        new_category = new.get("category", category)
        new_span = (int(new.get("start", start)), int(new.get("end", end)))
        labels = [(new_category, *new_span, True)]
        if new_category != category:
            labels.append((category, start, end, False))
        return labels
    return []


def training_rows(session: Session, batch_id: str | None = None) -> Iterator[tuple[Document, list[dict]]]:
    """Per decided document, its span labels in the CUAD span format plus `label` (True:
    confirmed) from each item's standing decisions (a double review's final one)."""
    from storage.repository import item_trails

    per_document: dict[int, dict[tuple[str, int, int], bool]] = {}
    for trail in item_trails(session, batch_id).values():
        last = final_decision(trail)
        if last is None:
            continue  # undone, or a double review waiting for its second decision
        evidence = last["previous"].get("evidence") or {}
        span = (int(evidence.get("start") or 0), int(evidence.get("end") or 0))
        if span[1] <= span[0]:
            continue  # a value with no place in the text (a conflict, a blank) labels no span
        spans = per_document.setdefault(last["document_id"], {})
        for category, start, end, confirmed in training_labels(last["action"], last["reason"],
                                                               last["previous"].get("category"), span, last["new"]):
            spans[category, start, end] = confirmed
    for document_id, spans in sorted(per_document.items()):
        if spans:
            yield session.get(Document, document_id), [
                {"category": c, "start": s, "end": e, "label": confirmed} for (c, s, e), confirmed in spans.items()]


def write_training(session: Session, folder: Path, batch_id: str | None = None) -> tuple[int, int]:
    """The decided documents as a training folder `clausemill train --extra` reads (files.csv,
    txt/, spans.jsonl): each document's text as the pipeline read it, so the offsets hold.
    Returns (documents, spans).  A contract audited in several batches is written once, with
    the labels of all of them (the later decision wins)."""
    from storage.repository import load_pages, results_of

    (folder / "txt").mkdir(parents=True, exist_ok=True)
    by_sha: dict[str, tuple[str, str, dict[tuple[str, int, int], dict], str]] = {}
    for document, spans in training_rows(session, batch_id):
        key = document.sha256 or f"document-{document.id}"
        if key not in by_sha:
            text, _ = document_text(load_pages(session, results_of(document)))
            name = f"{key[:12]}-{Path(document.filename).stem}"
            by_sha[key] = (name, text, {}, document.filename)
        name, text, labels, _ = by_sha[key]
        for span in spans:
            labels[span["category"], span["start"], span["end"]] = {
                **span, "filename": name, "text": text[span["start"]:span["end"]]}
    with (folder / "files.csv").open("w", newline="", encoding="utf-8") as stream:
        writer = csv.writer(stream)
        writer.writerow(["master_clauses_filename", "pdf", "txt"])
        for name, text, _, filename in by_sha.values():
            (folder / "txt" / f"{name}.txt").write_text(text, encoding="utf-8")
            writer.writerow([csv_cell(name), csv_cell(filename), f"txt/{name}.txt"])
    count = 0
    with (folder / "spans.jsonl").open("w", encoding="utf-8") as stream:
        for _, _, labels, _ in by_sha.values():
            for span in labels.values():
                stream.write(json.dumps(span, ensure_ascii=False) + "\n")
                count += 1
    return len(by_sha), count
