"""A batch as every report shows it: its stored results with the reviewers' decisions applied.

`clausemill audit` and `report`, the nightly run and the watcher's batch and portfolio reports
all read a batch through `load_reported`, so a decision made in the review app reaches each
of them: the nightly report and the rolling portfolio once read the stored assessments alone,
and went on showing a clause a reviewer had rejected.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

from sqlalchemy.orm import Session

from pipelines.aggregate import aggregate_document, assess_batch
from pipelines.assessment import Assessed, DocumentAssessment
from pipelines.datamodel import BatchResult, BatchStatus, DocumentResult, DocumentStatus, KeyTerm
from pipelines.deadlines import (
    EXPIRATION, HORIZONS, NOTICE, RENEWAL, Deadline, deadlines_of, next_deadline, term_in_force,
)
from pipelines.playbook import Playbook
from pipelines.playbook.severity import RISK_LEVELS
from pipelines.reports.html_report import ContractView, contract_view
from pipelines.reports.search import searchable, term_words
from pipelines.review.decisions import apply_decisions, standing
from pipelines.review.recalibration import Calibration
from pipelines.settings import Settings
from pipelines.steps import playbook_for
from storage import repository
from storage.database import session_scope
from storage.schema import utcnow


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


def load_documents(session: Session, document_ids: Iterable[int], analysers: Iterable[str]) -> list[Assessed]:
    """These documents (each a contract's latest audit) as the portfolio shows them, each as
    its own batch reports it (load_reported), without reading the rest of their batches."""
    ids, analysers = list(document_ids), list(analysers)
    trails = repository.document_trails(session, ids)
    loaded = repository.load_documents(session, ids, analysers, set(trails))
    stored = {doc.id: DocumentAssessment.from_dict(a) for _, doc, a in loaded if a}
    for _, doc, _ in loaded:
        if doc.id not in stored and doc.id not in trails:  # assessed afresh from its findings
            doc.findings = repository.load_findings(session, doc.id, analysers)
    calibrations = {version: repository.load_calibration(session, version)
                    for version in {stored[i].calibration for i in trails if i in stored} - {None}}
    assessments: dict[int, DocumentAssessment] = {}
    for batch_id in {batch_id for batch_id, _, _ in loaded}:
        documents = [doc for b, doc, _ in loaded if b == batch_id]
        batch = BatchResult(id=batch_id, status=BatchStatus.DONE, created_at="", finished_at=None, documents=documents)
        assessments |= apply_review(batch, {d.id: stored[d.id] for d in documents if d.id in stored}, trails,
                                    calibrations, playbook_for(repository.batch_options(session, batch_id)))
    everything = BatchResult(id="portfolio", status=BatchStatus.DONE, created_at="", finished_at=None,
                             documents=[doc for _, doc, _ in loaded])
    return assess_batch(everything, playbook_for({}), assessments)


# --- the portfolio's summaries: what the triage table, its search and the calendar read --------

DATED_TERMS = (EXPIRATION, RENEWAL, NOTICE, "Document Name", "Parties")
"""The key terms the term in force and the deadlines are computed from (pipelines.deadlines)."""
MARGIN = timedelta(minutes=10)
"""How far before the last refresh a change is looked for again: a transaction that wrote a
document then was still open."""
CHUNK = 500


def refresh_portfolio(database_url: str, analysers: Iterable[str], today: date) -> None:
    """Bring the contract summaries up to date (storage.schema.ContractSummary): the contracts
    whose latest audit, or the decisions on it, changed since the last refresh are summarised
    again, and the dated columns that no longer hold on `today` computed again.  A quick read
    finds nothing to do on most page views; the first refresh summarises every contract."""
    with session_scope(database_url, write=False) as session:
        refreshed = repository.portfolio_refreshed_at(session)
        if (refreshed is not None and not repository.paths_changed_since(session, refreshed - MARGIN)
                and not repository.stale_summaries(session, today)):
            return
    with session_scope(database_url) as session:
        refreshed, started = repository.portfolio_refreshed_at(session, lock=True), utcnow()
        paths = None if refreshed is None else repository.paths_changed_since(session, refreshed - MARGIN)
        if paths is None or paths:
            latest, made = repository.latest_audits(session, paths), repository.summary_sources(session, paths)
            redo = {document_id: source for path, (document_id, source) in latest.items()
                    if made.get(path) != (document_id, source)}
            ordered = sorted(redo)
            for start in range(0, len(ordered), CHUNK):
                summaries, events = [], []
                for doc, assessment in load_documents(session, ordered[start:start + CHUNK], analysers):
                    summary, dated = summarize(contract_view(doc, assessment, today), redo[doc.id], today)
                    summaries.append(summary)
                    events += dated
                repository.replace_summaries(session, summaries, events)
            repository.replace_summaries(session, [], [], [path for path in made if path not in latest])
        for path, document_id, filename, words, terms in repository.stale_summaries(session, today):
            doc = DocumentResult(id=document_id, filename=filename, path=path, status=DocumentStatus.DONE)
            values, events = _dated(doc, words, DocumentAssessment.from_dict(terms).key_terms if terms else None, today)
            repository.replace_dated(session, path, values, events)
        repository.mark_portfolio_refreshed(session, started)


def summarize(c: ContractView, source: str, today: date) -> tuple[dict, list[dict]]:
    """A contract's summary row and its events, as of `today`."""
    a = c.assessment
    found = {m.finding.category.lower() for m in a.present()} if a is not None else set()
    terms = (replace(a, findings=[], issues=[], review=[],
                     key_terms={k: v for k, v in a.key_terms.items() if k in DATED_TERMS}).to_dict()
             if a is not None else {})
    words = searchable(replace(c, term="", deadline=None))
    values, events = _dated(c.doc, words, a.key_terms if a is not None else None, today, list(c.deadlines))
    return {"path": c.doc.path, "document_id": c.doc.id, "source": source, "filename": c.doc.filename,
            "level": c.level, "level_order": -RISK_LEVELS.index(a.risk_level) if a is not None else 1,
            "score_order": -a.risk_score if a is not None else 0.0, "risk_score": a.risk_score if a is not None else None,
            "counterparty": c.counterparty, "contract_type": c.contract_type, "our_role": c.our_role,
            "top_issues": list(c.top_issues), "asks": [f"{v.category}: {v.ask}" for v in c.issues],
            "clauses": "\n" + "".join(f"{name}\n" for name in sorted(found | {v.category.lower() for v in c.issues})),
            "words": words, "terms": terms, **values}, events


def _dated(doc: DocumentResult, words: str, terms: dict[str, KeyTerm] | None, today: date,
           events: list[Deadline] | None = None) -> tuple[dict, list[dict]]:
    """What the term in force and the deadlines say on `today` (as contract_view and the
    calendar compute them), the last day they say it, and what a search then reads beside
    the contract's `words`; `events`: the deadlines when the caller has them already."""
    if terms is None:  # not assessed
        return {"term": "", "deadline_on": None, "deadline_kind": None, "search": words,
                "fresh_until": date.max}, []
    term = term_in_force(terms, today)
    events = deadlines_of(doc, terms, today) if events is None else events
    deadline = next_deadline(events)
    ahead = timedelta(days=HORIZONS[-1] + 1)
    holds = [term.end] if term.end is not None and term.end >= today else []
    holds += [d.date for d in events] + [d.date - ahead for d in events if d.date - ahead >= today]
    said = " ".join(p for p in (term_words(term), deadline.explanation() if deadline is not None else "") if p).lower()
    return ({"term": term.shown(), "deadline_on": deadline.date if deadline else None,
             "deadline_kind": deadline.kind if deadline else None, "search": f"{words} {said}",
             "fresh_until": min(holds, default=date.max)},
            [{"path": doc.path, "document_id": doc.id, "due": d.date, "kind": d.kind, "contract": d.contract,
              "filename": d.filename, "explanation": d.explanation(), "uid": d.uid, "description": d.description()}
             for d in events])


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
