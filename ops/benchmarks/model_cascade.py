"""What the cascade saves, and what it costs: the model stage with and without it, in one run.

The cascade (models/cascade.py) sends a segment through the backbone only when the router's
lexical term says it might matter, and encodes a text that repeats within a document once.
On the validation contracts' text files this runs the product's model (int8 backbone on a
CPU) twice in the same process, without and then with the cascade, and prints for each: the
share of segments skipped (ruled out, repeated), segments/s of the model stage, and the
accuracy of the model beside the rules and key terms (a plain union with the ranked tail, as
recall_ceiling.py scores it): AUPR, P@80R, P@90R, recall at threshold 0, presence macro-F1.

    python ops/benchmarks/model_cascade.py [--checkpoint PATH]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_ceiling import model_and_contracts, prediction_lines, score, scorer_module  # noqa: E402

from pipelines.rules import analyse_segments  # noqa: E402


def main() -> None:
    _, model, documents, validation = model_and_contracts(__doc__)
    chosen = [d for d in documents if d.name in validation]
    segments_of = [d.segments() for d in chosen]
    n = sum(len(s) for s in segments_of)
    rule_lines = [{"document": d.name, "category": f.category, "text": f.text, "probability": f.confidence}
                  for d, segments in zip(chosen, segments_of) for f in analyse_segments(d.text, segments)]
    scorer = scorer_module()
    names = [d.name for d in chosen]
    model.probabilities([segments_of[0]])  # warm-up
    print(f"{len(chosen)} validation contracts, {n} segments; model {model.version} ({model.precision}, "
          f"{torch.get_num_threads()} threads)\n")
    print("| model stage | skipped: ruled out | skipped: repeated | segments/s | AUPR | P@80R | P@90R | "
          "recall at 0 | presence macro-F1 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for cascade in (False, True):
        model.cascade = cascade
        model.counts.clear()
        started = time.perf_counter()
        probabilities = [model.probabilities([segments])[0] for segments in segments_of]
        seconds = time.perf_counter() - started
        lines = prediction_lines(model, chosen, segments_of, probabilities, rule_lines, tail=True)["union"]
        summary, _ = score(scorer, names, lines)
        counts = model.counts
        print(f"| {'with' if cascade else 'without'} the cascade | {counts['skipped'] / n:.1%} | "
              f"{counts['repeated'] / n:.1%} | {n / seconds:.0f} | {summary['aupr']:.3f} | "
              f"{summary['prec_at_80_recall']:.3f} | {summary['prec_at_90_recall']:.3f} | "
              f"{summary['recall_at_0']:.3f} | {summary['presence_macro_f1']:.3f} |")


if __name__ == "__main__":
    main()
