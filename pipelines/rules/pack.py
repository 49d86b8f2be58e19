"""Loading a rule pack: the versioned YAML that says what evidences each CUAD category.

A pack is data lawyers and engineers edit, so a mistake in it must be reported as the rule and
field that is wrong, not as a stack trace from deep inside `re`.  Everything is checked and
compiled once here; applying the pack (engine.py) then only runs compiled patterns.

Pattern forms, usable under `match` (any one must match), `require` (all must match) and
`unless` (none may match; this is how negations such as "shall not be liable" are kept out):

  - regex: '<python regex, case-insensitive>'
  - keywords: [literal phrase, ...]            # any of them, as whole words
  - near: {first: [regex, ...], second: [regex, ...], within: <words>, ordered: <bool>}

Confidences: each rule and key-term evidence kind has a hand-set `confidence`; when
calibration.yaml (written by ops/benchmarks/rules_accuracy.py from the training split) was
made for the same pack version, its measured precision replaces it.  A rule marked
`presence: true`, like every key-term evidence kind, also has its presence rate measured: how
often a contract where it fires has the category at all (see RulePack.carry_presence).
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from pipelines.categories import canonical_category
from pipelines.datamodel import Finding
from pipelines.rules.screen import ScreenedPattern, screened

log = logging.getLogger(__name__)

SEVERITIES = ("info", "low", "medium", "high", "critical")
CALIBRATION_FILE = "calibration.yaml"
DEFAULT_PACK_PATH = Path(__file__).with_name("rulepack.yaml")


class RulePackError(ValueError):
    """The rule pack (or its calibration table) is malformed; the message says where."""


@dataclass(frozen=True)
class Rule:
    """One compiled rule: a segment evidences `category` when the patterns say so."""

    id: str
    category: str
    confidence: float
    severity: str
    match: tuple[ScreenedPattern, ...]
    require: tuple[ScreenedPattern, ...] = ()
    unless: tuple[ScreenedPattern, ...] = ()
    presence: bool = False  # its best finding in a document carries the measured presence rate

    def applies_to(self, text: str, lowered: str) -> bool:
        """Any `match`, every `require`, and no `unless` pattern is found in `text`;
        `lowered` is screen.folded(text), computed once per segment for every rule."""
        return (
            any(p.found_in(text, lowered) for p in self.match)
            and all(p.found_in(text, lowered) for p in self.require)
            and not any(p.found_in(text, lowered) for p in self.unless)
        )


@dataclass(frozen=True)
class RulePack:
    """A loaded, validated and compiled rule pack."""

    version: str
    rules: tuple[Rule, ...]
    key_terms: dict[str, float]  # key-term evidence kind -> base confidence
    category_severity: dict[str, str]
    calibration: dict[str, float] = field(default_factory=dict)  # evidence id -> precision
    path: str = ""
    presence: dict[str, float] = field(default_factory=dict)  # evidence id -> P(category present | it fired)

    def confidence(self, evidence_id: str, base: float) -> float:
        """The calibrated precision of an evidence kind, or its hand-set `base`."""
        return self.calibration.get(evidence_id, base)

    def key_term_confidence(self, evidence_id: str) -> float:
        """Confidence of a key-term evidence kind; the pack must list every kind used."""
        if evidence_id not in self.key_terms:
            raise RulePackError(f"{self.path}: key_terms has no entry '{evidence_id}'")
        return self.confidence(evidence_id, self.key_terms[evidence_id])

    def presence_rate(self, evidence_id: str) -> float | None:
        """How often a contract in which this evidence fires has the category at all (measured
        on the training split), or None when not measured: key-term evidence and rules marked
        `presence: true` only."""
        return self.presence.get(evidence_id)

    def carry_presence(self, findings: list[Finding]) -> list[Finding]:
        """Per category, the finding whose evidence best predicts that the contract has the
        category carries that presence rate when it is higher than its span precision.

        Span precision answers "is this exactly the annotated text" (an "effective as of" date:
        0.29; a licence granted to a party "and its Affiliates": 0.46) and undersells "the contract
        has it" (0.9 and 0.76 of the training contracts where that evidence fires); CUAD's presence
        score, and the report's present/absent call, read a category's best candidate."""
        best: dict[str, tuple[float, int]] = {}
        for i, f in enumerate(findings):
            rate = self.presence_rate(f.note or "")
            if rate is not None and rate > best.get(f.category, (-1.0, -1))[0]:
                best[f.category] = (rate, i)
        carried = list(findings)
        for rate, i in best.values():
            if rate > carried[i].confidence:
                carried[i] = replace(carried[i], confidence=rate)
        return carried

    def severity(self, category: str) -> str:
        """The default severity of findings of `category`."""
        return self.category_severity.get(category, "info")


def _fail(where: str, message: str) -> RulePackError:
    return RulePackError(f"{where}: {message}")


def _compile(where: str, source: str) -> re.Pattern[str]:
    try:
        return re.compile(source, re.IGNORECASE)
    except re.error as exc:
        raise _fail(where, f"invalid regex {source!r}: {exc}") from None


def _string_list(where: str, value: Any) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise _fail(where, "must be a non-empty list of strings")
    return value


def _near_source(where: str, spec: Any) -> str:
    if not isinstance(spec, dict):
        raise _fail(where, "must be a mapping with first, second and within")
    unknown = set(spec) - {"first", "second", "within", "ordered"}
    if unknown:
        raise _fail(where, f"unknown keys {sorted(unknown)}")
    first = "|".join(f"(?:{t})" for t in _string_list(f"{where}.first", spec.get("first")))
    second = "|".join(f"(?:{t})" for t in _string_list(f"{where}.second", spec.get("second")))
    within = spec.get("within")
    if not isinstance(within, int) or isinstance(within, bool) or within < 0:
        raise _fail(f"{where}.within", "must be a whole number of words >= 0")
    ordered = spec.get("ordered", False)
    if not isinstance(ordered, bool):
        raise _fail(f"{where}.ordered", "must be true or false")
    gap = rf"(?:\W+\w+){{0,{within}}}?\W+"
    forward = rf"\b(?:{first})\b{gap}(?:{second})\b"
    if ordered:
        return forward
    return rf"{forward}|\b(?:{second})\b{gap}(?:{first})\b"


def _pattern(where: str, spec: Any) -> ScreenedPattern:
    return screened(_regex(where, spec))


def _regex(where: str, spec: Any) -> re.Pattern[str]:
    if not isinstance(spec, dict) or len(spec) != 1:
        raise _fail(where, "must be exactly one of {regex: ...}, {keywords: [...]}, {near: {...}}")
    (kind, value), = spec.items()
    if kind == "regex":
        if not isinstance(value, str) or not value:
            raise _fail(f"{where}.regex", "must be a non-empty string")
        return _compile(f"{where}.regex", value)
    if kind == "keywords":
        words = _string_list(f"{where}.keywords", value)
        phrases = "|".join(r"\s+".join(map(re.escape, w.split())) for w in words)
        return _compile(f"{where}.keywords", rf"\b(?:{phrases})\b")
    if kind == "near":
        return _compile(f"{where}.near", _near_source(f"{where}.near", value))
    raise _fail(where, f"unknown pattern kind '{kind}' (use regex, keywords or near)")


def _patterns(where: str, value: Any, required: bool) -> tuple[ScreenedPattern, ...]:
    if value is None and not required:
        return ()
    if not isinstance(value, list) or not value:
        raise _fail(where, "must be a non-empty list of patterns")
    return tuple(_pattern(f"{where}[{i}]", spec) for i, spec in enumerate(value))


def _confidence(where: str, value: Any) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 < value <= 1.0:
        raise _fail(where, f"must be a number in (0, 1], got {value!r}")
    return float(value)


def _category(where: str, value: Any) -> str:
    name = canonical_category(value) if isinstance(value, str) else None
    if name is None:
        raise _fail(where, f"{value!r} is not a CUAD category")
    return name


def _severity(where: str, value: Any) -> str:
    if value not in SEVERITIES:
        raise _fail(where, f"must be one of {', '.join(SEVERITIES)}, got {value!r}")
    return value


_RULE_KEYS = {"id", "category", "confidence", "severity", "match", "require", "unless", "why", "presence"}


def _rule(where: str, spec: Any, category_severity: dict[str, str]) -> Rule:
    if not isinstance(spec, dict):
        raise _fail(where, "must be a mapping")
    rule_id = spec.get("id")
    if not isinstance(rule_id, str) or not rule_id:
        raise _fail(f"{where}.id", "is required (a non-empty string)")
    where = f"rule '{rule_id}'"
    unknown = set(spec) - _RULE_KEYS
    if unknown:
        raise _fail(where, f"unknown fields {sorted(unknown)}")
    category = _category(f"{where}, field 'category'", spec.get("category"))
    severity = spec.get("severity", category_severity.get(category, "info"))
    presence = spec.get("presence", False)
    if not isinstance(presence, bool):
        raise _fail(f"{where}, field 'presence'", f"must be true or false, got {presence!r}")
    return Rule(
        id=rule_id,
        category=category,
        confidence=_confidence(f"{where}, field 'confidence'", spec.get("confidence")),
        severity=_severity(f"{where}, field 'severity'", severity),
        match=_patterns(f"{where}, field 'match'", spec.get("match"), required=True),
        require=_patterns(f"{where}, field 'require'", spec.get("require"), required=False),
        unless=_patterns(f"{where}, field 'unless'", spec.get("unless"), required=False),
        presence=presence,
    )


def _load_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RulePackError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise RulePackError(f"{path}: not valid YAML: {exc}") from None


def _load_calibration(path: Path, version: str) -> tuple[dict[str, float], dict[str, float]]:
    """Measured span precisions and document presence rates from `path`, if it was made for
    this pack version."""
    if not path.exists():
        return {}, {}
    doc = _load_yaml(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("evidence"), dict):
        raise RulePackError(f"{path}: must be a mapping with an 'evidence' mapping")
    if str(doc.get("pack_version")) != version:
        log.warning("ignoring %s: made for rule pack %s, not %s", path, doc.get("pack_version"), version)
        return {}, {}
    precision, presence = {}, {}
    for evidence_id, row in doc["evidence"].items():
        if not isinstance(row, dict):
            raise RulePackError(f"{path}: evidence '{evidence_id}' must be a mapping")
        where = f"{path}: evidence '{evidence_id}'"
        precision[str(evidence_id)] = _confidence(f"{where}, field 'precision'", row.get("precision"))
        if "presence" in row:
            presence[str(evidence_id)] = _confidence(f"{where}, field 'presence'", row["presence"])
    return precision, presence


def parse_rule_pack(doc: Any, where: str = "rule pack") -> RulePack:
    """Validate and compile a pack already read from YAML (no calibration applied)."""
    if not isinstance(doc, dict):
        raise _fail(where, "must be a mapping with version and rules")
    unknown = set(doc) - {"version", "severity", "key_terms", "rules"}
    if unknown:
        raise _fail(where, f"unknown top-level fields {sorted(unknown)}")
    version = doc.get("version")
    if not isinstance(version, str) or not re.fullmatch(r"\d{4}\.\d{1,2}\.\d+", version):
        raise _fail(f"{where}, field 'version'", f"must be a string like \"2026.11.1\", got {version!r}")
    raw_severity = doc.get("severity") or {}
    if not isinstance(raw_severity, dict):
        raise _fail(f"{where}, field 'severity'", "must map categories to severities")
    category_severity = {
        _category(f"{where}, severity", name): _severity(f"{where}, severity of {name!r}", value)
        for name, value in raw_severity.items()
    }
    raw_key_terms = doc.get("key_terms") or {}
    if not isinstance(raw_key_terms, dict):
        raise _fail(f"{where}, field 'key_terms'", "must map evidence kinds to confidences")
    key_terms = {str(k): _confidence(f"{where}, key_terms '{k}'", v) for k, v in raw_key_terms.items()}
    raw_rules = doc.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise _fail(f"{where}, field 'rules'", "must be a non-empty list")
    rules = [_rule(f"{where}, rules[{i}]", spec, category_severity) for i, spec in enumerate(raw_rules)]
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise _fail(f"rule '{rule.id}'", "duplicate id")
        seen.add(rule.id)
    return RulePack(version=version, rules=tuple(rules), key_terms=key_terms,
                    category_severity=category_severity)


def load_rule_pack(path: str | Path, calibrated: bool = True) -> RulePack:
    """Read, validate and compile the pack at `path`, with the calibration beside it unless
    `calibrated` is false: a new calibration is measured with the hand-set confidences, so that it
    does not depend on the calibration it replaces."""
    path = Path(path)
    try:
        pack = parse_rule_pack(_load_yaml(path), where=str(path))
    except RulePackError as exc:
        message = str(exc)
        raise RulePackError(message if message.startswith(str(path)) else f"{path}: {message}") from None
    if not calibrated:
        return pack
    calibration, presence = _load_calibration(path.with_name(CALIBRATION_FILE), pack.version)
    return RulePack(pack.version, pack.rules, pack.key_terms, pack.category_severity, calibration, str(path),
                    presence)


@lru_cache(maxsize=1)
def default_rule_pack() -> RulePack:
    """The pack shipped with clausemill, loaded once per process."""
    return load_rule_pack(DEFAULT_PACK_PATH)
