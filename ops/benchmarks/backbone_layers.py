"""How many of the backbone's layers the experts need: checkpoints side by side, in one run.

The backbone is frozen, so experts trained on the states of its first N layers
(`ModelConfig(layers=N)`) cost only those layers at inference.  This loads each checkpoint
given (int8 on a CPU, as the gpu worker runs it), times its model stage, cascade on, on the
validation contracts' segments in alternating rounds (the machine is shared and noisy: each
round runs every checkpoint once, so the ratios are measured side by side), and scores it
beside the rules and key terms as model_cascade.py does: AUPR, P@80R, P@90R, recall at
threshold 0 and presence macro-F1.

    python ops/benchmarks/backbone_layers.py CHECKPOINT [CHECKPOINT ...] [--rounds 2]

The first checkpoint is the one the others are compared with.

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_ceiling import CUAD, prediction_lines, rule_lines, score, scorer_module  # noqa: E402

from models.checkpoint import load_checkpoint  # noqa: E402
from models.corpus import load_cuad, read_split  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.runtime import pick_device  # noqa: E402
from models.training import SPLIT_FILE  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoints", type=Path, nargs="+")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")
    models = [ClauseModel(load_checkpoint(path), pick_device("cpu"), int8=True) for path in args.checkpoints]
    validation = read_split(SPLIT_FILE)
    chosen = [d for d in load_cuad(CUAD) if d.name in validation]
    segments_of = [d.segments() for d in chosen]
    n = sum(len(s) for s in segments_of)
    names = [d.name for d in chosen]
    rules = rule_lines(chosen, segments_of)
    for model in models:
        model.probabilities([segments_of[0]])  # warm-up
    rates: list[list[float]] = [[] for _ in models]
    probabilities: list[list] = [[] for _ in models]
    for _ in range(args.rounds):
        for i, model in enumerate(models):
            started = time.perf_counter()
            probabilities[i] = [model.probabilities([segments])[0] for segments in segments_of]
            rates[i].append(n / (time.perf_counter() - started))
    scorer = scorer_module()
    print(f"{len(chosen)} validation contracts, {n} segments, {args.rounds} alternating rounds, int8, "
          f"{torch.get_num_threads()} threads\n")
    print("| checkpoint | layers | segments/s (each round) | vs the first, per round | AUPR | P@80R | P@90R | "
          "recall at 0 | presence macro-F1 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for i, model in enumerate(models):
        lines = prediction_lines(model, chosen, segments_of, probabilities[i], rules, tail=True)["union"]
        summary, _ = score(scorer, names, lines)
        ratios = " / ".join(f"{r / first:.2f}×" for r, first in zip(rates[i], rates[0]))
        print(f"| `{model.version}` | {model.config.layers} | {' / '.join(f'{r:.0f}' for r in rates[i])} | {ratios} | "
              f"{summary['aupr']:.3f} | {summary['prec_at_80_recall']:.3f} | {summary['prec_at_90_recall']:.3f} | "
              f"{summary['recall_at_0']:.3f} | {summary['presence_macro_f1']:.3f} |")


if __name__ == "__main__":
    main()
