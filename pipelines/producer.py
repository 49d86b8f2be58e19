"""The document DAG's expansion into Celery canvas (its stages are the table in pipelines/dag.py).

    ingest ─► extract ─┬─► ocr_page × N (chord, pages of a scan in parallel) ─┐
                       └──────────────────────────────────────────────────────┴─► segment
    segment ─► analyse: rules (cpu) ∥ model (gpu) ─► aggregate ─► persist ─► batch ledger
                                               └ joined by the analyser ledger

A batch is not one chord over its documents: Celery loses or doubles chord callbacks when
chords nest in a chord's header (celery#6220, #8211, #9107), and the page fan-out of a scan is
only known after extraction.  Instead every document runs as its own top-level chain, the page
fan-out is a top-level chord whose callback continues the document, and the batch finalizes
through a ledger in the database (storage.repository.finalize_batch_if_complete): the
document that ends last closes the batch, exactly once.

The analysers join the same way, not through a chord: on the embedded SQLite result backend a
chord is joined by `celery.chord_unlock` polling, and every document waiting for the model
polled ten times a second (31,197 polls in one 84-contract batch, most of a core).  Each
analyser records its completion on the locked document row; the one that completes the set
sends `aggregation_canvas` (steps.complete_analyser).
"""
from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

from celery import Celery, chain, chord, group
from celery.canvas import Signature
from sqlalchemy.orm import Session

from pipelines import logs
from pipelines.dag import SPECS, Stage, analyser_stages
from pipelines.datamodel import BatchOrigin
from pipelines.settings import Settings
from storage import clause_types, repository
from storage.database import session_scope


def task(app: Celery, stage: Stage, document_id: int, *args: int) -> Signature:
    """The stage's task for one document, by name: the producer needs no task objects, so
    it never imports the workers (and nothing here touches the broker until sent)."""
    return app.signature(SPECS[stage].task_name, args=(document_id, *args), immutable=True)


def document_canvas(app: Celery, document_id: int) -> Signature:
    """Up to the point where the page fan-out is known; `extract` sends the continuation."""
    return chain(task(app, Stage.INGEST, document_id), task(app, Stage.EXTRACT, document_id))


def continuation_canvas(app: Celery, document_id: int, ocr_pages: Sequence[int], analysers: Sequence[str]) -> Signature:
    """From the text (after OCR of the pages that need it) to the analysers (rules on cpu,
    model on gpu) running in parallel; the last of them to finish sends `aggregation_canvas`."""
    segment = task(app, Stage.SEGMENT, document_id)
    head = chord([task(app, Stage.OCR, document_id, n) for n in ocr_pages], segment) if ocr_pages else segment
    branches = [task(app, spec.stage, document_id) for spec in analyser_stages(tuple(analysers))]
    return chain(head, branches[0] if len(branches) == 1 else group(branches))


def aggregation_canvas(app: Celery, document_id: int) -> Signature:
    """Once every analyser has written its findings."""
    return chain(task(app, Stage.AGGREGATE, document_id), task(app, Stage.PERSIST, document_id))


def resume_canvas(app: Celery, document_id: int, resume_at: Stage, *, completed: frozenset[str],
                  ocr_pages: Sequence[int], analysers: Sequence[str]) -> Signature:
    """The rest of a document's DAG from `resume_at` (pipelines.dag.next_stage): what the
    recovery sweep sends when a message was lost.  Every stage is idempotent, so repeating
    one that had in fact run costs time, never correctness."""
    if resume_at is Stage.INGEST:
        return document_canvas(app, document_id)
    if resume_at is Stage.EXTRACT:
        return task(app, Stage.EXTRACT, document_id)
    if resume_at is Stage.SEGMENT:
        return continuation_canvas(app, document_id, ocr_pages, analysers)
    if SPECS[resume_at].analyser:
        missing = [task(app, spec.stage, document_id) for spec in analyser_stages(tuple(analysers))
                   if spec.stage not in completed]
        return missing[0] if len(missing) == 1 else group(missing)
    if resume_at is Stage.AGGREGATE:
        return aggregation_canvas(app, document_id)
    return task(app, Stage.PERSIST, document_id)


def pin_clause_types(session: Session, settings: Settings, options: dict) -> dict:
    """The options a batch is registered with: what it was submitted with, and the taught clause
    types it runs with (none when the model is off)."""
    from pipelines.nightly.incremental import model_version

    return clause_types.pinned_options(session, options, model_version(settings) if settings.model_enabled else None)


def submit_batch(app: Celery, settings: Settings, paths: Sequence[Path], *, batch_id: str | None = None,
                 options: dict | None = None, origin: BatchOrigin = BatchOrigin.AUDIT) -> str:
    """Register the batch in storage and send one chain per document; returns the batch id.

    Re-submitting an existing batch id re-runs it in place: its documents are reset and every
    stage replaces its previous output, so nothing is duplicated.
    """
    batch_id = batch_id or uuid.uuid4().hex[:12]
    with session_scope(settings.effective_database_url) as session:
        options = pin_clause_types(session, settings, options or {})
        document_ids = repository.create_batch(session, batch_id, [p.resolve() for p in paths], options, origin)
    for document_id in document_ids:
        document_canvas(app, document_id).apply_async()
    logs.log("batch submitted", stage="produce", batch_id=batch_id, documents=len(document_ids))
    if not document_ids:
        with session_scope(settings.effective_database_url) as session:
            repository.finalize_batch_if_complete(session, batch_id)
    return batch_id
