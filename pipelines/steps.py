"""What each node of the document DAG does: read its inputs from storage, run the pure stage
function, write its outputs back.

These are plain functions of (settings, document id), so the whole DAG can be exercised
without Celery; workers/tasks.py only adds delivery concerns (retries, time limits).  Every
step replaces what it wrote before, which is what makes a redelivered task harmless.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sqlalchemy.orm import Session

from pipelines import logs
from pipelines.dag import SPECS, Stage, StageSpec, analyser_stages
from pipelines.datamodel import AnalyserSkipped, DocumentFailed, Finding, Segment
from pipelines.parsers.limits import ReadLimits
from pipelines.review.budget import ContractStakes, contract_stakes
from pipelines.settings import HARD_LIMIT_GRACE_S, Settings
from storage import repository
from storage.database import session_scope


class PagesPending(Exception):
    """OCR of some pages has not landed yet: run `segment` again a little later.

    Redis joins a chord by counting finished members, so a member delivered twice (its worker
    died after finishing, before acknowledging) can fire the callback before the last page is
    done; segment checks the pages themselves instead of trusting the join.
    """


@dataclass(frozen=True)
class DocumentRef:
    """Who a step works on, for logs and for locating the file."""

    id: int
    batch_id: str
    path: Path
    kind: str | None
    sha256: str | None


def begin(settings: Settings, document_id: int) -> DocumentRef | None:
    """The document to work on; None when it already ended (nothing left to do)."""
    with session_scope(settings.effective_database_url, write=False) as session:
        d = repository.get_document(session, document_id)
        if d.status.ended:
            return None
        return DocumentRef(d.id, d.batch_id, Path(d.path), d.kind, d.sha256)


def start_delivery(settings: Settings, doc: DocumentRef, spec: StageSpec, task: str) -> None:
    """Count this delivery of `task` before its work starts.  Earlier ones that never ended
    (end_delivery) died with their worker; after `max_worker_crashes` of them the file is a
    poison pill, and the document ends `failed` instead of taking down the next worker.

    The write moves the document's clock too: a task that took its message after a long wait
    in a queue is seen moving by the recovery sweep from its first moment, before its first
    heartbeat."""
    with session_scope(settings.effective_database_url) as session:
        crashed = repository.start_delivery(session, doc.id, task)
    if crashed >= settings.max_worker_crashes:
        times = {1: "once", 2: "twice"}.get(crashed, f"{crashed} times")
        raise DocumentFailed(spec.stage, f"the worker crashed {times} while {spec.doing} (it ran out of memory, "
                                         f"crashed, or was killed at the {settings.time_limit_s(spec) + HARD_LIMIT_GRACE_S} "
                                         "s hard time limit); it is not tried again")


def end_delivery(settings: Settings, document_id: int, task: str) -> None:
    with session_scope(settings.effective_database_url) as session:
        repository.end_delivery(session, document_id, task)


def complete_stage(settings: Settings, document_id: int, stage: Stage, seconds: float) -> set[str]:
    """Record a finished stage; returns every stage the document has completed."""
    with session_scope(settings.effective_database_url) as session:
        return repository.complete_stage(session, document_id, stage, seconds)


def complete_analyser(settings: Settings, document_id: int, stage: Stage, seconds: float) -> bool:
    """Record an analyser as finished; True for the one that completes the set, which sends the
    document on to aggregation.  The row lock orders concurrent analysers, so exactly one of
    them sees the full set, except when a finished analyser is delivered again: then
    aggregation runs twice, which its replace-writes make harmless."""
    waiting_for = {spec.stage for spec in analyser_stages(settings.analysers)}
    return waiting_for <= complete_stage(settings, document_id, stage, seconds)


def fail(settings: Settings, document_id: int, stage: Stage, reason: str) -> None:
    """End a document as `failed` and let the batch finish if it was the last one."""
    with session_scope(settings.effective_database_url) as session:
        d = repository.mark_failed(session, document_id, stage, reason)
        batch_id, sha256 = d.batch_id, d.sha256
    _failed(settings, batch_id, sha256, document_id, stage, reason)


def give_up(settings: Settings, document: repository.OpenDocument, stage: Stage, reason: str) -> bool:
    """End a document the recovery sweep found stalled past its attempts as `failed`, unless it
    moved or ended since the sweep read it; whether it did."""
    with session_scope(settings.effective_database_url) as session:
        if not repository.fail_unmoved(session, document, stage, reason):
            return False
    _failed(settings, document.batch_id, document.sha256, document.id, stage, reason)
    return True


def _failed(settings: Settings, batch_id: str, sha256: str | None, document_id: int, stage: Stage, reason: str) -> None:
    """After a document was ended `failed`: say so, and let the batch finish if it was the last."""
    logs.log("document failed", stage=stage, batch_id=batch_id, sha256=sha256, document_id=document_id, reason=reason)
    finish(settings, batch_id)


def finish(settings: Settings, batch_id: str) -> None:
    with session_scope(settings.effective_database_url) as session:
        finalized = repository.finalize_batch_if_complete(session, batch_id)
    if finalized:
        logs.log("batch finished", stage="finalize", batch_id=batch_id)


# --- the stages ----------------------------------------------------------------------------

def ingest(settings: Settings, doc: DocumentRef) -> bool:
    """Check the file; False when the document needs no further work (a duplicate)."""
    from pipelines.stages.ingest import inspect_file

    facts = inspect_file(doc.path, settings.max_file_mb, settings.max_pages, ReadLimits.from_settings(settings))
    with session_scope(settings.effective_database_url) as session:
        original = repository.record_facts(session, doc.id, facts)
        if original is not None:
            repository.mark_duplicate(session, doc.id, original)
    if original is not None:
        finish(settings, doc.batch_id)
        return False
    return True


def extract(settings: Settings, doc: DocumentRef) -> list[int]:
    """Store the text layer; return the page numbers that need OCR."""
    from pipelines.stages.extract import extract_text_layer

    pages = extract_text_layer(doc.path, doc.kind or "pdf", ReadLimits.from_settings(settings))
    with session_scope(settings.effective_database_url) as session:
        repository.replace_pages(session, doc.id, pages)
        if unreadable := [p.number for p in pages if p.unreadable_layer]:
            repository.add_note(session, doc.id, unreadable_layer_note(unreadable))
    return [p.number for p in pages if p.needs_ocr]


def unreadable_layer_note(pages: list[int]) -> str:
    """Why a page with a text layer was OCRed, for the report: its fonts map to no letters."""
    listed = ", ".join(map(str, pages[:10])) + (f" and {len(pages) - 10} more" if len(pages) > 10 else "")
    return (f"page{'s' if len(pages) > 1 else ''} {listed}: the text layer is unreadable (fonts without a "
            "Unicode map), so the page was read by OCR")


def ocr_page(settings: Settings, doc: DocumentRef, page_number: int) -> None:
    """OCR one page; a page that fails is recorded, not raised, so the page chord completes."""
    from pipelines.stages.ocr import ocr_page as run_ocr

    started = time.perf_counter()
    error = None
    try:
        page = run_ocr(doc.path, page_number, dpi=settings.ocr_dpi, language=settings.ocr_language,
                       limits=ReadLimits.from_settings(settings))
    except DocumentFailed as failure:
        from pipelines.datamodel import PageText

        page, error = PageText(number=page_number, text="", source="ocr"), failure.reason
    with session_scope(settings.effective_database_url) as session:
        repository.replace_page(session, doc.id, page, error, time.perf_counter() - started)


def segment(settings: Settings, doc: DocumentRef) -> None:
    from pipelines.stages.segment import segment_document

    with session_scope(settings.effective_database_url, write=False) as session:
        pages = repository.load_pages(session, doc.id)
        errors = repository.page_errors(session, doc.id)
        ocr_seconds = repository.ocr_seconds(session, doc.id)
    if waiting := [p.number for p in pages if p.needs_ocr]:
        raise PagesPending(f"pages {waiting} still wait for OCR")
    if ocr_seconds:
        complete_stage(settings, doc.id, Stage.OCR, ocr_seconds)
    if errors and not any(p.text.strip() for p in pages):
        first = next(iter(sorted(errors.items())))
        raise DocumentFailed(Stage.OCR, f"OCR failed on {len(errors)} page(s); page {first[0]}: {first[1]}")
    segments = segment_document(pages, ReadLimits.from_settings(settings))  # fails a document with no text
    with session_scope(settings.effective_database_url) as session:
        repository.replace_segments(session, doc.id, segments)


Analyser = Callable[[str, list[Segment]], list[Finding]]
"""(document text, segments) → findings: the rule pack, or the gpu worker's batched model."""


def analyse(settings: Settings, doc: DocumentRef, stage: Stage, analyser: Analyser) -> None:
    """One analyser's findings, stored under its producer name (replacing its earlier ones)."""
    with session_scope(settings.effective_database_url, write=False) as session:
        text = repository.load_text(session, doc.id)
        segments = repository.load_segments(session, doc.id)
    try:
        findings = analyser(text, segments)
    except AnalyserSkipped as skipped:  # the others' findings stand; the report says why these are missing
        findings = []
        logs.log("analyser skipped", stage=stage, batch_id=doc.batch_id, sha256=doc.sha256, document_id=doc.id,
                 level=logging.WARNING, why=skipped.note)
        with session_scope(settings.effective_database_url) as session:
            repository.add_note(session, doc.id, skipped.note)
    with session_scope(settings.effective_database_url) as session:
        repository.replace_findings(session, doc.id, SPECS[stage].analyser, findings)


def pinned_clause_types(settings: Settings, doc: DocumentRef) -> dict[str, dict]:
    """The taught clause types the document's batch runs with ({name: {"version"}}), pinned when
    it was submitted (storage/clause_types.pinned_options)."""
    with session_scope(settings.effective_database_url, write=False) as session:
        return repository.batch_options(session, doc.batch_id).get("clause_types") or {}


def learning_types(session: Session, options: dict) -> tuple[tuple[str, str], ...]:
    """The young taught clause types of the batch whose own review budget has room: (name,
    version) each; concurrent aggregations may pass the budget by a few (a soft limit)."""
    from pipelines.review.budget import LEARNING_OPEN, LEARNING_PER_VERSION
    from storage.clause_types import learning_counts

    young = [(name, pin["version"]) for name, pin in sorted((options.get("clause_types") or {}).items())
             if pin.get("young")]
    room = []
    for name, version in young:
        open_, decided = learning_counts(session, name, version)
        if open_ < LEARNING_OPEN and open_ + decided < LEARNING_PER_VERSION:
            room.append((name, version))
    return tuple(room)


def rules_analyser(text: str, segments: list[Segment]) -> list[Finding]:
    """The rule pack's clause findings, then one value finding per key term the text states."""
    from pipelines.rules import analyse_segments
    from pipelines.terms.findings import value_findings

    return analyse_segments(text, segments) + value_findings(text, segments)


def playbook_for(options: dict):  # type: ignore[no-untyped-def]
    """The batch's playbook: stored with the batch as YAML text, so remote workers see it too.
    Its positions on taught clause types the batch does not run are left out."""
    from pipelines.playbook import load_playbook, parse_playbook

    text = options.get("playbook")
    defined = frozenset(options.get("clause_types_defined") or ())
    playbook = parse_playbook(text, origin="batch playbook", taught=defined) if text else load_playbook(None)
    playbook = playbook.leaving_out(defined - set(options.get("clause_types") or {}))
    return playbook.as_party(tuple(options.get("party") or ()))


def stakes_of(settings: Settings, options: dict, doc: DocumentRef, filename: str) -> ContractStakes:
    """The contract's tier and value: its row of the batch's register, else the batch's tier."""
    entry = (options.get("register") or {}).get(filename) or {}
    tier = entry.get("tier", options.get("tier"))
    try:
        return contract_stakes(tier, entry.get("value"), settings.review_tiers, settings.review_value_reference)
    except ValueError as error:  # a tier this worker's settings do not know: weigh it as standard
        logs.log(f"review priority: {error}; weighed as standard", stage=Stage.AGGREGATE, batch_id=doc.batch_id,
                 sha256=doc.sha256, document_id=doc.id, level=logging.WARNING)
        return contract_stakes(None, entry.get("value"), settings.review_tiers, settings.review_value_reference)


def aggregate(settings: Settings, doc: DocumentRef) -> None:
    """Merge the analysers' evidence, apply the playbook, queue what needs a person."""
    from pipelines.aggregate import aggregate_document
    from pipelines.review.budget import Budget
    from pipelines.review.double_review import mark_double_review
    from pipelines.review.recalibration import uncalibrated

    with session_scope(settings.effective_database_url, write=False) as session:
        findings = repository.load_findings(session, doc.id, settings.analysers)
        options = repository.batch_options(session, doc.batch_id)
        filename, page_count = repository.filename_and_pages(session, doc.id)
        calibration = repository.latest_calibration(session)
        learning = learning_types(session, options)
    due = options.get("due")
    budget = Budget(settings.review_items_per_contract, settings.review_sample_rate,
                    due=date.fromisoformat(due) if due else None, contract=stakes_of(settings, options, doc, filename),
                    learning=learning)
    assessment = aggregate_document(findings, playbook_for(options), page_count, budget, calibration)
    merged = [m.finding for m in assessment.findings] + [i.finding for i in assessment.issues]
    review = [
        {"category": r.finding.category, "reason": r.reason, "priority": r.priority,
         "evidence": {"text": r.finding.text, "page": r.finding.page, "start": r.finding.start, "end": r.finding.end,
                      "confidence": r.finding.confidence, "uncalibrated": uncalibrated(r.finding),
                      "source": r.finding.source, "version": r.finding.version,
                      "calibration": assessment.calibration, "priority_parts": r.parts}}
        for r in assessment.review
    ]
    review = mark_double_review(review, float(options.get("double_review") or 0.0), doc.sha256 or str(doc.id))
    with session_scope(settings.effective_database_url) as session:
        repository.replace_findings(session, doc.id, "aggregate", merged)
        repository.replace_review_items(session, doc.id, review)
        repository.store_assessment(session, doc.id, assessment.to_dict(), assessment.risk_score,
                                    assessment.risk_level)


def persist(settings: Settings, doc: DocumentRef) -> None:
    """The document is complete: mark it done, then let the batch finish if it was the last."""
    with session_scope(settings.effective_database_url) as session:
        repository.mark_done(session, doc.id)
    logs.log("document done", stage=Stage.PERSIST, batch_id=doc.batch_id, sha256=doc.sha256, document_id=doc.id)
    finish(settings, doc.batch_id)
