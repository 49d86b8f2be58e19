"""Would fine-tuning the backbone rank clauses better than the frozen one? (issue 14)

The shipped model keeps MiniLM frozen: its ranking comes mostly from the router's word-piece
lexical term, and the experts on frozen token states add about 2 AP points (MODEL_CARD.md,
"Limits"). This measures the lever that leaves untouched: the backbone's first layers trained
end to end, with one linear head per category on the mean-pooled state, on the fitting contracts'
segments as `clausemill train` samples them (every positive, its neighbours, and a share of the
rest weighted by its inverse rate), the word-piece embeddings frozen, as models/finetuning.py
trains them (training the embeddings too measured no better, and a checkpoint could not hold
them).

Each segment of the calibration and validation contracts is then scored by the shipped model
(as the product scores it) and by the fine-tuned network. A logistic regression per category,
fitted on the calibration contracts, stacks the two logits (neighbour_lookup.stacked: it starts
from the model alone); the table gives the validation segments' macro average precision
(models/selection.py) of each. It measured the case for fine-tuning, which `clausemill
train` now does; with --checkpoint of a fine-tuned model it shows what tuning further would add.

    python ops/benchmarks/backbone_finetune.py [--max-length 128] [--negative-rate 0.06] [--epochs 6] [--lr 4e-5] [--save LAYERS.safetensors]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from neighbour_lookup import stacked  # noqa: E402
from recall_ceiling import CUAD, calibration_documents  # noqa: E402

from models.backbone import Backbone  # noqa: E402
from models.batching import pad_ids  # noqa: E402
from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint  # noqa: E402
from models.corpus import load_cuad, read_split, segment_labels  # noqa: E402
from models.finetuning import FineTuneSettings, clip_ids, fine_tune, stored_layers  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.runtime import quantize_int8  # noqa: E402
from models.sampling import sample_segments  # noqa: E402
from models.selection import macro_average_precision  # noqa: E402
from models.training import SPLIT_FILE, TrainSettings  # noqa: E402


@torch.inference_mode()
def fine_tuned_logits(scorer: torch.nn.Module, categories: int, ids: list[list[int]], pad_id: int) -> torch.Tensor:
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    out = torch.zeros((len(ids), categories))
    for start in range(0, len(order), 64):
        batch = order[start:start + 64]
        x, mask = pad_ids([ids[i] for i in batch], pad_id)
        out[batch] = scorer(x, mask).float()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    defaults = FineTuneSettings()
    parser.add_argument("--max-length", type=int, default=defaults.max_length)
    parser.add_argument("--negative-rate", type=float, default=0.06, help="share of far negatives kept for training")
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--lr", type=float, default=defaults.lr,
                        help=f"the backbone's learning rate (the heads': {defaults.head_lr:g})")
    parser.add_argument("--save", type=Path, help="write the fine-tuned layers' weights here (safetensors)")
    parser.add_argument("--contracts", type=int, help="train on the first N fitting contracts only (a quick try)")
    args = parser.parse_args()
    if not CUAD.is_dir():
        sys.exit(f"CUAD data not found at {CUAD}")
    torch.set_num_threads(2)
    started = time.perf_counter()
    model = ClauseModel(load_checkpoint(args.checkpoint), torch.device("cpu"), int8=True)
    categories = model.config.categories
    documents, validation = load_cuad(CUAD), read_split(SPLIT_FILE)
    calibration = calibration_documents(documents, validation)
    held = {d.name for d in calibration}
    fitting = [d for d in documents if d.name not in validation and d.name not in held][: args.contracts]
    backbone = Backbone(torch.device("cpu"), torch.float32, model.config.max_length, layers=model.backbone.layers,
                        tuned=model.backbone.tuned)

    rng = np.random.default_rng(TrainSettings().fit.seed)
    texts, labels, weights = [], [], []
    for doc in fitting:
        segments = doc.segments()
        doc_labels = segment_labels(segments, doc.spans, categories)
        sample = sample_segments(doc_labels, args.negative_rate, rng)
        texts += [segments[i].text for i in sample.indices]
        labels.append(torch.from_numpy(doc_labels[sample.indices]).float())
        weights.append(torch.from_numpy(sample.weights))
    settings = FineTuneSettings(epochs=args.epochs, lr=args.lr, max_length=args.max_length)
    print(f"training: {len(texts)} segments of {len(fitting)} fitting contracts, {backbone.layers} layers, "
          f"≤ {args.max_length} word pieces, {args.epochs} epoch(s), learning rate {args.lr:g}", flush=True)
    net = fine_tune(backbone, texts, torch.cat(labels), torch.cat(weights), settings, TrainSettings().fit.seed,
                    lambda line: print(f"  {line}", flush=True))
    trained = time.perf_counter()
    if args.save is not None:
        save_file(stored_layers(net), str(args.save))
        print(f"wrote the fine-tuned layers to {args.save}")
    scorer = quantize_int8(net)  # as the product would run it on a CPU

    scored: dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}
    for name, docs in (("calibration", calibration), ("validation", [d for d in documents if d.name in validation])):
        probability, ours, gold = [], [], []
        for doc in docs:
            segments = doc.segments()
            gold.append(torch.from_numpy(segment_labels(segments, doc.spans, categories)).float())
            probability.append(model.probabilities([segments])[0])
            ids = clip_ids(backbone.token_ids([s.text for s in segments]), args.max_length)
            ours.append(fine_tuned_logits(scorer, len(categories), ids, backbone.pad_id))
        scored[name] = torch.cat(probability), torch.cat(ours), torch.cat(gold)
    logit = lambda p: torch.logit(p.clamp(1e-4, 1 - 1e-4))  # noqa: E731
    (cal_p, cal_f, cal_y), (val_p, val_f, val_y) = scored["calibration"], scored["validation"]
    ones = torch.ones(len(val_y))
    columns = lambda p, f: [torch.stack([logit(p)[:, c], f[:, c]], 1) for c in range(len(categories))]  # noqa: E731
    stack = stacked(columns(cal_p, cal_f), cal_y, columns(val_p, val_f))
    print(f"\nmodel {model.version} (int8); {len(cal_y)} calibration segments ({len(calibration)} contracts), "
          f"{len(val_y)} validation segments\n")
    print("| scores | validation segments' macro AP |")
    print("| --- | ---: |")
    print(f"| the model | {macro_average_precision(val_p, val_y, ones):.4f} |")
    print(f"| the fine-tuned backbone alone | {macro_average_precision(val_f, val_y, ones):.4f} |")
    print(f"| the model stacked with the fine-tuned backbone | {macro_average_precision(stack, val_y, ones):.4f} |")
    print(f"\ntraining {trained - started:.0f} s, scoring {time.perf_counter() - trained:.0f} s")


if __name__ == "__main__":
    main()
