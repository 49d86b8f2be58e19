"""Which segments the heads fit on: positives, their neighbours, a sample of the rest.

CUAD's training contracts hold ~94k segments, 91% of them labelled with nothing.  Every one goes
through the backbone once (calibration reads them all), but fitting the heads on all of them
would spend most epochs on easy boilerplate: every positive and every neighbour of one (the
hard negatives that decide where a clause starts and ends) is fitted on, other segments with
probability `negative_rate`.
"""
from __future__ import annotations

import numpy as np


def sample_segments(labels: np.ndarray, negative_rate: float, rng: np.random.Generator) -> np.ndarray:
    """Indices of the segments to fit on: positives and their ±1 neighbours always, other
    segments with `negative_rate`."""
    positive = labels.any(axis=1)
    near = positive.copy()
    near[1:] |= positive[:-1]
    near[:-1] |= positive[1:]
    drawn = rng.random(len(labels)) < negative_rate
    return np.flatnonzero(near | drawn)
