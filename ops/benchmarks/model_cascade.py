"""What the cascade saves, and what it costs: the model stage with and without it, in one run.

The cascade (models/cascade.py) sends a segment through the backbone only when the router's
lexical term says it might matter, and encodes a text that repeats within a document once.
On the validation contracts' text files this runs the product's model (int8 backbone on a
CPU) twice in the same process, without and then with the cascade, and prints for each: the
share of segments skipped (ruled out, repeated), segments/s of the model stage, and the
accuracy of the model beside the rules and key terms (a plain union with the ranked tail, as
recall_ceiling.py scores it): AUPR, P@80R, P@90R, recall at threshold 0, presence macro-F1.

`--fit` first sets the cut-off on the calibration contracts (training split, held out of
fitting, the same draw as `clausemill train`) so that 99.5% of their positive segments go
through, and writes it into the checkpoint, for a checkpoint trained before the cascade.

    python ops/benchmarks/model_cascade.py [--fit] [--checkpoint PATH]

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

from recall_ceiling import (  # noqa: E402
    calibration_documents, model_and_contracts, prediction_lines, rule_lines, score, scorer_module,
)

from models.cascade import PASS_SHARE, cascade_scores, fit_cascade  # noqa: E402
from models.checkpoint import save_checkpoint  # noqa: E402
from models.corpus import LabelledDocument, segment_labels  # noqa: E402
from models.inference import ClauseModel  # noqa: E402


def fit(model: ClauseModel, checkpoint: Path, documents: list[LabelledDocument]) -> None:
    """Set the cascade's cut-off on the calibration contracts and write it into the checkpoint."""
    c = model.config
    emitted = torch.tensor([category in c.emitted for category in c.categories])
    lexical, labels = [], []
    for doc in documents:
        segments = doc.segments()
        lexical.append(model.lexical_logits(model.backbone.token_ids([s.text for s in segments]),
                                            model.heading_ids([segments], [""])))
        labels.append(torch.from_numpy(segment_labels(segments, doc.spans, c.categories)))
    lexical_all, labels_all = torch.cat(lexical), torch.cat(labels)
    offset, cutoff = fit_cascade(lexical_all, labels_all, emitted)
    model.network.cascade_offset[:] = offset
    model.network.cascade_cutoff.fill_(cutoff)
    model.version = save_checkpoint(checkpoint, model.network.cpu(), c, model.backbone.hidden,
                                    model.backbone.vocab_size, model.backbone.tuned)
    passing = cascade_scores(lexical_all, offset) >= cutoff
    positive = (labels_all.bool() & emitted).any(1)
    print(f"cascade fitted on {len(documents)} calibration contracts ({len(lexical_all)} segments): cut-off "
          f"{cutoff:.3f}, {float(passing[positive].float().mean()):.4f} of positive segments pass "
          f"(target {PASS_SHARE}), {float((~passing).float().mean()):.3f} of all segments skip the backbone; "
          f"checkpoint {checkpoint} is now version {model.version}")


def main() -> None:
    args, model, documents, validation = model_and_contracts(__doc__, "set the cut-off on the calibration contracts first")
    if args.fit:
        fit(model, args.checkpoint, calibration_documents(documents, validation))
    chosen = [d for d in documents if d.name in validation]
    segments_of = [d.segments() for d in chosen]
    n = sum(len(s) for s in segments_of)
    rules = rule_lines(chosen, segments_of)
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
        lines = prediction_lines(model, chosen, segments_of, probabilities, rules, tail=True)["union"]
        summary, _ = score(scorer, names, lines)
        counts = model.counts
        print(f"| {'with' if cascade else 'without'} the cascade | {counts['skipped'] / n:.1%} | "
              f"{counts['repeated'] / n:.1%} | {n / seconds:.0f} | {summary['aupr']:.3f} | "
              f"{summary['prec_at_80_recall']:.3f} | {summary['prec_at_90_recall']:.3f} | "
              f"{summary['recall_at_0']:.3f} | {summary['presence_macro_f1']:.3f} |")


if __name__ == "__main__":
    main()
