"""Per-category Platt scaling: probability = sigmoid(scale * logit + bias).

Two parameters per category stay stable where a category has only a few dozen held-out
positives (isotonic regression would overfit those).  Samples carry weights: training and
calibration see all positive segments but only a sample of the rest, and weighting each by
1 / (its chance of being sampled) makes the fitted probabilities those of whole contracts.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

PRIOR_STRENGTH = 1.0
"""Pull toward (scale 1, bias 0), worth about one segment: keeps a category without held-out
positives finite (its bias settles far negative) without moving well-sampled ones."""


def fit_platt(logits: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor) -> tuple[float, float]:
    """(scale, bias) minimising the weighted log loss of sigmoid(scale * logits + bias)."""
    if logits.numel() == 0:
        return 1.0, 0.0
    z, y, w = logits.double(), labels.double(), weights.double()
    params = torch.tensor([1.0, 0.0], dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.LBFGS([params], lr=1.0, max_iter=200, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimiser.zero_grad()
        value = (w * F.binary_cross_entropy_with_logits(params[0] * z + params[1], y, reduction="none")).sum()
        value = value + PRIOR_STRENGTH * ((params[0] - 1.0) ** 2 + params[1] ** 2)
        value.backward()
        return value

    optimiser.step(loss)
    scale, bias = params.detach().tolist()
    return scale, bias


def apply_platt(logits: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Probabilities from logits, with per-category (broadcast on the last axis) parameters."""
    return torch.sigmoid(logits.float() * scale + bias)


def fit_per_category(logits: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor,
                     use: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(scale [C], bias [C]): one Platt fit per category column over the rows where `use` is set.

    logits, labels and use are [n, C]; weights is [n].  `use` selects the population a
    calibration will be applied to (e.g. the pairs whose expert ran).
    """
    scales, biases = [], []
    for c in range(logits.shape[1]):
        rows = use[:, c]
        scale, bias = fit_platt(logits[rows, c], labels[rows, c].float(), weights[rows])
        scales.append(scale)
        biases.append(bias)
    return torch.tensor(scales, dtype=torch.float32), torch.tensor(biases, dtype=torch.float32)
