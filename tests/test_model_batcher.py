"""The gpu worker's cross-document batching: documents that wait together share one model
call, a long document is scored a part at a time beside the others, and a task stops waiting
at its time limit."""
from __future__ import annotations

import threading
import time

import pytest

from pipelines.datamodel import Finding, Segment
from workers import model_batcher
from workers.model_batcher import CHUNK_SEGMENTS, CrossDocumentBatcher


def segments_of(n: int, tag: int | None = None) -> list[Segment]:
    return [Segment(i, f"clause {tag if tag is not None else n}.{i}", 10 * i, 10 * i + 9, 1) for i in range(n)]


class EchoModel:
    """Scores each segment by its text and gives one finding per segment; `gate`, when set,
    holds every call until it opens, and `calls` records the chunk sizes of each call."""

    def __init__(self, gate: threading.Event | None = None, seconds_per_call: float = 0.0) -> None:
        self.gate, self.calls, self.running = gate, [], threading.Event()
        self.seconds_per_call = seconds_per_call

    def chunk_probabilities(self, chunks: list[list[Segment]], ends: list[int], headings: list[str], *,
                            addons: list[list]) -> list[list[str]]:
        self.running.set()
        if self.gate is not None:
            self.gate.wait(5)
        time.sleep(self.seconds_per_call)
        self.calls.append([len(c) for c in chunks])
        return [[s.text for s in chunk] for chunk in chunks]

    def document_findings(self, segments: list[Segment], probability: list[str], addons: list) -> list[Finding]:
        assert probability == [s.text for s in segments]  # the parts joined in order
        return [Finding("Audit Rights", s.text, s.start, s.end, s.page, 0.5, "model", "t") for s in segments]


def _joined_lists(parts):  # noqa: ANN001, ANN202 - EchoModel's parts are lists, not tensors
    return [x for part in parts for x in part]


@pytest.fixture(autouse=True)
def plain_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_batcher, "_joined", _joined_lists)


def test_documents_waiting_during_a_model_call_share_the_next_one() -> None:
    release = threading.Event()
    model = EchoModel(release)
    batcher = CrossDocumentBatcher(model, max_documents=16)
    results: dict[int, list[Finding]] = {}

    def run(n: int) -> None:
        results[n] = batcher.predict(segments_of(n))

    threads = [threading.Thread(target=run, args=(1,))]
    threads[0].start()
    assert model.running.wait(5)
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


def test_a_small_document_is_not_held_behind_a_long_one() -> None:
    model = EchoModel(seconds_per_call=0.05)
    batcher = CrossDocumentBatcher(model)
    done: list[str] = []
    long = threading.Thread(target=lambda: (batcher.predict(segments_of(6 * CHUNK_SEGMENTS, 0)), done.append("long")))
    long.start()
    while not model.calls:
        time.sleep(0.001)
    assert len(batcher.predict(segments_of(40, 1))) == 40
    done.append("small")
    long.join(10)
    assert done == ["small", "long"]
    assert all(size <= CHUNK_SEGMENTS for call in model.calls for size in call)
    assert sum(call[0] for call in model.calls) == 6 * CHUNK_SEGMENTS  # the long one, part by part


def test_a_failing_model_call_fails_every_document_in_it() -> None:
    class Failing(EchoModel):
        def chunk_probabilities(self, chunks, ends, headings, *, addons):  # noqa: ANN001, ANN202
            raise RuntimeError("CUDA out of memory")

    batcher = CrossDocumentBatcher(Failing())
    with pytest.raises(RuntimeError, match="out of memory"):
        batcher.predict(segments_of(2))


def test_a_task_stops_waiting_at_its_limit_and_the_model_goes_on_serving() -> None:
    gate = threading.Event()
    model = EchoModel(gate)
    batcher = CrossDocumentBatcher(model)
    with pytest.raises(TimeoutError, match="did not finish within"):
        batcher.predict(segments_of(3 * CHUNK_SEGMENTS), timeout_s=0.3)
    gate.set()
    assert len(batcher.predict(segments_of(5))) == 5
    assert sum(sum(call) for call in model.calls) < 3 * CHUNK_SEGMENTS + 5  # the given-up document was dropped
