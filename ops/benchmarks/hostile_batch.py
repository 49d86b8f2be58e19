"""One batch of every hostile fixture beside real contracts: does it complete, how much memory
does it take, and how long?

Writes every file tests/test_hostile_input.py builds (pipelines/samples/hostile.py, our own
generators) and N CUAD PDFs into one folder, runs `clausemill audit` on it (embedded, model on)
and samples every process of the run (the audit, its workers, their pool processes and the
parse children) every 0.2 s.  It prints each document's outcome, the batch's wall time, and
the peak resident memory per process and of the whole run.

    python ops/benchmarks/hostile_batch.py [--cuad 20] [--work /tmp/hostile-batch]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

CUAD = REPO.parent / "shared" / "data" / "cuad"


def write_fixtures(folder: Path, cuad: int) -> None:
    from test_hostile_input import WRITERS

    folder.mkdir(parents=True, exist_ok=True)
    for name, write in WRITERS.items():
        write(folder / name)
    pdfs = sorted((CUAD / "pdf").glob("*"))[:cuad]
    for pdf in pdfs:
        (folder / pdf.name).symlink_to(pdf)


def rss_by_process(data_dir: str) -> dict[int, int]:
    """Resident bytes of every process whose environment names this run's data folder."""
    found = {}
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if f"CLAUSEMILL_DATA_DIR={data_dir}".encode() not in environ.read_bytes().split(b"\0"):
                continue
            status = (environ.parent / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                found[int(environ.parent.name)] = int(line.split()[1]) * 1024
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuad", type=int, default=20, help="CUAD PDFs to put beside the hostile files.")
    parser.add_argument("--work", type=Path, default=Path("/tmp/hostile-batch"))
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    folder, data_dir = args.work / "in", args.work / "data"
    write_fixtures(folder, args.cuad)
    env = {**os.environ, "CLAUSEMILL_DATA_DIR": str(data_dir)}
    peaks: dict[int, int] = {}
    total_peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal total_peak
        while not done.is_set():
            now = rss_by_process(str(data_dir))
            for pid, rss in now.items():
                peaks[pid] = max(peaks.get(pid, 0), rss)
            total_peak = max(total_peak, sum(now.values()))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "pipelines.cli", "audit", str(folder), "-o", str(args.work / "out")],
                            env=env, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - started
    done.set()
    sampler.join()
    if result.returncode:
        print(result.stdout[-3000:], result.stderr[-3000:])
        raise SystemExit(f"the audit failed with exit status {result.returncode}")
    documents = json.loads((args.work / "out" / "report.json").read_text())["documents"]
    statuses = Counter(d["status"] for d in documents)
    print(f"{len(documents)} documents ({len(documents) - args.cuad} hostile files, {args.cuad} CUAD PDFs): "
          f"{dict(statuses)}; batch wall time {wall:.0f} s\n")
    print("| file | outcome |\n| --- | --- |")
    for d in sorted(documents, key=lambda d: d["filename"]):
        if not (CUAD / "pdf" / d["filename"]).exists():
            print(f"| {d['filename']} | {d['status']}{': ' + d['reason'] if d['reason'] else ''} |")
    top = sorted(peaks.values(), reverse=True)
    print(f"\npeak resident memory: largest process {top[0] / 2**20:,.0f} MB, next {top[1] / 2**20:,.0f} MB; "
          f"all of the run's processes at once {total_peak / 2**20:,.0f} MB; {len(peaks)} processes seen")
    unaccounted = [d for d in documents if d["status"] not in ("done", "failed", "duplicate")]
    if unaccounted or any(d["status"] == "failed" and not d["reason"] for d in documents):
        raise SystemExit("some document ended without an outcome or a reason")


if __name__ == "__main__":
    main()
