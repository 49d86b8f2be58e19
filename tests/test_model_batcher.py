"""The gpu worker's cross-document batching: documents that wait together share one model call."""
from __future__ import annotations

import threading

from pipelines.datamodel import Finding, Segment
from workers.model_batcher import CrossDocumentBatcher


def segments_of(n: int) -> list[Segment]:
    return [Segment(i, f"clause {n}.{i}", 10 * i, 10 * i + 9, 1) for i in range(n)]


def test_documents_waiting_during_a_model_call_share_the_next_one() -> None:
    first_call_running, release = threading.Event(), threading.Event()

    def predict_many(batch: list[list[Segment]]) -> list[list[Finding]]:
        first_call_running.set()
        release.wait(5)
        return [[Finding("Audit Rights", s.text, s.start, s.end, s.page, 0.5, "model", "t") for s in doc] for doc in batch]

    batcher = CrossDocumentBatcher(predict_many, max_documents=16)
    results: dict[int, list[Finding]] = {}

    def run(n: int) -> None:
        results[n] = batcher.predict(segments_of(n))

    threads = [threading.Thread(target=run, args=(1,))]
    threads[0].start()
    assert first_call_running.wait(5)
    threads += [threading.Thread(target=run, args=(n,)) for n in range(2, 9)]
    for t in threads[1:]:
        t.start()
    while batcher._waiting.qsize() < 7:  # all seven are queued behind the running call
        threading.Event().wait(0.01)
    release.set()
    for t in threads:
        t.join(5)

    assert list(batcher.batch_sizes) == [1, 7]
    assert {n: [f.text for f in fs] for n, fs in results.items()} == {n: [s.text for s in segments_of(n)] for n in range(1, 9)}


def test_a_failing_model_call_fails_every_document_in_it() -> None:
    def predict_many(batch: list[list[Segment]]) -> list[list[Finding]]:
        raise RuntimeError("CUDA out of memory")

    batcher = CrossDocumentBatcher(predict_many)
    try:
        batcher.predict(segments_of(2))
    except RuntimeError as error:
        assert "out of memory" in str(error)
    else:
        raise AssertionError("the model's error must reach the task")
