"""The nearest-neighbour lookup: what the training segments most like this one were labelled.

ConReader's last ingredient (issue 14 item 3). Training keeps the fitting contracts' sampled
segments (every positive, its neighbours and 12% of the rest, each weighted by its inverse
sampling rate) as keys: their mean-pooled backbone states, centred, projected on their first
principal axes and stored in int8, with their labels. A scored segment's vote for a category
is the weighted share of its K nearest keys (cosine similarity, softmax over similarity /
temperature) that carry it. A per-category logistic regression, fitted on the calibration
contracts like the Platt scalings, then combines the model's calibrated logit with the vote's:
where the lookup knows nothing new its weight stays near 0 and the probability is unchanged.

`ops/benchmarks/neighbour_lookup.py` measured the idea before it was built; MODEL_CARD.md has
its validation rows.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

PRIOR_STRENGTH = 1.0
"""Pull of the combination toward (1, 0, 0), the model's probability unchanged, worth about
one segment: as calibration.PRIOR_STRENGTH, it keeps categories without calibration positives
where they were."""
_VOTE_CLAMP = 1e-3  # a vote of 0 or 1 has an infinite logit


class NeighbourIndex(nn.Module):
    """Keys, labels and weights of the training segments, and the combination per category.

    Empty (no rows) in checkpoints written before the lookup: `refine` then returns its input.
    """

    def __init__(self, hidden: int, n_categories: int, k: int, temperature: float) -> None:
        super().__init__()
        self.k, self.temperature = k, temperature
        self.register_buffer("centre", torch.zeros(hidden))
        self.allocate(0, 0, hidden, n_categories)
        # per category: weight of the model's logit, weight of the vote's logit, bias
        self.register_buffer("combination", torch.tensor([1.0, 0.0, 0.0]).repeat(n_categories, 1))

    def allocate(self, rows: int, dims: int, hidden: int, n_categories: int) -> None:
        """Size the buffers for `rows` keys of `dims` dimensions (before loading a checkpoint)."""
        self.register_buffer("projection", torch.zeros(hidden, dims))
        self.register_buffer("keys", torch.zeros(rows, dims, dtype=torch.int8))
        self.register_buffer("key_scale", torch.zeros(rows))
        self.register_buffer("labels", torch.zeros(rows, n_categories, dtype=torch.uint8))
        self.register_buffer("weights", torch.zeros(rows))

    @property
    def rows(self) -> int:
        return self.keys.shape[0]

    @torch.no_grad()
    def build(self, pooled: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor, dims: int) -> None:
        """Keys from the pooled states [n, H] of the fitting segments, their labels [n, C] and weights [n]."""
        pooled = pooled.float()
        self.centre.copy_(pooled.mean(0))
        centred = pooled - self.centre
        _, axes = torch.linalg.eigh(centred.T @ centred)  # ascending eigenvalues: the last columns lead
        projection = axes[:, -dims:].flip(1).contiguous()
        self.allocate(len(pooled), dims, pooled.shape[1], labels.shape[1])
        self.projection.copy_(projection)
        unit = F.normalize(centred @ projection, dim=1)
        scale = unit.abs().amax(1).clamp(min=1e-12) / 127
        self.keys.copy_((unit / scale.unsqueeze(1)).round().to(torch.int8))
        self.key_scale.copy_(scale)
        self.labels.copy_(labels.to(torch.uint8))
        self.weights.copy_(weights.float())

    def votes(self, pooled: torch.Tensor) -> torch.Tensor:
        """[N, C]: per segment, the weighted share of its k nearest keys labelled with each category."""
        query = F.normalize((pooled.float() - self.centre) @ self.projection, dim=1)
        similarity = (query @ self.keys.float().T) * self.key_scale
        top, at = similarity.topk(min(self.k, self.rows), dim=1)
        weight = self.weights[at] * torch.exp((top - top[:, :1]) / self.temperature)
        return (weight.unsqueeze(-1) * self.labels[at].float()).sum(1) / weight.sum(1, keepdim=True)

    def refine(self, probability: torch.Tensor, pooled: torch.Tensor) -> torch.Tensor:
        """The model's calibrated probabilities [N, C], combined with the votes of the segments'
        pooled states [N, H]."""
        if not self.rows:
            return probability
        return torch.sigmoid(combined_logits(probability, self.votes(pooled), self.combination))


def combined_logits(probability: torch.Tensor, vote: torch.Tensor, combination: torch.Tensor) -> torch.Tensor:
    """a_c * logit(p) + b_c * logit(vote) + bias_c, per category (combination [C, 3])."""
    model_logit = torch.logit(probability.float().clamp(1e-6, 1 - 1e-6))
    vote_logit = torch.logit(vote.float().clamp(_VOTE_CLAMP, 1 - _VOTE_CLAMP))
    return model_logit * combination[:, 0] + vote_logit * combination[:, 1] + combination[:, 2]


def fit_combination(probability: torch.Tensor, vote: torch.Tensor, labels: torch.Tensor,
                    weights: torch.Tensor) -> torch.Tensor:
    """[C, 3]: per category, the weighted logistic regression of the labels [n, C] on the
    model's logit and the vote's logit (rows weighted by inverse sampling rate)."""
    rows = []
    for c in range(labels.shape[1]):
        x = torch.stack([torch.logit(probability[:, c].double().clamp(1e-6, 1 - 1e-6)),
                         torch.logit(vote[:, c].double().clamp(_VOTE_CLAMP, 1 - _VOTE_CLAMP))], 1)
        y, w = labels[:, c].double(), weights.double()
        params = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64, requires_grad=True)
        optimiser = torch.optim.LBFGS([params], lr=1.0, max_iter=200, line_search_fn="strong_wolfe")

        def loss() -> torch.Tensor:
            optimiser.zero_grad()
            logits = x[:, 0] * params[0] + x[:, 1] * params[1] + params[2]
            value = (w * F.binary_cross_entropy_with_logits(logits, y, reduction="none")).sum()
            value = value + PRIOR_STRENGTH * ((params[0] - 1.0) ** 2 + params[1] ** 2 + params[2] ** 2)
            value.backward()
            return value

        optimiser.step(loss)
        rows.append(params.detach().float())
    return torch.stack(rows)
