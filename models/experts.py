"""One expert per category, each with its own parameters over the backbone's token states.

Expert e: a low-rank adapter on every token (a_t = x_t + U_e gelu(D_e x_t + d_e) + u_e),
attention pooling with its own query (alpha = softmax_t(a_t . q_e)), and a linear head on the
layer-normed pooled vector.  Its output is a correction added to the router's lexical logit for
e (models/router.py), so an untrained expert (zero head) reproduces that logit exactly.

The adapter's up-projection is linear, so it commutes with the pooling: a_t . q_e =
x_t . q_e + h_t . (U_e^T q_e) and sum_t alpha_t a_t = sum_t alpha_t x_t + U_e sum_t alpha_t h_t
+ u_e.  Per token an expert costs only its down-projection (2 * hidden * rank FLOPs: 0.35%
of the backbone's ~21 MFLOPs per token at rank 96); the up-projection runs once per segment.

Three entry points, one computation (`_forward`): `sparse` evaluates arbitrary (segment,
expert) pairs with gathered weights in a fixed number of batched kernels, however many experts
are involved (inference); `one` runs a single expert on a batch (training, no weight gather);
`dense` runs every expert on every segment (the point of comparison for top-k routing).
"""
from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn


class _Weights(NamedTuple):
    """Expert parameters with a leading axis of 1 (one expert, broadcast) or P (one per pair)."""

    down: torch.Tensor  # [., H, r]
    down_bias: torch.Tensor  # [., r]
    up: torch.Tensor  # [., r, H]
    up_bias: torch.Tensor  # [., H]
    query: torch.Tensor  # [., H]
    up_query: torch.Tensor  # [., r] = U^T q
    head: torch.Tensor  # [., H]
    head_bias: torch.Tensor  # [.]


class ExpertBank(nn.Module):
    """The parameters of all experts, stacked on a leading expert axis."""

    def __init__(self, n_experts: int, hidden: int, rank: int) -> None:
        super().__init__()
        self.down = nn.Parameter(torch.randn(n_experts, hidden, rank) * hidden**-0.5)
        self.down_bias = nn.Parameter(torch.zeros(n_experts, rank))
        self.up = nn.Parameter(torch.zeros(n_experts, rank, hidden))
        self.up_bias = nn.Parameter(torch.zeros(n_experts, hidden))
        self.query = nn.Parameter(torch.zeros(n_experts, hidden))
        self.head = nn.Parameter(torch.zeros(n_experts, hidden))
        self.head_bias = nn.Parameter(torch.zeros(n_experts))

    @property
    def n_experts(self) -> int:
        return self.down.shape[0]

    def sparse(self, tokens: torch.Tensor, mask: torch.Tensor, segment_idx: torch.Tensor,
               expert_idx: torch.Tensor) -> torch.Tensor:
        """Corrections [P] for the pairs (segment_idx[p], expert_idx[p]); tokens [N, T, H], mask [N, T]."""
        return _forward(tokens[segment_idx], mask[segment_idx], self._weights(expert_idx, tokens.dtype))

    def one(self, tokens: torch.Tensor, mask: torch.Tensor, expert: int) -> torch.Tensor:
        """Corrections [N] of expert `expert` for every segment of the batch."""
        index = torch.tensor([expert], device=tokens.device)
        return _forward(tokens, mask, self._weights(index, tokens.dtype))

    def dense(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Corrections [N, E] of every expert for every segment."""
        x, dtype = tokens, tokens.dtype
        h = F.gelu(torch.einsum("nth,ehr->netr", x, self.down.to(dtype)) + self.down_bias.to(dtype)[None, :, None, :])
        scores = torch.einsum("nth,eh->net", x, self.query.to(dtype)) + torch.einsum("netr,er->net", h, self._up_query().to(dtype))
        attn = _masked_softmax(scores, mask.unsqueeze(1)).to(dtype)
        pooled_h = torch.einsum("net,netr->ner", attn, h)
        pooled = (torch.einsum("net,nth->neh", attn, x) + torch.einsum("ner,erh->neh", pooled_h, self.up.to(dtype))
                  + self.up_bias.to(dtype))
        return (_norm(pooled) * self.head).sum(-1) + self.head_bias

    def _up_query(self) -> torch.Tensor:
        return torch.bmm(self.up, self.query.unsqueeze(-1)).squeeze(-1)

    def _weights(self, index: torch.Tensor, dtype: torch.dtype) -> _Weights:
        return _Weights(
            self.down[index].to(dtype), self.down_bias[index].to(dtype), self.up[index].to(dtype),
            self.up_bias[index].to(dtype), self.query[index].to(dtype), self._up_query()[index].to(dtype),
            self.head[index], self.head_bias[index],
        )


def _forward(x: torch.Tensor, mask: torch.Tensor, w: _Weights) -> torch.Tensor:
    """Corrections [B] for token states x [B, T, H]; weights broadcast over B when their axis is 1."""
    h = F.gelu(torch.matmul(x, w.down) + w.down_bias.unsqueeze(1))  # [B, T, r]
    scores = torch.matmul(x, w.query.unsqueeze(-1)).squeeze(-1) + torch.matmul(h, w.up_query.unsqueeze(-1)).squeeze(-1)
    attn = _masked_softmax(scores, mask).to(x.dtype).unsqueeze(1)  # [B, 1, T]
    pooled = torch.matmul(attn, x).squeeze(1) + torch.matmul(torch.matmul(attn, h), w.up).squeeze(1) + w.up_bias
    return (_norm(pooled) * w.head).sum(-1) + w.head_bias


def _masked_softmax(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis in fp32, padding excluded (every row has [CLS] and [SEP])."""
    return scores.float().masked_fill(mask == 0, float("-inf")).softmax(-1)


def _norm(pooled: torch.Tensor) -> torch.Tensor:
    """Layer norm without affine, in fp32: the head's scale is its own weight."""
    return F.layer_norm(pooled.float(), pooled.shape[-1:])
