"""Cross-document batching for the gpu worker.

The gpu worker runs a thread pool: each thread handles one document's task (database reads and
writes, acks, chord results — all ordinary Celery), and hands its segments to one inference
thread.  That thread takes every document waiting at that moment and runs them through the
model together, so the backbone sees full, length-sorted batches when documents queue up, and a
lone document never waits for company.  This does what celery-batches would, without giving up
per-task acknowledgement and chord membership.
"""
from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future

from pipelines import logs
from pipelines.dag import Stage
from pipelines.datamodel import Finding, Segment
from pipelines.settings import Settings

PredictMany = Callable[[list[list[Segment]]], list[list[Finding]]]


class CrossDocumentBatcher:
    def __init__(self, predict_many: PredictMany, max_documents: int = 16) -> None:
        self._predict_many = predict_many
        self._max_documents = max_documents
        self._waiting: queue.Queue[tuple[list[Segment], Future[list[Finding]]]] = queue.Queue()
        self.batch_sizes: deque[int] = deque(maxlen=1000)  # documents per recent model call, for logs and tests
        threading.Thread(target=self._serve, name="model-batcher", daemon=True).start()

    def predict(self, segments: list[Segment]) -> list[Finding]:
        """One document's findings; blocks the calling task thread until its batch has run."""
        result: Future[list[Finding]] = Future()
        self._waiting.put((segments, result))
        return result.result()

    def _serve(self) -> None:
        while True:
            batch = [self._waiting.get()]
            while len(batch) < self._max_documents:
                try:
                    batch.append(self._waiting.get_nowait())
                except queue.Empty:
                    break
            self.batch_sizes.append(len(batch))
            try:
                findings = self._predict_many([segments for segments, _ in batch])
            except BaseException as error:  # noqa: BLE001 - handed to every waiting task
                for _, result in batch:
                    result.set_exception(error)
                continue
            for (_, result), document_findings in zip(batch, findings):
                result.set_result(document_findings)


class GpuModel:
    """The gpu worker's model: loaded once per process, before the worker consumes (its
    start hook, workers/celery_app.py), and shared by the worker's task threads.

    Loading also happens on first use, so a task run outside a worker (a test) still works.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._batcher: CrossDocumentBatcher | None = None
        self._lock = threading.Lock()

    def load(self) -> CrossDocumentBatcher:
        with self._lock:
            if self._batcher is None:
                from models.inference import load_clause_model

                model = load_clause_model(self._settings.model_checkpoint, int8=self._settings.model_int8)
                logs.log("model loaded", stage=Stage.ANALYSE_MODEL, batch_id=None, version=model.version,
                         device=str(model.device), precision=model.precision)
                self._batcher = CrossDocumentBatcher(model.predict_many)
            return self._batcher

    def predict(self, segments: list[Segment]) -> list[Finding]:
        return self.load().predict(segments)
