"""Reading a playbook from YAML, with errors a lawyer editing the file can act on.

Every problem in a file is reported at once, each with where it is ("required > Cap On
Liabilty") and what would be accepted, because a playbook is edited by hand and a
fix-one-rerun-see-the-next loop is a poor way to learn its schema.

Schema (see default.yaml for a full example):

    name: <text>                 version: <text>
    thresholds: {present: 0.5, review_below: 0.75, floor: 0.2}
    severities: {<CUAD category>: <severity>, ...}
    required:   {<CUAD category>: {severity, reason?, advice?, except_types?}, ...}
    risky:      {<CUAD category>: {severity, reason?, advice?, except_types?}, ...}
    value_checks:
      - {category, kind: allowed_values, allowed: [..], severity, reason?, advice?}
      - {category, kind: min_days, min_days: N, severity, reason?, advice?}
      - {category, kind: auto_renewal, severity, reason?, advice?}
"""
from __future__ import annotations

import difflib
import string
from functools import lru_cache
from pathlib import Path

import yaml

from pipelines.categories import CUAD_CATEGORIES, canonical_category
from pipelines.contract_type import ContractType
from pipelines.assessment import Thresholds
from pipelines.playbook.schema import CHECK_KINDS, ClauseRule, Playbook, ValueCheck
from pipelines.playbook.severity import SEVERITIES

DEFAULT_PLAYBOOK = Path(__file__).with_name("default.yaml")

_TOP_KEYS = ("name", "version", "we", "thresholds", "severities", "required", "risky", "value_checks")
_RULE_KEYS = ("severity", "reason", "advice", "except_types")
_CHECK_KEYS = ("category", "kind", "severity", "reason", "advice", "allowed", "min_days")
_TEMPLATE_FIELDS = {"value", "days", "min_days", "allowed", "category"}
_DEFAULT_REASONS = {
    "required": "No {category} clause found.",
    "risky": "{category} clause present.",
    "allowed_values": "{category} is {value}, outside the allowed list ({allowed}).",
    "min_days": "{category} is {value} ({days} days), under the {min_days} days required.",
    "auto_renewal": "The contract renews automatically ({value}).",
}


class PlaybookError(ValueError):
    """A playbook file that cannot be used; the message lists every problem found in it."""

    def __init__(self, origin: str, problems: list[str]) -> None:
        super().__init__(f"{origin}: invalid playbook:\n" + "\n".join(f"  - {p}" for p in problems))
        self.origin = origin
        self.problems = problems


def load_playbook(path: Path | None = None) -> Playbook:
    """The playbook in `path`, or the default commercial playbook when `path` is None."""
    path = DEFAULT_PLAYBOOK if path is None else Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PlaybookError(str(path), [f"cannot read the file: {exc.strerror or exc}"]) from exc
    return parse_playbook(text, origin=str(path))


@lru_cache(maxsize=16)
def parse_playbook(text: str, origin: str = "<playbook>", taught: frozenset[str] = frozenset()) -> Playbook:
    """The playbook in YAML `text`; `origin` names it in error messages; `taught` are the clause
    types the team defined (issue 44), which it may take positions on as on CUAD's.

    Cached (a Playbook is frozen): every aggregate task reads its batch's playbook, and parsing
    the YAML was a tenth of a small contract's CPU time.  Errors are raised, never cached."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise PlaybookError(origin, [f"not valid YAML{where}: {problem}"]) from exc
    return _Reader(origin, taught).playbook(data)


class _Reader:
    """Walks the parsed YAML, collecting problems instead of stopping at the first."""

    def __init__(self, origin: str, taught: frozenset[str] = frozenset()) -> None:
        self.origin = origin
        self.taught = taught
        self.problems: list[str] = []

    def playbook(self, data: object) -> Playbook:
        if not isinstance(data, dict):
            raise PlaybookError(self.origin, ["the file must be a mapping with keys " + ", ".join(_TOP_KEYS)])
        self._unknown_keys(data, _TOP_KEYS, "top level")
        name = self._text(data, "name", "top level", required=True)
        version = self._text(data, "version", "top level", required=True)
        thresholds = self._thresholds(data.get("thresholds", {}))
        severities = self._severities(data.get("severities", {}))
        required = self._rules(data.get("required", {}), "required")
        risky = self._rules(data.get("risky", {}), "risky")
        checks = self._checks(data.get("value_checks", []))
        we = self._names(data.get("we", []))
        if self.problems:
            raise PlaybookError(self.origin, self.problems)
        return Playbook(name or "", version or "", severities, required, risky, checks, thresholds, we)

    def _names(self, raw: object) -> tuple[str, ...]:
        """`we:` as one name or a list: how the team's own company is written in contracts."""
        names = [raw] if isinstance(raw, str) else raw
        if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
            self.problems.append("we: must be a name or a list of names (how your company is written in contracts)")
            return ()
        return tuple(n.strip() for n in names)

    def _thresholds(self, raw: object) -> Thresholds:
        if not isinstance(raw, dict):
            self.problems.append("thresholds: must be a mapping of present, review_below, floor")
            return Thresholds()
        keys = ("present", "review_below", "floor")
        self._unknown_keys(raw, keys, "thresholds")
        values = {}
        for key in keys:
            if key not in raw:
                continue
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                self.problems.append(f"thresholds > {key}: must be a number from 0 to 1, not {value!r}")
            else:
                values[key] = float(value)
        thresholds = Thresholds(**values)
        if thresholds.floor > min(thresholds.present, thresholds.review_below):
            self.problems.append("thresholds > floor: must not exceed present or review_below")
        return thresholds

    def _severities(self, raw: object) -> dict[str, str]:
        if not isinstance(raw, dict):
            self.problems.append("severities: must be a mapping of CUAD category to severity")
            return {}
        out = {}
        for name, severity in raw.items():
            category = self._category(name, "severities")
            if category and self._severity(severity, f"severities > {name}"):
                out[category] = severity
        return out

    def _rules(self, raw: object, section: str) -> tuple[ClauseRule, ...]:
        if not isinstance(raw, dict):
            self.problems.append(f"{section}: must be a mapping of CUAD category to {{severity, reason, advice}}")
            return ()
        rules = []
        for name, spec in raw.items():
            where = f"{section} > {name}"
            category = self._category(name, section)
            if not isinstance(spec, dict):
                self.problems.append(f"{where}: must be a mapping with keys " + ", ".join(_RULE_KEYS))
                continue
            self._unknown_keys(spec, _RULE_KEYS, where)
            severity = spec.get("severity")
            reason = self._template(spec, "reason", where, _DEFAULT_REASONS[section])
            advice = self._template(spec, "advice", where)
            except_types = self._contract_types(spec.get("except_types", []), f"{where} > except_types")
            if category and self._severity(severity, f"{where} > severity") and reason is not None:
                rules.append(ClauseRule(category, severity, reason, advice, except_types))
        return tuple(rules)

    def _contract_types(self, raw: object, where: str) -> tuple[str, ...]:
        known = [t.value for t in ContractType]
        if not isinstance(raw, list) or any(t not in known for t in raw):
            self.problems.append(f"{where}: must be a list of contract types among " + ", ".join(known))
            return ()
        return tuple(raw)

    def _checks(self, raw: object) -> tuple[ValueCheck, ...]:
        if not isinstance(raw, list):
            self.problems.append("value_checks: must be a list of checks")
            return ()
        checks = []
        for i, spec in enumerate(raw, 1):
            where = f"value_checks > #{i}"
            if not isinstance(spec, dict):
                self.problems.append(f"{where}: must be a mapping with keys " + ", ".join(_CHECK_KEYS))
                continue
            self._unknown_keys(spec, _CHECK_KEYS, where)
            category = self._category(spec.get("category"), where)
            kind = spec.get("kind")
            if kind not in CHECK_KINDS:
                self.problems.append(f"{where} > kind: must be one of {', '.join(CHECK_KINDS)}, not {kind!r}")
                continue
            severity = spec.get("severity")
            ok = self._severity(severity, f"{where} > severity")
            reason = self._template(spec, "reason", where, _DEFAULT_REASONS[kind])
            advice = self._template(spec, "advice", where)
            allowed: tuple[str, ...] = ()
            min_days = None
            if kind == "allowed_values":
                values = spec.get("allowed")
                if not (isinstance(values, list) and values
                        and all(isinstance(v, str) and v.strip() for v in values)):
                    self.problems.append(f"{where} > allowed: must be a non-empty list of values")
                    ok = False
                else:
                    allowed = tuple(values)
            if kind == "min_days":
                min_days = spec.get("min_days")
                if isinstance(min_days, bool) or not isinstance(min_days, int) or min_days < 1:
                    self.problems.append(f"{where} > min_days: must be a whole number of days, not {min_days!r}")
                    ok = False
            if category and ok and reason is not None:
                checks.append(ValueCheck(category, kind, severity, reason, advice, allowed, min_days))
        return tuple(checks)

    def _category(self, name: object, where: str) -> str | None:
        category = canonical_category(name, self.taught) if isinstance(name, str) else None
        if category is None:
            close = difflib.get_close_matches(str(name), [*CUAD_CATEGORIES, *self.taught], n=1, cutoff=0.6)
            hint = (f" (did you mean {close[0]!r}?)" if close
                    else " nor a clause type defined here (see CUAD's 41 categories, and `clausemill clauses`)")
            self.problems.append(f"{where}: {name!r} is not a CUAD category{hint}")
        return category

    def _severity(self, value: object, where: str) -> bool:
        if value not in SEVERITIES:
            self.problems.append(f"{where}: must be one of {', '.join(SEVERITIES)}, not {value!r}")
            return False
        return True

    def _template(self, spec: dict, key: str, where: str, default: str | None = None) -> str | None:
        """Text with {placeholders} filled in when an issue is raised; None if absent or bad."""
        template = self._text(spec, key, where) or default
        if template is None:
            return None
        try:
            fields = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
        except ValueError as exc:
            self.problems.append(f"{where} > {key}: {exc} (write literal braces as {{{{ and }}}})")
            return None
        unknown = fields - _TEMPLATE_FIELDS
        if unknown:
            self.problems.append(
                f"{where} > {key}: unknown placeholder(s) {', '.join(sorted(unknown))}; "
                f"available: {', '.join(sorted(_TEMPLATE_FIELDS))}")
            return None
        return template

    def _text(self, spec: dict, key: str, where: str, required: bool = False) -> str | None:
        value = spec.get(key)
        if value is None:
            if required:
                self.problems.append(f"{where}: {key} is required")
            return None
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            self.problems.append(f"{where} > {key}: must be text, not {type(value).__name__}")
            return None
        return str(value)

    def _unknown_keys(self, spec: dict, allowed: tuple[str, ...], where: str) -> None:
        for key in spec:
            if key not in allowed:
                close = difflib.get_close_matches(str(key), allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f"; allowed: {', '.join(allowed)}"
                self.problems.append(f"{where}: unknown key {key!r}{hint}")
