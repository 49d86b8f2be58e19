"""Held-out ranking quality, the yardstick for keeping an epoch of the router MLP or the experts.

Their outputs are recalibrated per category afterwards (Platt scaling), so what must improve on
held-out contracts is how each category's segments are ranked, not raw log loss: on CUAD an
expert epoch can rank validation segments better while its uncalibrated log loss gets worse.
"""
from __future__ import annotations

import torch


def macro_average_precision(scores: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor) -> float:
    """Mean over categories with a positive of the weighted average precision of `scores` [n, C].

    Rows carry weights (inverse sampling rates), so precision counts each kept negative for the
    unkept ones it stands for.  Ties are broken by row order (deterministic).
    """
    values = []
    for c in range(scores.shape[1]):
        positive = labels[:, c].bool()
        if not positive.any():
            continue
        order = torch.argsort(scores[:, c], descending=True, stable=True)
        hit = positive[order].double()
        w = weights[order].double()
        precision = torch.cumsum(w * hit, 0) / torch.cumsum(w, 0)
        values.append(float((precision * w * hit).sum() / (w * hit).sum()))
    return sum(values) / len(values) if values else 0.0
