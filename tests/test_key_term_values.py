"""Key-term values from pipelines.terms as the report, the spreadsheet and the calendar show them."""
from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path

import openpyxl
from icalendar import Calendar

from pipelines.aggregate import aggregate_document
from pipelines.datamodel import BatchResult, DocumentResult, DocumentStatus, Finding, PageText, document_text
from pipelines.deadlines import deadline_for, write_ics
from pipelines.playbook import load_playbook
from pipelines.reports import write_reports
from pipelines.reports.tables import CONTRACT_HEADERS
from pipelines.stages.segment import segment_document
from pipelines.terms import NOT_STATED, VALUE_NOTE
from pipelines.terms.calibration import TABLE_PATH, calibrated
from pipelines.terms.display import display_value
from pipelines.terms.findings import value_findings


def value(category: str, value: str, *, start: int = 0, end: int = 0, page: int = 1, confidence: float = 0.9,
          **detail: object) -> Finding:
    quote = "" if end <= start else f"{category} quote"
    evidence = [{"role": "clause", "start": start, "end": end, "text": quote, "page": page}] if quote else []
    return Finding(category, quote, start, end, page, confidence, "key-terms", "test", value=value,
                   note=VALUE_NOTE, detail={**detail, "evidence": evidence})


EVERGREEN = [
    value("Parties", 'Acme <Corp> ("Acme"); Jane Doe ("Consultant")', start=10, end=90,
          parties=[{"name": "Acme <Corp>", "short_names": ["Acme"], "role": None, "jurisdiction": "Delaware",
                    "kind": "organisation"},
                   {"name": "Jane Doe", "short_names": ["Consultant"], "role": "Consultant", "jurisdiction": None,
                    "kind": "individual"}]),
    value("Agreement Date", NOT_STATED, start=100, end=130),
    value("Effective Date", "2009-03-01", start=140, end=160),
    value("Initial Term", "P3Y", start=2000, end=2100, page=2, text="three (3) years"),
    value("Expiration Date", "2012-03-01", start=2000, end=2100, page=2,
          computed_from={"effective_date": "2009-03-01", "initial_term": "P3Y"}),
    value("Renewal Term", "P1Y", start=2100, end=2200, page=2, successive=True, automatic=True),
    value("Notice Period To Terminate Renewal", "P90D", start=2200, end=2300, page=3, text="ninety (90) days"),
    value("Governing Law", "New York", start=5000, end=5100, page=4, forum="the courts of New York County"),
    Finding("Parties", "This Agreement is made by and between Acme and Jane Doe, residing at 1 Main St", 5, 95,
            1, 0.97, "model", "model-1"),
]


def assess(findings: list[Finding]):  # noqa: ANN201
    return aggregate_document(findings, load_playbook(None), 5)


def test_read_values_win_over_clause_spans_and_keep_their_structure():
    a = assess(EVERGREEN)
    parties = a.key_terms["Parties"]
    assert parties.basis == "read" and parties.value == 'Acme <Corp> ("Acme"); Jane Doe ("Consultant")'
    assert [p["kind"] for p in parties.detail["parties"]] == ["organisation", "individual"]
    assert "residing" not in parties.value  # the model's preamble sentence is evidence, not the value
    assert a.key_terms["Initial Term"].value == "P3Y"
    assert a.key_terms["Expiration Date"].detail["computed_from"] == {"effective_date": "2009-03-01",
                                                                      "initial_term": "P3Y"}
    assert not a.key_terms["Agreement Date"].stated


def test_a_blank_date_the_playbook_needs_goes_to_review_and_makes_no_check():
    a = assess([*EVERGREEN[:2], value("Notice Period To Terminate Renewal", NOT_STATED, start=10, end=20)])
    reasons = [r.reason for r in a.review]
    assert any(r.startswith("Notice Period To Terminate Renewal is not stated") for r in reasons)
    assert not any("Could not read" in r for r in reasons)


def test_values_read_as_a_lawyer_writes_them():
    assert display_value("Effective Date", "2009-03-01") == "March 1, 2009"
    assert display_value("Renewal Term", "P1Y", {"successive": True}) == "successive 1-year periods"
    assert display_value("Renewal Term", "P2Y", {"automatic": False}) == "2 years (at a party's option)"
    assert display_value("Notice Period To Terminate Renewal", "P90D") == "90 days"
    assert display_value("Initial Term", "until an event", {"event": "the last patent expires"}) == "until the last patent expires"
    assert display_value("Expiration Date", "perpetual") == "perpetual"


def test_an_evergreen_contract_signed_in_2009_still_has_a_notice_date(tmp_path: Path):
    doc = DocumentResult(1, "msa.pdf", "/in/msa.pdf", DocumentStatus.DONE)
    deadline = deadline_for(doc, assess(EVERGREEN), date(2026, 12, 1))
    # 2012-03-01 rolled forward a year at a time: the term ends 2027-03-01, notice 90 days before.
    assert deadline is not None and deadline.kind == "renewal-notice"
    assert deadline.term_end == date(2027, 3, 1) and deadline.date == date(2026, 12, 1)
    assert "Renewed 15 times" in deadline.computed and "effective date March 1, 2009" in deadline.computed
    assert {e.page for e in deadline.evidence} == {2, 3}
    write_ics([deadline], tmp_path / "deadlines.ics", generated_at=datetime(2026, 12, 1, tzinfo=timezone.utc))
    event = next(iter(Calendar.from_ical((tmp_path / "deadlines.ics").read_bytes()).walk("VEVENT")))
    description = str(event["DESCRIPTION"])
    assert "Last day for notice of non-renewal" in str(event["SUMMARY"])
    assert "90 days" in description and "Renewed 15 times" in description and "(page 3)" in description


def test_an_option_to_renew_or_a_term_left_open_makes_no_event():
    doc = DocumentResult(1, "msa.pdf", "/in/msa.pdf", DocumentStatus.DONE)
    option = [f for f in EVERGREEN if f.category != "Renewal Term"] + [
        value("Renewal Term", "P1Y", start=2100, end=2200, page=2, automatic=False)]
    assert deadline_for(doc, assess(option), date(2026, 12, 1)) is None
    open_ended = [f for f in EVERGREEN if f.category != "Expiration Date"] + [
        value("Expiration Date", NOT_STATED, start=2000, end=2100)]
    assert deadline_for(doc, assess(open_ended), date(2026, 12, 1)) is None


def test_report_and_spreadsheet_show_each_value_with_confidence_and_evidence(tmp_path: Path):
    batch = BatchResult("b-1", "done", "2026-12-01T00:00:00Z", "2026-12-01T00:01:00Z", [
        DocumentResult(1, "msa.pdf", "/in/msa.pdf", DocumentStatus.DONE, page_count=5, findings=EVERGREEN)])
    write_reports(batch, tmp_path, view="full", as_of=date(2026, 10, 1))
    book = openpyxl.load_workbook(tmp_path / "report.xlsx")
    row = dict(zip(CONTRACT_HEADERS, next(book["Contracts"].iter_rows(min_row=2, values_only=True))))
    assert row["Effective Date"].date() == date(2009, 3, 1)  # a date cell: the portfolio sorts by it
    assert row["Governing Law"] == "New York" and row["Forum"] == "the courts of New York County"
    # a date column holds dates only: "not stated" is the empty cell's comment
    agreement_date = book["Contracts"].cell(row=2, column=CONTRACT_HEADERS.index("Agreement Date") + 1)
    assert agreement_date.value is None and agreement_date.comment.text == "not stated"
    assert row["Term in force"] == "until 01 Mar 2027 · renews"
    assert row["Next deadline"].date() == date(2026, 12, 1) and row["Deadline"] == "Last day for notice of non-renewal"
    # durations are days to sort and filter by, shown in the contract's words
    assert row["Initial Term"] == 1096 and row["Renewal Term"] == 365
    formats = {h: c.number_format for h, c in zip(CONTRACT_HEADERS, book["Contracts"][2])}
    assert formats["Initial Term"] == '"3 years"' and formats["Renewal Term"] == '"successive 1-year periods"'
    evidence = {r[1]: r for r in book["Key-term evidence"].iter_rows(min_row=2, values_only=True)}
    assert evidence["Expiration Date"][3] == 0.9
    assert evidence["Expiration Date"][4].startswith("computed from effective date March 1, 2009")
    assert evidence["Governing Law"][4] == "read from the contract"  # the forum has a column of its own
    assert "clause p. 4: Governing Law quote" in evidence["Governing Law"][5]
    html = (tmp_path / "report.html").read_text()
    assert "Acme &lt;Corp&gt;" in html and "<Corp>" not in html
    assert "March 1, 2009" in html and "not stated" in html and "confidence 0.90" in html
    assert '<th scope="row">Forum</th><td>the courts of New York County</td>' in html
    report = json.loads((tmp_path / "report.json").read_text())
    terms = report["documents"][0]["assessment"]["key_terms"]
    assert terms["Parties"]["finding"]["detail"]["parties"][1]["kind"] == "individual"


def test_a_reader_constant_becomes_the_share_right_the_training_map_gives():
    table = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    assert calibrated("Effective Date", 0.9) == table["Effective Date"]["0.9"]
    assert calibrated("Effective Date", 0.88) == table["Effective Date"]["0.9"]  # the nearest level measured
    assert calibrated("Initial Term", 0.8) == 0.8  # CUAD has no answer to measure it by


def test_a_value_finding_carries_the_calibrated_confidence_and_the_readers_constant():
    pages = [PageText(number=1, text="SUPPLY AGREEMENT\n\nThis Supply Agreement is dated March 1, 2020 between "
                      "Alder Freight Ltd and Birchwood Mills plc.\n\n12. Governing Law. This Agreement shall be "
                      "governed by and construed in accordance with the laws of the State of New York.",
                      source="plain")]
    text, _ = document_text(pages)
    findings = {f.category: f for f in value_findings(text, segment_document(pages))}
    law = findings["Governing Law"]
    assert law.value == "New York"
    read = law.detail["read_confidence"]
    assert law.confidence == json.loads(TABLE_PATH.read_text(encoding="utf-8"))["Governing Law"][str(read)] != read
    assert all(f.confidence == calibrated(f.category, f.detail["read_confidence"]) for f in findings.values())
