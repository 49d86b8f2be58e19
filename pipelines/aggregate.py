"""From a document's raw findings to what a lawyer acts on: one assessment per document.

Rules, key-term extractors and the model each report evidence on their own; the same clause
often arrives two or three times with slightly different spans.  This module merges that
evidence (agreement between independent sources raises confidence), settles single-valued
key terms that disagree, applies the playbook, queues what a person must confirm and rolls
the issues up into a 0-100 risk score.  It is pure: findings in, a DocumentAssessment out,
so it runs the same inside a Celery task, in the CLI's report step and in tests.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace

from pipelines.datamodel import (
    WIDER_SPAN_SOURCE, BatchResult, DocumentStatus, Finding, KeyTerm, MergedFinding,
)
from pipelines.categories import KEY_TERMS, MULTI_VALUED
from pipelines.assessment import Assessed, DocumentAssessment, Issue, ReviewItem, Thresholds
from pipelines.playbook.checks import SET_ASIDE, Unreadable, run_checks
from pipelines.playbook.quotes import quote_problem
from pipelines.playbook.schema import Playbook
from pipelines.playbook.severity import (
    RISK_LEVELS, SEVERITIES, WEIGHTS, level_band, level_for_severity, rank, worst,
)
from pipelines.playbook.values import normalize
from pipelines.terms import FIELDS as READ_FIELDS
from pipelines.terms import CONTRACT_TYPE, NOT_STATED, VALUE_NOTE
from pipelines.review.recalibration import Calibration
from pipelines.review.budget import (
    Budget,
    best_per_category,
    in_audit_sample,
    p_wrong,
    priority,
    same_evidence,
    within_budget,
)
from pipelines.review.value_items import value_items
from pipelines.terms.derived import decided_by
from pipelines.sides import find_sides

SOURCE_ORDER: tuple[str, ...] = ("rules", "key-terms", "model")
"""How joined sources are spelled: "rules+model", never "model+rules"."""

PREAMBLE_CHARS = 1500
"""Evidence starting this early in the document is in the preamble, where parties, dates and
the agreement's name are stated with most authority."""

_DEFINED_TERMS: dict[str, tuple[str, ...]] = {
    "Agreement Date": ("Agreement Date", "Execution Date", "Signing Date"),
    "Effective Date": ("Effective Date", "Commencement Date"),
    "Expiration Date": ("Expiration Date", "Expiry Date", "Termination Date", "End Date"),
    "Renewal Term": ("Renewal Term", "Renewal Period"),
}
"""Defined terms that state a key term; evidence containing one (the "Effective Date") is the
contract defining the value, so it outranks a passing mention elsewhere."""

_SIGNATURE = re.compile(r"IN WITNESS WHEREOF|signature", re.IGNORECASE)

def aggregate_document(
    findings: list[Finding], playbook: Playbook, page_count: int | None = None, budget: Budget = Budget(),
    calibration: Calibration | None = None,
) -> DocumentAssessment:
    """Assess one document's raw findings against `playbook`.

    Findings with source "playbook" are ignored: the playbook's issues are always recomputed
    here, so assessing stored findings again gives the same result.  `page_count`, when
    known, lets evidence on the last page count as the signature block.  `calibration`, the
    latest fitted from reviewers' decisions, maps each merged confidence before anything is
    decided on it.
    """
    values = {f.category: f if calibration is None or decided_by(f) else calibration.recalibrated(f)
              for f in findings if f.note == VALUE_NOTE}
    merged = merge_findings([f for f in findings if f.note != VALUE_NOTE], playbook)
    if calibration is not None:
        merged = [MergedFinding(calibration.recalibrated(m.finding), m.evidence) for m in merged]
    merged = [_unless_unstated(m, playbook.thresholds, values) for m in merged]
    key_terms = resolve_key_terms(merged, playbook.thresholds, page_count, values)
    contract_type = key_terms.get(CONTRACT_TYPE)
    playbook = playbook.for_type(contract_type.value if contract_type is not None else None)
    parties = key_terms.get("Parties")
    sides = find_sides(parties.detail.get("parties", []) if parties is not None else [], playbook.we)
    raised, unreadable = run_checks(playbook, [m.finding for m in merged], _valued(merged, key_terms, playbook.thresholds),
                                    sides)
    score, level = risk(raised, playbook.thresholds)
    issues = verified_issues(raised, playbook.thresholds)
    return DocumentAssessment(
        playbook=playbook.label,
        thresholds=playbook.thresholds,
        findings=merged,
        key_terms=key_terms,
        issues=sorted(issues, key=lambda i: (-rank(i.finding.severity), i.finding.start)),
        review=_review_items(merged, key_terms, unreadable, playbook, budget),
        risk_score=score,
        risk_level=level,
        sides=sides,
        calibration=calibration.version if calibration is not None else None,
    )


UNSTATED_FACTOR = 0.5
"""What a present clause's confidence is multiplied by when no quote of it states the clause."""
NOTICE_TO_STOP_RENEWAL = "Notice Period To Terminate Renewal"


def _unless_unstated(m: MergedFinding, thresholds: Thresholds, values: Mapping[str, Finding]) -> MergedFinding:
    """A clause found where no quote of it states it is not present: its confidence is halved
    (under `present`, in the same order) and its note says why.

    The quote checks (pipelines.playbook.quotes) keep "Net Sales shall be determined in
    accordance with generally accepted accounting principles" from being a most-favoured-nation
    clause, a heading from being an exclusivity clause, a recital from being anything.  Applied
    to the presence call as well as to issues: on a 150-contract training sample, CUAD's presence
    macro-F1 of the audit's predictions rose from 0.838 to 0.870 (Most Favored Nation 0.20 ->
    0.71, Exclusivity 0.74 -> 0.89), with no category lower.  Key terms are read values, which
    their extractors check, and a date or a name is no sentence; but a renewal notice period
    that the reader of the whole text (pipelines.terms) finds none of, next to no renewal, is a
    notice of termination for something else (training sample: 10 of 13 such calls wrong).
    A reviewer's decision stands over both."""
    f = m.finding
    if f.confidence < thresholds.present or f.reviewed:
        return m
    if f.category == NOTICE_TO_STOP_RENEWAL and values and f.category not in values:
        return _set_aside(m, "no notice period to stop a renewal read")
    if f.category in KEY_TERMS:
        return m
    problems = [quote_problem(f.category, text) for text in {f.text, *(e.text for e in m.evidence)} if text.strip()]
    if not problems or None in problems:
        return m
    return _set_aside(m, next(p for p in problems if p))


def _set_aside(m: MergedFinding, reason: str) -> MergedFinding:
    f = m.finding
    note = "; ".join(filter(None, (f.note, SET_ASIDE + reason)))
    return MergedFinding(replace(f, confidence=round(f.confidence * UNSTATED_FACTOR, 4), note=note), m.evidence)


def merge_findings(findings: Iterable[Finding], playbook: Playbook) -> list[MergedFinding]:
    """Same-category findings whose spans overlap, merged into one each, in document order."""
    by_category: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.source != "playbook":
            by_category[f.category].append(f)
    merged = [
        _merge(cluster, playbook.severity(category))
        for category, group in by_category.items()
        for cluster in _clusters(group)
    ]
    return sorted(merged, key=lambda m: (m.finding.start, m.finding.end, m.finding.category))


def _clusters(group: list[Finding]) -> list[list[Finding]]:
    """Groups of findings whose char spans overlap, transitively.

    Findings without a span (end <= start: a value read from metadata, say) cannot overlap,
    so they group by value instead.  The model's wider spans stay alone: each is the same
    evidence as the clause it widens, not a second source for it.
    """
    clusters: list[list[Finding]] = [[f] for f in group if f.source == WIDER_SPAN_SOURCE]
    end = -1
    anchored = (f for f in group if f.end > f.start and f.source != WIDER_SPAN_SOURCE)
    for f in sorted(anchored, key=lambda f: (f.start, f.end)):
        if clusters and f.start < end:
            clusters[-1].append(f)
            end = max(end, f.end)
        else:
            clusters.append([f])
            end = f.end
    unanchored: dict[str, list[Finding]] = defaultdict(list)
    for f in group:
        if f.end <= f.start:
            unanchored[normalize(f.value or f.text)].append(f)
    return clusters + list(unanchored.values())


def _merge(cluster: list[Finding], severity: str) -> MergedFinding:
    """One finding for a cluster: tightest span as the quote, noisy-OR confidence across sources.

    Each source counts once (its most confident finding), because a rule firing twice on the
    same clause is not independent evidence, while rules and the model agreeing is.
    """
    per_source: dict[str, float] = {}
    for f in cluster:
        per_source[f.source] = max(per_source.get(f.source, 0.0), min(max(f.confidence, 0.0), 1.0))
    confidence = 1.0 - math.prod(1.0 - c for c in per_source.values())
    quote = min(cluster, key=lambda f: (f.end - f.start, -f.confidence))
    valued = [f for f in cluster if f.value]
    ordered = sorted(cluster, key=lambda f: _source_key(f.source))
    notes = list(dict.fromkeys(f.note for f in ordered if f.note))
    finding = Finding(
        category=quote.category,
        text=quote.text,
        start=quote.start,
        end=quote.end,
        page=quote.page,
        confidence=_rounded(confidence),
        source=_join_sources(f.source for f in cluster),
        version="+".join(dict.fromkeys(f.version for f in ordered)),
        box=quote.box,
        severity=severity,
        value=max(valued, key=lambda f: f.confidence).value if valued else None,
        note="; ".join(notes) or None,
    )
    return MergedFinding(finding, sorted(cluster, key=lambda f: (_source_key(f.source), f.start)))


def _rounded(confidence: float) -> float:
    """Four decimals, except that a ranked-tail candidate's tiny probability (models/tail.py)
    keeps two significant digits instead of becoming 0, which CUAD's threshold 0 would drop."""
    return round(confidence, 4) if confidence >= 1e-4 else float(f"{confidence:.2g}")


def _source_key(source: str) -> tuple[int, str]:
    return (SOURCE_ORDER.index(source) if source in SOURCE_ORDER else len(SOURCE_ORDER), source)


def _join_sources(sources: Iterable[str]) -> str:
    parts = {part for source in sources for part in source.split("+")}
    return "+".join(sorted(parts, key=_source_key))


def resolve_key_terms(
    merged: list[MergedFinding], thresholds: Thresholds, page_count: int | None = None,
    values: Mapping[str, Finding] | None = None,
) -> dict[str, KeyTerm]:
    """Each key term the document states, with single-valued terms arbitrated.

    A key term pipelines.terms reads (parties, dates, term, renewal, notice, law) takes the
    value it read from the whole text: clause spans, the model's included, are evidence of
    where the term is discussed, not values, and a term it did not find is not stated.  For
    the others (the agreement's name), when evidence gives different values, a defined term
    outranks the preamble and signature block, which outrank a mention elsewhere; a tie at the
    top is a conflict for review.
    """
    read = values or {}
    terms: dict[str, KeyTerm] = {}
    for category in KEY_TERMS:
        if category in READ_FIELDS and read:  # findings stored before pipelines.terms have none
            if category in read:
                terms[category] = KeyTerm(category, read[category].value, read[category], "read")
            continue
        candidates = sorted(
            (m for m in merged if m.finding.category == category and m.finding.confidence >= thresholds.present),
            key=lambda m: -m.finding.confidence,
        )
        if not candidates:
            continue
        if category in MULTI_VALUED:
            ordered = sorted(candidates, key=lambda m: m.finding.start)
            values = {normalize(m.finding.value or m.finding.text): m.finding.value or m.finding.text for m in ordered}
            terms[category] = KeyTerm(category, "; ".join(values.values()), candidates[0].finding, "listed",
                                      [m.finding for m in ordered])
            continue
        groups: dict[str, list[MergedFinding]] = defaultdict(list)
        for m in candidates:
            if m.finding.value:
                groups[normalize(m.finding.value)].append(m)
        if not groups:
            terms[category] = KeyTerm(category, None, candidates[0].finding, "quote")
            continue
        ranked = [_most_authoritative(group, page_count) for group in groups.values()]
        if len(ranked) == 1:
            _, _, m = ranked[0]
            basis = "agreed" if len(next(iter(groups.values()))) > 1 else "single"
            terms[category] = KeyTerm(category, m.finding.value, m.finding, basis)
            continue
        top = max(strength for strength, _, _ in ranked)
        winners = [r for r in ranked if r[0] == top]
        competing = sorted((m.finding for _, _, m in ranked), key=lambda c: c.start)
        if top > 0 and len(winners) == 1:
            _, basis, m = winners[0]
            terms[category] = KeyTerm(category, m.finding.value, m.finding, basis, competing)
        else:
            terms[category] = KeyTerm(category, None, None, "conflict", competing)
    return terms


def _most_authoritative(group: list[MergedFinding], page_count: int | None) -> tuple[int, str, MergedFinding]:
    """The evidence of one value that states it most authoritatively, with its strength and basis."""
    scored = [(*_authority(m, page_count), m) for m in group]
    return max(scored, key=lambda s: (s[0], s[2].finding.confidence))


def _authority(m: MergedFinding, page_count: int | None) -> tuple[int, str]:
    """How authoritatively a piece of evidence states its value: (strength, basis)."""
    texts = [e.text for e in m.evidence] + [e.note or "" for e in m.evidence]
    for term in _DEFINED_TERMS.get(m.finding.category, (m.finding.category,)):
        defined = re.compile(r"[\"“'‘]\s*" + re.escape(term) + r"\s*[\"”'’]", re.IGNORECASE)
        if any(defined.search(t) for t in texts):
            return 2, "defined term"
    f = m.finding
    if f.end > f.start and f.start < PREAMBLE_CHARS:
        return 1, "preamble"
    if any(_SIGNATURE.search(t) for t in texts) or (page_count is not None and f.page == page_count):
        return 1, "signature block"
    return 0, ""


def _valued(
    merged: list[MergedFinding], key_terms: Mapping[str, KeyTerm], thresholds: Thresholds
) -> dict[str, list[Finding]]:
    """Per category, the findings whose values the playbook's value checks should read."""
    valued: dict[str, list[Finding]] = defaultdict(list)
    for m in merged:
        f = m.finding
        if f.confidence >= thresholds.present and (f.category not in key_terms or f.category in MULTI_VALUED):
            valued[f.category].append(f)
    for category, term in key_terms.items():
        if category in MULTI_VALUED:
            continue
        if term.conflict:
            valued[category] = term.candidates
        elif term.finding is not None and term.value != NOT_STATED:
            valued[category] = [term.finding]
        else:
            valued.pop(category, None)  # a blank the contract left is for review, not a check
    return valued


def _review_items(
    merged: list[MergedFinding], key_terms: Mapping[str, KeyTerm], unreadable: list[Unreadable], playbook: Playbook,
    budget: Budget,
) -> list[ReviewItem]:
    """What a person must confirm, most urgent first, within the review budget (pipelines.review.budget)."""
    t = playbook.thresholds
    items = []
    for f in best_per_category(m.finding for m in merged):
        if t.floor <= f.confidence < t.review_below:
            rank_, parts = priority(playbook.stakes(f.category), p_wrong(f.confidence, t.present), budget)
            call = "reported as present" if f.confidence >= t.present else "not reported"
            items.append(ReviewItem(f, f"Is this {f.category}? The machine is unsure ({f.confidence:.2f}; {call})."
                                    + _set_aside_because(f) + _if_confirmed(playbook, f.category), rank_,
                                    {**parts, "question": "presence"}))
        elif f.confidence >= t.review_below and in_audit_sample(f, budget.sample_rate):
            rank_, parts = priority(playbook.stakes(f.category), p_wrong(f.confidence, t.present), budget)
            items.append(ReviewItem(f, f"Audit sample: a confident {f.category} finding checked at random, so "
                                    "reviewers' labels also cover what the machine is sure of.", rank_,
                                    {**parts, "question": "presence", "sample": 1.0,
                                     "sample_rate": budget.sample_rate}))
    items += _learning_items(merged, items, playbook, budget)
    for term in key_terms.values():
        if term.conflict:
            values = "; ".join(f"{c.value} (page {c.page})" for c in term.candidates)
            items.append(ReviewItem(term.candidates[0], f"Conflicting {term.category}: {values}. Decide which governs.",
                                    *priority(playbook.stakes(term.category), 1.0, budget)))
    items += value_items(key_terms, (m.finding for m in merged), playbook, budget)
    for u in unreadable:
        items.append(ReviewItem(u.finding, u.reason, *priority(u.check.severity, 1.0, budget)))
    return within_budget(items, budget)


def _learning_items(merged: list[MergedFinding], asked: list[ReviewItem], playbook: Playbook,
                    budget: Budget) -> list[ReviewItem]:
    """One question per young taught clause type (budget.learning): of its candidates the one
    whose answer teaches the most, the probability nearest even (largest min(p, 1 - p)), that
    no other item already quotes.  The answer becomes an example at `clausemill clauses retrain`."""
    items = []
    for name, version in budget.learning:
        candidates = [m.finding for m in merged if m.finding.category == name
                      and m.finding.confidence >= playbook.thresholds.floor
                      and not any(same_evidence(m.finding, a.finding) for a in asked)]
        if not candidates:
            continue
        f = max(candidates, key=lambda c: (min(c.confidence, 1 - c.confidence), -c.start))
        rank_, parts = priority(playbook.stakes(name), min(f.confidence, 1 - f.confidence), budget)
        items.append(ReviewItem(f, f"Teaching {name} ({version}, still young): is this {name}? Your answer becomes "
                                f"an example of it ({f.confidence:.2f}).", rank_,
                                {**parts, "question": "presence", "learning": version}))
    return items


def verified_issues(raised: Iterable[Issue], thresholds: Thresholds) -> list[Issue]:
    """The issues a report states: every one but a risky clause the machine is unsure of.

    A risky clause found under `review_below` is a review item asking whether the clause is
    there, not an issue (on the validation split, such quotes were an expert's clause 42% of the
    time, those above it 80%); a reviewer's "yes" makes it verified and raises it.  It still
    counts in the score, which ranks contracts within a level by how much every issue adds."""
    return [i for i in raised if i.kind != "risky" or i.finding.confidence >= thresholds.review_below]


def _set_aside_because(f: Finding) -> str:
    """Why aggregation set the finding's quote aside, for the reviewer who decides on it."""
    reason = next((part[len(SET_ASIDE):] for part in (f.note or "").split("; ") if part.startswith(SET_ASIDE)), None)
    return f" Its quote was set aside: {reason}." if reason else ""


def _if_confirmed(playbook: Playbook, category: str) -> str:
    """What a reviewer's "yes" does for a clause the playbook flags as risky: it raises the issue."""
    rule = next((r for r in playbook.risky if r.category == category), None)
    return f" If it is, the playbook raises a {rule.severity} issue." if rule is not None else ""


def risk(issues: Iterable[Issue], thresholds: Thresholds) -> tuple[float, str]:
    """A contract's level and a 0-100 score that ranks it within that level.

    The level is the severity of the worst *verified* issue, one confident enough not to need
    review: many ordinary issues do not make a critical contract, and an unconfirmed one does
    not either (it is in the review queue).  The score places the contract inside its level's
    band (low 0-25, medium 25-50, high 50-75, critical 75-100) by how much every issue adds,
    each its severity weight times its confidence, combined by noisy-OR; so sorting by score
    sorts by level first.
    """
    issues = list(issues)
    verified = [i.finding.severity for i in issues if i.finding.confidence >= thresholds.review_below]
    level = level_for_severity(worst(verified)) if verified else RISK_LEVELS[0]
    remaining = math.prod(1.0 - WEIGHTS[i.finding.severity] * i.finding.confidence for i in issues)
    floor, ceiling = level_band(level)
    return round(floor + (ceiling - floor) * (1.0 - remaining), 1), level


def assess_batch(
    batch: BatchResult, playbook: Playbook, assessments: Mapping[int, DocumentAssessment] | None = None
) -> list[Assessed]:
    """Every document of `batch` with its assessment: the precomputed one, keyed by document
    id, or one computed now for a `done` document; other documents get None."""
    assessments = assessments or {}
    out: list[Assessed] = []
    for doc in batch.documents:
        assessment = assessments.get(doc.id)
        if assessment is None and doc.status is DocumentStatus.DONE:
            assessment = aggregate_document(doc.findings, playbook, doc.page_count)
        out.append((doc, assessment))
    return out


def summarize_batch(documents: Iterable[Assessed], top: int = 10) -> dict:
    """Batch roll-up for the report's summary: statuses, risk levels, most-flagged categories.

    `categories` maps each category to {severity: documents}, counting a document once per
    category at the worst severity it has there (its issues' if any, else the clause's own).
    """
    documents = list(documents)
    by_status: Counter[str] = Counter()
    by_level: Counter[str] = Counter({level: 0 for level in RISK_LEVELS})
    by_severity: Counter[str] = Counter({s: 0 for s in SEVERITIES})
    flagged: Counter[str] = Counter()
    categories: dict[str, Counter[str]] = defaultdict(Counter)
    failed = []
    review_items = 0
    for doc, assessment in documents:
        by_status[str(doc.status)] += 1
        if doc.status is DocumentStatus.FAILED:
            failed.append({"id": doc.id, "filename": doc.filename, "stage": doc.stage, "reason": doc.reason})
        if assessment is None:
            continue
        by_level[assessment.risk_level] += 1
        review_items += len(assessment.review)
        per_category: dict[str, str] = {m.finding.category: m.finding.severity for m in assessment.present()}
        issue_severity: dict[str, str] = {}
        for issue in assessment.issues:
            by_severity[issue.finding.severity] += 1
            c = issue.finding.category
            issue_severity[c] = worst([issue_severity.get(c, "info"), issue.finding.severity])
        per_category.update(issue_severity)
        flagged.update(issue_severity.keys())
        for category, severity in per_category.items():
            categories[category][severity] += 1
    return {
        "documents": len(documents),
        "by_status": dict(by_status),
        "by_risk_level": dict(by_level),
        "issues_by_severity": dict(by_severity),
        "review_items": review_items,
        "failed": failed,
        "top_categories": [{"category": c, "documents": n} for c, n in flagged.most_common(top)],
        "categories": {c: dict(counts) for c, counts in categories.items()},
    }
