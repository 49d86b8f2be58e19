"""report.json: the whole batch, machine-readable, with every finding's evidence anchors."""
from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from pipelines.assessment import Assessed
from pipelines.datamodel import BatchResult
from pipelines.deadlines import deadlines_of, term_in_force

_DOCUMENT_FIELDS = ("id", "filename", "path", "status", "stage", "reason", "sha256", "kind", "size_bytes",
                    "page_count", "ocr_pages", "timings", "duplicate_of", "notes")


def report_dict(batch: BatchResult, assessed: list[Assessed], summary: dict, playbook_label: str,
                as_of: date) -> dict:
    """The report as plain data; a document's `assessment` is DocumentAssessment.to_dict() or None,
    its `term_in_force` and `deadlines` (every dated event of that term: kind, date, how it was
    computed, the evidence and its pages, the confidence) are as of `as_of`."""
    return {
        "batch": {"id": batch.id, "status": batch.status, "created_at": batch.created_at,
                  "finished_at": batch.finished_at},
        "playbook": playbook_label,
        "as_of": as_of.isoformat(),
        "summary": summary,
        "documents": [
            {**{f: getattr(doc, f) for f in _DOCUMENT_FIELDS},
             "risk_score": a.risk_score if a else doc.risk_score,
             "risk_level": a.risk_level if a else doc.risk_level,
             "term_in_force": term_in_force(a.key_terms, as_of).to_dict() if a else None,
             "deadlines": [d.to_dict() for d in deadlines_of(doc, a.key_terms, as_of)] if a else [],
             "assessment": a.to_dict() if a else None}
            for doc, a in assessed
        ],
    }


def write_json(report: dict, path: Path) -> Path:
    """One line, no indentation: Python encodes indented JSON in pure Python, ten times slower
    than its C encoder, which cost an unchanged nightly run a quarter of its time.  `jq .
    report.json` shows it indented."""
    path.write_text(json.dumps(report, ensure_ascii=False), encoding="utf-8")
    return path
