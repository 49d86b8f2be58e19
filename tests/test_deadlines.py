"""The term in force and the next deadline: renewals roll forward only when they happen by
themselves, never past their limit, and a notice window that has just closed is said."""
from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path

import pytest
from conftest import AUDITED_BATCH, run_cli
from icalendar import Calendar
from test_key_term_values import EVERGREEN, assess, value
from test_terms_dates import _terms

from pipelines.datamodel import DocumentResult, DocumentStatus
from pipelines.deadlines import deadline_for, deadlines_of, term_in_force
from pipelines.samples.sampleset import MANIFEST
from pipelines.terms.display import how_read
from pipelines.terms.renewal import exercise_notice, renewal_kind, renewal_limit

DOC = DocumentResult(1, "supply.pdf", "/in/supply.pdf", DocumentStatus.DONE)
NOTICE = "Notice Period To Terminate Renewal"


def _with(renewal: dict, *, expiry: str = "2012-03-01", notice: str | None = "P90D") -> list:
    """EVERGREEN with another expiry, renewal and notice."""
    kept = [f for f in EVERGREEN if f.category not in ("Expiration Date", "Renewal Term", NOTICE)]
    found = [*kept, value("Expiration Date", expiry, start=2000, end=2100, page=2),
             value("Renewal Term", renewal.pop("value", "P1Y"), start=2100, end=2200, page=2, **renewal)]
    if notice is not None:
        found.append(value(NOTICE, notice, start=2200, end=2300, page=3))
    return found


def test_a_conditional_extension_is_not_rolled_forward():
    # "shall automatically extend for an additional two years, provided the licensor receives ..."
    findings = _with({"value": "P2Y", "kind": "conditional", "automatic": False, "limit": 1},
                     expiry="2021-02-01", notice=None)
    a = assess(findings)
    term = term_in_force(a.key_terms, date(2026, 12, 6))
    assert (term.status, term.end, term.renewals) == ("expired", date(2021, 2, 1), 0)
    assert deadline_for(DOC, a, date(2026, 12, 6)) is None
    running = deadline_for(DOC, a, date(2021, 1, 10))
    assert running is not None and running.kind == "term-end" and running.date == date(2021, 2, 1)
    assert "only if a condition is met" in running.computed


def test_a_renewal_whose_notice_window_just_closed_is_said():
    findings = _with({"kind": "automatic", "automatic": True, "successive": True, "limit": None},
                     expiry="2007-12-23", notice="P30D")
    deadline = deadline_for(DOC, assess(findings), date(2026, 12, 6))
    assert deadline is not None and deadline.kind == "renewal"
    assert (deadline.date, deadline.closed, deadline.next_notice) == (date(2026, 12, 23), date(2026, 11, 23),
                                                                     date(2027, 11, 23))
    assert deadline.horizon == 30 and deadline.days == 17
    assert "notice window closed on 23 November 2026" in deadline.explanation()
    assert "next window closes on 23 November 2027" in deadline.explanation()


def test_renewals_stop_at_their_limit():
    findings = _with({"kind": "automatic", "automatic": True, "limit": 2}, expiry="2020-01-01", notice=None)
    a = assess(findings)
    assert term_in_force(a.key_terms, date(2026, 12, 6)).status == "expired"
    last = term_in_force(a.key_terms, date(2021, 6, 1))
    assert (last.end, last.renewals, last.next_end) == (date(2022, 1, 1), 2, None)
    deadline = deadline_for(DOC, a, date(2021, 11, 15))
    assert deadline is not None and deadline.kind == "term-end" and deadline.date == date(2022, 1, 1)
    assert "Renewed 2 times (at most 2)" in deadline.computed and "allows no more" in deadline.computed


def test_an_option_gives_the_last_day_to_exercise_it_and_nothing_after_the_term():
    findings = _with({"kind": "option", "automatic": False, "limit": 1, "exercise_notice": "P6M",
                      "exercise_notice_text": "six (6) months"}, expiry="2027-03-01", notice=None)
    a = assess(findings)
    deadline = deadline_for(DOC, a, date(2026, 8, 15))
    assert deadline is not None and deadline.kind == "option-deadline" and deadline.date == date(2026, 9, 1)
    assert "by notice given six (6) months before it" in deadline.explanation()
    later = deadline_for(DOC, a, date(2027, 1, 15))  # the option's window passed: the term's end remains
    assert later is not None and later.kind == "term-end" and later.date == date(2027, 3, 1)
    assert deadline_for(DOC, a, date(2027, 6, 1)) is None  # not rolled forward: nobody said it was exercised


def test_a_computed_value_says_what_it_lacks_in_words():
    findings = [value("Expiration Date", "not stated", start=2000, end=2100, computed_from={"start": None, "term": "P1Y"})]
    expiration = assess(findings).key_terms["Expiration Date"]
    assert how_read(expiration) == "computed from term 1 year; the start is not stated"
    assert "None" not in how_read(expiration)


def test_how_a_contract_renews_is_read_from_its_clause():
    conditional = ("This Licence shall automatically extend for one further period of two (2) years, provided the "
                   "Licensor has received royalties above five million dollars during the Initial Term.")
    assert (renewal_kind(conditional), renewal_limit(conditional)) == ("conditional", 1)
    proviso = ("This Agreement shall renew automatically for successive one (1) year periods, provided, however, that "
               "either party may end it by written notice sixty (60) days before the end of the then-current term.")
    assert (renewal_kind(proviso), renewal_limit(proviso)) == ("automatic", None)
    capped = "The Agreement will automatically renew for up to three (3) renewal terms of two (2) years each."
    assert renewal_limit(capped) == 3
    yearly = "This Agreement shall automatically renew for an additional one (1) year period on each anniversary."
    assert renewal_limit(yearly) is None
    option = ("The Distributor may renew this Agreement for two (2) additional terms of five (5) years by written "
              "notice given not less than three (3) months nor more than nine (9) months before the expiry of the term.")
    assert (renewal_kind(option), renewal_limit(option)) == ("option", 2)
    assert exercise_notice(option, 0, len(option)) == ("P3M", "three (3) months")


def test_a_renewal_value_carries_its_kind_limit_and_option_notice():
    _, terms = _terms(
        "This Storage Agreement is made as of May 4, 2018 between Kestrel Tanks Ltd and Plover Oil plc.\n\n"
        "4. Term. The term of this Agreement shall be three (3) years from the date hereof.\n\n"
        "5. Renewal. Plover shall have the option to extend this Agreement for one additional term of three (3) "
        "years by written notice given at least four (4) months before the end of the term.")
    renewal = terms["Renewal Term"]
    assert renewal.value == "P3Y"
    assert (renewal.detail["kind"], renewal.detail["limit"], renewal.detail["exercise_notice"]) == ("option", 1, "P4M")


def test_report_as_of_a_day_writes_that_days_calendar(sample_dir: Path, audited_env: dict[str, str], tmp_path: Path):
    """`clausemill report --as-of`: deadlines.ics beside the reports, counted from that day; a
    sample that renews by itself, read exactly, has its notice date there."""
    manifest = json.loads((sample_dir / MANIFEST).read_text())["files"]
    renewing = [f for f in manifest if f.get("renewal") and f["renewal"]["automatic"] and f.get("notice_days")]
    assert renewing, "the samples have no contract that renews by itself"
    sample = renewing[0]
    due = date.fromisoformat(sample["expiration_date"]) - timedelta(days=sample["notice_days"])
    as_of = due - timedelta(days=10)
    result = run_cli(["report", AUDITED_BATCH, "--out", str(tmp_path / "r"), "--as-of", as_of.isoformat()], audited_env)
    assert result.returncode == 0, result.stdout + result.stderr
    documents = {d["filename"]: d for d in json.loads((tmp_path / "r" / "report.json").read_text())["documents"]}
    terms = documents[sample["file"]]["assessment"]["key_terms"]
    assert terms["Expiration Date"]["value"] == sample["expiration_date"]
    events = {str(e["DESCRIPTION"]).split("File: ", 1)[1].splitlines()[0]: e
              for e in Calendar.from_ical((tmp_path / "r" / "deadlines.ics").read_bytes()).walk("VEVENT")}
    event = next(e for path, e in events.items() if Path(path).name == sample["file"])
    assert event["DTSTART"].dt == due and "Last day for notice of non-renewal" in str(event["SUMMARY"])
    refused = run_cli(["report", AUDITED_BATCH, "--as-of", "31/12/2026"], audited_env)
    assert refused.returncode == 2 and "is not a date like 2026-12-31" in refused.stderr


def test_report_json_gives_the_term_in_force_and_every_dated_event(tmp_path: Path):
    from pipelines.datamodel import BatchResult
    from pipelines.reports import write_reports

    batch = BatchResult("b-1", "done", "2026-12-01T00:00:00Z", "2026-12-01T00:01:00Z", [
        DocumentResult(1, "msa.pdf", "/in/msa.pdf", DocumentStatus.DONE, page_count=5, findings=EVERGREEN)])
    write_reports(batch, tmp_path, as_of=date(2026, 10, 1))
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["as_of"] == "2026-10-01"
    document = report["documents"][0]
    assert document["term_in_force"]["status"] == "running" and document["term_in_force"]["end"] == "2027-03-01"
    assert document["term_in_force"]["shown"] == "until 01 Mar 2027 · renews"
    notice, renewal = document["deadlines"]
    assert (notice["kind"], notice["date"], notice["horizon"]) == ("renewal-notice", "2026-12-01", 90)
    assert (renewal["kind"], renewal["date"], renewal["horizon"]) == ("renewal", "2027-03-01", None)
    assert notice["pages"] == [2, 3] and 0 < notice["confidence"] <= 1 and "Renewed 15 times" in notice["computed"]
    assert "None" not in json.dumps(document["deadlines"]).replace("null", "")


FIXTURE = Path(__file__).parent / "fixtures" / "deadlines_train.json"


@pytest.mark.cuad
def test_deadlines_of_training_contracts_read_by_hand(cuad_dir: Path):
    """The term in force and the next deadline, through the rules and aggregation as an audit
    runs them, against tests/fixtures/deadlines_train.json: facts read by hand from CUAD training
    contracts (offsets into their text), worked out as of the fixture's day.  No deadline may
    be invented for an option, a condition or a contract that ended; the rest is a floor that
    ops/benchmarks/deadlines.py measures in full (docs/ACCURACY.md)."""
    from pipelines.aggregate import aggregate_document
    from pipelines.datamodel import document_text
    from pipelines.playbook import load_playbook
    from pipelines.stages.extract import extract_text_layer
    from pipelines.stages.segment import segment_document
    from pipelines.steps import rules_analyser

    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    as_of, playbook = date.fromisoformat(fixture["as_of"]), load_playbook(None)
    status_right = deadline_right = with_deadline = 0
    invented = []
    for entry in fixture["contracts"]:
        path = cuad_dir / "txt" / entry["file"]
        text = path.read_text(encoding="utf-8")
        assert all(0 <= e["start"] < e["end"] <= len(text) for e in entry["evidence"]), entry["file"]
        pages = extract_text_layer(path, "txt")
        key_terms = aggregate_document(rules_analyser(document_text(pages)[0], segment_document(pages)), playbook,
                                       len(pages)).key_terms
        term = term_in_force(key_terms, as_of)
        found = deadlines_of(DocumentResult(1, path.name, str(path), DocumentStatus.DONE), key_terms, as_of)
        ours = (found[0].kind, found[0].date.isoformat()) if found else None
        expected = entry["next_deadline"]
        status_right += term.status == {"unknown": "not stated"}.get(entry["status_as_of"], entry["status_as_of"])
        if expected is None and ours is not None:
            invented.append((entry["file"], ours))
        if expected is not None:
            with_deadline += 1
            deadline_right += ours == (expected["kind"], expected["date"])
    assert invented == []
    assert status_right / len(fixture["contracts"]) >= 1.0 and deadline_right / with_deadline >= 0.93, \
        (status_right, deadline_right, with_deadline)


def test_a_term_that_runs_on_until_terminated_after_its_end():
    findings = _with({"value": "perpetual", "kind": "automatic", "automatic": True, "limit": None},
                     expiry="2027-02-01", notice=None)
    a = assess(findings)
    running = term_in_force(a.key_terms, date(2026, 12, 6))
    assert running.shown() == "until 01 Feb 2027 · then until terminated"
    deadline = deadline_for(DOC, a, date(2026, 12, 6))
    assert deadline is not None and deadline.kind == "renewal" and deadline.date == date(2027, 2, 1)
    assert term_in_force(a.key_terms, date(2027, 6, 1)).status == "until terminated"
