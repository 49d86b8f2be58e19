"""Recalibration from reviewers' decisions: what the machine's confidences should have been.

The model and the rules are calibrated on CUAD's training split; a team's own contracts are
not CUAD, so a confidence of 0.7 may be right 50% of the time there.  Every decided presence
item ("Is this X?", and the random audit sample) is a label on one finding's confidence, and
so is every decided value item (is this key term's value right?).
`clausemill recalibrate` fits, per calibration key, a Platt map over those labels,
calibrated = sigmoid(scale * logit(confidence) + bias), applied by aggregation to the merged
confidence of every finding of later audits (the finding records the version in
`detail["calibration"]`).

The queue is not a random sample: it holds the uncertain best candidate of each category, and
only the audit sample (a known share, `sample_rate`, of the confident findings) speaks for
what the machine is sure of.  Fitting on the queue alone would teach the map that confident
findings are as doubtful as uncertain ones.  So each label is weighted by the inverse of its
chance of being reviewed: 1 / sample_rate for a sampled item, 1 for a queued one, times (items
of its kind under that key) / (those decided), for the part of the queue nobody reached yet.

A presence label is about presence (is the category in this contract?), since that is what a
category's confidence is thresholded for: a quote rejected as the wrong span still says yes.
Its key is the category; for a clause type the team taught, the category and the version that
found it ("Force Majeure @ ct-force-majeure-2-..."), since each retraining brings its own
calibration, which decisions on an earlier version must not move.  A value label is about the key term's value (is the date, the
jurisdiction, the party the machine read the right one?): accepted, right; corrected to
another value, wrong.  Its key is `value_key(field)`, a map of its own beside the field's
presence map, because the two confidences answer different questions: a clause can be
plainly there while its date is misread, so one map fitted on both would pull each toward the
other's error rate.

A key's map is kept only if it predicts decisions it was not fitted on better than the
confidences did: the decisions are split into folds by contract, each fold scored by a map
fitted on the others (weighted log loss), and the report shows that reliability before and
after.  A pull toward the identity map, worth PRIOR decisions, keeps a key with a handful
of decisions near where it was.
"""
from __future__ import annotations

import hashlib
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from pipelines.categories import is_taught_version
from pipelines.datamodel import Finding
from pipelines.review.double_review import final_decision
from pipelines.terms.value import VALUE_NOTE

PRIOR = 2.0
"""Weight of the pull toward (scale 1, bias 0), in decisions."""
FOLDS = 5
MIN_DECISIONS = 8
"""Fewer decisions than this under a key: too few to tell a better map from noise; none is fitted."""
EPS = 1e-4
BINS = 10

SKIPPED_REJECTS = frozenset({"duplicate", "ocr_error"})
"""Rejections that say nothing about whether the finding is right: a duplicate of another item,
or text the OCR garbled."""


@dataclass(frozen=True)
class Calibration:
    """A fitted calibration: per calibration key (a category, or `value_key(field)`) its
    (scale, bias); keys not in it are unchanged."""

    version: int
    params: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def apply(self, category: str, confidence: float) -> float:
        if category not in self.params:
            return confidence
        scale, bias = self.params[category]
        return round(_sigmoid(scale * _logit(confidence) + bias), 4)

    def recalibrated(self, finding: Finding) -> Finding:
        """The finding with its calibrated confidence; `detail["calibration"]` keeps the version
        and the confidence before, which is what a later recalibration fits on.  A key term's
        value finding goes through its field's value map, any other through its category's."""
        key = value_key(finding.category) if finding.note == VALUE_NOTE else presence_key(finding.category,
                                                                                         finding.version)
        if key not in self.params:
            return finding
        detail = {**(finding.detail or {}), "calibration": {"version": self.version, "before": finding.confidence}}
        return replace(finding, confidence=self.apply(key, finding.confidence), detail=detail)

    @classmethod
    def from_row(cls, version: int, params: Mapping[str, Mapping[str, float]]) -> Calibration:
        return cls(version, {c: (float(p["scale"]), float(p["bias"])) for c, p in params.items()})


def uncalibrated(finding: Finding) -> float:
    """The confidence before any reviewer calibration."""
    before = ((finding.detail or {}).get("calibration") or {}).get("before")
    return float(before) if before is not None else finding.confidence


@dataclass(frozen=True)
class Label:
    """One decided presence or value item: the finding's confidence before calibration, and
    whether it was right.  `category` is the calibration key the label is fitted under: the
    item's category for a presence item, `value_key(field)` for a value item."""

    category: str
    document_id: int
    confidence: float
    right: bool
    sampled: bool
    sample_rate: float = 0.02


def label_of(action: str, reason: str | None, new: Mapping, category: str) -> bool | None:
    """Whether a decision says the machine's presence call was right: the category is in the
    contract (what the confidence of a category's best candidate is thresholded for).

    Accepted, or corrected only in its span or value: right.  Rejected as the wrong span:
    right too, the clause is there, elsewhere.  Corrected to another category, or rejected as
    the wrong category or not a clause: wrong.  Rejected as a duplicate or an OCR error: no
    label."""
    if action == "accept":
        return True
    if action == "correct":
        return new.get("category", category) == category
    if action == "reject":
        if reason in SKIPPED_REJECTS:
            return None
        return reason == "wrong_span"
    return None


def value_label_of(action: str, new: Mapping) -> bool | None:
    """Whether a decision on a value item says the machine's value was right: accepted, right;
    corrected with the value the reviewer typed, wrong.  Anything else (a rejection, a
    correction of the span alone) says nothing about the value: no label."""
    if action == "accept":
        return True
    if action == "correct" and "value" in new:
        return False
    return None


def value_key(field: str) -> str:
    """The calibration key of a key term's value: a map of its own, apart from the field's
    presence map (module docstring); also how `clausemill recalibrate` names it."""
    return f"{field} (value)"


def presence_key(category: str, version: str | None) -> str:
    """A category's presence map: per version for a taught clause type (module docstring)."""
    return f"{category} @ {version}" if is_taught_version(version) else category


def calibration_key(category: str, question: str | None, version: str | None = None) -> str | None:
    """The map a decision on a review item with this category and question (and the version of
    the finding it quotes) feeds: a presence item its category's, a value item its field's value
    map, any other item (conflicting values, a term left blank, an unreadable check) none."""
    if question == "presence":
        return presence_key(category, version)
    if question == "value":
        return value_key(category)
    return None


def review_labels(trails: Iterable[list[Mapping]]) -> list[Label]:
    """A Label for each item's standing decision on a presence or value question (a
    double-reviewed item's final one, once it has both), from the trails
    `repository.item_trails` reads."""
    labels = []
    for trail in trails:
        row = final_decision(trail)
        if row is None:
            continue  # undone, or a double review waiting for its second decision
        evidence = row["previous"].get("evidence") or {}
        parts = evidence.get("priority_parts") or {}
        confidence = evidence.get("uncalibrated", evidence.get("confidence"))
        category, question = row["previous"].get("category"), parts.get("question")
        key = calibration_key(category, question, evidence.get("version"))
        right = (value_label_of(row["action"], row["new"]) if question == "value"
                 else label_of(row["action"], row["reason"], row["new"], category))
        if key is None or confidence is None or right is None:
            continue
        labels.append(Label(key, row["document_id"], float(confidence), right, bool(parts.get("sample")),
                            float(parts.get("sample_rate") or 0.02)))
    return labels


def weights(labels: list[Label], queued: Mapping[tuple[str, bool], int]) -> list[float]:
    """Each label's weight: the inverse of its chance of being reviewed (module docstring),
    scaled so a category's weights add up to its number of decisions."""
    decided: dict[tuple[str, bool], int] = defaultdict(int)
    for label in labels:
        decided[label.category, label.sampled] += 1
    raw = []
    for label in labels:
        key = (label.category, label.sampled)
        select = max(label.sample_rate, 1e-6) if label.sampled else 1.0
        raw.append(max(queued.get(key, 0), decided[key]) / decided[key] / select)
    total: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for label, w in zip(labels, raw):
        total[label.category] += w
        count[label.category] += 1
    return [w * count[label.category] / total[label.category] for label, w in zip(labels, raw)]


def fit_platt(z: list[float], y: list[float], w: list[float], prior: float = PRIOR) -> tuple[float, float]:
    """(scale, bias) minimising the weighted log loss of sigmoid(scale * z + bias), plus
    prior * ((scale - 1)^2 + bias^2): Newton's method on two parameters."""
    a, b = 1.0, 0.0
    for _ in range(100):
        ga, gb = 2 * prior * (a - 1.0), 2 * prior * b
        haa, hab, hbb = 2 * prior, 0.0, 2 * prior
        for zi, yi, wi in zip(z, y, w):
            p = _sigmoid(a * zi + b)
            r, s = wi * (p - yi), wi * p * (1.0 - p)
            ga, gb = ga + r * zi, gb + r
            haa, hab, hbb = haa + s * zi * zi, hab + s * zi, hbb + s
        det = haa * hbb - hab * hab
        if det <= 1e-12:
            break
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-9:
            break
    return a, b


@dataclass(frozen=True)
class Reliability:
    """How well confidences predicted the decisions (weighted): lower is better for all three."""

    log_loss: float
    brier: float
    ece: float

    def to_dict(self) -> dict[str, float]:
        return {"log_loss": round(self.log_loss, 4), "brier": round(self.brier, 4), "ece": round(self.ece, 4)}


def reliability(p: list[float], y: list[float], w: list[float]) -> Reliability:
    total = sum(w) or 1.0
    log_loss = -sum(wi * (yi * math.log(max(pi, EPS)) + (1 - yi) * math.log(max(1 - pi, EPS)))
                    for pi, yi, wi in zip(p, y, w)) / total
    brier = sum(wi * (pi - yi) ** 2 for pi, yi, wi in zip(p, y, w)) / total
    bins: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # weight, sum p, sum y
    for pi, yi, wi in zip(p, y, w):
        cell = bins[min(int(pi * BINS), BINS - 1)]
        cell[0] += wi
        cell[1] += wi * pi
        cell[2] += wi * yi
    ece = sum(abs(sp - sy) for _, sp, sy in bins.values()) / total
    return Reliability(log_loss, brier, ece)


@dataclass(frozen=True)
class CategoryFit:
    category: str
    decisions: int
    right: float
    """Weighted share of the decisions that said the finding was right."""
    before: Reliability
    after: Reliability
    """Out of fold: each contract's decisions scored by a map fitted without them."""
    scale: float
    bias: float
    kept: bool

    def to_dict(self) -> dict:
        return {"decisions": self.decisions, "right": round(self.right, 4), "before": self.before.to_dict(),
                "after": self.after.to_dict(), "scale": round(self.scale, 4), "bias": round(self.bias, 4),
                "kept": self.kept}


def fit(labels: Iterable[Label], queued: Mapping[tuple[str, bool], int], prior: float = PRIOR) -> list[CategoryFit]:
    """One CategoryFit per category with decisions, fitted as the module docstring says."""
    labels = list(labels)
    w_all = weights(labels, queued)
    by_category: dict[str, list[tuple[Label, float]]] = defaultdict(list)
    for label, w in zip(labels, w_all):
        by_category[label.category].append((label, w))
    fits = []
    for category, rows in sorted(by_category.items()):
        z = [_logit(label.confidence) for label, _ in rows]
        y = [1.0 if label.right else 0.0 for label, _ in rows]
        w = [wi for _, wi in rows]
        p_before = [min(max(label.confidence, 0.0), 1.0) for label, _ in rows]
        before = reliability(p_before, y, w)
        right = sum(wi * yi for wi, yi in zip(w, y)) / (sum(w) or 1.0)
        if len(rows) < MIN_DECISIONS:
            fits.append(CategoryFit(category, len(rows), right, before, before, 1.0, 0.0, False))
            continue
        folds = [_fold(label.document_id) for label, _ in rows]
        p_after = [0.0] * len(rows)
        for k in range(FOLDS):
            train = [i for i, f in enumerate(folds) if f != k]
            scale, bias = fit_platt([z[i] for i in train], [y[i] for i in train], [w[i] for i in train], prior)
            for i, f in enumerate(folds):
                if f == k:
                    p_after[i] = _sigmoid(scale * z[i] + bias)
        after = reliability(p_after, y, w)
        scale, bias = fit_platt(z, y, w, prior)
        fits.append(CategoryFit(category, len(rows), right, before, after, scale, bias,
                                kept=after.log_loss < before.log_loss))
    return fits


def params_of(fits: Iterable[CategoryFit]) -> dict[str, dict[str, float]]:
    """What a calibration row stores: the maps that were kept."""
    return {f.category: {"scale": f.scale, "bias": f.bias} for f in fits if f.kept}


def _fold(document_id: int) -> int:
    return int.from_bytes(hashlib.sha256(str(document_id).encode()).digest()[:4], "big") % FOLDS


def _logit(p: float) -> float:
    p = min(max(p, EPS), 1.0 - EPS)
    return math.log(p / (1.0 - p))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)
