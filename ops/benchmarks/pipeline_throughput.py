"""Throughput of the whole embedded pipeline on real CUAD contracts (a script, not a test).

Runs `clausemill audit` (its own workers, filesystem broker, SQLite) twice in one go — N text
PDFs, then the real scan alone — and prints contracts/min, pages/s, time per stage, and the
orchestration overhead: batch wall time ÷ (sum of stage time ÷ worker processes). 1.00 would
be perfect packing of stage work onto the workers; the excess is queueing, polling and
database round-trips.  Wall time counts from the moment the cpu worker is ready (worker
start-up, ~1.5 s, is a fixed cost of the embedded mode and is printed apart).

    python ops/benchmarks/pipeline_throughput.py [--n 40] [--workers 2]
    CLAUSEMILL_MODEL_ENABLED=false python ops/benchmarks/pipeline_throughput.py   # cpu stages only
    python ops/benchmarks/pipeline_throughput.py --validation   # the 84 validation PDFs, scored
    python ops/benchmarks/pipeline_throughput.py --training --keep DIR   # the 335 training PDFs, for tuning
    python ops/benchmarks/pipeline_throughput.py --n 20 --types 2   # the shipped clause types' cost, ABAB

`--validation` runs the contracts of docs/validation_split.txt instead of the first N and
scores the batch's own predictions.jsonl with shared/tools/cuad_score.py: the accuracy of the
product as a user gets it (PDF text layers, aggregation of rules and model), not of its parts.

`--training` audits the other 335 contracts, where a change to the product is tuned before
validation sees it once, and scores two parts apart: the 50 calibration contracts, held out of
the model's fitting (the draw `clausemill train` makes), so its confidences there are like a
new contract's, and the 285 fitting contracts.  Each part also gets recall and precision at
the thresholds where CUAD's P@90R is read (0.02, 0.01, 0.001, 0).  About 8 minutes here.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CUAD = REPO.parent / "shared" / "data" / "cuad"
SPLIT_FILE = REPO / "docs" / "validation_split.txt"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).parent))  # recall_ceiling: the scorer's loader and the calibration draw


def run_batch(files: list[Path], workers: int, label: str, score_with: dict[str, Path] | None = None,
              keep: Path | None = None, taught: bool = False) -> dict:
    from storage import repository
    from storage.database import session_scope

    with tempfile.TemporaryDirectory() as tmp:
        inputs = Path(tmp) / "in"
        inputs.mkdir()
        for f in files:
            (inputs / f.name).symlink_to(f)
        servers = ("CLAUSEMILL_BROKER_URL", "CLAUSEMILL_RESULT_BACKEND", "CLAUSEMILL_DATABASE_URL", "CLAUSEMILL_DATA_DIR")
        env = {k: v for k, v in os.environ.items() if k not in servers}  # always embedded
        env.update(CLAUSEMILL_DATA_DIR=str(Path(tmp) / "data"), CLAUSEMILL_CPU_CONCURRENCY=str(workers))
        if taught:  # the shipped clause types, trained and pinned by the audit (issue 44's cost)
            subprocess.run([sys.executable, "-m", "pipelines.cli", "clauses", "shipped"], env=env, cwd=REPO, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pipelines.cli", "audit", str(inputs), "--out", str(Path(tmp) / "out"),
                        "--batch-id", label], env=env, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        command_wall = time.perf_counter() - started
        url = f"sqlite:///{Path(tmp) / 'data' / 'clausemill.sqlite'}"
        with session_scope(url) as session:
            batch = repository.load_batch_result(session, label)
            from storage import schema

            row = session.get(schema.Batch, label)
        ready, task_seconds = worker_log_facts(Path(tmp) / "data" / "logs" / "cpu-worker.log")
        batch_wall = (row.finished_at - max(ready, row.created_at)).total_seconds()
        startup = (ready - row.created_at).total_seconds()
        predictions = Path(tmp) / "out" / "predictions.jsonl"
        scores = {part: score(predictions, docs) for part, docs in (score_with or {}).items()}
        if keep:
            shutil.copytree(Path(tmp) / "out", keep / label, dirs_exist_ok=True)
    stage_seconds: dict[str, float] = defaultdict(float)
    for d in batch.documents:
        for stage, seconds in d.timings.items():
            stage_seconds[stage] += seconds
    pages = sum(d.page_count or 0 for d in batch.documents if d.status == "done")
    busy = sum(stage_seconds.values())
    return {
        "label": label, "documents": len(batch.documents), "done": batch.count("done"), "failed": batch.count("failed"),
        "pages": pages, "batch_wall": batch_wall, "command_wall": command_wall, "stages": dict(stage_seconds),
        "startup": startup, "overhead": batch_wall / (busy / workers) if busy else float("nan"),
        "task_overhead": batch_wall / (task_seconds / workers) if task_seconds else float("nan"),
        "scores": scores,
    }


def score(predictions: Path, docs: Path) -> str:
    """cuad_score.py's metric for the batch's predictions (read once, in this process), then
    precision/recall at the thresholds where P@90R is read."""
    from recall_ceiling import scorer_module

    scorer = scorer_module()
    names = [n for n in docs.read_text(encoding="utf-8").splitlines() if n.strip()]
    gold, categories, aliases = scorer.load_gold(str(CUAD), names)
    found = scorer.load_pred(str(predictions), aliases, categories)[0]
    summary = scorer.summarise(*scorer.curve(gold, found))
    presence = scorer.presence(gold, found, categories, 0.5)[0]  # cuad_score.py's default threshold
    questions = scorer.prepare(gold, found)
    read = "  ".join("precision/recall at {}: {:.3f}/{:.3f}".format(t, *scorer.pr_at(questions, t))
                     for t in (0.02, 0.01, 0.001, 0.0))
    return (f"documents {len({k for k, _ in gold})}  AUPR {summary['aupr']:.3f}  "
            f"P@80R {summary['prec_at_80_recall']:.3f}  P@90R {summary['prec_at_90_recall']:.3f}  "
            f"presence macro-F1 {presence:.3f}\n    {read}")


def training_parts(folder: Path) -> dict[str, Path]:
    """The training split's calibration and fitting contracts, each written as a --docs file in `folder`."""
    from models.corpus import load_cuad
    from recall_ceiling import calibration_documents

    held_out = {n for n in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if n.strip()}
    documents = load_cuad(CUAD)
    calibration = {d.name for d in calibration_documents(documents, held_out)}
    fitting = {d.name for d in documents if d.name not in held_out} - calibration
    parts = {"50 calibration contracts": calibration, "285 fitting contracts": fitting}
    for number, (part, names) in enumerate(parts.items()):
        (folder / f"part-{number}.txt").write_text("\n".join(sorted(names)) + "\n", encoding="utf-8")
    return {part: folder / f"part-{number}.txt" for number, part in enumerate(parts)}


def worker_log_facts(log: Path) -> tuple[datetime, float]:
    """When the cpu worker became ready, and the run time of all its tasks (Celery's own count,
    which includes each task's database bookkeeping around the stage itself)."""
    ready, total = None, 0.0
    for line in log.read_text().splitlines():
        if ready is None and line.endswith(" ready."):
            ready = datetime.strptime(line[1:24], "%Y-%m-%d %H:%M:%S,%f")
        if match := re.search(r"succeeded in ([0-9.e-]+)s", line):
            total += float(match.group(1))
    if ready is None:
        sys.exit(f"no 'ready.' line in {log}")
    return ready, total


def show(result: dict, workers: int) -> None:
    wall = result["batch_wall"]
    print(f"\n== {result['label']}: {result['documents']} documents ({result['done']} done, {result['failed']} failed), "
          f"{result['pages']} pages, {workers} cpu worker processes")
    print(f"batch wall {wall:.1f} s from worker ready (worker start-up {result['startup']:.1f} s; whole command incl. "
          f"start/stop and reports: {result['command_wall']:.1f} s)")
    print(f"contracts/min {60 * result['done'] / wall:.1f}   pages/s {result['pages'] / wall:.2f}")
    for stage, seconds in sorted(result["stages"].items(), key=lambda kv: -kv[1]):
        print(f"  {stage:<14} {seconds:8.2f} s total   {1000 * seconds / max(result['documents'], 1):8.1f} ms/document")
    print(f"orchestration overhead: wall / (stage time / workers) = {result['overhead']:.2f}; "
          f"wall / (task run time / workers) = {result['task_overhead']:.2f}")
    for part, line in result["scores"].items():
        print(f"cuad_score.py on the batch's predictions.jsonl, {part}: {line}")


def taught_cost(pdfs: list[Path], workers: int, rounds: int) -> None:
    """The same batch without and with the shipped clause types, in turn (A B A B: this machine's
    speed drifts), and what they cost: contracts/min and the model stage's time per contract."""
    from pipelines.clause_types.shipped import shipped_types

    n_types = len(shipped_types())
    runs: dict[bool, list[dict]] = {False: [], True: []}
    for round_ in range(rounds):
        for taught in (False, True):
            result = run_batch(pdfs, workers, f"{'taught' if taught else 'plain'}-{round_}", taught=taught)
            runs[taught].append(result)
            print(f"{result['label']}: {60 * result['done'] / result['batch_wall']:.1f} contracts/min, model stage "
                  f"{1000 * result['stages'].get('analyse_model', 0) / max(result['documents'], 1):.0f} ms/contract",
                  flush=True)

    def mean(taught: bool, key: str) -> float:
        values = [60 * r["done"] / r["batch_wall"] if key == "rate" else r["stages"].get("analyse_model", 0) / r["documents"]
                  for r in runs[taught]]
        return sum(values) / len(values)

    rate0, rate1 = mean(False, "rate"), mean(True, "rate")
    model0, model1 = mean(False, "model"), mean(True, "model")
    print(f"\n{len(pdfs)} text PDFs, {rounds} rounds: {rate0:.1f} contracts/min without taught types, {rate1:.1f} with "
          f"{n_types}: {100 * (rate0 - rate1) / rate0:.1f}% slower, {100 * (rate0 - rate1) / rate0 / n_types:.2f}% per "
          f"type; the model stage {1000 * model0:.0f} -> {1000 * model1:.0f} ms per contract "
          f"({100 * (model1 - model0) / model0:+.1f}%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=40, help="text PDFs from CUAD")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--validation", action="store_true", help="the validation split's PDFs, scored")
    parser.add_argument("--training", action="store_true",
                        help="the training split's PDFs, scored on its calibration and fitting contracts apart")
    parser.add_argument("--keep", type=Path, help="copy each batch's reports here (a folder per batch)")
    parser.add_argument("--types", type=int, default=0, metavar="ROUNDS",
                        help="the cost of the shipped clause types: ROUNDS pairs of the text PDFs without and with "
                             "them, in turn")
    args = parser.parse_args()
    if not (CUAD / "pdf").is_dir():
        sys.exit(f"CUAD not found at {CUAD}")
    if args.validation:
        names = [n for n in SPLIT_FILE.read_text(encoding="utf-8").splitlines() if n.strip()]
        show(run_batch([CUAD / "pdf" / n for n in names], args.workers, "validation", {"validation": SPLIT_FILE},
                       args.keep), args.workers)
        return
    if args.training:
        with tempfile.TemporaryDirectory() as tmp:
            parts = training_parts(Path(tmp))
            names = sorted(n for docs in parts.values() for n in docs.read_text(encoding="utf-8").splitlines() if n)
            show(run_batch([CUAD / "pdf" / n for n in names], args.workers, "training", parts, args.keep), args.workers)
        return
    pdfs = sorted((CUAD / "pdf").iterdir())[: args.n]
    if args.types:
        taught_cost(pdfs, args.workers, args.types)
        return
    show(run_batch(pdfs, args.workers, "text-pdfs", keep=args.keep), args.workers)
    show(run_batch(sorted((CUAD / "scanned").iterdir()), args.workers, "scan", keep=args.keep), args.workers)


if __name__ == "__main__":
    main()
