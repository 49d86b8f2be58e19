"""Recalibration from reviewers' decisions: the fit, the weighting of the queue against the
audit sample, and the loop through a real audit, a real database and `clausemill recalibrate`."""
from __future__ import annotations

import math
import random
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from conftest import TEXT_SAMPLES, run_cli, some_samples, sqlite_url
from pipelines.aggregate import UNSTATED_FACTOR, aggregate_document
from pipelines.datamodel import Finding
from pipelines.playbook import load_playbook
from pipelines.playbook.checks import SET_ASIDE
from pipelines.review.queue import decide
from pipelines.review.recalibration import (Calibration, Label, fit, fit_platt, label_of, params_of, review_labels,
                                            uncalibrated, value_key, value_label_of, weights)
from pipelines.terms.value import VALUE_NOTE
from storage import repository, schema
from storage.database import session_scope


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def overconfident(category: str, n: int, seed: int = 7) -> list[Label]:
    """Decisions on findings whose confidence says c but that are right sigmoid(0.5 logit c - 1) of the time."""
    rng = random.Random(seed)
    labels = []
    for i in range(n):
        c = rng.uniform(0.05, 0.95)
        truth = 1 / (1 + math.exp(-(0.5 * _logit(c) - 1.0)))
        labels.append(Label(category, document_id=i, confidence=c, right=rng.random() < truth, sampled=False))
    return labels


def test_the_platt_fit_recovers_how_wrong_the_confidences_are() -> None:
    labels = overconfident("Non-Compete", 4000)
    scale, bias = fit_platt([_logit(x.confidence) for x in labels], [float(x.right) for x in labels],
                            [1.0] * len(labels))
    assert abs(scale - 0.5) < 0.1 and abs(bias + 1.0) < 0.15


def test_a_category_is_recalibrated_only_where_held_out_decisions_say_it_helps() -> None:
    wrong = overconfident("Non-Compete", 300)
    rng = random.Random(3)
    calibrated = [Label("Exclusivity", i, c, rng.random() < c, False) for i, c in
                  ((i, rng.uniform(0.05, 0.95)) for i in range(300))]
    few = overconfident("Insurance", 5)
    fits = {f.category: f for f in fit(wrong + calibrated + few, {})}
    assert fits["Non-Compete"].kept and fits["Non-Compete"].after.log_loss < fits["Non-Compete"].before.log_loss
    assert fits["Non-Compete"].after.ece < fits["Non-Compete"].before.ece
    assert abs(fits["Exclusivity"].scale - 1.0) < 0.25 and abs(fits["Exclusivity"].bias) < 0.25
    assert not fits["Insurance"].kept and fits["Insurance"].decisions == 5
    assert set(params_of(fits.values())) <= {"Non-Compete", "Exclusivity"} and "Non-Compete" in params_of(fits.values())


def test_the_audit_sample_speaks_for_the_confident_findings_nobody_queued() -> None:
    queued = [Label("Cap", i, 0.5, i % 2 == 0, sampled=False) for i in range(10)]
    sampled = [Label("Cap", 100 + i, 0.95, True, sampled=True, sample_rate=0.02) for i in range(2)]
    w = weights(queued + sampled, {("Cap", False): 20, ("Cap", True): 2})
    # 10 of 20 queued items were decided: each stands for 2; a sampled one stands for 50
    assert math.isclose(w[-1] / w[0], 25.0)
    assert math.isclose(sum(w), 12.0)


def test_what_a_decision_says_about_the_finding() -> None:
    assert label_of("accept", None, {}, "Cap") is True
    assert label_of("correct", None, {"start": 3, "end": 9}, "Cap") is True
    assert label_of("correct", None, {"category": "Insurance"}, "Cap") is False
    assert label_of("reject", "not_a_clause", {}, "Cap") is False
    assert label_of("reject", "wrong_span", {}, "Cap") is True  # the clause is there, elsewhere
    assert label_of("reject", "duplicate", {}, "Cap") is None


def trail_row(category: str, question: str, action: str, document_id: int = 1, confidence: float = 0.8,
              new: dict | None = None, reason: str | None = None, sampled: bool = False) -> dict:
    """One decision as `repository.item_trails` reads it, on an item asking `question` about `category`."""
    parts = {"question": question, **({"sample": 1.0, "sample_rate": 0.05} if sampled else {})}
    return {"action": action, "reason": reason, "new": new or {}, "document_id": document_id,
            "previous": {"category": category, "evidence": {"confidence": 0.99, "uncalibrated": confidence,
                                                            "priority_parts": parts}}}


def test_decisions_on_a_key_terms_value_are_labels_under_its_value_key() -> None:
    trails = [
        [trail_row("Effective Date", "value", "accept", confidence=0.7)],
        [trail_row("Effective Date", "value", "correct", new={"value": "2024-03-01"}, sampled=True)],
        [trail_row("Governing Law", "value", "reject", reason="not_a_clause")],  # says nothing about the value
        [trail_row("Governing Law", "value", "correct", new={"start": 5, "end": 40})],  # the span alone: nor this
        [trail_row("Renewal Term", "value", "accept"), trail_row("Renewal Term", "value", "undo")],  # taken back
        [trail_row("Effective Date", "presence", "reject", reason="not_a_clause", confidence=0.6)],
        [trail_row("Parties", "conflict", "accept")],  # neither question
    ]
    labels = review_labels(trails)
    assert [(x.category, x.confidence, x.right, x.sampled) for x in labels] == [
        (value_key("Effective Date"), 0.7, True, False),
        (value_key("Effective Date"), 0.8, False, True),
        ("Effective Date", 0.6, False, False),
    ]
    assert labels[1].sample_rate == 0.05 and value_key("Effective Date") != "Effective Date"
    assert value_label_of("accept", {}) is True and value_label_of("correct", {"value": "Delaware"}) is False
    assert value_label_of("reject", {}) is None and value_label_of("undo", {}) is None


def test_a_value_map_and_a_presence_map_each_recalibrate_only_their_own_findings() -> None:
    clause = Finding("Governing Law", "governed by the laws of Delaware", 10, 42, 1, 0.9, "model", "m1")
    read = replace(clause, source="key-terms", value="Delaware", note=VALUE_NOTE)
    expected = round(1 / (1 + math.exp(-(0.5 * _logit(0.9) - 1.0))), 4)
    by_value = Calibration(2, {value_key("Governing Law"): (0.5, -1.0)})
    assert by_value.recalibrated(read).confidence == expected
    assert by_value.recalibrated(read).detail["calibration"] == {"version": 2, "before": 0.9}
    assert by_value.recalibrated(clause) == clause
    by_presence = Calibration(3, {"Governing Law": (0.5, -1.0)})
    assert by_presence.recalibrated(clause).confidence == expected
    assert by_presence.recalibrated(read) == read


def test_aggregation_applies_the_calibration_and_the_finding_records_it() -> None:
    finding = Finding("Non-Compete", "The Distributor shall not sell competing products.", 10, 60, 1, 0.9, "model", "m1")
    calibration = Calibration(4, {"Non-Compete": (0.5, -1.0)})
    assessment = aggregate_document([finding], load_playbook(None), calibration=calibration)
    merged = next(m.finding for m in assessment.findings if m.finding.category == "Non-Compete")
    assert math.isclose(merged.confidence, 1 / (1 + math.exp(-(0.5 * _logit(0.9) - 1.0))), abs_tol=1e-4)
    assert merged.detail["calibration"] == {"version": 4, "before": 0.9} and uncalibrated(merged) == 0.9
    assert assessment.calibration == 4
    plain = aggregate_document([finding], load_playbook(None))
    assert next(m.finding for m in plain.findings).confidence == 0.9 and plain.calibration is None


def seed_wrong_decisions(url: str, category: str, n: int, question: str = "presence") -> None:
    """`n` decided items of `category` asking `question` at confidence 0.9, every one found wrong:
    a presence item rejected as not a clause, a value item corrected to another value."""
    now = datetime(2026, 12, 1, 9)
    with session_scope(url) as session:
        document_id = session.query(schema.Document.id).order_by(schema.Document.id).first()[0]
        for i in range(n):
            item = schema.ReviewItem(document_id=document_id, category=category, reason="Is this?", priority=0.5,
                                     evidence={"start": 100000 + i, "end": 100010 + i, "page": 1, "text": f"t{i}",
                                               "confidence": 0.9, "uncalibrated": 0.9,
                                               "priority_parts": {"question": question, "stakes": "high"}})
            session.add(item)
            session.flush()
            if question == "value":
                decide(session, item.id, f"rev{i % 3}", "correct", item.version, now + timedelta(minutes=i),
                       new={"value": f"value {i}"})
            else:
                decide(session, item.id, f"rev{i % 3}", "reject", item.version, now + timedelta(minutes=i),
                       reason="not_a_clause")


def _recalibrated(calibration: Calibration, category: str, row: schema.Finding) -> float:
    """A stored finding's expected confidence: its calibrated one, halved where its quote was set
    aside after calibration (pipelines.aggregate: a clause no quote of which states it)."""
    expected = calibration.apply(category, row.detail["calibration"]["before"])
    return round(expected * UNSTATED_FACTOR, 4) if SET_ASIDE in (row.note or "") else expected


def test_decisions_recalibrate_the_next_audit(sample_dir: Path, audited_env: dict[str, str], tmp_path: Path) -> None:
    url = sqlite_url(audited_env)
    with session_scope(url, write=False) as session:
        categories = {c for (c,) in session.query(schema.Finding.category).join(schema.Document)
                      .filter(schema.Finding.producer == "aggregate", schema.Finding.note.is_(None),
                              schema.Document.filename.in_(TEXT_SAMPLES))}
        assert repository.latest_calibration(session) is None
    category = sorted(categories)[0]
    assert run_cli(["recalibrate"], audited_env).returncode == 1  # nothing decided yet: says so
    seed_wrong_decisions(url, category, 30)
    dry = run_cli(["recalibrate", "--dry-run"], audited_env)
    assert dry.returncode == 0 and "nothing saved" in dry.stderr and category in dry.stdout
    result = run_cli(["recalibrate"], audited_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Saved calibration version 1" in result.stderr
    with session_scope(url, write=False) as session:
        calibration = repository.latest_calibration(session)
        scale, bias = calibration.params[category]
        assert calibration.apply(category, 0.9) < 0.5  # every one of them was wrong
        row = session.get(schema.Calibration, 1)
        assert row.decisions == 30 and row.report[category]["kept"]
    again = some_samples(sample_dir, tmp_path / "again", TEXT_SAMPLES)  # the scan's OCR is not what this is about
    assert run_cli(["audit", str(again), "--out", str(tmp_path / "b"), "--batch-id", "rc2"],
                   audited_env).returncode == 0
    with session_scope(url, write=False) as session:
        rows = (session.query(schema.Finding).join(schema.Document)
                .filter(schema.Document.batch_id == "rc2", schema.Finding.producer == "aggregate",
                        schema.Finding.category == category).all())
        assert rows and all(r.detail["calibration"]["version"] == 1 for r in rows)
        assert all(r.confidence == _recalibrated(calibration, category, r) for r in rows)
        document = session.query(schema.Document).filter_by(batch_id="rc2", id=rows[0].document_id).one()
        assert document.assessment["calibration"] == 1


def test_value_items_are_counted_labelled_and_fitted_under_their_value_key(audited_env: dict[str, str]) -> None:
    url = sqlite_url(audited_env)
    key = value_key("Governing Law")
    with session_scope(url, write=False) as session:
        before = repository.review_item_counts(session)
    seed_wrong_decisions(url, "Governing Law", 30, question="value")
    with session_scope(url) as session:  # an undecided sampled value item, and an item asking neither question
        document_id = session.query(schema.Document.id).order_by(schema.Document.id).first()[0]
        for question, sample in (("value", 1.0), ("conflict", 0.0)):
            session.add(schema.ReviewItem(document_id=document_id, category="Governing Law", reason="?", priority=0.5,
                                          evidence={"confidence": 0.95, "priority_parts": {"question": question,
                                                                                           "sample": sample}}))
    with session_scope(url, write=False) as session:
        after = repository.review_item_counts(session)
        labels = [x for x in review_labels(repository.item_trails(session).values()) if x.category == key]
    added = {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}
    assert added == {(key, False): 30, (key, True): 1}
    assert len(labels) == 30 and not any(x.right for x in labels)
    dry = run_cli(["recalibrate", "--dry-run"], audited_env)
    assert dry.returncode == 0 and "Governing Law (value)" in dry.stdout, dry.stdout + dry.stderr
