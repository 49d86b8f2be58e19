"""Thin Celery wrappers around pipelines.steps: delivery concerns only.

Each task takes a document id, runs one step, and never raises for a problem of the document
itself: a raising chord member (an OCR page) would break its chord and strand the document.  What a task
does with an error:
  - DocumentFailed (corrupt, encrypted, OCR failure, ...) → the document ends `failed`.
  - soft time limit → `failed`, naming the stage and the limit.
  - infrastructure error (database or broker unreachable) → retried with backoff, a bounded
    number of times, then `failed`.
  - anything else is a bug → `failed` with the exception, logged with its traceback.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import kombu.exceptions
import redis.exceptions
import sqlalchemy.exc
from celery import Task
from celery.exceptions import Retry, SoftTimeLimitExceeded
from celery.signals import worker_process_init

from pipelines import logs, steps
from pipelines.datamodel import DocumentFailed
from pipelines.producer import aggregation_canvas, continuation_canvas
from pipelines.settings import HARD_LIMIT_GRACE_S, get_settings
from storage.database import dispose_engines
from workers.celery_app import app
from workers.model_batcher import CrossDocumentBatcher

INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.IntegrityError,  # two deliveries of one task replacing the same rows at once
    kombu.exceptions.OperationalError,
    redis.exceptions.ConnectionError,
)

settings = get_settings()
PAGES_PENDING_RETRIES = 2 * settings.ocr_page_time_limit_s  # one-second retries
DOCUMENT_TASKS: dict[str, Task] = {}


@worker_process_init.connect
def _forget_parent_connections(**_: Any) -> None:
    dispose_engines()


def document_task(stage: str, *, queue: str = "cpu", time_limit_s: int, store_result: bool = False,
                  record_timing: bool = True, analyser: bool = False) -> Callable[[Callable[..., Any]], Task]:
    """`analyser`: one of the parallel analysers; the last to finish sends the document on."""

    def decorate(step: Callable[..., Any]) -> Task:
        @app.task(name=f"clausemill.{queue}.{stage}", bind=True, ignore_result=not store_result,
                  soft_time_limit=time_limit_s, time_limit=time_limit_s + HARD_LIMIT_GRACE_S,
                  max_retries=settings.infrastructure_retries)
        def run(self: Task, document_id: int, *args: Any) -> None:
            doc = None
            try:
                doc = steps.begin(settings, document_id)
                if doc is None:
                    return None
                started = time.perf_counter()
                step(doc, *args)
                seconds = time.perf_counter() - started
                if analyser:
                    if steps.complete_analyser(settings, document_id, stage, seconds):
                        aggregation_canvas(document_id).apply_async()
                elif record_timing:
                    steps.complete_stage(settings, document_id, stage, seconds)
            except DocumentFailed as failure:
                steps.fail(settings, document_id, failure.stage, failure.reason)
            except SoftTimeLimitExceeded:
                steps.fail(settings, document_id, stage, f"stopped by the {time_limit_s} s time limit of the {stage} stage")
            except Retry:
                raise
            except steps.PagesPending as pending:
                if self.request.retries < PAGES_PENDING_RETRIES:
                    raise self.retry(countdown=1, max_retries=PAGES_PENDING_RETRIES) from None
                steps.fail(settings, document_id, "ocr", f"OCR did not complete: {pending}")
            except INFRASTRUCTURE_ERRORS as error:
                if self.request.retries < self.max_retries:
                    logs.log("infrastructure error, retrying", stage=stage, batch_id=doc and doc.batch_id,
                             sha256=doc and doc.sha256, document_id=document_id,
                             level=logging.WARNING, error=repr(error), attempt=self.request.retries + 1)
                    raise self.retry(exc=error, countdown=min(2 ** self.request.retries, 30))
                steps.fail(settings, document_id, stage, f"infrastructure error after {self.max_retries} retries: {error}")
            except Exception as error:  # a bug: keep the batch going, keep the traceback
                logs.log("internal error", stage=stage, batch_id=doc and doc.batch_id,
                         sha256=doc and doc.sha256, document_id=document_id,
                         level=logging.ERROR, exc_info=True)
                steps.fail(settings, document_id, stage, f"internal error in {stage}: {type(error).__name__}: {error}")
            return None

        DOCUMENT_TASKS[stage] = run
        return run

    return decorate


@document_task("ingest", time_limit_s=settings.ingest_time_limit_s)
def ingest(doc: steps.DocumentRef) -> None:
    steps.ingest(settings, doc)


@document_task("extract", time_limit_s=settings.extract_time_limit_s)
def extract(doc: steps.DocumentRef) -> None:
    ocr_pages = steps.extract(settings, doc)
    continuation_canvas(doc.id, ocr_pages, settings.analysers).apply_async()


@document_task("ocr_page", time_limit_s=settings.ocr_page_time_limit_s, store_result=True, record_timing=False)
def ocr_page(doc: steps.DocumentRef, page_number: int) -> None:
    steps.ocr_page(settings, doc, page_number)


@document_task("segment", time_limit_s=settings.extract_time_limit_s)
def segment(doc: steps.DocumentRef) -> None:
    steps.segment(settings, doc)


@document_task("analyse_rules", time_limit_s=settings.analyse_time_limit_s, analyser=True)
def analyse_rules(doc: steps.DocumentRef) -> None:
    steps.analyse_rules(settings, doc)


_batcher: CrossDocumentBatcher | None = None
_batcher_lock = threading.Lock()


def model_batcher() -> CrossDocumentBatcher:
    """The gpu worker's model, loaded once per process and shared by its task threads."""
    global _batcher
    with _batcher_lock:
        if _batcher is None:
            from models.inference import load_clause_model

            model = load_clause_model(settings.model_checkpoint, int8=settings.model_int8)
            logs.log("model loaded", stage="analyse_model", batch_id=None, version=model.version,
                     device=str(model.device), precision=model.precision)
            _batcher = CrossDocumentBatcher(model.predict_many)
        return _batcher


@document_task("analyse_model", queue="gpu", time_limit_s=settings.analyse_time_limit_s, analyser=True)
def analyse_model(doc: steps.DocumentRef) -> None:
    steps.analyse_model(settings, doc, model_batcher().predict)


@document_task("aggregate", time_limit_s=settings.analyse_time_limit_s)
def aggregate(doc: steps.DocumentRef) -> None:
    steps.aggregate(settings, doc)


@document_task("persist", time_limit_s=settings.ingest_time_limit_s)
def persist(doc: steps.DocumentRef) -> None:
    steps.persist(settings, doc)
