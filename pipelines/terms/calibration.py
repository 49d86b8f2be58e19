"""How often a key-term value read this way was right: the confidence a value finding carries.

The readers in pipelines/terms give each value a hand-set constant per reading path (an
effective date from the preamble 0.9, one from elsewhere 0.7, ...).  Those constants rank the
paths but do not say how often such a reading is right, which is what a reviewer and the review
budget take a confidence to mean.  value_calibration.json, written by
ops/benchmarks/value_confidence.py from CUAD's training contracts, maps each field's constants
to the share of such values that were right there (smoothed, cross-validated; the figures are
in docs/ACCURACY.md).  The readers keep their constants, so the map can be refitted whenever a
reader changes.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

TABLE_PATH = Path(__file__).with_name("value_calibration.json")


def calibrated(field: str, confidence: float) -> float:
    """The share right of `field`'s values read with `confidence`; a field the map does not
    cover (no CUAD answer to measure it by) keeps its confidence."""
    levels = _table().get(field)
    return confidence if levels is None else level_value(levels, confidence)


def level_value(levels: Mapping[float, float], confidence: float) -> float:
    """The map's value at `confidence`, or at the nearest level it has (the lower of two as
    near): a constant added to a reader after the fit takes the nearest measured one's figure."""
    return levels[min(levels, key=lambda level: (abs(level - confidence), level))]


@cache
def _table() -> dict[str, dict[float, float]]:
    data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    return {field: {float(level): float(share) for level, share in levels.items()}
            for field, levels in data.items() if not field.startswith("_")}
