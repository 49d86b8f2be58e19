"""Reports reflect reviewers' decisions: accepted findings are verified, rejected ones gone,
corrections shown; issues and risk are recomputed from the decided findings."""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from conftest import AUDITED_BATCH, run_cli, sqlite_url
from pipelines.aggregate import aggregate_document
from pipelines.datamodel import Finding
from pipelines.playbook import load_playbook
from pipelines.review.decisions import apply_decisions, standing
from pipelines.review.queue import claim_next, decide
from storage import schema
from storage.database import session_scope

CAP = Finding("Uncapped Liability", "The Supplier's liability under this Agreement shall be unlimited.", 500, 566, 2,
              0.6, "model", "m1")
NON_COMPETE = Finding("Non-Compete", "The Distributor shall not sell competing products in the Territory.", 900, 966,
                      3, 0.9, "model", "m1")


def row(item_id: int, action: str, finding: Finding, new: dict | None = None) -> dict:
    evidence = {"start": finding.start, "end": finding.end, "page": finding.page, "text": finding.text}
    return {"item_id": item_id, "action": action, "previous": {"category": finding.category, "evidence": evidence},
            "new": new or {}, "reviewer": "ann"}


def assess(findings: list[Finding]):  # noqa: ANN201
    return aggregate_document(findings, load_playbook(None))


def risky(a) -> set[str]:  # noqa: ANN001
    return {i.finding.category for i in a.issues if i.kind == "risky"}


def test_accepted_findings_are_verified_and_rejected_ones_gone() -> None:
    before = assess([CAP, NON_COMPETE])
    assert risky(before) == {"Non-Compete"}  # the cap at 0.6 is unsure: a question for review, not an issue
    assert any(r.finding.category == "Uncapped Liability" for r in before.review)
    after = assess(apply_decisions([CAP, NON_COMPETE], standing([row(1, "accept", CAP), row(2, "reject", NON_COMPETE)])))
    assert risky(after) == {"Uncapped Liability"}
    cap = next(m.finding for m in after.findings if m.finding.category == "Uncapped Liability")
    assert cap.confidence == 1.0 and "verified by ann" in cap.note
    assert not any(r.finding.category == "Uncapped Liability" for r in after.review)
    assert not any(m.finding.category == "Non-Compete" for m in after.findings)
    assert after.risk_level != before.risk_level or after.risk_score != before.risk_score


def test_an_undo_cancels_the_decision_before_it() -> None:
    trail = [row(2, "reject", NON_COMPETE), row(2, "undo", NON_COMPETE)]
    assert standing(trail) == []
    assert risky(assess(apply_decisions([NON_COMPETE], standing(trail)))) == {"Non-Compete"}


def test_a_corrected_category_and_a_corrected_value_are_what_reports_show() -> None:
    law = Finding("Governing Law", "This Agreement is governed by the laws of Texas.", 1200, 1249, 4, 0.7,
                  "key-term values", "r1", value="Texas", note="key-term value",
                  detail={"place": "Texas", "evidence": []})
    decided = standing([row(1, "correct", NON_COMPETE, {"category": "Exclusivity"}),
                        row(2, "correct", law, {"value": "New York"})])
    after = assess(apply_decisions([NON_COMPETE, law], decided))
    assert {m.finding.category for m in after.findings} >= {"Exclusivity"}
    assert not any(m.finding.category == "Non-Compete" for m in after.findings)
    term = after.key_terms["Governing Law"]
    assert term.value == "New York" and term.detail["corrected_by"] == "ann"


def test_the_report_of_an_audited_batch_changes_after_a_decision(audited_samples: Path, audited_env: dict[str, str],
                                                                 tmp_path: Path) -> None:
    url = sqlite_url(audited_env)
    with session_scope(url) as session:
        item = claim_next(session, "ann", datetime(2026, 12, 1, 9), 900)
        category, start = item.category, item.evidence["start"]
        filename = session.get(schema.Document, item.document_id).filename
        decide(session, item.id, "ann", "reject", item.version, datetime(2026, 12, 1, 9, 1), reason="not_a_clause")
    result = run_cli(["report", AUDITED_BATCH, "--out", str(tmp_path / "after")], audited_env)
    assert result.returncode == 0, result.stdout + result.stderr

    def spans(folder: Path) -> set[tuple[str, int]]:
        report = json.loads((folder / "report.json").read_text())
        doc = next(d for d in report["documents"] if d["filename"] == filename)
        return {(m["finding"]["category"], m["finding"]["start"]) for m in doc["assessment"]["findings"]}

    assert (category, start) in spans(audited_samples / "report")
    assert (category, start) not in spans(tmp_path / "after")


def test_a_reviewers_yes_stands_over_the_quote_checks() -> None:
    gaap = Finding("Most Favored Nation", "Net Sales shall be determined in accordance with generally accepted "
                   "accounting principles.", 1200, 1290, 4, 0.8, "model", "m1")
    before = assess([gaap])
    assert not any(m.finding.category == "Most Favored Nation" for m in before.present())
    after = assess(apply_decisions([gaap], standing([row(1, "accept", gaap)])))
    assert [m.finding.confidence for m in after.present() if m.finding.category == "Most Favored Nation"] == [1.0]


def test_the_watchers_rolling_report_reads_a_batch_with_its_decisions(audited_env: dict[str, str]) -> None:
    """The outbox's report.html over several batches (pipelines.reported.load_portfolio, which
    the watcher writes it from) shows a contract as its batch's own reports do: decided."""
    from pipelines.reported import load_portfolio, load_reported

    url = sqlite_url(audited_env)
    with session_scope(url) as session:
        item = claim_next(session, "ann", datetime(2026, 12, 1, 9), 900)
        decided = (item.category, item.evidence["start"])
        document_id = item.document_id
        decide(session, item.id, "ann", "reject", item.version, datetime(2026, 12, 1, 9, 1), reason="not_a_clause")
    with session_scope(url, write=False) as session:
        batch = load_reported(session, AUDITED_BATCH, ("rules", "model"))
        portfolio = load_portfolio(session, {AUDITED_BATCH: {document_id}}, ("rules", "model"), batch.playbook)
    [(doc, assessment)] = portfolio.assessed()
    assert doc.id == document_id and portfolio.batch.id == "portfolio"
    assert decided not in {(m.finding.category, m.finding.start) for m in assessment.findings}
    [own] = [a for d, a in batch.assessed() if d.id == document_id]
    assert assessment.to_dict() == own.to_dict()
