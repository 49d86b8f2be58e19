"""Would fine-tuning the backbone rank clauses better than the frozen one? (issue 14)

The shipped model keeps MiniLM frozen: its ranking comes mostly from the router's word-piece
lexical term, and the experts on frozen token states add about 2 AP points (MODEL_CARD.md,
"Limits"). This measures the lever that leaves untouched: the backbone's first layers trained
end to end, with one linear head per category on the mean-pooled state, on the fitting contracts'
segments as `clausemill train` samples them (every positive, its neighbours, and a share of the
rest weighted by its inverse rate), the word-piece embeddings frozen (a checkpoint could not hold
them). AdamW, binary cross-entropy weighted by the
samples' weights, the rarer categories' positives up-weighted (square root of the odds, at most
30), segments truncated to --max-length word pieces.

Each segment of the calibration and validation contracts is then scored by the shipped model
(as the product scores it) and by the fine-tuned network. A logistic regression per category,
fitted on the calibration contracts, stacks the two logits (neighbour_lookup.stacked: it starts
from the model alone); the table gives the validation segments' macro average precision
(models/selection.py) of each. A stack that ranks clearly better than the model is worth a
training run that fine-tunes (within `clausemill train`'s 30 minutes on this CPU).

    python ops/benchmarks/backbone_finetune.py [--max-length 128] [--negative-rate 0.06] [--epochs 6] [--lr 4e-5] [--train-embeddings] [--save LAYERS.safetensors]

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import save_file

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from neighbour_lookup import stacked  # noqa: E402
from recall_ceiling import CUAD, calibration_documents  # noqa: E402

from models.backbone import Backbone, mean_pool  # noqa: E402
from models.batching import pad_ids  # noqa: E402
from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint  # noqa: E402
from models.corpus import LabelledDocument, load_cuad, read_split, segment_labels  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.runtime import quantize_int8  # noqa: E402
from models.sampling import sample_segments  # noqa: E402
from models.selection import macro_average_precision  # noqa: E402
from models.training import SPLIT_FILE, TrainSettings  # noqa: E402


class FineTuned(torch.nn.Module):
    """The backbone's first layers, trainable, and a linear head per category on the pooled state."""

    def __init__(self, backbone: Backbone, categories: int, train_embeddings: bool) -> None:
        super().__init__()
        self.encoder = backbone.encoder.train()
        for name, parameter in self.encoder.named_parameters():
            parameter.requires_grad_(train_embeddings or not name.startswith("embeddings."))
        self.head = torch.nn.Linear(backbone.hidden, categories)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        states = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        return self.head(mean_pool(states, mask))


def batches_by_length(lengths: list[int], size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Shuffled batches of similar lengths: sorted within pools of 50 batches, then shuffled."""
    order = rng.permutation(len(lengths))
    pool = size * 50
    out = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start:start + pool], key=lambda i: lengths[i])
        out += [np.array(chunk[i:i + size]) for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def fine_tune(backbone: Backbone, ids: list[list[int]], labels: torch.Tensor, weights: torch.Tensor,
              epochs: int, seed: int, train_embeddings: bool = False, lr: float = 4e-5) -> FineTuned:
    torch.manual_seed(seed)
    net = FineTuned(backbone, labels.shape[1], train_embeddings)
    positive = (labels * weights[:, None]).sum(0)
    negative = ((1 - labels) * weights[:, None]).sum(0)
    pos_weight = (negative / positive.clamp(min=1.0)).sqrt().clamp(1.0, 30.0)
    with torch.no_grad():
        net.head.bias.copy_(torch.logit((positive / (positive + negative)).clamp(1e-4, 0.5)))
    trained = [p for p in net.encoder.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW([{"params": trained, "lr": lr},
                                   {"params": net.head.parameters(), "lr": 2e-3}], weight_decay=0.01)
    rng = np.random.default_rng(seed)
    plan = [b for _ in range(epochs) for b in batches_by_length([len(r) for r in ids], 32, rng)]
    warmup = max(1, len(plan) // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min((step + 1) / warmup, max(0.0, (len(plan) - step) / max(1, len(plan) - warmup))))
    started, seen = time.perf_counter(), 0
    for step, batch in enumerate(plan):
        x, mask = pad_ids([ids[i] for i in batch], backbone.pad_id)
        logits = net(x, mask)
        loss = (F.binary_cross_entropy_with_logits(logits, labels[batch], pos_weight=pos_weight, reduction="none")
                .mean(1) * weights[batch]).sum() / weights[batch].sum()
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        seen += len(batch)
        if step % 100 == 0 or step == len(plan) - 1:
            rate = seen / (time.perf_counter() - started)
            print(f"  step {step + 1}/{len(plan)}  loss {loss.item():.4f}  {rate:.0f} segments/s", flush=True)
    return net.eval()


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
    parser.add_argument("--max-length", type=int, default=128)
    parser.add_argument("--negative-rate", type=float, default=0.06, help="share of far negatives kept for training")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--lr", type=float, default=4e-5, help="the backbone's learning rate (the heads': 2e-3)")
    parser.add_argument("--train-embeddings", action="store_true",
                        help="train the word-piece embeddings too (11.7M parameters: more than a checkpoint can hold)")
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
    backbone = Backbone(torch.device("cpu"), torch.float32, args.max_length, layers=model.backbone.layers)

    rng = np.random.default_rng(TrainSettings().fit.seed)
    texts, labels, weights = [], [], []
    for doc in fitting:
        segments = doc.segments()
        doc_labels = segment_labels(segments, doc.spans, categories)
        sample = sample_segments(doc_labels, args.negative_rate, rng)
        texts += [segments[i].text for i in sample.indices]
        labels.append(torch.from_numpy(doc_labels[sample.indices]).float())
        weights.append(torch.from_numpy(sample.weights))
    train_ids = backbone.token_ids(texts)
    print(f"training: {len(texts)} segments of {len(fitting)} fitting contracts, {backbone.layers} layers "
          f"({'with' if args.train_embeddings else 'without'} the embeddings), ≤ {args.max_length} word pieces, "
          f"{args.epochs} epoch(s), learning rate {args.lr:g}", flush=True)
    net = fine_tune(backbone, train_ids, torch.cat(labels), torch.cat(weights), args.epochs, TrainSettings().fit.seed,
                    args.train_embeddings, args.lr)
    trained = time.perf_counter()
    if args.save is not None:
        layers = {name: t.contiguous() for name, t in net.encoder.state_dict().items() if name.startswith("encoder.")}
        save_file(layers, str(args.save))
        print(f"wrote {len(layers)} tensors of the fine-tuned layers to {args.save}")
    scorer = quantize_int8(net)  # as the product would run it on a CPU

    scored: dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}
    for name, docs in (("calibration", calibration), ("validation", [d for d in documents if d.name in validation])):
        probability, ours, gold = [], [], []
        for doc in docs:
            segments = doc.segments()
            gold.append(torch.from_numpy(segment_labels(segments, doc.spans, categories)).float())
            probability.append(model.probabilities([segments])[0])
            ours.append(fine_tuned_logits(scorer, len(categories), backbone.token_ids([s.text for s in segments]),
                                          backbone.pad_id))
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
