"""What does parsing in a child process cost per call (pipelines/parsers/sandbox.py)?

Times, on the same files in one run: an empty child (fork, limits, one JSON message back),
then ingest and extraction of each CUAD PDF (the first --pdfs of ../shared/data/cuad/pdf, else a
generated sample contract) through the stages, against the same parser calls made in-process.

    python ops/benchmarks/parse_sandbox.py --pdfs 10 --repeat 20
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from pipelines.dag import Stage  # noqa: E402
from pipelines.parsers import parser_for, sniff_kind  # noqa: E402
from pipelines.parsers.limits import current_limits  # noqa: E402
from pipelines.parsers.sandbox import parse_isolated  # noqa: E402
from pipelines.stages.extract import extract_text_layer  # noqa: E402
from pipelines.stages.ingest import inspect_file, sha256_of  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"


def per_call_ms(call, repeat: int) -> float:
    """The median of `repeat` timed calls, in ms (the median: the machine is shared)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if (CUAD / "pdf").is_dir():
        pdfs = sorted((CUAD / "pdf").iterdir())[: args.pdfs]
    else:
        from pipelines.samples import generate_contract, write_text_pdf

        pdfs = [Path(tempfile.mkdtemp()) / "sample.pdf"]
        write_text_pdf(generate_contract(7), pdfs[0])
    limits = current_limits()
    empty = per_call_ms(lambda: parse_isolated(Stage.INGEST, lambda: None, limits, "to do nothing"), args.repeat * 5)
    print(f"empty child: {empty:.2f} ms per call")
    rows = []
    for pdf in pdfs:
        pdf_parser = parser_for("pdf", Stage.EXTRACT)
        pages = len(pdf_parser.extract(pdf))
        ingest_in = per_call_ms(lambda: (sniff_kind(pdf), pdf_parser.survey(pdf), sha256_of(pdf)), args.repeat)
        ingest_child = per_call_ms(lambda: inspect_file(pdf, 200, 2000), args.repeat)
        extract_in = per_call_ms(lambda: pdf_parser.extract(pdf), args.repeat)
        extract_child = per_call_ms(lambda: extract_text_layer(pdf, "pdf"), args.repeat)
        rows.append((pages, ingest_in, ingest_child, extract_in, extract_child))
        print(f"{pdf.name[:50]:50s} {pages:4d} pages  ingest {ingest_in:6.1f} -> {ingest_child:6.1f} ms  "
              f"extract {extract_in:7.1f} -> {extract_child:7.1f} ms")
    n = len(rows)
    ingest_extra = statistics.median(r[2] - r[1] for r in rows)
    extract_extra = statistics.median(r[4] - r[3] for r in rows)
    extract_share = statistics.median((r[4] - r[3]) / r[3] for r in rows)
    print(f"median over {n} PDFs: ingest +{ingest_extra:.1f} ms, extract +{extract_extra:.1f} ms "
          f"(+{extract_share:.0%} of in-process extraction: fork, limits, pages as JSON and back)")


if __name__ == "__main__":
    main()
