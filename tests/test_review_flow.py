"""Every kind of answer a reviewer gives flows into every report (issue 42, item 3): after a
"yes", a "no", "another clause", "the words are elsewhere" and a corrected value on an audited
batch of the samples, `clausemill report` shows the same thing in report.json (findings,
issues, level, the category counts the chart draws), the xlsx (Contracts and Issues sheets)
and findings.csv.  A clause a reviewer confirms stands over the quote check that had set it
aside: it raises its playbook issue and moves the contract's level."""
from __future__ import annotations

import csv
import json
from datetime import date, datetime
from pathlib import Path

import openpyxl
from sqlalchemy import select

from conftest import AUDITED_BATCH, run_cli, sqlite_url
from pipelines.playbook import load_playbook
from pipelines.playbook.severity import RISK_LEVELS, level_for_severity
from pipelines.review.decisions import question_of
from pipelines.review.queue import decide
from storage import schema
from storage.database import session_scope

NOW = datetime(2026, 12, 7, 9)
PLAYBOOK = load_playbook(None)
RISKY = {r.category: r.severity for r in PLAYBOOK.risky}


def open_items(url: str) -> list[tuple[schema.ReviewItem, str]]:
    with session_scope(url, write=False) as session:
        rows = session.execute(select(schema.ReviewItem, schema.Document.filename).join(schema.Document)
                               .where(schema.ReviewItem.status == "open")
                               .order_by(schema.ReviewItem.priority.desc(), schema.ReviewItem.id)).all()
        session.expunge_all()
        return [(item, filename) for item, filename in rows]


def confidence(item: schema.ReviewItem) -> float:
    return float(item.evidence["confidence"])


def findings_on(doc: dict, category: str, start: int, end: int) -> list[dict]:
    """The document's shown findings of `category` overlapping start-end."""
    return [m["finding"] for m in doc["assessment"]["findings"]
            if m["finding"]["category"] == category and m["finding"]["start"] < end and m["finding"]["end"] > start
            and m["finding"]["confidence"] >= PLAYBOOK.thresholds.floor]


def test_each_kind_of_answer_reaches_every_report(audited_env: dict[str, str], tmp_path: Path) -> None:
    url = sqlite_url(audited_env)
    items = open_items(url)
    clauses = [(i, f) for i, f in items
               if question_of(i.evidence) == "presence" and not i.evidence["priority_parts"].get("sample")]
    unsure_risky = next((i, f) for i, f in clauses if i.category in RISKY and confidence(i) < PLAYBOOK.thresholds.present)
    rest = [(i, f) for i, f in clauses if i.id != unsure_risky[0].id]
    reported = next((i, f) for i, f in rest if confidence(i) >= PLAYBOOK.thresholds.present)
    rest = [(i, f) for i, f in rest if i.id != reported[0].id]
    relabelled, moved = rest[0], rest[1]
    other = "Non-Compete" if relabelled[0].category != "Non-Compete" else "Exclusivity"
    dated = next((i, f) for i, f in items if question_of(i.evidence) == "value"
                 and i.category in ("Effective Date", "Expiration Date", "Agreement Date"))
    typed = date(2025, 7, 14)
    start, end = moved[0].evidence["start"] + 5, moved[0].evidence["end"] - 5
    with session_scope(url) as session:
        decide(session, unsure_risky[0].id, "ann", "accept", 1, NOW)
        decide(session, reported[0].id, "ann", "reject", 1, NOW, reason="not_a_clause")
        decide(session, relabelled[0].id, "ann", "correct", 1, NOW, new={"category": other})
        decide(session, moved[0].id, "ann", "correct", 1, NOW,
               new={"start": start, "end": end, "text": moved[0].evidence["text"][5:-5]})
        decide(session, dated[0].id, "ann", "correct", 1, NOW, new={"value": typed.isoformat(), "detail": {}})
    out = tmp_path / "after"
    result = run_cli(["report", AUDITED_BATCH, "--out", str(out)], audited_env)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    docs = {d["filename"]: d for d in report["documents"]}
    workbook = openpyxl.load_workbook(out / "report.xlsx")
    contracts = {row[0]: row for row in workbook["Contracts"].iter_rows(min_row=2, values_only=True)}
    header = [c.value for c in workbook["Contracts"][1]]
    issues = {(row[0], row[3], row[2]) for row in workbook["Issues"].iter_rows(min_row=2, values_only=True)}
    with open(out / "findings.csv", newline="", encoding="utf-8") as f:
        csv_rows = list(csv.DictReader(f))

    # "Yes" on a risky clause the machine was unsure of: verified, its issue raised, the level moved.
    item, filename = unsure_risky
    doc = docs[filename]
    severity = RISKY[item.category]
    assert any(f["confidence"] == 1.0 for f in findings_on(doc, item.category, item.evidence["start"],
                                                           item.evidence["end"]))
    assert ("risky", item.category) in {(i["kind"], i["finding"]["category"]) for i in doc["assessment"]["issues"]}
    level = doc["assessment"]["risk_level"]
    assert RISK_LEVELS.index(level) >= RISK_LEVELS.index(level_for_severity(severity))
    assert report["summary"]["categories"][item.category].get(severity, 0) >= 1  # the chart counts it
    assert (filename, item.category, "risky") in issues
    assert contracts[filename][header.index("Level")] == doc["assessment"]["risk_level"]

    # "No" on a clause reported as present: gone from the findings, the csv and the issues.
    item, filename = reported
    assert findings_on(docs[filename], item.category, item.evidence["start"], item.evidence["end"]) == []
    assert not any(r["File"] == filename and r["Category"] == item.category and r["Start"] == str(item.evidence["start"])
                   for r in csv_rows)

    # "It's another clause": the other category at that span, verified; the first one gone there.
    item, filename = relabelled
    start_, end_ = item.evidence["start"], item.evidence["end"]
    assert any(f["confidence"] == 1.0 for f in findings_on(docs[filename], other, start_, end_))
    assert findings_on(docs[filename], item.category, item.evidence["start"], item.evidence["end"]) == []

    # "The words are elsewhere": the clause at the span the reviewer selected.
    item, filename = moved
    assert any(f["confidence"] == 1.0 and (f["start"], f["end"]) == (start, end)
               for f in findings_on(docs[filename], item.category, start, end))

    # A corrected value: in report.json and in the xlsx's column for that key term.
    item, filename = dated
    assert docs[filename]["assessment"]["key_terms"][item.category]["value"] == typed.isoformat()
    cell = contracts[filename][header.index(item.category)]
    assert (cell.date() if isinstance(cell, datetime) else cell) == typed
