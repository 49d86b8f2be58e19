"""Would a document-level presence model call clauses present better than the best candidate?

Issue 14 asks for the presence decision (the best candidate per contract and category) to get
its own calibrated model with document-level features.  This benchmark measures that before
anything is built: it reads an audit's report.json (the merged findings exactly as the product
keeps them), and per (contract, category) takes

- the best merged confidence (what CUAD's presence score reads today, at 0.5),
- the second best, the rules' and the model's own best evidence, whether both sources agree on
  the best candidate, whether its quote was set aside by the quote checks,
- how many candidates reach 0.1 and 0.3,
- optionally the category itself (one indicator each).

It fits an L2-regularised logistic regression on those features in 10 folds grouped by
contract and prints CUAD's presence macro-F1 of the out-of-fold probabilities at three
thresholds, beside the product's own call.  Run it on the calibration contracts (held out of
the model's fitting, so their scores are like a new contract's):

    python ops/benchmarks/presence_model.py --report /tmp/w/calib/out/report.json

`ops/benchmarks/review_feedback.py` audits them (`audited(work, "calib", calibration_contracts())`).
CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from logistic import fit_logistic  # noqa: E402
from recall_ceiling import scorer_module  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CUAD = REPO.parent / "shared" / "data" / "cuad"
RULE_SOURCES = ("rules", "key-terms")
FOLDS = 10
THRESHOLDS = (0.3, 0.4, 0.5)


@dataclass(frozen=True)
class Question:
    """One (contract, category): CUAD's answer and what the audit knew about it."""

    contract: str
    category: str
    present: bool
    features: dict[str, float]


def questions(report: Path, cuad: ModuleType) -> tuple[list[Question], list[str]]:
    documents = [d for d in json.loads(report.read_text(encoding="utf-8"))["documents"] if d["assessment"]]
    gold, categories, aliases = cuad.load_gold(str(CUAD), [d["filename"] for d in documents])
    found = []
    for document in documents:
        contract = aliases[Path(document["filename"]).stem.lower()]
        by_category = defaultdict(list)
        for merged in document["assessment"]["findings"]:
            by_category[cuad.norm_cat(merged["finding"]["category"])].append(merged)
        for category in categories:
            found.append(Question(contract, category, bool(gold[(contract, category)]),
                                  _features(by_category.get(category, []))))
    return found, categories


def _features(merged: list[dict]) -> dict[str, float]:
    ranked = sorted(merged, key=lambda m: -m["finding"]["confidence"])
    confidences = [m["finding"]["confidence"] for m in ranked]
    evidence = [e for m in ranked for e in m["evidence"]]
    best_sources = set(ranked[0]["finding"]["source"].split("+")) if ranked else set()
    note = (ranked[0]["finding"]["note"] or "") if ranked else ""
    return {
        "best": _logit(confidences[0] if confidences else 0.0),
        "second": _logit(confidences[1] if len(confidences) > 1 else 0.0),
        "rules": _logit(max((e["confidence"] for e in evidence if e["source"] in RULE_SOURCES), default=0.0)),
        "model": _logit(max((e["confidence"] for e in evidence if e["source"] == "model"), default=0.0)),
        "agree": float(bool(best_sources & set(RULE_SOURCES)) and "model" in best_sources),
        "set_aside": float("set aside" in note.lower()),
        "over_0.1": math.log1p(sum(c >= 0.1 for c in confidences)),
        "over_0.3": math.log1p(sum(c >= 0.3 for c in confidences)),
    }


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def macro_f1(cuad: ModuleType, qs: list[Question], said: list[bool], categories: list[str]) -> float:
    """CUAD's presence macro-F1 of these calls, by cuad_score.py's own function."""
    gold = {(q.contract, q.category): [q.category] if q.present else [] for q in qs}
    calls = {(q.contract, q.category): {q.category: 1.0 if s else 0.0} for q, s in zip(qs, said)}
    return cuad.presence(gold, calls, categories, 0.5)[0]


def design(qs: list[Question], names: list[str], categories: list[str] | None) -> torch.Tensor:
    rows = []
    for q in qs:
        row = [q.features[n] for n in names]
        if categories:
            row += [float(q.category == c) for c in categories]
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float64)


def out_of_fold(qs: list[Question], x: torch.Tensor, l2: float) -> torch.Tensor:
    """Each question's probability from a model fitted without its contract."""
    contracts = sorted({q.contract for q in qs})
    fold_of = {c: i % FOLDS for i, c in enumerate(contracts)}
    y = torch.tensor([float(q.present) for q in qs], dtype=torch.float64)
    folds = torch.tensor([fold_of[q.contract] for q in qs])
    mean, std = x.mean(0), x.std(0).clamp_min(1e-6)
    x = (x - mean) / std
    probability = torch.zeros(len(qs), dtype=torch.float64)
    for fold in range(FOLDS):
        held = folds == fold
        weight, bias = fit_logistic(x[~held], y[~held], l2)
        probability[held] = torch.sigmoid(x[held] @ weight + bias)
    return probability


FEATURE_SETS = {
    "best candidate only": ["best"],
    "+ second best, rules, model, agreement, set aside": ["best", "second", "rules", "model", "agree", "set_aside"],
    "+ candidate counts": ["best", "second", "rules", "model", "agree", "set_aside", "over_0.1", "over_0.3"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", type=Path, required=True, help="an audit's report.json")
    args = parser.parse_args()
    cuad = scorer_module()
    qs, categories = questions(args.report, cuad)
    print(f"{len({q.contract for q in qs})} contracts, {len(qs)} (contract, category) questions, "
          f"{FOLDS} folds by contract\n")
    print("| presence call | L2 | " + " | ".join(f"F1 at {t}" for t in THRESHOLDS) + " |")
    print("| --- | ---: |" + " ---: |" * len(THRESHOLDS))
    product = macro_f1(cuad, qs, [q.features["best"] >= 0.0 for q in qs], categories)  # logit >= 0: p >= 0.5
    print(f"| the product (best merged confidence >= 0.5) | | | | {product:.4f} |")
    for label, names in FEATURE_SETS.items():
        for with_category in (False, True):
            for l2 in (1e-3, 1e-2):
                x = design(qs, names, categories if with_category else None)
                probability = out_of_fold(qs, x, l2)
                scores = [macro_f1(cuad, qs, (probability >= t).tolist(), categories) for t in THRESHOLDS]
                name = label + (", per category" if with_category else "")
                print(f"| {name} | {l2:g} | " + " | ".join(f"{s:.4f}" for s in scores) + " |")


if __name__ == "__main__":
    main()
