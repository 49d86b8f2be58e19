"""Reporting: each finished batch's reports in reports/BATCH_ID/, and the rolling portfolio
report (report.html, report.xlsx, deadlines.ics) over every contract the outbox has taken so far, rewritten
at most every PORTFOLIO_EVERY_S while files keep coming, since each rewrite costs more."""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from pipelines import logs
from pipelines.intake.context import LOG_STAGE, Context
from pipelines.intake.place import Ending
from pipelines.intake.rules import PORTFOLIO_FILES
from storage import intake as ledger
from storage import repository
from storage.database import session_scope

PORTFOLIO_EVERY_S = 300.0
"""The rolling report is rewritten at once when no file is in flight, and at most this often
while files keep coming: it covers every contract so far, so each rewrite costs more.  Measured
on 1,000 small contracts dropped at once: 6.1 s of CPU a rewrite (3.4 s of it the
workbook); rewritten after each of its 20 batches it would have cost about a minute of CPU, a
fifth of what the pipeline spent on the burst."""


@dataclass
class ReportsDue:
    """What the next `write_reports` looks at, kept by the watcher between ticks."""

    batches: set[str] | None = None
    """Batches with files closed since the last look; None: all, at start (some may have
    ended while no watcher ran)."""
    portfolio: bool = False
    portfolio_written: float = 0.0
    """When (monotonic seconds) the portfolio was last written."""

    def files_ended(self, closed: list[Ending]) -> None:
        if closed:
            self.portfolio = True
            if self.batches is not None:
                self.batches |= {e.row.batch_id for e in closed if e.row.batch_id}


def write_reports(context: Context, due: ReportsDue, now: float, *, options: dict, view: str) -> None:
    """Each finished batch's reports in reports/BATCH_ID/, then the rolling portfolio."""
    if due.batches is None or due.batches:
        with session_scope(context.url, write=False) as session:
            closed = ledger.batches_closed(session, context.drop.work_prefix, due.batches)
        due.batches = set()
        for batch_id in closed:
            folder = context.drop.report_folder(batch_id)
            if not folder.exists():
                _write_batch_reports(context, batch_id, folder, view)
                due.portfolio = True
    if due.portfolio and (now - due.portfolio_written >= PORTFOLIO_EVERY_S or not _in_flight(context)):
        due.portfolio = False
        due.portfolio_written = now
        _write_portfolio(context, options, view)


def _write_batch_reports(context: Context, batch_id: str, folder: Path, view: str) -> None:
    """Written beside, then renamed in: a reports folder that exists is complete.

    The batch ledger is closed first: a worker killed between a document's end and the
    batch's finalize would leave it open, and finalizing is safe to repeat."""
    from pipelines.reported import write_batch_reports

    with session_scope(context.url) as session:
        repository.finalize_batch_if_complete(session, batch_id)
    partial = folder.with_name(f".{batch_id}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    write_batch_reports(context.settings, batch_id, partial, view)
    os.rename(partial, folder)
    logs.log("batch reports written", stage=LOG_STAGE, batch_id=batch_id, folder=str(folder))


def _write_portfolio(context: Context, options: dict, view: str) -> None:
    """report.html and report.xlsx over every contract so far, reviewers' decisions applied."""
    from pipelines.aggregate import summarize_batch
    from pipelines.deadlines import upcoming_deadlines, write_ics
    from pipelines.reported import load_portfolio
    from pipelines.reports.html_report import write_html
    from pipelines.reports.xlsx_report import write_xlsx
    from pipelines.steps import playbook_for

    playbook = playbook_for(options)
    with session_scope(context.url, write=False) as session:
        members = ledger.portfolio_documents(session, context.drop.work_prefix)
        reported = load_portfolio(session, members, context.settings.analysers, playbook)
    portfolio = reported.batch
    if not portfolio.documents:
        return
    assessed = reported.assessed()
    summary = summarize_batch(assessed)
    html, xlsx, ics = (context.drop.outbox / f".{name}.partial" for name in PORTFOLIO_FILES)
    today = date.today()
    write_html(portfolio, assessed, summary, playbook.label, view, html, today)
    write_xlsx(assessed, xlsx, view, today)
    write_ics(upcoming_deadlines(assessed, today), ics, datetime.now(UTC))
    for partial, name in zip((html, xlsx, ics), PORTFOLIO_FILES, strict=True):
        os.replace(partial, context.drop.outbox / name)
    logs.log("portfolio report written", stage=LOG_STAGE, batch_id=None, documents=len(portfolio.documents))


def _in_flight(context: Context) -> bool:
    with session_scope(context.url, write=False) as session:
        return bool(ledger.open_rows(session, context.drop.work_prefix))
