"""Router + experts + linear baseline + calibration: everything of the model but the backbone.

`scores` turns backbone token states into one calibrated probability per (segment, category):

- sparse (the product): the router's top-k categories run their experts; their probability is
  the expert-calibrated sigmoid of lexical logit + expert correction (the expert, reading the
  token states, takes the place of the router MLP's generic correction).  Every other
  category gets the router-calibrated sigmoid of its router logit, calibrated on exactly those
  (segment, category) pairs the router did not pick, so these fallbacks are honest and
  mostly tiny.
- dense: every expert runs on every segment (what top-k saves compute against).
- linear: one linear layer on the pooled state, the baseline the experts must beat.

The presence calibration (presence_scale, presence_bias) is applied per document, after all
its segments are scored (models/presence.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import torch
from torch import nn

from models.backbone import mean_pool
from models.calibration import apply_platt
from models.experts import ExpertBank
from models.features import N_FEATURES
from models.lexical import LexicalBag
from models.router import Router

Mode = Literal["sparse", "dense", "linear"]
MODES: tuple[Mode, ...] = ("sparse", "dense", "linear")


@dataclass
class Scores:
    """probability [N, C] calibrated; ran [N, C] whether that category's expert ran."""

    probability: torch.Tensor
    ran: torch.Tensor


class ClauseNetwork(nn.Module):
    def __init__(self, n_categories: int, hidden: int, rank: int, router_hidden: int, vocab_size: int,
                 headings: bool = False) -> None:
        super().__init__()
        self.router = Router(hidden, N_FEATURES, router_hidden, n_categories, vocab_size, headings)
        self.experts = ExpertBank(n_categories, hidden, rank)
        self.linear = nn.Linear(hidden, n_categories)
        for name in ("expert", "router", "linear", "presence"):
            self.register_buffer(f"{name}_scale", torch.ones(n_categories))
            self.register_buffer(f"{name}_bias", torch.zeros(n_categories))
        # presence probability from which a document is called present (models/presence.py)
        self.register_buffer("presence_threshold", torch.tensor(0.5))
        # per category, how many of a document's best segments are candidates below the floor (models/tail.py)
        self.register_buffer("tail_size", torch.zeros(n_categories))
        # per category, the wider spans' weight (models/widening.py); 0: none
        self.register_buffer("widen_weight", torch.zeros(n_categories))
        # which segments skip the backbone (models/cascade.py); -inf: none do
        self.register_buffer("cascade_offset", torch.zeros(n_categories))
        self.register_buffer("cascade_cutoff", torch.tensor(float("-inf")))

    def route(self, pooled: torch.Tensor, features: torch.Tensor, bag: LexicalBag,
              k: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Router logits [N, C], their lexical part, and the (segment, expert) pairs [2, N * k] of
        each segment's top k."""
        logits, lexical = self.router(pooled, features, bag)
        top = logits.topk(min(k, logits.shape[1]), dim=1).indices
        segment_idx = torch.arange(logits.shape[0], device=logits.device).repeat_interleave(top.shape[1])
        return logits, lexical, torch.stack([segment_idx, top.reshape(-1)])

    @torch.inference_mode()
    def scores(self, tokens: torch.Tensor, mask: torch.Tensor, features: torch.Tensor, bag: LexicalBag, mode: Mode,
               k: int) -> Scores:
        """Calibrated probabilities for a batch of segments; tokens [N, T, H], mask [N, T], features [N, F]."""
        pooled = mean_pool(tokens, mask)
        if mode == "linear":
            probability = apply_platt(self.linear(pooled), self.linear_scale, self.linear_bias)
            return Scores(probability, torch.zeros_like(probability, dtype=torch.bool))
        if mode == "dense":
            lexical = self.router.lexical(bag)
            probability = apply_platt(lexical + self.experts.dense(tokens, mask), self.expert_scale, self.expert_bias)
            return Scores(probability, torch.ones_like(probability, dtype=torch.bool))
        logits, lexical, (segment_idx, expert_idx) = self.route(pooled, features, bag, k)
        probability = apply_platt(logits, self.router_scale, self.router_bias)
        ran = torch.zeros_like(probability, dtype=torch.bool)
        ran[segment_idx, expert_idx] = True
        if segment_idx.numel():
            refined = lexical[segment_idx, expert_idx] + self.experts.sparse(tokens, mask, segment_idx, expert_idx)
            probability[segment_idx, expert_idx] = apply_platt(
                refined, self.expert_scale[expert_idx], self.expert_bias[expert_idx])
        return Scores(probability, ran)
