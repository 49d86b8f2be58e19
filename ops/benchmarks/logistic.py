"""An L2-regularised logistic regression, for benchmarks that ask whether a learned decision
would beat the product's own (ops/benchmarks/presence_model.py, date_ranker.py)."""
from __future__ import annotations

import torch


def fit_logistic(x: torch.Tensor, y: torch.Tensor, l2: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(weight [d], bias) minimising mean log loss + l2 * |weight|^2, by L-BFGS."""
    weight = torch.zeros(x.shape[1], dtype=x.dtype, requires_grad=True)
    bias = torch.zeros((), dtype=x.dtype, requires_grad=True)
    optimizer = torch.optim.LBFGS([weight, bias], max_iter=500, line_search_fn="strong_wolfe")

    def loss() -> torch.Tensor:
        optimizer.zero_grad()
        value = torch.nn.functional.binary_cross_entropy_with_logits(x @ weight + bias, y) + l2 * weight.square().sum()
        value.backward()
        return value

    optimizer.step(loss)
    return weight.detach(), bias.detach()
