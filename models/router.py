"""The router: which categories' experts should look at a segment.

One logit per category (multi-label: a clause can be several categories at once), the sum of
a lexical logistic regression over the segment's word pieces (models/lexical.py) and a small
MLP over [layer-normed pooled state, document features] that corrects it.  The top-k logits
pick the experts that run.  A routed category's logit is then its expert's correction of the
lexical logit; for every other category the router's own logit, calibrated, is the
probability, so a category whose expert did not run still has a (low) score.
"""
from __future__ import annotations

import torch
from torch import nn

from models.lexical import LexicalBag, LexicalLayer


class Router(nn.Module):
    def __init__(self, hidden: int, n_features: int, width: int, n_categories: int, vocab_size: int,
                 headings: bool = False) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        self.mlp = nn.Sequential(
            nn.Linear(hidden + n_features, width), nn.GELU(), nn.Dropout(0.1), nn.Linear(width, n_categories),
        )
        self.lexical = LexicalLayer(vocab_size, n_categories, headings)

    def forward(self, pooled: torch.Tensor, features: torch.Tensor, bag: LexicalBag) -> tuple[torch.Tensor, torch.Tensor]:
        """(router logits, their lexical part), each [N, C]."""
        lexical = self.lexical(bag)
        return lexical + self.embedding_logits(pooled, features), lexical

    def embedding_logits(self, pooled: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """The MLP's part of the logits (trained as a correction to the lexical part)."""
        return self.mlp(torch.cat([self.norm(pooled), features], dim=-1))
