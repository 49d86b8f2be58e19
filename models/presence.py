"""Does the document contain the clause at all?  A per-category calibration of its best segment.

CUAD's presence score asks, per (contract, category), whether the best candidate's probability
reaches a threshold (cuad_score.py --presence-threshold, 0.5 by default).  Segment
probabilities answer a narrower question (is *this* segment the clause): a contract whose best
segments sit at 0.3 each often does contain the clause, so max segment probability >= 0.5
misses present clauses.  Per category, presence = sigmoid(a * logit(max segment probability)
+ b), fitted on the calibration contracts (every segment of them encoded, so the maximum is
exact); the document's best candidate carries this probability, the others their own.
"""
from __future__ import annotations

import torch

from models.calibration import fit_per_category


def document_maxima(probability: torch.Tensor) -> torch.Tensor:
    """[C] the best segment probability per category of one document ([n, C])."""
    return probability.max(0).values if len(probability) else torch.zeros(probability.shape[1])


def presence_probability(maxima: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """[..., C] presence probabilities from best segment probabilities."""
    return torch.sigmoid(_logit(maxima) * scale + bias)


def fit_presence(maxima: torch.Tensor, present: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(scale [C], bias [C]) from per-document maxima [D, C] and gold presence [D, C]."""
    everything = torch.ones_like(present, dtype=torch.bool)
    return fit_per_category(_logit(maxima), present, torch.ones(len(maxima)), everything)


def _logit(p: torch.Tensor) -> torch.Tensor:
    p = p.float().clamp(1e-6, 1 - 1e-6)
    return torch.log(p) - torch.log1p(-p)
