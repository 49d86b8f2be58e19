"""Severity levels, their order and their weights: the one place risk arithmetic reads them from.

A contract's level is its worst verified issue's severity (see pipelines.aggregate.risk); a
weight is the chance-like share one certain issue of a severity adds to the score that ranks
contracts within a level, combined by noisy-OR, so weights stay in [0, 1).
"""
from __future__ import annotations

from collections.abc import Iterable

SEVERITIES: tuple[str, ...] = ("info", "low", "medium", "high", "critical")

WEIGHTS: dict[str, float] = {"info": 0.02, "low": 0.1, "medium": 0.25, "high": 0.5, "critical": 0.8}

RISK_LEVELS: tuple[str, ...] = ("low", "medium", "high", "critical")

LEVEL_FLOORS: dict[str, float] = {"low": 0.0, "medium": 25.0, "high": 50.0, "critical": 75.0}
"""Lowest 0-100 risk score of each level: a level's contracts score inside its band."""


def rank(severity: str) -> int:
    """Position of `severity` in SEVERITIES, so severities sort and compare."""
    return SEVERITIES.index(severity)


def worst(severities: Iterable[str], default: str = "info") -> str:
    """The most severe of `severities`, or `default` when there are none."""
    return max(severities, key=rank, default=default)


def level_band(level: str) -> tuple[float, float]:
    """The 0-100 scores a level's contracts fall in: from its floor to the next level's."""
    i = RISK_LEVELS.index(level)
    upper = LEVEL_FLOORS[RISK_LEVELS[i + 1]] if i + 1 < len(RISK_LEVELS) else 100.0
    return LEVEL_FLOORS[level], upper


def level_for_severity(severity: str) -> str:
    """The risk level a single issue of `severity` implies (info issues imply low risk)."""
    return "low" if severity == "info" else severity
