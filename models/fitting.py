"""Training loops for the heads, over backbone outputs that were computed once.

- The router's lexical term is a logistic regression, fitted in full batch with L-BFGS and an
  L2 penalty (scikit-learn's C), which is what makes TF-IDF models strong.
- The router's MLP learns, from pooled states and positions, a correction to out-of-fold
  lexical logits (in-sample ones would be overconfident and leave it nothing to learn).  Its
  output layer starts at zero and the epoch with the best held-out ranking is kept, "no
  correction" (epoch 0) included: long training overfits the pooled states (10 epochs
  lowered validation AP below the lexical term's alone).
- The linear baseline learns from pooled states alone.
- The experts learn from token states to correct out-of-fold lexical logits, each on the
  (segment, category) pairs it will meet in use: segments whose router ranks its category
  near the top, plus every positive of its category.  Each optimiser step takes a slice of
  every expert's pairs, so all experts move together and Adam's moments stay those of real
  gradients.  Again the epoch with the best held-out ranking is kept, "no correction"
  included, so the experts cannot make the ranking worse on held-out contracts.
- Both stop at the first epoch that ranks no better than the best before it: the learning
  rate still decays over the planned epochs, so the epochs run are those of the full run, and
  no measured run kept an epoch after one that did not improve (an experts epoch costs 1.5 min).
"""
from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from models.encoded import EncodedSegments
from models.experts import ExpertBank
from models.lexical import LexicalBag, LexicalLayer
from models.router import Router


@dataclass(frozen=True)
class FitSettings:
    seed: int = 20261101
    lexical_c: float = 16.0  # inverse L2 strength, as scikit-learn's LogisticRegression(C=...)
    lexical_iterations: int = 100
    linear_epochs: int = 30
    router_epochs: int = 4
    expert_epochs: int = 3
    batch: int = 256  # pooled rows per step (router MLP, linear)
    pairs_per_step: int = 512  # (segment, expert) pairs per step, over all experts
    lr: float = 1e-3
    expert_lr: float = 1e-3
    weight_decay: float = 1e-4
    expert_weight_decay: float = 1e-2


@dataclass
class ExpertPairs:
    """Training pairs: encoded row, expert (= category index), lexical logit (out of fold), target."""

    row: np.ndarray
    expert: np.ndarray
    base: np.ndarray
    target: np.ndarray

    def __len__(self) -> int:
        return len(self.row)


def fit_lexical(layer: LexicalLayer, bag: LexicalBag, labels: torch.Tensor, settings: FitSettings,
                device: torch.device, *, keep_idf: bool = False) -> None:
    """Multi-label logistic regression on TF-IDF features: mean log loss + |W|^2 / (2 C n).
    The idf is measured on `bag` unless `keep_idf` (a taught clause type's column shares the
    shipped router's idf: its few rows would measure a poor one)."""
    layer.to(device)
    bag = bag.to(device)
    if not keep_idf:
        layer.set_idf(bag)
    n = len(bag.index)
    present = bag.index != 0
    rows = torch.arange(n, device=device).unsqueeze(1).expand_as(bag.index)[present]
    x = torch.sparse_coo_tensor(torch.stack([rows, bag.index[present]]), layer.tfidf(bag)[present],
                                (n, layer.table.num_embeddings), check_invariants=False).coalesce()
    y = labels.to(device).float()
    penalty = 1.0 / (2 * settings.lexical_c * max(n, 1))
    weight, bias = layer.table.weight, layer.bias
    optimiser = torch.optim.LBFGS([weight, bias], lr=1.0, max_iter=settings.lexical_iterations, history_size=20,
                                  line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimiser.zero_grad()
        logits = torch.sparse.mm(x, weight) + bias
        value = F.binary_cross_entropy_with_logits(logits, y, reduction="sum") / max(n, 1)
        value = value + penalty * (weight * weight).sum()
        value.backward()
        return value

    optimiser.step(loss)


@torch.no_grad()
def lexical_logits(layer: LexicalLayer, bag: LexicalBag, device: torch.device) -> torch.Tensor:
    return torch.cat([layer(bag.rows(rows).to(device)).cpu() for rows in torch.arange(len(bag.index)).split(4096)])


def fit_router_mlp(router: Router, pooled: torch.Tensor, features: torch.Tensor, offset: torch.Tensor,
                   labels: torch.Tensor, settings: FitSettings, device: torch.device,
                   evaluate: Callable[[], float], log: Callable[[str], None]) -> int:
    """The router's MLP, as a correction to fixed (out-of-fold) lexical logits `offset`; returns
    the epoch kept (best `evaluate()`, higher is better; 0 = zero correction)."""
    router.to(device)
    with torch.no_grad():
        router.mlp[-1].weight.zero_()
        router.mlp[-1].bias.zero_()
    params = list(router.norm.parameters()) + list(router.mlp.parameters())
    return _fit_rows(router, lambda x: router.embedding_logits(x[0], x[1]) + x[2], [pooled, features, offset], labels,
                     settings.router_epochs, [{"params": params, "lr": settings.lr}], settings, device, evaluate,
                     lambda epoch, score: log(f"router: MLP epoch {epoch}/{settings.router_epochs}, "
                                              f"held-out macro AP {score:.4f}"))


def fit_linear(layer: nn.Linear, pooled: torch.Tensor, labels: torch.Tensor, settings: FitSettings,
               device: torch.device) -> None:
    """The baseline: one linear layer on the pooled state, multi-label log loss."""
    layer.to(device)
    groups = [{"params": list(layer.parameters()), "lr": settings.lr * 10}]
    _fit_rows(layer, lambda x: layer(x[0]), [pooled], labels, settings.linear_epochs, groups, settings, device)


@torch.no_grad()
def embedding_logits(router: Router, pooled: torch.Tensor, features: torch.Tensor, device: torch.device) -> torch.Tensor:
    router.eval()
    return torch.cat([router.embedding_logits(pooled[rows].to(device), features[rows].to(device)).cpu()
                      for rows in torch.arange(len(pooled)).split(4096)])


def _fit_rows(module: nn.Module, forward: Callable[[list[torch.Tensor]], torch.Tensor], inputs: list[torch.Tensor],
              labels: torch.Tensor, epochs: int, groups: list[dict], settings: FitSettings,
              device: torch.device, evaluate: Callable[[], float] | None = None,
              report: Callable[[int, float], None] = lambda epoch, score: None) -> int:
    """Minibatch AdamW with linearly decaying learning rate on row-wise inputs.  With
    `evaluate`, keeps the best epoch (0 = as it started), stops at the first that is no
    better, and returns the kept epoch's number."""
    best = _Best(module, evaluate)
    module.train()
    generator = torch.Generator().manual_seed(settings.seed)
    n = len(labels)
    steps_per_epoch = math.ceil(n / settings.batch)
    optimiser = torch.optim.AdamW(groups, weight_decay=settings.weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, _linear_decay(epochs * steps_per_epoch))
    for epoch in range(1, epochs + 1):
        module.train()
        order = torch.randperm(n, generator=generator)
        for step in range(steps_per_epoch):
            rows = order[step * settings.batch : (step + 1) * settings.batch]
            logits = forward([x[rows].to(device) for x in inputs])
            loss = F.binary_cross_entropy_with_logits(logits, labels[rows].to(device).float())
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
        report(epoch, best.update(epoch))
        if best.epoch != epoch:
            break
    return best.restore()


class _Best:
    """The state of `module` at its best evaluated epoch (higher `evaluate()` is better)."""

    def __init__(self, module: nn.Module, evaluate: Callable[[], float] | None) -> None:
        self.module, self.evaluate = module, evaluate
        self.epoch, self.state = 0, copy.deepcopy(module.state_dict())
        self.score = self._score()

    def _score(self) -> float:
        self.module.eval()
        return self.evaluate() if self.evaluate else 0.0

    def update(self, epoch: int) -> float:
        score = self._score()
        if self.evaluate is None or score > self.score:
            self.epoch, self.state, self.score = epoch, copy.deepcopy(self.module.state_dict()), score
        return score

    def restore(self) -> int:
        self.module.load_state_dict(self.state)
        self.module.eval()
        return self.epoch


def fit_experts(experts: ExpertBank, encoded: EncodedSegments, pairs: ExpertPairs, settings: FitSettings,
                device: torch.device, evaluate: Callable[[], float] | None, log: Callable[[str], None]) -> int:
    """Train every expert's correction to the lexical logit on its pairs; returns the epoch kept
    (best `evaluate()`; epoch 0 = every correction zero, as the zero heads start).  Without
    `evaluate` it runs every planned epoch and keeps the last."""
    experts.to(device)
    rng = np.random.default_rng(settings.seed)
    lengths = encoded.lengths.numpy()
    by_expert = []
    for e in range(experts.n_experts):
        mine = np.flatnonzero(pairs.expert == e)
        by_expert.append(mine[np.argsort(lengths[pairs.row[mine]], kind="stable")])
    steps = max(1, math.ceil(len(pairs) / settings.pairs_per_step))
    optimiser = torch.optim.AdamW(experts.parameters(), lr=settings.expert_lr,
                                  weight_decay=settings.expert_weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, _linear_decay(settings.expert_epochs * steps))
    base = torch.from_numpy(pairs.base).float()
    target = torch.from_numpy(pairs.target).float()
    best = _Best(experts, evaluate)
    log(f"experts: held-out macro AP {best.score:.4f} without corrections")
    for epoch in range(1, settings.expert_epochs + 1):
        experts.train()
        # length-sorted slices (little padding), visited in a fresh random order per expert
        slices = [list(np.array_split(mine, steps)) for mine in by_expert]
        for chunks in slices:
            rng.shuffle(chunks)
        for step in range(steps):
            loss = torch.zeros((), device=device)
            count = 0
            for e, chunks in enumerate(slices):
                chunk = chunks[step]
                if not len(chunk):
                    continue
                tokens, mask = encoded.padded(torch.from_numpy(pairs.row[chunk]), device)
                logits = base[chunk].to(device) + experts.one(tokens, mask, e)
                loss = loss + F.binary_cross_entropy_with_logits(logits, target[chunk].to(device), reduction="sum")
                count += len(chunk)
            optimiser.zero_grad()
            (loss / max(count, 1)).backward()
            optimiser.step()
            schedule.step()
        log(f"experts: epoch {epoch}/{settings.expert_epochs}, held-out macro AP {best.update(epoch):.4f}")
        if best.epoch != epoch:
            break
    return best.restore()


def _linear_decay(total_steps: int) -> Callable[[int], float]:
    return lambda step: max(0.0, 1.0 - step / max(total_steps, 1))
