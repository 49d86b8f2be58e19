"""Head-of-line blocking on the gpu worker: how long do small contracts wait behind a huge one?

One huge document (many synthetic contracts' segments end to end) is handed to the gpu
worker's batcher (workers/model_batcher.py) with the real model, and a moment later a few
ordinary contracts, as task threads would.  It prints each small contract's latency and the
huge one's, with the batcher scoring a document a part at a time (the product,
CHUNK_SEGMENTS) and, in the same run, whole (the part size set past the huge document: how it
worked before).

    python ops/benchmarks/model_fairness.py [--contracts 40] [--small 4]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from models.inference import load_clause_model  # noqa: E402
from pipelines.datamodel import PageText, Segment  # noqa: E402
from pipelines.samples import generate_contract  # noqa: E402
from pipelines.stages.segment import segment_document  # noqa: E402
from workers import model_batcher  # noqa: E402


def segments(seed: int) -> list[Segment]:
    return segment_document([PageText(number=1, text=generate_contract(seed).text, source="plain")])


def huge(contracts: int) -> list[Segment]:
    out: list[Segment] = []
    offset = 0
    for seed in range(contracts):
        for s in segments(seed):
            out.append(Segment(len(out), s.text, s.start + offset, s.end + offset, s.page))
        offset = out[-1].end + 2
    return out


def run(model, big: list[Segment], small: list[list[Segment]], chunk: int) -> tuple[list[float], float]:  # type: ignore[no-untyped-def]
    model_batcher.CHUNK_SEGMENTS = chunk
    batcher = model_batcher.CrossDocumentBatcher(model)
    latencies: dict[str, float] = {}

    def predict(name: str, segs: list[Segment]) -> None:
        started = time.perf_counter()
        batcher.predict(segs)
        latencies[name] = time.perf_counter() - started

    threads = [threading.Thread(target=predict, args=("huge", big))]
    threads[0].start()
    time.sleep(0.5)  # the huge one is being scored when the others arrive
    threads += [threading.Thread(target=predict, args=(f"small-{i}", segs)) for i, segs in enumerate(small)]
    for t in threads[1:]:
        t.start()
    for t in threads:
        t.join()
    return [latencies[f"small-{i}"] for i in range(len(small))], latencies["huge"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=40, help="Synthetic contracts joined into the huge document.")
    parser.add_argument("--small", type=int, default=4, help="Ordinary contracts arriving behind it.")
    args = parser.parse_args()
    model = load_clause_model(device="cpu")
    big = huge(args.contracts)
    small = [segments(1000 + i) for i in range(args.small)]
    print(f"huge document: {len(big)} segments; small ones: {[len(s) for s in small]} segments; model "
          f"{model.version} ({model.precision})\n")
    print("| scoring | small contracts' latency (median / max) | huge document's latency |\n| --- | ---: | ---: |")
    product = model_batcher.CHUNK_SEGMENTS
    for label, chunk in ((f"a part ({product} segments) per round", product), ("whole documents (before)", len(big) + 1)):
        waits, whole = run(model, big, small, chunk)
        print(f"| {label} | {statistics.median(waits):.1f} s / {max(waits):.1f} s | {whole:.1f} s |")
    model_batcher.CHUNK_SEGMENTS = product


if __name__ == "__main__":
    main()
