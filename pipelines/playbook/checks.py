"""Turning a document's merged findings into playbook issues: missing, risky, bad values.

Issues are Findings with source "playbook" so they travel, store and render like any other
evidence; they are anchored to the clause that triggered them (or, for a missing clause, to
the weak candidate that was not convincing enough) so a lawyer can check them in the text.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pipelines.assessment import Issue, Sides
from pipelines.datamodel import Finding
from pipelines.playbook.quotes import quote_problem
from pipelines.playbook.schema import ClauseRule, Playbook, ValueCheck
from pipelines.sides import judged_from_our_side
from pipelines.playbook.values import matches_any, parse_days, says_no
from pipelines.terms.display import display_value

SET_ASIDE = "quote set aside: "
"""How a finding's note starts the reason its quote raised nothing (pipelines.playbook.quotes)."""
IN_OUR_FAVOUR = "in our favour: "
"""How a finding's note starts when the restraint it states binds only another party."""
SetAside = tuple[Finding, str]
"""A candidate whose quote does not state its clause, and the reason."""
_SHOWN_CHARS = 80


@dataclass
class Unreadable:
    """A value a check needed but could not read; it goes to human review instead of passing."""

    finding: Finding
    check: ValueCheck
    reason: str


def run_checks(
    playbook: Playbook, findings: Iterable[Finding], valued: Mapping[str, list[Finding]], sides: Sides = Sides()
) -> tuple[list[Issue], list[Unreadable]]:
    """Issues for one document.

    `findings` are the document's merged findings, whatever their confidence; `valued` is,
    per category, the present findings whose values the value checks read (for a key term in
    conflict, every competing value, so a bad one is not hidden by the conflict).

    A required or risky clause counts only in a quote that states it (pipelines.playbook.quotes),
    or that a reviewer confirmed is the clause (Finding.reviewed: their word stands over the check):
    the most confident present finding whose quote passes raises the risky issue or satisfies
    the requirement, and a finding whose quote fails raises nothing; its note records why.
    When `sides` says which party is us, a restraint that binds only another party (or a right
    only another party lacks) raises nothing either (pipelines.sides.judged_from_our_side).
    """
    present = playbook.thresholds.present
    by_category = _by_confidence(findings)
    issues: list[Issue] = []
    for rule in playbook.required:
        stated, set_aside = _stated(by_category.get(rule.category, []), present)
        if stated is None or stated.confidence < present:
            issues.append(_missing(playbook, rule, stated, set_aside))
    for rule in playbook.risky:
        found = _against_us(by_category.get(rule.category, []), present, sides)
        if found is not None:
            fields = {"category": rule.category, "value": _shown(found.value or "")}
            finding = _anchored(playbook, found, rule.severity, _fill(rule.reason, fields))
            issues.append(Issue("risky", finding, _fill_optional(rule.advice, fields)))
    unreadable: list[Unreadable] = []
    for check in playbook.value_checks:
        for found in valued.get(check.category, []):
            issue = _check_value(playbook, check, found)
            if isinstance(issue, Unreadable):
                unreadable.append(issue)
            elif issue is not None:
                issues.append(issue)
    return issues, unreadable


def _by_confidence(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Findings per category, most confident first."""
    grouped: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        grouped[f.category].append(f)
    return {c: sorted(group, key=lambda f: -f.confidence) for c, group in grouped.items()}


def _stated(candidates: list[Finding], present: float) -> tuple[Finding | None, SetAside | None]:
    """The most confident candidate whose quote states its clause, and the most confident
    present one set aside because its quote does not, with why (None for either if none).

    Each present candidate set aside on the way gets the reason in its note ("quote set
    aside: a recital"), so the report says why it raised nothing; one aggregation already set
    aside (and so no longer present: pipelines.aggregate) has it there.
    """
    set_aside = None
    for f in candidates:
        problem = None if f.reviewed else quote_problem(f.category, f.text)
        if problem is None:  # it states its clause, or a reviewer said it is the clause
            return f, set_aside
        if f.confidence >= present:
            f.note = "; ".join(filter(None, (f.note, SET_ASIDE + problem)))
            set_aside = set_aside or (f, problem)
        elif SET_ASIDE in (f.note or ""):
            set_aside = set_aside or (f, problem)
    return None, set_aside


def _against_us(candidates: list[Finding], present: float, sides: Sides) -> Finding | None:
    """The most confident present candidate that states a risky clause and is risky from our
    side; each one in our favour on the way gets why in its note."""
    while candidates:
        found, _ = _stated(candidates, present)
        if found is None or found.confidence < present:
            return None
        favourable = judged_from_our_side(found.category, found.text, sides)
        if favourable is None:
            return found
        found.note = "; ".join(filter(None, (found.note, IN_OUR_FAVOUR + favourable)))
        candidates = candidates[candidates.index(found) + 1:]
    return None


def _missing(playbook: Playbook, rule: ClauseRule, weak: Finding | None, set_aside: SetAside | None) -> Issue:
    """An issue for a required clause that is absent, or only weakly evidenced by `weak`;
    `set_aside` is a confident candidate whose quote does not state the clause, and why."""
    fields = {"category": rule.category, "value": ""}
    reason = _fill(rule.reason, fields)
    if set_aside is not None:
        reason += f" The candidate on page {set_aside[0].page} was set aside: {set_aside[1]}."
    advice = _fill_optional(rule.advice, fields)
    if weak is None:
        finding = Finding(rule.category, "", 0, 0, 0, 1.0, "playbook", playbook.label,
                          severity=rule.severity, note=reason)
        return Issue("missing", finding, advice)
    reason += f" Only weak evidence (confidence {weak.confidence:.2f}) on page {weak.page}."
    finding = _anchored(playbook, weak, rule.severity, reason)
    finding.confidence = round(1.0 - weak.confidence, 4)
    finding.value = None
    return Issue("missing", finding, advice)


def _check_value(playbook: Playbook, check: ValueCheck, found: Finding) -> Issue | Unreadable | None:
    """The issue `check` raises on `found`'s value (its text when it has none), if any.

    A text read in place of a value must state its clause: "governed by the Master Framework
    Agreement" names no law to hold against the playbook's list."""
    if not found.value and check.kind != "auto_renewal" and not found.reviewed \
            and quote_problem(found.category, found.text) is not None:
        return None
    value = found.value or found.text
    shown = display_value(found.category, found.value, found.detail) if found.value else value
    fields = {"category": check.category, "value": _shown(shown), "min_days": check.min_days or "",
              "allowed": ", ".join(check.allowed)}
    if check.kind == "allowed_values":
        failed = not matches_any(value, check.allowed)
    elif check.kind == "min_days":
        days = parse_days(value)
        if days is None:
            return Unreadable(found, check, f"Could not read a number of days from {fields['value']!r} "
                                            f"to compare with the playbook's minimum of {check.min_days} days.")
        fields["days"] = days
        failed = days < (check.min_days or 0)
    else:  # auto_renewal
        failed = _renews_automatically(found)
    if not failed:
        return None
    finding = _anchored(playbook, found, check.severity, _fill(check.reason, fields))
    return Issue("value", finding, _fill_optional(check.advice, fields))


def _renews_automatically(found: Finding) -> bool:
    """Whether `found` says the contract renews by itself.

    The structure pipelines.terms read says so when it has it; otherwise (a clause quote, a
    value without structure) the quote must state it: a renewal option, a definition of
    "successive periods" or a passing mention of renewal is not an automatic renewal.
    """
    if says_no(found.value):
        return False
    automatic = (found.detail or {}).get("automatic")
    if automatic is not None:
        return bool(automatic)
    return quote_problem(found.category, found.text) is None


def _anchored(playbook: Playbook, found: Finding, severity: str, note: str) -> Finding:
    """A playbook finding quoting `found`'s text at `found`'s place and confidence."""
    return Finding(found.category, found.text, found.start, found.end, found.page, found.confidence,
                   "playbook", playbook.label, box=found.box, severity=severity, value=found.value, note=note)


def _fill(template: str, fields: dict) -> str:
    """`template` with its placeholders filled; ones this issue has no value for read as empty."""
    return template.format_map(_Fields(fields))


def _fill_optional(template: str | None, fields: dict) -> str | None:
    return None if template is None else _fill(template, fields)


def _shown(value: str) -> str:
    """`value` on one line and short enough to sit inside a sentence."""
    text = " ".join(value.split())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


class _Fields(dict):
    """Template fields where a placeholder a check cannot fill reads as empty, not KeyError."""

    def __missing__(self, key: str) -> str:
        return ""
