"""How good a trained clause type is, from its cross-validated probabilities, and whether it is
young (too few examples, or figures too wide to trust).

Every figure comes from probabilities of rows the model being measured never saw (each fold's
model scores the fold it left out), so they say how the type will do on new segments, not how
well it remembers its examples.
"""
from __future__ import annotations

import math

import numpy as np

from pipelines.clause_types.examples import TRUSTED_EXAMPLES

THRESHOLD = 0.5
WIDEST_TRUSTED = 0.15
"""A type stays young while its precision or recall is known only within more than ±0.15."""


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95%) of a proportion: honest at a handful of trials, where the
    normal approximation runs past 0 or 1."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def average_precision(scores: np.ndarray, labels: np.ndarray) -> float:
    order = np.argsort(-scores, kind="stable")
    hits = labels[order].astype(float)
    if not hits.sum():
        return 0.0
    precision = np.cumsum(hits) / np.arange(1, len(hits) + 1)
    return float((precision * hits).sum() / hits.sum())


def quality(probabilities: np.ndarray, labels: np.ndarray, examples: int) -> dict:
    """Precision and recall at 0.5 with their intervals, average precision, and youth."""
    predicted = probabilities >= THRESHOLD
    labels = labels.astype(bool)
    tp, fp, fn = int((predicted & labels).sum()), int((predicted & ~labels).sum()), int((~predicted & labels).sum())
    precision_interval, recall_interval = wilson(tp, tp + fp), wilson(tp, tp + fn)
    wide = max(precision_interval[1] - precision_interval[0], recall_interval[1] - recall_interval[0]) / 2
    reasons = []
    if examples < TRUSTED_EXAMPLES:
        reasons.append(f"{examples} examples (fewer than {TRUSTED_EXAMPLES})")
    if wide > WIDEST_TRUSTED:
        reasons.append(f"precision or recall known only within ±{wide:.2f}")
    return {
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "precision_interval": [round(v, 3) for v in precision_interval],
        "recall_interval": [round(v, 3) for v in recall_interval],
        "average_precision": round(average_precision(probabilities, labels), 3),
        "young": bool(reasons),
        "young_because": reasons,
    }
