"""Thin Celery wrappers around pipelines.steps: delivery concerns only.

`register_tasks` registers one task per row of the stage table (pipelines/dag.py) on an app
built from a Settings object, with that row's name, time limits and result storage.  Each task
takes a document id, runs one step, and turns the way the step ended into an outcome
(workers/outcome.py): done, retry, or the document ends `failed`.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from celery import Celery, Task

from pipelines import logs, steps
from pipelines.dag import SPECS, STAGES, Stage, StageSpec
from pipelines.producer import aggregation_canvas, continuation_canvas
from pipelines.settings import HARD_LIMIT_GRACE_S, Settings
from workers.heartbeat import Heartbeat
from workers.model_batcher import GpuModel
from workers.outcome import Done, Fail, Limits, Retry, outcome

Step = Callable[..., Any]
"""(document, *task args) → None: one stage's work on a document."""


def register_tasks(app: Celery, settings: Settings, model: GpuModel) -> dict[Stage, Task]:
    """One task per stage; `model` is the gpu worker's, loaded by its start hook.  Not shared
    (Celery's default): each app gets the tasks of its own settings."""

    def extract(doc: steps.DocumentRef) -> None:
        ocr_pages = steps.extract(settings, doc)
        continuation_canvas(app, doc.id, ocr_pages, settings.analysers).apply_async()

    def analyse_model(doc: steps.DocumentRef) -> None:
        pinned = steps.pinned_clause_types(settings, doc)
        steps.analyse(settings, doc, Stage.ANALYSE_MODEL, lambda _text, segments: model.predict(segments, pinned))

    work: dict[Stage, Step] = {
        Stage.INGEST: lambda doc: steps.ingest(settings, doc),
        Stage.EXTRACT: extract,
        Stage.OCR: lambda doc, page_number: steps.ocr_page(settings, doc, page_number),
        Stage.SEGMENT: lambda doc: steps.segment(settings, doc),
        Stage.ANALYSE_RULES: lambda doc: steps.analyse(settings, doc, Stage.ANALYSE_RULES, steps.rules_analyser),
        Stage.ANALYSE_MODEL: analyse_model,
        Stage.AGGREGATE: lambda doc: steps.aggregate(settings, doc),
        Stage.PERSIST: lambda doc: steps.persist(settings, doc),
    }
    assert set(work) == set(SPECS), "every stage of the table has its work, and nothing else"
    heartbeat = Heartbeat(settings)
    return {spec.stage: _register(app, settings, spec, work[spec.stage], heartbeat) for spec in STAGES}


def _register(app: Celery, settings: Settings, spec: StageSpec, step: Step, heartbeat: Heartbeat) -> Task:
    limit_s = settings.time_limit_s(spec)
    limits = Limits(spec.stage, limit_s, settings.infrastructure_retries,
                    pages_pending_retries=2 * settings.time_limit_s(SPECS[Stage.OCR]))

    @app.task(name=spec.task_name, bind=True, shared=False, ignore_result=not spec.stores_result,
              soft_time_limit=limit_s, time_limit=limit_s + HARD_LIMIT_GRACE_S, max_retries=limits.infrastructure_retries)
    def run(self: Task, document_id: int, *args: Any) -> None:
        doc = None
        error: BaseException | None = None
        delivery = f"{spec.stage}:{args[0]}" if spec.per_page else str(spec.stage)
        counted = False
        try:
            doc = steps.begin(settings, document_id)
            if doc is None:
                return None  # the document already ended: a late or repeated delivery
            counted = True
            steps.start_delivery(settings, doc, spec, delivery)  # a poison pill fails here
            started = time.perf_counter()
            with heartbeat.beating(document_id):
                step(doc, *args)
                _record_completion(app, settings, spec, document_id, time.perf_counter() - started)
        except Exception as caught:  # noqa: BLE001 - every ending is decided by outcome()
            error = caught
        if counted:
            try:
                steps.end_delivery(settings, document_id, delivery)
            except Exception as caught:  # noqa: BLE001 - the database went away: retried like the step
                error = error or caught
        fields = {"stage": spec.stage, "batch_id": doc and doc.batch_id, "sha256": doc and doc.sha256,
                  "document_id": document_id}
        match outcome(error, self.request.retries, limits):
            case Done():
                pass
            case Retry(countdown=countdown, max_retries=max_retries, why=why):
                logs.log("retrying", level=logging.WARNING, why=why, attempt=self.request.retries + 1, **fields)
                raise self.retry(countdown=countdown, max_retries=max_retries)
            case Fail(stage=stage, reason=reason, bug=bug):
                if bug:
                    logs.log("internal error", level=logging.ERROR, exc_info=error, **fields)
                steps.fail(settings, document_id, stage, reason)
        return None

    return run


def _record_completion(app: Celery, settings: Settings, spec: StageSpec, document_id: int, seconds: float) -> None:
    """Analysers join on the document row: the last to finish sends it on to aggregation.
    OCR pages record their own time on their page rows."""
    if spec.analyser:
        if steps.complete_analyser(settings, document_id, spec.stage, seconds):
            aggregation_canvas(app, document_id).apply_async()
    elif not spec.per_page:
        steps.complete_stage(settings, document_id, spec.stage, seconds)
