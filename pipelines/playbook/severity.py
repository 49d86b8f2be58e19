"""Severity levels, their order and their weights: the one place risk arithmetic reads them from.

A weight is the chance-like share of risk one certain finding of that severity contributes;
risk scores combine weights by noisy-OR (see pipelines.aggregate), so weights stay in [0, 1)
and several medium issues add up to a high risk without any single one being high.
"""
from __future__ import annotations

from collections.abc import Iterable

SEVERITIES: tuple[str, ...] = ("info", "low", "medium", "high", "critical")

WEIGHTS: dict[str, float] = {"info": 0.02, "low": 0.1, "medium": 0.25, "high": 0.5, "critical": 0.8}

RISK_LEVELS: tuple[str, ...] = ("low", "medium", "high", "critical")

LEVEL_FLOORS: dict[str, float] = {"medium": 25.0, "high": 50.0, "critical": 75.0}
"""Lowest 0-100 risk score of each level; chosen so that one certain issue of a severity puts
a document at that level (0.25 -> 25, 0.5 -> 50, 0.8 -> 80)."""


def rank(severity: str) -> int:
    """Position of `severity` in SEVERITIES, so severities sort and compare."""
    return SEVERITIES.index(severity)


def worst(severities: Iterable[str], default: str = "info") -> str:
    """The most severe of `severities`, or `default` when there are none."""
    return max(severities, key=rank, default=default)


def level_for_score(score: float) -> str:
    """The risk level band a 0-100 score falls in."""
    level = "low"
    for name in RISK_LEVELS[1:]:
        if score >= LEVEL_FLOORS[name]:
            level = name
    return level


def level_for_severity(severity: str) -> str:
    """The risk level a single issue of `severity` implies (info issues imply low risk)."""
    return "low" if severity == "info" else severity


def worse_level(a: str, b: str) -> str:
    """The higher of two risk levels."""
    return max(a, b, key=RISK_LEVELS.index)
