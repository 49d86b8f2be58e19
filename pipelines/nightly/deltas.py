"""What changed between two runs over the same contract repository, and the nightly report
that says it.

Contracts are matched by path.  A contract is new or removed when its path appears or
disappears, changed when its bytes differ; for every contract in both runs the report lists
the findings that appeared or vanished (present findings, matched by category and quote, so
a clause that merely moved is not news), its risk-level change, and the review items that
are new for it.  Review items of new contracts count as added too: someone must look at them.
The first run of a repository has nothing to compare with and lists every contract as new.

The report is nightly.html (for the legal team; every piece of contract text is escaped by
jinja2's autoescaping) and nightly.json (the same, machine-readable); deadlines.ics is one of
the batch reports beside them (pipelines.reports).
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path

from pipelines.assessment import Assessed, DocumentAssessment
from pipelines.datamodel import DocumentResult, Finding
from pipelines.deadlines import HORIZONS, KIND_TITLES, Deadline, by_horizon
from pipelines.playbook.values import normalize
from pipelines.reports.palette import LEVEL_COLORS

_QUOTE_KEY_CHARS = 300


@dataclass(frozen=True)
class Contract:
    filename: str
    path: str
    status: str
    risk_level: str | None


@dataclass(frozen=True)
class FindingChange:
    filename: str
    path: str
    category: str
    text: str
    page: int
    confidence: float


@dataclass(frozen=True)
class RiskChange:
    filename: str
    path: str
    before: str | None
    after: str | None
    score_before: float | None
    score_after: float | None


@dataclass(frozen=True)
class ReviewAdded:
    filename: str
    path: str
    category: str
    reason: str
    priority: float
    text: str
    page: int


@dataclass
class Delta:
    first_run: bool
    new: list[Contract] = field(default_factory=list)
    changed: list[Contract] = field(default_factory=list)
    removed: list[Contract] = field(default_factory=list)
    unchanged: int = 0  # same path, same bytes
    appeared: list[FindingChange] = field(default_factory=list)
    vanished: list[FindingChange] = field(default_factory=list)
    risk_changes: list[RiskChange] = field(default_factory=list)
    review_added: list[ReviewAdded] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"new": len(self.new), "changed": len(self.changed), "removed": len(self.removed),
                "unchanged": self.unchanged, "findings_appeared": len(self.appeared),
                "findings_vanished": len(self.vanished), "risk_changes": len(self.risk_changes),
                "review_items_added": len(self.review_added)}

    def describe(self) -> str:
        if self.first_run:
            return f"first run over these paths: {len(self.new)} contracts, {len(self.review_added)} review items"
        c = self.counts()
        return (f"since the last run: {c['new']} new, {c['changed']} changed, {c['removed']} removed; findings "
                f"+{c['findings_appeared']}/-{c['findings_vanished']}; {c['risk_changes']} risk-level changes; "
                f"{c['review_items_added']} review items added")

    def to_dict(self) -> dict:
        return {"first_run": self.first_run, "counts": self.counts(),
                **{name: [asdict(item) for item in getattr(self, name)]
                   for name in ("new", "changed", "removed", "appeared", "vanished", "risk_changes", "review_added")}}


def compare_runs(current: Iterable[Assessed], previous: Iterable[Assessed] | None) -> Delta:
    """The delta from `previous` (None: there was no earlier run) to `current`."""
    now = {doc.path: (doc, assessment) for doc, assessment in current}
    if previous is None:
        delta = Delta(first_run=True, new=[_contract(doc, a) for doc, a in now.values()])
        for doc, assessment in now.values():
            delta.review_added += _review_added(doc, assessment, None)
        return delta
    before = {doc.path: (doc, assessment) for doc, assessment in previous}
    delta = Delta(first_run=False)
    delta.removed = [_contract(doc, a) for path, (doc, a) in sorted(before.items()) if path not in now]
    for path, (doc, assessment) in sorted(now.items()):
        if path not in before:
            delta.new.append(_contract(doc, assessment))
            delta.review_added += _review_added(doc, assessment, None)
            continue
        old_doc, old_assessment = before[path]
        if old_doc.sha256 != doc.sha256:
            delta.changed.append(_contract(doc, assessment))
        else:
            delta.unchanged += 1
        appeared, vanished = _finding_changes(_present(assessment), _present(old_assessment))
        delta.appeared += [_finding_change(doc, f) for f in appeared]
        delta.vanished += [_finding_change(doc, f) for f in vanished]
        level, old_level = _level(doc, assessment), _level(old_doc, old_assessment)
        if level != old_level:
            delta.risk_changes.append(RiskChange(doc.filename, path, old_level, level, _score(old_doc, old_assessment),
                                                 _score(doc, assessment)))
        delta.review_added += _review_added(doc, assessment, old_assessment)
    return delta


# --- the report ----------------------------------------------------------------------------

@dataclass
class NightlyReport:
    """One nightly run: which run, how much it audited again, what changed, what is due."""

    run: dict  # schedule, trigger, window_start, batch_id, previous_batch_id, timezone...
    audited: dict  # pipelines.nightly.incremental.Plan.to_dict()
    delta: Delta
    deadlines: list[Deadline]
    as_of: date
    generated_at: datetime

    def deadline_counts(self) -> dict[str, int]:
        return {str(h): len(items) for h, items in by_horizon(self.deadlines).items()}

    def to_dict(self) -> dict:
        return {"run": self.run, "audited": self.audited, "changes": self.delta.to_dict(),
                "deadlines": {"as_of": self.as_of.isoformat(), "counts": self.deadline_counts(),
                              "items": [d.to_dict() for d in self.deadlines]},
                "generated_at": self.generated_at.isoformat(timespec="seconds")}


def write_nightly_report(report: NightlyReport, out_dir: Path) -> list[Path]:
    """nightly.html and nightly.json in `out_dir`, beside the batch reports."""
    from pipelines.reports.html_report import environment

    out_dir.mkdir(parents=True, exist_ok=True)
    html = environment().get_template("nightly.html").render(
        report=report, delta=report.delta, counts=report.delta.counts(), horizons=HORIZONS,
        deadlines=by_horizon(report.deadlines), kind_titles=KIND_TITLES, level_colors=LEVEL_COLORS,
    )
    html_path, json_path = out_dir / "nightly.html", out_dir / "nightly.json"
    html_path.write_text(html, encoding="utf-8")
    json_path.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    return [html_path, json_path]


# --- comparing two documents ---------------------------------------------------------------

def _contract(doc: DocumentResult, assessment: DocumentAssessment | None) -> Contract:
    return Contract(doc.filename, doc.path, str(doc.status), _level(doc, assessment))


def _level(doc: DocumentResult, assessment: DocumentAssessment | None) -> str | None:
    return assessment.risk_level if assessment else doc.risk_level


def _score(doc: DocumentResult, assessment: DocumentAssessment | None) -> float | None:
    return assessment.risk_score if assessment else doc.risk_score


def _present(assessment: DocumentAssessment | None) -> list[Finding]:
    return [m.finding for m in assessment.present()] if assessment else []


def _key(category: str, text: str) -> tuple[str, str]:
    return category, normalize(text[:_QUOTE_KEY_CHARS])


def _finding_changes(now: list[Finding], before: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """Findings only in `now` and only in `before`, matched as multisets of (category, quote)."""
    now_keys, before_keys = Counter(_key(f.category, f.text) for f in now), Counter(_key(f.category, f.text) for f in before)
    appeared, vanished = now_keys - before_keys, before_keys - now_keys
    return _take(now, appeared), _take(before, vanished)


def _take(findings: list[Finding], wanted: Counter[tuple[str, str]]) -> list[Finding]:
    taken = []
    for f in findings:
        key = _key(f.category, f.text)
        if wanted[key] > 0:
            wanted[key] -= 1
            taken.append(f)
    return taken


def _finding_change(doc: DocumentResult, f: Finding) -> FindingChange:
    return FindingChange(doc.filename, doc.path, f.category, f.text, f.page, f.confidence)


def _review_added(doc: DocumentResult, assessment: DocumentAssessment | None,
                  before: DocumentAssessment | None) -> list[ReviewAdded]:
    if assessment is None:
        return []
    known = Counter(_key(r.finding.category, r.finding.text) for r in before.review) if before else Counter()
    added = []
    for item in assessment.review:
        key = _key(item.finding.category, item.finding.text)
        if known[key] > 0:
            known[key] -= 1
            continue
        added.append(ReviewAdded(doc.filename, doc.path, item.finding.category, item.reason, item.priority,
                                 item.finding.text, item.finding.page))
    return added
