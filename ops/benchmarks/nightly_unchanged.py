"""How long an unchanged night takes against the first: `clausemill nightly` twice over the same
contracts, in a fresh embedded data folder, model on (the defaults).

Issue 43's acceptance: the second run takes at most 25% of the first.  Both runs are timed in
one invocation, so the ratio holds on a busy machine even when the seconds do not.

    .venv/bin/python ops/benchmarks/nightly_unchanged.py [--contracts 12]

Contracts: the first N CUAD training PDFs (../shared/data/cuad/pdf) when present, else the
project's own synthetic samples (`clausemill samples`).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CUAD_PDF = REPO.parent / "shared" / "data" / "cuad" / "pdf"
LIMIT = 0.25


def contracts(folder: Path, count: int) -> str:
    """Fill `folder` with `count` contracts; returns where they came from."""
    folder.mkdir()
    if CUAD_PDF.is_dir():
        for path in sorted(CUAD_PDF.glob("*.pdf"))[:count]:
            shutil.copy(path, folder / path.name)
        return f"the first {count} CUAD training PDFs"
    samples = folder.parent / "samples"
    subprocess.run([sys.executable, "-m", "pipelines.cli", "samples", str(samples)], cwd=REPO, check=True,
                   capture_output=True)
    good = [p for p in sorted(samples.iterdir()) if p.suffix in {".pdf", ".txt", ".docx"} and "broken" not in p.name]
    for path in good[:count]:
        shutil.copy(path, folder / path.name)
    return f"{min(count, len(good))} synthetic samples"


def nightly(env: dict[str, str], folder: Path, out: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipelines.cli", "nightly", str(folder), "--out", str(out)],
                          cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"nightly failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--contracts", type=int, default=12, help="how many contracts (default 12)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="clausemill-nightly-bench-") as tmp:
        root = Path(tmp)
        source = contracts(root / "contracts", args.contracts)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEMILL_")}
        env |= {"CLAUSEMILL_DATA_DIR": str(root / "data"), "PYTHONPATH": str(REPO)}
        first = nightly(env, root / "contracts", root / "out")
        second = nightly(env, root / "contracts", root / "out")
    ratio = second / first
    print(f"contracts: {source}")
    print(f"{'run':<22}{'seconds':>10}")
    print(f"{'first (audits all)':<22}{first:>10.1f}")
    print(f"{'second (unchanged)':<22}{second:>10.1f}")
    print(f"ratio {ratio:.2f} (limit {LIMIT:.2f}): {'within' if ratio <= LIMIT else 'OVER'} the limit")


if __name__ == "__main__":
    main()
