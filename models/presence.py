"""Does the document contain the clause at all?  A per-category calibration of its best segment.

CUAD's presence score asks, per (contract, category), whether the best candidate's probability
reaches a threshold (cuad_score.py --presence-threshold, 0.5 by default).  Segment
probabilities answer a narrower question (is *this* segment the clause): a contract whose best
segments sit at 0.3 each often does contain the clause, so max segment probability >= 0.5
misses present clauses.  Per category, presence = sigmoid(a * logit(max segment probability)
+ b), fitted on the calibration contracts (every segment of them encoded, so the maximum is
exact); the document's best candidate carries this probability, the others their own.

Then the decision.  A calibrated probability is not where F1 peaks: with calibrated scores the
F1-optimal threshold is about half the attainable F1, so a category is best called present well
below 0.5, while CUAD's presence score, like a reviewer, reads 0.5 as the line.  One threshold t
for all categories is chosen on the calibration contracts, where their macro-F1 peaks (0.25),
and the best candidate carries a presence *score*: its calibrated presence probability p while
p < t, and 0.5 + (p - t) / (2 (1 - t)) from t on, so that >= 0.5 means "present".  Below t the
score stays the honest probability: lifting every best candidate (a plain logit shift) also
lifted the best candidates of contracts without the clause above true clauses elsewhere, and
cost precision at 80% recall (validation: 0.377 -> 0.346 at the same presence F1).
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


DECISION_GRID = tuple(round(0.05 * i, 2) for i in range(2, 13))  # 0.10 .. 0.60


def presence_score(probability: torch.Tensor, threshold: torch.Tensor | float) -> torch.Tensor:
    """Presence probabilities with [threshold, 1] mapped onto [0.5, 1] (the rest unchanged)."""
    t = torch.as_tensor(threshold, dtype=probability.dtype)
    lifted = 0.5 + (probability - t) / (2 * (1 - t))
    return torch.where(probability >= t, lifted, probability)


def decision_threshold(presence: torch.Tensor, present: torch.Tensor) -> float:
    """The presence threshold (on DECISION_GRID) with the best macro-F1 over categories, given
    presence probabilities [D, C] and gold presence [D, C]; ties go to the higher threshold."""
    best, chosen = -1.0, 0.5
    for threshold in DECISION_GRID:
        said = presence >= threshold
        tp = (said & present).sum(0).float()
        wrong = (said ^ present).sum(0).float()
        scored = (tp + wrong) > 0
        f1 = (2 * tp / (2 * tp + wrong))[scored].mean().item() if scored.any() else 0.0
        if f1 >= best:
            best, chosen = f1, threshold
    return chosen


def _logit(p: torch.Tensor) -> torch.Tensor:
    p = p.float().clamp(1e-6, 1 - 1e-6)
    return torch.log(p) - torch.log1p(-p)
