"""Does reviewers' feedback improve the machine?  A simulated reviewer works the queue, then
`clausemill recalibrate`'s fit is scored on the validation split.

The reviewer answers from CUAD's expert labels: it accepts an item whose quote overlaps an
expert snippet of its category in that contract (issue_quotes.overlaps), rejects it as the
wrong span when the experts found the category elsewhere in the contract, and as not a clause
otherwise; the label recalibration takes is presence (pipelines.review.recalibration.label_of).
It works every
presence item of the budgeted queue (5 per contract, plus the 2% audit sample) of N
contracts.  Those contracts are training-split contracts the model was *not* fitted on: the
15% that training held out to calibrate it (models/training.py draws them with its seed), so
their confidences are as honest as on new contracts.  On the model's own fitting contracts a
reviewer would mostly confirm what it memorised, and recalibrating on that would teach it to
trust itself more than it should.

The fit (pipelines.review.recalibration.fit, what `clausemill recalibrate` runs) is then
applied to every validation contract's merged findings, and compared with no recalibration:

- reliability of the best candidate of each (contract, category): does its confidence say
  how often the experts found the category in the contract? (log loss, Brier, calibration
  error);
- presence macro-F1 over CUAD's categories at the playbook's `present` threshold;
- presence errors, and how many of them the budgeted queue (its priority uses the confidence)
  puts in front of a person.

Per-category maps are monotone, so CUAD's AUPR (a ranking within each category) does not
move; it is not reported.

    python ops/benchmarks/review_feedback.py --work /tmp/rf       # audits once, then measures

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from issue_quotes import assess, load_snippets, overlaps, words  # noqa: E402

from models.corpus import load_cuad, read_split  # noqa: E402
from models.training import SPLIT_FILE, TrainSettings  # noqa: E402
from pipelines.assessment import DocumentAssessment  # noqa: E402
from pipelines.categories import CUAD_CATEGORIES  # noqa: E402
from pipelines.review.budget import Budget, best_per_category  # noqa: E402
from pipelines.review.recalibration import (Calibration, Label, fit, label_of, params_of,  # noqa: E402
                                            reliability, uncalibrated)

CUAD = REPO.parent / "shared" / "data" / "cuad"
SIZES = (10, 25, 50)


def calibration_contracts() -> list[str]:
    """The training contracts models/training.py held out of fitting, in its draw order."""
    validation = read_split(SPLIT_FILE)
    names = [d.name for d in load_cuad(CUAD) if d.name not in validation]
    settings = TrainSettings()
    order = np.random.default_rng(settings.fit.seed).permutation(len(names))
    return [names[i] for i in order[:max(1, round(len(names) * settings.calibration_share))]]


def audited(work: Path, name: str, contracts: list[str]) -> Path:
    """The data dir of a `clausemill audit` of `contracts` (run once, kept under `work`)."""
    data = work / name / "data"
    if (data / "clausemill.sqlite").exists():
        return data
    folder = work / name / "pdf"
    folder.mkdir(parents=True, exist_ok=True)
    for contract in contracts:
        link = folder / contract
        if not link.exists():
            link.symlink_to(CUAD / "pdf" / contract)
    env = {**os.environ, "CLAUSEMILL_DATA_DIR": str(data)}
    subprocess.run([sys.executable, "-m", "pipelines.cli", "audit", str(folder), "-o", str(work / name / "out"),
                    "--batch-id", name], env=env, cwd=REPO, check=True)
    return data


def simulated_decisions(assessments: dict[str, DocumentAssessment], snippets) -> tuple[list[Label], dict]:  # type: ignore[no-untyped-def]
    """The reviewer's answer on every presence item of each contract's queue."""
    labels, queued = [], defaultdict(int)
    for number, (filename, a) in enumerate(sorted(assessments.items())):
        for item in a.review:
            if item.parts.get("question") != "presence":
                continue
            f = item.finding
            expert = snippets.get((filename, f.category), [])
            accept = any(overlaps(words(f.text), s) for s in expert)
            right = label_of("accept" if accept else "reject", None if accept else
                             ("wrong_span" if expert else "not_a_clause"), {}, f.category)
            sampled = bool(item.parts.get("sample"))
            labels.append(Label(f.category, number, uncalibrated(f), right, sampled,
                                float(item.parts.get("sample_rate") or 0.02)))
            queued[f.category, sampled] += 1
    return labels, queued


def score(assessments: dict[str, DocumentAssessment], snippets, gold: dict[str, set[str]]) -> dict:  # type: ignore[no-untyped-def]
    p, y = [], []
    tp, fp, fn = defaultdict(int), defaultdict(int), defaultdict(int)
    errors = caught = 0
    for filename, a in assessments.items():
        best = {f.category: f for f in best_per_category(m.finding for m in a.findings) if f.category in CUAD_CATEGORIES}
        truth = gold.get(filename, set())
        for category, f in best.items():
            p.append(f.confidence)
            y.append(float(category in truth))
        called = {c for c, f in best.items() if f.confidence >= a.thresholds.present}
        reviewed = {r.finding.category for r in a.review}
        for c in CUAD_CATEGORIES:
            tp[c] += c in called and c in truth
            fp[c] += c in called and c not in truth
            fn[c] += c not in called and c in truth
            if (c in called) != (c in truth):
                errors += 1
                caught += c in reviewed
    f1 = [2 * tp[c] / (2 * tp[c] + fp[c] + fn[c]) for c in CUAD_CATEGORIES if tp[c] + fp[c] + fn[c]]
    r = reliability(p, y, [1.0] * len(p))
    return {"log_loss": r.log_loss, "brier": r.brier, "ece": r.ece, "f1": sum(f1) / len(f1), "errors": errors,
            "caught": caught}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="Folder for the two audits (kept between runs).")
    args = parser.parse_args()
    reviewed_pool = calibration_contracts()
    validation = sorted(read_split(SPLIT_FILE))
    train_data = audited(args.work, "calibration-contracts", reviewed_pool)
    val_data = audited(args.work, "validation", validation)
    budget = Budget(per_contract=5, sample_rate=0.02)
    pool = assess(train_data, budget)
    order = [name for name in reviewed_pool if name in pool]
    snippets = load_snippets(set(pool) | set(validation))
    gold: dict[str, set[str]] = defaultdict(set)
    for (filename, category) in snippets:
        gold[filename].add(category)
    before = score(assess(val_data, budget), snippets, gold)
    print(f"Validation: {len(validation)} contracts; reviewer's pool: {len(order)} calibration contracts.\n")
    print("| contracts reviewed | decisions | categories recalibrated | log loss | Brier | calibration error "
          "| presence macro-F1 | presence errors (in the queue) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| 0 | 0 | 0 | {before['log_loss']:.4f} | {before['brier']:.4f} | {before['ece']:.4f} | {before['f1']:.4f} "
          f"| {before['errors']} ({before['caught']}) |")
    for size in (*[s for s in SIZES if s < len(order)], len(order)):
        labels, queued = simulated_decisions({n: pool[n] for n in order[:size]}, snippets)
        params = params_of(fit(labels, queued))
        after = score(assess(val_data, budget, calibration=Calibration(1, {c: (p["scale"], p["bias"]) for c, p in
                                                                              params.items()})), snippets, gold)
        print(f"| {size} | {len(labels)} | {len(params)} | {after['log_loss']:.4f} | {after['brier']:.4f} "
              f"| {after['ece']:.4f} | {after['f1']:.4f} | {after['errors']} ({after['caught']}) |")


if __name__ == "__main__":
    main()
