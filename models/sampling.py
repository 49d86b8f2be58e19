"""Which training segments go through the backbone: positives, their neighbours, a sample of the rest.

CUAD's 419 contracts hold ~112k segments, 91% of them labelled with nothing; encoding them all
would take most of the 30-minute CPU budget.  Every positive and every neighbour of one (the
hard negatives that decide where a clause starts and ends) is kept; other segments are kept
with probability `negative_rate`.  Each kept segment carries weight 1 / (its chance of being
kept), so weighted statistics are those of whole contracts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sample:
    """Indices of the kept segments of one document, and their weights."""

    indices: np.ndarray
    weights: np.ndarray


def sample_segments(labels: np.ndarray, negative_rate: float, rng: np.random.Generator) -> Sample:
    """Keep positives and their ±1 neighbours always, other segments with `negative_rate`."""
    positive = labels.any(axis=1)
    near = positive.copy()
    near[1:] |= positive[:-1]
    near[:-1] |= positive[1:]
    drawn = rng.random(len(labels)) < negative_rate
    keep = near | drawn
    weights = np.where(near, 1.0, 1.0 / negative_rate)
    indices = np.flatnonzero(keep)
    return Sample(indices, weights[indices].astype(np.float32))
