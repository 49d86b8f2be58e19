"""Batch reports: report.json, report.html, report.xlsx, findings.csv, predictions.jsonl and
deadlines.ics (the calendar of the next 90 days' deadlines: pipelines.deadlines).

Call write_reports() once a batch is finished (the CLI does after `audit`); it assesses any
`done` document whose assessment was not stored and writes every output into one folder.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from datetime import UTC, date, datetime
from pathlib import Path

from pipelines.aggregate import assess_batch, summarize_batch
from pipelines.assessment import DocumentAssessment
from pipelines.datamodel import BatchResult
from pipelines.deadlines import upcoming_deadlines, write_ics
from pipelines.playbook import Playbook, load_playbook
from pipelines.reports.csv_report import write_findings_csv
from pipelines.reports.html_report import write_html
from pipelines.reports.json_report import report_dict, write_json
from pipelines.reports.predictions import write_predictions
from pipelines.reports.xlsx_report import write_xlsx

VIEWS: tuple[str, ...] = ("summary", "full")
"""summary: for the business, one line per contract; full: for lawyers, the whole evidence chain."""


def write_reports(
    batch: BatchResult,
    out_dir: Path,
    view: str = "full",
    playbook: Playbook | None = None,
    assessments: Mapping[int, DocumentAssessment] | None = None,
    as_of: date | None = None,
) -> list[Path]:
    """Write every report for `batch` into `out_dir` (created if needed); return their paths.

    `playbook` defaults to the bundled commercial playbook.  `assessments`, keyed by document
    id, are used as stored; other `done` documents are assessed now.  `view` changes
    report.html and report.xlsx only: report.json, findings.csv and predictions.jsonl are
    always complete.  `as_of` (default today) is the day deadlines are counted from.
    """
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, not {view!r}")
    playbook = playbook or load_playbook(None)
    as_of = as_of or date.today()
    assessed = assess_batch(batch, playbook, assessments)
    summary = summarize_batch(assessed)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".clausemill-reports-", dir=out_dir))
    try:
        staged = [
            write_json(report_dict(batch, assessed, summary, playbook.label, as_of), staging / "report.json"),
            write_html(batch, assessed, summary, playbook.label, view, staging / "report.html", as_of),
            write_xlsx(assessed, staging / "report.xlsx", view, as_of),
            write_findings_csv(assessed, staging / "findings.csv"),
            write_predictions(assessed, staging / "predictions.jsonl"),
            write_ics(upcoming_deadlines(assessed, as_of), staging / "deadlines.ics", datetime.now(UTC)),
        ]
        for path in staged:  # all or nothing: each rename is atomic, and nothing is renamed before all are written
            os.replace(path, out_dir / path.name)
    except OSError as error:
        raise ReportsNotWritten(f"cannot write the reports to {out_dir}: {error.strerror or error}; the reports "
                                "already there, if any, were left as they were") from error
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [out_dir / path.name for path in staged]


class ReportsNotWritten(OSError):
    """The output folder took not all of the reports (disk full, read-only, gone).  The
    reports are written to a temporary folder beside them and renamed into place only once
    every one is complete, so a half-written report never looks like a finished one."""


__all__ = ["VIEWS", "ReportsNotWritten", "write_reports"]
