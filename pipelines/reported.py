"""A batch as every report shows it: its stored results with the reviewers' decisions applied.

`clausemill audit` and `report`, the nightly run and the watcher's batch and portfolio reports
all read a batch through `load_reported`, so a decision made in the review app reaches each
of them: the nightly report and the rolling portfolio once read the stored assessments alone,
and went on showing a clause a reviewer had rejected.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy.orm import Session

from pipelines.aggregate import aggregate_document, assess_batch
from pipelines.assessment import Assessed, DocumentAssessment
from pipelines.datamodel import BatchResult, BatchStatus
from pipelines.playbook import Playbook
from pipelines.review.decisions import apply_decisions, standing
from pipelines.review.recalibration import Calibration
from pipelines.settings import Settings
from pipelines.steps import playbook_for
from storage import repository
from storage.database import session_scope


@dataclass
class ReportedBatch:
    batch: BatchResult
    """Its documents, a reviewed one's findings as the reviewers left them."""
    assessments: dict[int, DocumentAssessment]
    """By document id: as stored, or assessed again from the decided findings; a reviewed
    document audited without a calibration is left out, so `assessed` assesses it afresh."""
    playbook: Playbook
    options: dict

    def assessed(self) -> list[Assessed]:
        return assess_batch(self.batch, self.playbook, self.assessments)


def load_reported(session: Session, batch_id: str, analysers: Iterable[str]) -> ReportedBatch:
    batch = repository.load_batch_result(session, batch_id, list(analysers))
    options = repository.batch_options(session, batch_id)
    stored = {i: DocumentAssessment.from_dict(a) for i, a in repository.load_assessments(session, batch_id).items()}
    trails = repository.decision_trails(session, batch_id)
    calibrations = {version: repository.load_calibration(session, version)
                    for version in {stored[i].calibration for i in trails if i in stored} - {None}}
    playbook = playbook_for(options)
    return ReportedBatch(batch, apply_review(batch, stored, trails, calibrations, playbook), playbook, options)


def write_batch_reports(settings: Settings, batch_id: str, out: Path, view: str,
                        as_of: date | None = None) -> tuple[ReportedBatch, list[Path]]:
    """Every report of the batch into `out` (pipelines.reports.write_reports), decided, deadlines
    counted from `as_of` (default today); returns what was read and the paths written.  `audit`,
    `report` and the watcher's reports/BATCH/."""
    from pipelines.reports import write_reports

    with session_scope(settings.effective_database_url, write=False) as session:
        reported = load_reported(session, batch_id, settings.analysers)
    return reported, write_reports(reported.batch, out, view=view, playbook=reported.playbook,
                                   assessments=reported.assessments, as_of=as_of)


def load_portfolio(session: Session, members: Mapping[str, set[int]], analysers: Iterable[str],
                   playbook: Playbook) -> ReportedBatch:
    """Documents of several batches ({batch id: document ids}) as one batch for a rolling
    report (the watcher's outbox report.html), each as its own batch reports it."""
    documents, assessments, created, finished = [], {}, [], []
    for batch_id in sorted(members):
        reported = load_reported(session, batch_id, analysers)
        created.append(reported.batch.created_at)
        if reported.batch.finished_at:
            finished.append(reported.batch.finished_at)
        documents += [d for d in reported.batch.documents if d.id in members[batch_id]]
        assessments |= {i: a for i, a in reported.assessments.items() if i in members[batch_id]}
    documents.sort(key=lambda d: d.id)
    portfolio = BatchResult(id="portfolio", status=BatchStatus.DONE, created_at=min(created, default=""),
                            finished_at=max(finished, default=None), documents=documents)
    return ReportedBatch(portfolio, assessments, playbook, {})


def load_latest(session: Session, analysers: Iterable[str], document_id: int | None = None) -> ReportedBatch:
    """The portfolio as the review app shows it: each contract's latest audit (a contract
    audited again appears once, from its latest batch), reviewers' decisions applied; only
    `document_id` when given (empty when it is no contract's latest audit)."""
    members = repository.latest_documents(session)
    if document_id is not None:
        members = {batch: {document_id} for batch, ids in members.items() if document_id in ids}
    return load_portfolio(session, members, analysers, playbook_for({}))


def apply_review(batch: BatchResult, stored: dict[int, DocumentAssessment], trails: dict[int, list[dict]],
                 calibrations: dict[int, Calibration | None], playbook: Playbook) -> dict[int, DocumentAssessment]:
    """Replace each reviewed document's findings by the decided ones (in `batch`, in place) and
    return the assessments to report: a reviewed document is assessed again through the
    calibration it was audited with."""
    assessments = dict(stored)
    for doc in batch.documents:
        if doc.id in trails:
            doc.findings = apply_decisions(doc.findings, standing(trails[doc.id]))
            audited = assessments.pop(doc.id, None)
            if audited is not None and audited.calibration is not None:
                assessments[doc.id] = aggregate_document(doc.findings, playbook, doc.page_count,
                                                         calibration=calibrations.get(audited.calibration))
    return assessments
