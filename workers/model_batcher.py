"""Cross-document batching for the gpu worker, fair to small documents.

The gpu worker runs a thread pool: each thread handles one document's task (database reads and
writes, acks, chord results — all ordinary Celery), and hands its segments to one inference
thread.  That thread takes every document waiting at that moment and runs them through the
model together, so the backbone sees full, length-sorted batches when documents queue up, and a
lone document never waits for company.  This does what celery-batches would, without giving up
per-task acknowledgement and chord membership.

A long document is scored a part (CHUNK_SEGMENTS segments) at a time: each round of the
inference thread takes one part of every document in progress, so a contract of a few hundred
segments is done in the round it joins while a 20,000-segment one advances part by part
beside it, instead of holding every document behind it for minutes.  A task thread waits at
most its stage's time limit, which Celery cannot enforce on a thread pool: past it the
document goes on with the rules' findings alone (its report says so), its remaining parts
are dropped, and the worker keeps serving.
"""
from __future__ import annotations

import logging
import queue
import threading
from collections import OrderedDict, deque
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, Protocol

from pipelines import logs
from pipelines.dag import SPECS, Stage
from models.headings import heading_of
from pipelines.datamodel import AnalyserSkipped, Finding, Segment
from pipelines.settings import Settings

CHUNK_SEGMENTS = 512
"""Segments scored per document per round: a typical contract (~300 segments) in one."""


class ChunkedModel(Protocol):
    def chunk_probabilities(self, chunks: list[list[Segment]], ends: list[int], headings: list[str], *,
                            addons: list[list[Any]]) -> list[Any]: ...

    def document_findings(self, segments: list[Segment], probability: Any, addons: list[Any]) -> list[Finding]: ...


@dataclass
class _Document:
    segments: list[Segment]
    addons: list[Any] = field(default_factory=list)  # taught clause types of the document's batch
    result: Future[list[Finding]] = field(default_factory=Future)
    parts: list[Any] = field(default_factory=list)

    @property
    def end(self) -> int:
        return max((s.end for s in self.segments), default=1) or 1

    def next_chunk(self) -> list[Segment]:
        start = len(self.parts) * CHUNK_SEGMENTS
        return self.segments[start:start + CHUNK_SEGMENTS]

    def heading(self) -> str:
        """The section heading in force where the next chunk starts (a feature of its segments):
        the last one before it."""
        start = len(self.parts) * CHUNK_SEGMENTS
        return next((h for s in reversed(self.segments[:start]) if (h := heading_of(s.text))), "")

    @property
    def scored(self) -> bool:
        return len(self.parts) * CHUNK_SEGMENTS >= len(self.segments)


class CrossDocumentBatcher:
    def __init__(self, model: ChunkedModel, max_documents: int = 16) -> None:
        self._model = model
        self._max_documents = max_documents
        self._waiting: queue.Queue[_Document] = queue.Queue()
        self.batch_sizes: deque[int] = deque(maxlen=1000)  # documents per recent model call, for logs and tests
        threading.Thread(target=self._serve, name="model-batcher", daemon=True).start()

    def predict(self, segments: list[Segment], timeout_s: float | None = None, addons: list[Any] | None = None) -> list[Finding]:
        """One document's findings (with those of the taught clause types in `addons`); blocks the
        calling task thread until its last part has run, or raises TimeoutError after `timeout_s`
        (the rest of its parts are then skipped)."""
        document = _Document(list(segments), list(addons or ()))
        self._waiting.put(document)
        try:
            return document.result.result(timeout=timeout_s)
        except FutureTimeout:
            document.result.cancel()
            raise TimeoutError(f"the model did not finish within {timeout_s:.0f} s") from None

    def _serve(self) -> None:
        active: list[_Document] = []
        while True:
            if not active:
                active.append(self._waiting.get())
            while len(active) < self._max_documents:
                try:
                    active.append(self._waiting.get_nowait())
                except queue.Empty:
                    break
            active = [d for d in active if not d.result.cancelled()]  # their tasks gave up waiting
            if not active:
                continue
            self.batch_sizes.append(len(active))
            try:
                scores = self._model.chunk_probabilities([d.next_chunk() for d in active], [d.end for d in active],
                                                         [d.heading() for d in active],
                                                         addons=[d.addons for d in active])
            except BaseException as error:  # noqa: BLE001 - handed to every waiting task
                for d in active:
                    _settle(d.result, error=error)
                active = []
                continue
            for d, part in zip(active, scores):
                d.parts.append(part)
            finished = [d for d in active if d.scored]
            active = [d for d in active if not d.scored]
            for d in finished:
                try:
                    _settle(d.result, value=self._model.document_findings(d.segments, _joined(d.parts), d.addons))
                except BaseException as error:  # noqa: BLE001 - this document's own failure
                    _settle(d.result, error=error)


def _joined(parts: list[Any]) -> Any:
    if len(parts) == 1:
        return parts[0]
    import torch

    return torch.cat(parts)


def _settle(result: Future[list[Finding]], value: list[Finding] | None = None,
            error: BaseException | None = None) -> None:
    """Set the outcome unless the waiting task already gave up (a cancelled future)."""
    if not result.set_running_or_notify_cancel():
        return
    if error is not None:
        result.set_exception(error)
    else:
        result.set_result(value or [])


class GpuModel:
    """The gpu worker's model: loaded once per process, before the worker consumes (its
    start hook, workers/celery_app.py), and shared by the worker's task threads.

    Loading also happens on first use, so a task run outside a worker (a test) still works.
    """

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._batcher: CrossDocumentBatcher | None = None
        self._version = ""
        self._lock = threading.Lock()
        self._addons: OrderedDict[str, Any] = OrderedDict()  # taught clause types by version, most recent last

    def load(self) -> CrossDocumentBatcher:
        with self._lock:
            if self._batcher is None:
                import torch

                from models.inference import load_clause_model

                model = load_clause_model(self._settings.model_checkpoint, int8=self._settings.model_int8,
                                          threads=self._settings.model_threads)
                logs.log("model loaded", stage=Stage.ANALYSE_MODEL, batch_id=None, version=model.version,
                         device=str(model.device), precision=model.precision, threads=torch.get_num_threads())
                self._batcher, self._version = CrossDocumentBatcher(model), model.version
            return self._batcher

    def predict(self, segments: list[Segment], pinned: dict[str, dict] | None = None) -> list[Finding]:
        """The document's findings, with those of the taught clause types its batch pinned;
        AnalyserSkipped when the model took longer than the stage's time limit (less a margin
        to record it), which a thread pool does not enforce: the document goes on with the
        rules' findings alone, and its report says so."""
        limit_s = max(1, self._settings.time_limit_s(SPECS[Stage.ANALYSE_MODEL]) - WAIT_MARGIN_S)
        batcher = self.load()
        try:
            return batcher.predict(segments, timeout_s=limit_s, addons=self.addons(pinned or {}))
        except TimeoutError:
            raise AnalyserSkipped(f"rules only: the model did not finish this file within its {limit_s} s time "
                                  f"limit ({len(segments)} segments); raise CLAUSEMILL_ANALYSE_TIME_LIMIT_S and "
                                  "audit it again for the model's findings") from None


    def addons(self, pinned: dict[str, dict]) -> list[Any]:
        """The pinned taught types' add-ons, read from the database once per version (any host's
        worker reads the same bytes) and kept for the next documents."""
        found = []
        for name, pin in sorted(pinned.items()):
            version = pin["version"]
            with self._lock:
                addon = self._addons.get(version)
                if addon is not None:
                    self._addons.move_to_end(version)
            if addon is None:
                from models.addons import load_addon
                from storage.clause_types import version_weights
                from storage.database import session_scope

                with session_scope(self._settings.effective_database_url, write=False) as session:
                    weights = version_weights(session, version)
                if weights is None:
                    raise LookupError(f"clause type {name!r} version {version} is not in the database")
                try:
                    addon = load_addon(weights, self._version)
                except ValueError as error:  # a worker whose checkpoint is not the one the batch pinned for
                    logs.log("clause type left out", stage=Stage.ANALYSE_MODEL, batch_id=None, level=logging.WARNING,
                             clause_type=name, why=str(error))
                    continue
                with self._lock:
                    self._addons[version] = addon
                    while len(self._addons) > ADDONS_KEPT:
                        self._addons.popitem(last=False)
            found.append(addon)
        return found


ADDONS_KEPT = 64
"""Taught clause types' add-ons kept loaded (about half a megabyte each)."""
WAIT_MARGIN_S = 5
"""Seconds left of the stage's limit to record the failure."""
